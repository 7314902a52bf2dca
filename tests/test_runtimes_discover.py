"""`c10k runtimes`: interpreters found in pyenv, PATH and the build cache, each asked about
itself; resolve's choices and its one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.runtimes import cli
from bench.runtimes.discover import (
    BUILD_MARKER,
    NoSuchRuntime,
    Runtime,
    find_runtimes,
    resolve,
)


def fake_python(path: Path, version: str, gil_disabled: bool = False) -> Path:
    """A script that answers the probe as a CPython of that version would."""
    major, minor = version.split(".")[:2]
    answer = {
        "version": version,
        "major": int(major),
        "minor": int(minor),
        "implementation": "CPython",
        "gil_disabled": gil_disabled,
        "build": "(main, Jan  1 2026, 00:00:00) [GCC 12.2.0]",
        "executable": str(path),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho '{json.dumps(answer)}'\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Path]:
    """A pyenv root with 3.10, 3.12 and a free-threaded 3.13t, a PATH dir with 3.11 and a
    link to pyenv's 3.12, a finished 3.14t build and an unfinished 3.14 one."""
    pyenv, bin_dir, cache = tmp_path / "pyenv", tmp_path / "bin", tmp_path / "cache"
    fake_python(pyenv / "versions/3.10.4/bin/python3", "3.10.4")
    py312 = fake_python(pyenv / "versions/3.12.1/bin/python3", "3.12.1")
    fake_python(pyenv / "versions/3.13.0t/bin/python3.13t", "3.13.0", gil_disabled=True)
    fake_python(pyenv / "shims/python3.12", "3.12.9")  # a shim: never listed
    fake_python(bin_dir / "python3.11", "3.11.2")
    bin_dir.joinpath("python3.12").symlink_to(py312)
    bin_dir.joinpath("python3-config").write_text("")
    built = cache / "cpython/3.14t"
    fake_python(built / "bin/python3.14t", "3.14.0", gil_disabled=True)
    (built / BUILD_MARKER).write_text("{}")
    fake_python(cache / "cpython/3.14/bin/python3.14", "3.14.0")  # no marker: unfinished
    return {"pyenv": pyenv, "bin": bin_dir, "cache": cache, "py312": py312}


def found(machine: dict[str, Path]) -> list[Runtime]:
    return find_runtimes(
        machine["pyenv"], [str(machine["bin"]), str(machine["pyenv"] / "shims")], machine["cache"]
    )


def test_finds_each_interpreter_once_with_its_origin_and_gil(machine: dict[str, Path]) -> None:
    runtimes = found(machine)
    listed = [(r.tag, r.version, r.origin, r.supported) for r in runtimes]
    assert listed == [
        ("3.10", "3.10.4", "pyenv", False),
        ("3.11", "3.11.2", "PATH", True),
        ("3.12", "3.12.1", "pyenv", True),  # PATH's link to it is the same interpreter
        ("3.13t", "3.13.0", "pyenv", True),
        ("3.14t", "3.14.0", "built", True),  # the unfinished 3.14 build is not listed
    ]
    assert runtimes[-1].gil_disabled and not runtimes[2].gil_disabled
    assert runtimes[2].executable == machine["py312"]
    assert runtimes[2].build.startswith("(main, Jan 1 2026")


def test_resolve_by_tag_version_or_path(machine: dict[str, Path]) -> None:
    runtimes = found(machine)
    assert resolve("3.14t", runtimes).origin == "built"
    assert resolve("3.11.2", runtimes).tag == "3.11"
    assert resolve("3.13.0t", runtimes).tag == "3.13t"
    given = resolve(str(machine["bin"] / "python3.11"), runtimes)
    assert (given.tag, given.origin) == ("3.11", "given")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("3.15", "no Python 3.15 found (`c10k runtimes` lists them); found: 3.11, 3.12, 3.13t"),
        ("3.10", "Python 3.10 is too old (the project needs 3.11+); found: 3.11, 3.12, 3.13t"),
        ("3.14", "no Python 3.14 found"),  # only the free-threaded one is finished
        ("/nowhere/python3", "/nowhere/python3 is not a Python interpreter that answers"),
    ],
)
def test_resolve_fails_with_one_line_naming_the_tags(
    machine: dict[str, Path], spec: str, message: str
) -> None:
    with pytest.raises(NoSuchRuntime) as failure:
        resolve(spec, found(machine))
    assert str(failure.value).startswith(message)
    assert "\n" not in str(failure.value)


def test_resolve_a_path_to_an_old_interpreter(machine: dict[str, Path]) -> None:
    with pytest.raises(NoSuchRuntime, match=r"is Python 3\.10\.4; the project needs 3\.11"):
        resolve(str(machine["pyenv"] / "versions/3.10.4/bin/python3"), [])


def test_an_interpreter_that_does_not_answer_is_left_out(tmp_path: Path) -> None:
    broken = tmp_path / "bin/python3.12"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    assert find_runtimes(tmp_path / "nopyenv", [str(broken.parent)], tmp_path) == []


def test_the_table_marks_old_interpreters(machine: dict[str, Path]) -> None:
    lines = cli.runtimes_table(found(machine)).splitlines()
    assert lines[0].split() == ["tag", "version", "GIL", "origin", "path"]
    assert lines[1].endswith("(too old: the project needs 3.11+)")
    assert "free-threaded" in lines[-1] and "built" in lines[-1]


def test_env_names_the_first_interpreter_of_each_supported_tag(machine: dict[str, Path]) -> None:
    runtimes = found(machine)
    lines = cli.env_lines(runtimes)
    names = [line.split("=", 1)[0] for line in lines]
    assert len(names) == len(set(names))  # one per tag
    supported = [r for r in runtimes if r.supported]
    first: dict[str, Runtime] = {}
    for runtime in supported:
        first.setdefault(runtime.tag, runtime)
    expected = {
        f"export C10K_PYTHON_{tag.replace('.', '_').upper()}": str(r.executable)
        for tag, r in first.items()
    }
    assert dict(line.split("=", 1) for line in lines) == expected
    assert "export C10K_PYTHON_3_10" not in names  # too old for the project: no variable


def test_build_hands_each_named_tag_to_the_build_script(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench.runtimes import build

    asked: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        asked.append(argv)
        return 0

    monkeypatch.setattr(build, "main", fake_main)
    assert cli.main(["--build", "3.14t, 3.14"]) == 0
    assert asked == [["3.14t", "3.14"]]


@pytest.mark.skipif(shutil.which("pyenv") is None, reason="pyenv is not installed")
def test_the_real_pyenv_versions_answer() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "c10k.cli", "runtimes", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(done.stdout)
    this = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert any(row["tag"].rstrip("t") == this and row["supported"] for row in rows)
