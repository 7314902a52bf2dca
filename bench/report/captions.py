"""The words of the charts: their titles and the interpretation under each, from derived figures."""

from __future__ import annotations

import math

from bench import results
from bench.report.palette import model_order
from bench.results import Results
from c10k import catalog
from c10k.quantity import value_of
from c10k.words import Entry, counts, in_kib, kib, number, percent_gap, ranking, with_interval

IDLE, FEW_ACTIVE, SLEEPY = catalog.IDLE.name, catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
FEW_ACTIVE_KEEP_ALIVE = catalog.FEW_ACTIVE_KEEP_ALIVE.name
SLEEPY_KEEP_ALIVE = catalog.SLEEPY_KEEP_ALIVE.name
LATENCY_SWEEP = catalog.LATENCY_SWEEP.name
HEADLINE, VERDICT_CHART, INSTRUCTIONS = "headline", "verdicts", "instructions"
# The chart files, in the page's order, and their titles.
TITLES: dict[str, str] = {
    HEADLINE: "Each model against the best, per workload (share of the best model's figure)",
    VERDICT_CHART: "Each claim's judged figure and its interval against the rule's band",
    "memory-per-connection": "Memory per connection (sleepy): held and peak, fitted slopes",
    "plateau-rss": "Plateau RSS against concurrency (sleepy), with the least-squares fits",
    "idle-units": "Idle units: memory per unit, and how many were started",
    "sleepy-throughput": "Throughput with sleepy connections against the ideal C/L "
    "(a connection per fetch)",
    f"{SLEEPY_KEEP_ALIVE}-throughput": "Throughput with sleepy keep-alive connections against "
    "the ideal C/L (C connections held)",
    FEW_ACTIVE: "A few very active connections (latency 0, a connection per fetch): speed and "
    "CPU per page",
    FEW_ACTIVE_KEEP_ALIVE: "A few very active keep-alive connections (latency 0): speed and "
    "CPU per page",
    "latency": "Fetch latency (connect to last byte) against concurrency",
    LATENCY_SWEEP: "Latency sweep: where each model stops being CPU-bound",
    INSTRUCTIONS: "Instructions per page (callgrind): the shared core and each model's own",
}
# Under each chart's title: the one sentence that says what to look at.
LOOK: dict[str, str] = {
    HEADLINE: "Read down a column for one workload: the darker the cell, the closer the model "
    "comes to the best, and a bold figure is the best or tied with it within noise.",
    VERDICT_CHART: "A bar wholly inside its green band reproduces the claim, wholly outside "
    "contradicts it, and across an edge decides nothing.",
    "memory-per-connection": "Compare the held bars across models (what an open connection "
    "costs); the peak bar beside each is what the crawl's responses add on top of it.",
    "plateau-rss": "Each model's points should sit on its fitted curve: where they do, the "
    "slope is a fair figure for memory per connection.",
    "idle-units": "On the left, the gap between the threads' dots and the coroutines' is the "
    "chapter's 50 KiB against 3 KiB; on the right, how many of each were started.",
    "sleepy-throughput": "How far each line falls below the dashed ideal C/L as C grows, with a "
    "connection opened per fetch; crossed runs did not hold C connections.",
    f"{SLEEPY_KEEP_ALIVE}-throughput": "How far each line falls below the dashed ideal C/L as C "
    "grows, each of the C connections held for the whole crawl.",
    FEW_ACTIVE: "Lines whose bars overlap are tied within noise; CPU per page on the right is "
    "the model's own cost, which the shared test server does not cap.",
    FEW_ACTIVE_KEEP_ALIVE: "Without a connection set-up per page the gaps are the models' own "
    "scheduling; lines whose bars overlap are tied within noise.",
    "latency": "The further a model's p99 (right) lies above its p50 (left), the more unevenly "
    "it serves its connections.",
    LATENCY_SWEEP: "Follow each line to the right: where it meets the dashed ideal C/L, the model "
    "stops being CPU-bound and waits on the server's latency.",
    INSTRUCTIONS: "The grey part is the same shared core in every model; the coloured part is "
    "what each model's own scheduling costs per page.",
}
GOOD_FIT_R2 = 0.98  # a memory fit below this is named in the caption
NOT_COUNTED_ANCHOR = "not-counted"  # the section that lists every run that did not count


def rank(found: results.Ranking | None, unit: str, digits: int = 0) -> str:
    """A derived ranking in words that respect its intervals (words.ranking): 'highest:
    callbacks 48% [47%, 49%]; lowest: aiohttp 20% [17%, 22%] (2.46x apart)', or 'all 9 tied
    within noise (...)'; '' when nothing was ranked."""
    if not found:
        return ""
    after = "%" if unit == "%" else ""  # a percentage is written 48% [47%, 49%]

    def shown(entry: Entry) -> str:
        return with_interval(
            entry.value, entry.interval, lambda v: number(v, digits) + after, why=""
        )

    entries = [
        Entry(model, q.value or 0.0, q.interval)
        for model, q in found["values"].items()
        if math.isfinite(q.value or 0.0)
    ]
    text = ranking(entries, found["higher_is_better"], shown, "" if after else unit)
    if len(entries) > 1 and all(e.interval is None for e in entries):
        text += "; one run each, no interval"
    return text


def crossed_note(document: Results, scenario: str) -> str:
    """How many runs of a chart did not count, for the end of its caption ('' when none); the
    runs themselves are listed once, under "Runs that did not count"."""
    found = results.crossed_runs(document["derived"], scenario)
    if not found:
        return ""
    runs = "1 run" if len(found) == 1 else f"{len(found)} runs"
    return f" Crossed: {runs} that did not count (listed under Runs that did not count)."


def not_run(scenario: str, why: str = "did not run") -> str:
    """The caption of a chart whose scenario did not run (or has no run that counted)."""
    return f"Not measured: {scenario} {why}."


def bars_note(bars: bool) -> str:
    """The sentence a chart of medians ends with: what its error bars are, or why it has none."""
    if bars:
        return " Bars: the 95% interval over the repetitions (none where a point has one run)."
    return " No bars: no point has an interval (one run each, or results written before intervals)."


def memory_fit_label(document: Results) -> str:
    """The x label of the memory charts: the unit and the concurrencies fitted."""
    found = results.highlights(document["derived"], SLEEPY, results.SleepyHighlights)
    fitted = found["fit_concurrencies"] if found else []
    return f"KiB per connection (fitted over C = {counts(fitted) or '-'})"


def _memory_notes(fits: list[tuple[str, results.MemoryFit | None]]) -> list[str]:
    notes = []
    for model, m in fits:
        rss = m.rss_bytes.slope.value if m else None
        if m is None or rss is None:
            notes.append(f"{model} has no fit (fewer than 2 verified points)")
            continue
        if (m.rss_bytes.r2 or 0) < GOOD_FIT_R2:
            notes.append(f"{model} R² {number(m.rss_bytes.r2, 2)}")
        for part, value in (("RSS", rss), ("kernel", m.kernel_bytes.slope.value or 0.0)):
            if value < 0:
                notes.append(f"{model}'s {part} slope is negative (noise), drawn as 0")
    return notes


def memory_per_connection_caption(document: Results) -> str:
    found = results.highlights(document["derived"], SLEEPY, results.SleepyHighlights)
    totals = found["memory_total_kib"] if found else None
    text = (
        f"Held memory per connection (RSS + kernel): {rank(totals, 'KiB', 1)}."
        if totals
        else "No model has a memory fit."
    )
    threads = catalog.THREADS.name
    if totals and threads in totals["values"]:
        cost = totals["values"][threads].value or 0.0
        text += (
            f" Threads cost {cost:,.1f} KiB per connection against the chapter's 50 KiB per thread."
        )
    memory = results.memory_fits(document["derived"], SLEEPY)
    every = [(m, memory[m]) for m in model_order(list(memory))]
    fits = [(m, fit) for m, fit in every if fit]
    held = [
        f"{m} {in_kib(fit.rss_bytes.slope)}"
        + (f" (check {percent_gap(fit.check_gap)})" if fit.check_gap is not None else "")
        for m, fit in fits
        if fit.rss_bytes.slope.value is not None
    ]
    per_url = [
        f"{m} {in_kib(fit.per_url.bytes_per_url, 2)} per URL, "
        f"{in_kib(fit.per_url.net_rss_bytes)} per connection net of them"
        for m, fit in fits
        if fit.per_url and fit.per_url.bytes_per_url.value is not None
    ]
    peaks = [
        f"{m} {kib(fit.peak_rss_bytes.slope.value)}"
        for m, fit in fits
        if fit.peak_rss_bytes.slope.value
    ]
    for sentence, parts, joint in (
        ("RSS slopes with their 95% intervals over the runs", held, ", "),
        ("Per URL held in the frontier", per_url, "; "),
        ("Peak (the slope of each run's peak RSS, to provision)", peaks, ", "),
        ("Caveats", _memory_notes(every), "; "),
    ):
        if parts:
            text += f" {sentence}: {joint.join(parts)}."
    return text + crossed_note(document, SLEEPY)


def plateau_rss_caption(document: Results) -> str:
    memory = results.memory_fits(document["derived"], SLEEPY)
    slopes = {
        m: f"{kib(fit.rss_bytes.slope.value)}/conn (R² {number(fit.rss_bytes.r2, 3)})"
        for m in model_order(list(memory))
        if (fit := memory[m]) and fit.rss_bytes.slope.value is not None
    }
    text = "Fitted RSS slopes: " + ", ".join(f"{m} {v}" for m, v in slopes.items()) + "."
    found = results.highlights(document["derived"], SLEEPY, results.SleepyHighlights)
    largest = found["largest_plateau_rss_mib"] if found else None
    if largest and largest["most_mib"] is not None and largest["least_mib"] is not None:
        text += (
            f" At its largest verified C, {largest['most']} holds the most RSS "
            f"({largest['most_mib']:,.1f} MiB) and {largest['least']} the least "
            f"({largest['least_mib']:,.1f} MiB)."
        )
    return text + crossed_note(document, SLEEPY)


def _idle_parts(document: Results) -> list[str]:
    units = results.idle_table(document["derived"])
    found = results.highlights(document["derived"], IDLE, results.IdleHighlights)
    thread, task = units.get(catalog.THREAD.name), units.get(catalog.ASYNCIO_TASK.name)
    parts = []
    if thread and (thread_total := value_of(thread.total_bytes_per_unit)):
        parts.append(
            f"An idle thread costs {kib(thread_total)} (RSS {kib(thread.rss_bytes_per_unit)} + "
            f"kernel {kib(thread.kernel_total_bytes_per_unit)})"
        )
        task_total = value_of(task.total_bytes_per_unit) if task else None
        if task_total and found and found["thread_over_task"]:
            times = found["thread_over_task"]
            parts[-1] += f", {times:,.0f}x an asyncio task ({kib(task_total, 2)})"
    if found and (cheapest := found["cheapest_coroutine"]) and found["most_started_coroutine"]:
        total = value_of(units[cheapest].total_bytes_per_unit)
        parts.append(f"the cheapest unit is a {cheapest} at {kib(total, 2)}")
        most = found["most_started_coroutine"]
        parts.append(
            f"{units[most].count or 0:,} {most}s started in "
            f"{number(units[most].seconds_to_start_all, 2)} s"
        )
    if thread and thread.max_threads:
        ceiling = thread.max_threads
        parts.append(
            f"threads started until failure reached {int(ceiling['count']):,}, stopped by "
            f"{ceiling['stopped_by']}"
            + (" (the harness's cap, no failure)" if ceiling["capped"] else "")
        )
    return parts


def idle_units_caption(document: Results) -> str:
    parts = _idle_parts(document)
    text = "; ".join(parts) + "." if parts else "No idle unit was measured."
    text += crossed_note(document, IDLE)
    return text[0].upper() + text[1:]


def _at_latency(found: results.SleepyHighlights) -> str:
    """' and L = 10s' where the largest C ran at several latencies (the longest is read)."""
    latency = found["judged_latency"]
    return f" and L = {latency.text}" if latency and len(found["latencies"]) > 1 else ""


def sleepy_throughput_caption(document: Results, scenario: str = SLEEPY) -> str:
    found = results.highlights(document["derived"], scenario, results.SleepyHighlights)
    if found is None:
        return not_run(scenario)
    top_c, shares = found["largest_concurrency"], found["percent_of_ideal"]
    text = (
        f"At C = {top_c:,}{_at_latency(found)}, share of the ideal C/L: {rank(shares, '%')}."
        if shares
        else f"No verified {scenario} point has a throughput."
    )
    missing = found["no_verified_run_at_largest"]
    if missing and shares:
        text += f" No verified run at C = {top_c:,} for {', '.join(missing)}."
    if found["latency_p50_ms"]:
        judged = found["judged_latency"]
        nominal = judged.text if judged else ", ".join(k.text for k in found["latencies"])
        text += (
            f" Median latency the crawlers saw there, against the server's nominal L = "
            f"{nominal}: {rank(found['latency_p50_ms'], 'ms')}."
        )
    return text + crossed_note(document, scenario)


def few_active_caption(document: Results, server_bound: bool, scenario: str = FEW_ACTIVE) -> str:
    """server_bound: the chart drew hollow points (runs where the test server was CPU-bound)."""
    found = results.highlights(document["derived"], scenario, results.FewActiveHighlights)
    if found is None:
        return not_run(scenario)
    text = (
        f"At C = {found['largest_concurrency']:,}: {rank(found['pages_per_s'], 'pages/s')}. "
        f"CPU per page: {rank(found['cpu_us_per_page'], 'µs')}."
    )
    if server_bound:
        text += " Hollow points: the test server was CPU-bound, so pages/s there is its limit."
    return text + crossed_note(document, scenario)


def latency_caption(document: Results) -> str:
    texts = []
    for scenario in (FEW_ACTIVE, SLEEPY):
        if not results.scenario_points(document["derived"], scenario):
            texts.append(f"{scenario} did not run")
            continue
        # Sleepy's highlights have the two figures read here too.
        found = results.highlights(document["derived"], scenario, results.FewActiveHighlights)
        if found is None:
            continue
        texts.append(
            f"{scenario} at C = {found['largest_concurrency']:,}, p99: "
            f"{rank(found['latency_p99_ms'], 'ms', 1)}"
        )
    return "; ".join(texts) + "."


def latency_sweep_caption(document: Results) -> str:
    texts = []
    found = results.highlights(document["derived"], LATENCY_SWEEP, results.LatencySweepHighlights)
    for end in found["by_latency"] if found else []:
        line = f"at latency {end['latency'].text}: {rank(end['pages_per_s'], 'pages/s')}"
        if end["best_fraction_of_ideal"] is not None:
            line += f" (best {end['best_fraction_of_ideal']:.0%} of the ideal C/L)"
        texts.append(line)
    text = "; ".join(texts) or f"no verified {LATENCY_SWEEP} point"
    return text[0].upper() + text[1:] + "." + crossed_note(document, LATENCY_SWEEP)


INSTRUCTIONS_TITLE = "Instructions per page (callgrind): the CPU figure that holds still"


def instructions_caption(document: Results, with_cpu: bool) -> str:
    """What the instructions table counts, and how to read the core's share (and the CPU per
    page beside it, with_cpu: where few-active ran at the same concurrency)."""
    return (
        "Each model crawled the few-active site once under callgrind with a fixed hash seed; "
        "only the crawl is counted, between two marks the crawler sets as it starts and ends "
        "(start-up, imports and exit are left out). core-replay feeds the same site's "
        "recorded responses through the shared core with no socket, loop or thread. The core "
        "share is its instructions per page over the model's: the part of the model's cost "
        "that is not its own (approximate for the aiohttp models, which parse HTTP with "
        "aiohttp's parser rather than the core's)."
        + (
            " CPU µs/page is few-active's median at the same concurrency, for comparison: it "
            "moves with the machine's load, the count does not."
            if with_cpu
            else ""
        )
        + crossed_note(document, catalog.INSTRUCTIONS.name)
    )
