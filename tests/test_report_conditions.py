"""The report's sections on memory held and peak, the CPU sets, the CPU-bound side and the
harness's cost, on crafted derived figures and on a recorded run given those figures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from bench import results
from bench.harness import cores
from bench.report import conditions, layout
from bench.report.page import write_report
from bench.report.tables import environment_rows
from bench.results import LeftOut, MemoryFit, PerUrl, PinningRecord, Results
from tests.recorded import derive, latency, line, memory_fit, quantity

DATA = Path(__file__).parent / "data"


def text(blocks: list[layout.Block]) -> list[str]:
    """A section's text, small print left out."""
    return [layout.plain(b.spans) for b in blocks if isinstance(b, layout.Paragraph) and not b.note]


def tables(blocks: list[layout.Block]) -> list[layout.Table]:
    return [b for b in layout.walk(blocks) if isinstance(b, layout.Table)]


def point(concurrency: int, at: str = "0", **figures: Any) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "latency": latency(at),
        "site": "deep",
        "processes": 1,
    } | figures


def document(derived: dict[str, Any], pinning: PinningRecord | None = None) -> Results:
    environment = {"pinning": pinning} if pinning is not None else {}
    return cast(Results, {"environment": environment, "derived": derived})


def memory_row(fit: MemoryFit) -> list[Any]:
    """The memory table's row of one sleepy model with this fit."""
    sleepy = {"asyncio": {"points": [], "memory_per_connection": fit}}
    (row,) = conditions.memory_table(document({"sleepy": sleepy})).rows
    return list(row)


def test_memory_rows_put_held_and_peak_side_by_side() -> None:
    row = memory_row(
        memory_fit(
            13 * 1024,
            total=17 * 1024,
            rss_bytes=line(13 * 1024, 0.998),
            kernel_bytes=line(4 * 1024),
            peak_rss_bytes=line(25 * 1024, 0.97),
            runs=0,
        )
    )
    assert row[:2] == ["asyncio", "1,000, 10,000"]
    held = [row[i] for i in (2, 4, 7, 8)]
    assert held == ["13.0 KiB", "0.998", "4.0 KiB", "17.0 KiB"]
    assert row[-2:] == ["25.0 KiB", "0.970"]
    # A fit from one run per point, without the check and the per-URL share.
    assert [row[i] for i in (3, 5, 6, 9, 10)] == ["-", "-", "-", "-", "-"]


def test_memory_rows_show_the_intervals_the_check_and_the_per_url_share() -> None:
    row = memory_row(
        memory_fit(
            12.5 * 1024,
            total=16.5 * 1024,
            total_interval=[15.9 * 1024, 17.1 * 1024],
            concurrencies=[1000, 3000, 10000],
            runs=9,
            rss_bytes=line(
                12.5 * 1024, 0.999, [11.9 * 1024, 13.1 * 1024], [11.65 * 1024, 13.35 * 1024]
            ),
            kernel_bytes=line(4 * 1024),
            check_anon_bytes=line(12.25 * 1024),
            check_gap=-0.02,
            per_url=PerUrl(
                runs=12,
                bytes_per_url=quantity(0.5 * 1024, [0.25 * 1024, 0.75 * 1024], "bytes"),
                net_rss_bytes=quantity(11.5 * 1024, [11.0 * 1024, 12.0 * 1024], "bytes"),
                urls_per_connection=2.0,
                gross_rss_bytes=12.5 * 1024,
            ),
            peak_rss_bytes=line(25 * 1024, 0.97),
        )
    )
    assert row[1] == "1,000, 3,000, 10,000 (9)"
    assert row[2:4] == ["12.5 [11.9, 13.1] KiB", "11.65-13.35 KiB"]
    assert row[5:7] == ["12.2 KiB", "-2.0%"]
    assert row[8] == "16.5 [15.9, 17.1] KiB"
    assert row[9:11] == ["0.50 [0.25, 0.75] KiB", "11.5 [11.0, 12.0] KiB"]


def test_a_fit_from_before_peak_shows_no_peak() -> None:
    assert memory_row(memory_fit(24_000))[-2:] == ["-", "-"]


def test_the_memory_section_names_a_point_left_out_of_a_fit() -> None:
    threads = memory_fit(23_000)
    sleepy: dict[str, Any] = {
        "threads": {"points": [], "memory_per_connection": threads},
        "asyncio": {"points": [], "memory_per_connection": memory_fit(10_000)},
    }
    (lead,) = text(conditions.memory_section(document({"sleepy": sleepy})))
    assert "Left out" not in lead
    left_out = [LeftOut(concurrency=10_000, pages=20_000, verified=1, runs=3)]
    sleepy["threads"]["memory_per_connection"] = replace(threads, left_out=left_out)
    (lead,) = text(conditions.memory_section(document({"sleepy": sleepy})))
    assert lead.endswith("threads at C 10,000 (1 of 3 verified).")
    assert "asyncio at" not in lead


def test_no_sleepy_run_says_not_measured() -> None:
    section = conditions.memory_section(document({}))
    assert text(section) == ["Not measured."] and not tables(section)


def test_the_cpu_bound_table_has_a_column_per_point_and_a_row_per_model() -> None:
    bound: dict[str, Any] = {"cpu_bound": "crawler", "crawler_busy": 0.97, "server_busy": 0.899999}
    few = {
        "threads": {"points": [point(1, **bound), point(4)]},
        "asyncio": {"points": [point(4, cpu_bound="server", crawler_busy=0.4, server_busy=0.95)]},
    }
    table = conditions.cpu_bound_table(document({"few-active": few}), "few-active")
    assert table is not None
    assert table.header == ["model", "C 1", "C 4"]
    # A share just under 90% shows as 89%, never as a 90% that the rule did not count.
    assert table.rows == [
        ["threads", "crawler (97% / 89%)", "-"],
        ["asyncio", "-", "server (40% / 95%)"],
    ]


def test_a_latency_sweep_is_headed_by_its_latencies() -> None:
    sweep = {
        "threads": {
            "points": [
                point(100, "10ms", cpu_bound="neither", crawler_busy=0.5, server_busy=0.5),
                point(100, "0", cpu_bound="both", crawler_busy=0.9, server_busy=0.9),
            ]
        }
    }
    table = conditions.cpu_bound_table(document({"latency-sweep": sweep}), "latency-sweep")
    assert table is not None and table.header == ["model", "L 0", "L 10ms"]


def test_points_recorded_before_busy_shares_give_no_table() -> None:
    doc = document({"few-active": {"threads": {"points": [point(1)]}}})
    assert conditions.cpu_bound_table(doc, "few-active") is None
    assert "No run recorded" in text(conditions.cores_section(doc))[-1]


@pytest.mark.parametrize(
    ("mode", "usable", "expected"),
    [
        ("on", [0, 1], "Pinned (--pin on): the server and the harness (with its sampler thread) "
         "on CPU 0, the crawler on CPU 1."),
        ("on", [0], "Not pinned: 1 CPU usable: pinning is impossible, ran unpinned."),
        ("off", [0, 1], "Not pinned (--pin off): the server, the crawler and the harness "
         "shared CPU 0, 1."),
    ],
)  # fmt: skip
def test_the_pinning_line_says_where_each_side_ran(
    mode: str, usable: list[int], expected: str
) -> None:
    doc = document({}, cores.plan_pinning(mode, usable).as_dict())
    assert conditions.pinning_text(doc) == expected
    assert ("CPU sets", expected) in environment_rows(doc)


def test_results_without_pinning_say_so() -> None:
    assert "not recorded" in conditions.pinning_text(document({}))


def test_the_harness_line_gives_its_median_and_max_share() -> None:
    cost = {
        "runs": 12,
        "median_share": 0.012,
        "max_share": 0.034,
        "max_run": "sleepy/asyncio/c10000/s2/measured0",
        "sampler_median_share": 0.009,
    }
    text = conditions.harness_text(document({"harness_cost": cost}))
    assert "12 measured crawls" in text and "median 1.2%" in text and "at most 3.4%" in text
    assert "sleepy/asyncio/c10000/s2/measured0" in text and "0.9%" in text
    assert "not recorded" in conditions.harness_text(document({"harness_cost": None}))


def test_a_recorded_run_with_the_new_figures_shows_them_on_both_pages(tmp_path: Path) -> None:
    doc = results.load(DATA / "report-failures.json")
    doc["environment"]["pinning"] = cores.plan_pinning("on", [0, 1]).as_dict()
    for run in doc["runs"]:
        crawl = run.get("crawl")
        if run.get("samples") and crawl:
            cpu = crawl["cpu_user_s"] + crawl["cpu_sys_s"]
            run["busy"] = cores.busy(cpu, 0.95 * crawl["wall_s"], crawl["wall_s"], 1, 1)
            run["harness"] = cores.harness_share(0.02, 1.0) | {"sampler_cpu_s": 0.01}
    doc["derived"] = derive(doc["runs"], {"sleepy": 0}, doc["environment"])
    written = write_report(doc, tmp_path)
    markdown = written.markdown.read_text(encoding="utf-8")
    page = written.html.read_text(encoding="utf-8")
    for text in (markdown, page):
        assert "Memory per connection, held and peak (sleepy)" in text
        assert "peak: peak-RSS slope" in text
        assert "Isolated cores and the CPU-bound side" in text
        assert "server (" in text  # every crafted point kept its server 95% busy
        assert "median 2.0%, at most 2.0% of one CPU" in text
    assert "Peak (the slope of each run's peak RSS, to provision)" in markdown


def test_each_connection_mode_has_its_cpu_bound_table() -> None:
    bound: dict[str, Any] = {"cpu_bound": "crawler", "crawler_busy": 0.97, "server_busy": 0.5}
    scenario = {"threads": {"points": [point(4, **bound)]}}
    names = ["few-active", "few-active-keep-alive", "sleepy", "sleepy-keep-alive"]
    section = conditions.cores_section(document(dict.fromkeys(names, scenario)))
    assert [t.caption.split(":")[0] for t in tables(section)] == names
