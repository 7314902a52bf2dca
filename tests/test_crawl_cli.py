"""`c10k crawl` and `c10k models` as a user runs them: output, errors and exit codes."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import sysconfig

import pytest

from bench.interpreter import python_command
from c10k import catalog
from impls.cli.crawl import python_block
from tests.tinysite import TinySite, page


def c10k(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        python_command(*args),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_json_document_has_the_documented_fields() -> None:
    with TinySite({"/": page("/a", "/b"), "/a": page()}) as site:
        done = c10k("crawl", site.root, "--model", "threads", "--json", "--concurrency", "3")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["model"] == "threads"
    assert result["concurrency"] == 3
    assert result["fetched"] == {site.root: 200, site.root + "a": 200, site.root + "b": 404}
    assert result["pages"] == 3
    assert result["statuses"] == {"200": 2, "404": 1}
    assert result["errors"] == {}
    assert 1 <= result["peak_in_flight"] <= 3
    assert result["options"]["keep_alive"] is False
    assert result["tries"] == 3
    assert set(result["latency_s"]) >= {"p50", "p90", "p99", "max", "count"}
    for number in ("wall_s", "pages_per_s", "cpu_user_s", "cpu_sys_s", "cpu_us_per_page"):
        assert isinstance(result[number], float), number  # present and numeric, not judged
    # The crawl ran under this interpreter (python_command), which has a GIL unless it is
    # a free-threaded build whose GIL stayed off.
    python = result["python"]
    assert python["version"] == platform.python_version()
    assert python["implementation"] == platform.python_implementation()
    assert python["gil_disabled_build"] is bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    still_off = not getattr(sys, "_is_gil_enabled", lambda: True)()
    assert python["gil_enabled"] is (not python["gil_disabled_build"] or not still_off)


@pytest.mark.parametrize(
    ("build", "is_gil_enabled", "expected"),
    [
        (0, None, True),  # no sys._is_gil_enabled: a GIL build before 3.13
        (0, True, True),
        (1, False, False),  # free-threaded, the GIL stayed off
        (1, True, True),  # free-threaded, an extension turned the GIL back on
    ],
)
def test_the_python_block_reads_the_gil_at_the_end(
    monkeypatch: pytest.MonkeyPatch, build: int, is_gil_enabled: bool | None, expected: bool
) -> None:
    monkeypatch.delattr(sys, "_is_gil_enabled", raising=False)
    if is_gil_enabled is not None:
        monkeypatch.setattr(sys, "_is_gil_enabled", lambda: is_gil_enabled, raising=False)
    real = sysconfig.get_config_var
    monkeypatch.setattr(
        sysconfig, "get_config_var", lambda name: build if name == "Py_GIL_DISABLED" else real(name)
    )
    block = python_block()
    assert block["gil_enabled"] is expected
    assert block["gil_disabled_build"] is bool(build)
    assert block["version"] == platform.python_version()


def test_keep_alive_is_a_flag_and_is_recorded() -> None:
    with TinySite({"/": page("/a", "/b"), "/a": page()}) as site:
        done = c10k(
            "crawl", site.root, "--model", "threads", "--json", "--concurrency", "1", "--keep-alive"
        )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["options"]["keep_alive"] is True
    assert result["fetched"] == {site.root: 200, site.root + "a": 200, site.root + "b": 404}
    assert (site.connections, result["peak_in_flight"]) == (1, 1)


def test_summary_for_a_person() -> None:
    with TinySite({"/": page("/gone")}) as site:
        done = c10k("crawl", site.root, "--model", "threads")
    assert done.returncode == 0, done.stderr
    assert "2 URLs" in done.stdout
    assert "1 × 404" in done.stdout
    assert "pages/s" in done.stdout


def test_unreachable_root_is_a_crawl_with_one_error() -> None:
    with TinySite({}) as site:
        root = site.root
    done = c10k("crawl", root, "--model", "threads", "--json", "--max-tries", "1")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fetched"] == {root: "error:connect"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ftp://127.0.0.1/", "--model", "threads"], "http(s) URL"),
        (["not a url", "--model", "threads"], "http(s) URL"),
        (
            ["http://192.0.2.1/", "--model", "threads"],
            "not a loopback address (pass --allow-non-loopback",
        ),
        (["http://127.0.0.1:99999/", "--model", "threads"], "bad port"),
        (["http://127.0.0.1/", "--model", "nope"], "unknown model"),
        (["http://127.0.0.1/", "--model", "threads", "--concurrency", "0"], "at least 1"),
        (["http://127.0.0.1/", "--model", "threads", "--timeout", "-1"], "more than 0"),
        (["http://127.0.0.1/", "--model", "threads", "--max-body", "lots"], "not a size"),
        (["http://127.0.0.1/", "--model", "threads", "--concurrency", "99999999"], "open files"),
        (["http://127.0.0.1/"], "--model"),
    ],
)
def test_user_mistakes_get_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = c10k("crawl", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_models_lists_every_model() -> None:
    done = c10k("models", "--json")
    assert done.returncode == 0
    rows = json.loads(done.stdout)
    assert [row["name"] for row in rows] == [
        "threads",
        "callbacks",
        "generators",
        "asyncio",
        "asyncio-uvloop",
        "asyncio-rloop",
        "asyncio-veloxloop",
        "asyncio-zuvloop",
        "asyncio-zloop",
        "asyncio-threads",
        "asyncio-threads-uvloop",
        "aiohttp",
        "aiohttp-uvloop",
        "httpx",
        "gevent",
        "trio",
        "interpreters",
        "scrapy",
    ]
    assert [row["name"] for row in rows if row["peer"]] == ["scrapy"]


def test_unknown_command_exit_2() -> None:
    done = c10k("fly")
    assert done.returncode == 2
    assert "unknown command" in done.stderr


@pytest.mark.parametrize("model", [catalog.THREADS, catalog.CALLBACKS, catalog.GENERATORS])
def test_models_without_asyncio_never_import_it(model: catalog.Model) -> None:
    """asyncio brings ssl with it (megabytes of RSS): it must not count in these models' memory."""
    module = model.entry.partition(":")[0]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, impls.cli.crawl, {module}; print('asyncio' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "False"


def test_a_refused_open_files_limit_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    from impls.cli import checks

    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 20_000))
    monkeypatch.setattr(checks, "raise_open_files_limit", lambda needed: 1024)  # refused
    with pytest.raises(checks.UsageError, match="could not raise the open-file limit to 2064"):
        checks.ensure_fd_limit(2000)
