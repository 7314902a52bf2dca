"""The answer first: the verdict tally, and which model to pick for which workload."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from bench import results
from bench.report.claims import anchor
from bench.report.layout import Link, Rich, Span, Strong, joined
from bench.report.palette import model_order
from bench.report.sources import Source, Sources
from bench.report.verdicts import NOT_MEASURED, OUTCOMES, REPRODUCED, Ruling
from bench.results import Results
from c10k import catalog
from c10k.catalog import MODELS
from c10k.quantity import Interval, Quantity
from c10k.words import KIB, Entry, number, standing, tied_with, with_interval

FEW_ACTIVE, SLEEPY = catalog.FEW_ACTIVE.name, catalog.SLEEPY.name
SLEEPY_KEEP_ALIVE, REALISTIC = catalog.SLEEPY_KEEP_ALIVE.name, catalog.REALISTIC.name


@dataclass(frozen=True)
class Workload:
    """One figure per model with its 95% interval, read from derived as it is, for one kind of
    job: the models whose intervals overlap the best's are tied with it (c10k.words)."""

    title: str  # "A few busy connections"
    measure: str  # what the figure is, after its value: "pages/s"
    where: str  # the scenario and point: "few-active, C 64"
    scenario: str  # the scenario it was read from, which did not run without entries
    higher_is_better: bool
    entries: list[Entry]  # per model (catalog order), in the unit shown
    shown: Callable[[float], str]

    def figure(self, entry: Entry) -> str:
        """'3,203 [1,403, 5,501] pages/s', or '66% of the ideal C/L (1 run, no interval)'."""
        return with_interval(entry.value, entry.interval, self.shown, unit=f" {self.measure}")

    def share(self, entry: Entry) -> tuple[float, Interval | None]:
        """entry as a share of the best model's value (the best is 1), and its interval on the
        same scale (the model's own interval over the best's value)."""
        best = standing(self.entries, self.higher_is_better).leaders[0].value
        interval = entry.interval
        if self.higher_is_better:
            scaled = None if interval is None else interval.scaled(1 / best)
            return entry.value / best, scaled
        flipped = None if interval is None else Interval(best / interval.high, best / interval.low)
        return best / entry.value, flipped


def _entries(values: Mapping[str, Quantity] | None) -> list[Entry]:
    """Models only (no peer), in the catalog's order, with their intervals; [] without any."""
    values = values or {}
    return [
        Entry(m, float(value), values[m].interval)
        for m in model_order(list(values))
        if m in MODELS and (value := values[m].value) is not None
    ]


def _ranked(ranking: results.Ranking | None) -> list[Entry]:
    """A derived ranking's models (no peer) with their intervals; [] without a ranking."""
    return _entries(ranking["values"] if ranking else None)


def few_busy(document: Results) -> Workload:
    found = results.highlights(document["derived"], FEW_ACTIVE, results.FewActiveHighlights)
    where = f"{FEW_ACTIVE}, C {found['largest_concurrency'] if found else 0:,}"
    entries = _ranked(found["pages_per_s"] if found else None)
    return Workload("A few busy connections", "pages/s", where, FEW_ACTIVE, True, entries, number)


def many_sleepy(document: Results) -> Workload:
    """The share of the ideal C/L at the largest C, held for the whole crawl (keep-alive: where
    C7 is judged), else with a connection per fetch."""
    found = results.highlights(document["derived"], SLEEPY_KEEP_ALIVE, results.SleepyHighlights)
    scenario = SLEEPY_KEEP_ALIVE if found else SLEEPY
    found = found or results.highlights(document["derived"], SLEEPY, results.SleepyHighlights)
    judged = found["judged_latency"] if found else None
    every = ", ".join(k.text for k in found["latencies"]) if found else ""
    latency = judged.text if judged else every
    where = f"{scenario}, C {found['largest_concurrency'] if found else 0:,}, L {latency}"
    entries = _ranked(found["percent_of_ideal"] if found else None)
    title, measure = "Many sleepy connections", "of the ideal C/L"
    return Workload(title, measure, where, scenario, True, entries, lambda v: f"{v:.0f}%")


def memory_bound(document: Results) -> Workload:
    """Memory per connection held (RSS + kernel slopes) with its interval over the runs."""
    memory = results.memory_fits(document["derived"], SLEEPY)
    entries = _entries(
        {m: fit.total_bytes.scaled(1 / KIB, "KiB") for m, fit in memory.items() if fit}
    )
    where = f"{SLEEPY}'s fits (held: RSS + kernel)"
    return Workload(
        "Memory-bound", "KiB per connection", where, SLEEPY, False, entries, lambda v: f"{v:,.2f}"
    )


def realistic_site(document: Results) -> Workload:
    """Pages/s on a realistic site at its largest C: the site derive read (the deep site where
    it ran, else the docs site, which the default profile runs alone)."""
    found = results.highlights(document["derived"], REALISTIC, results.RealisticHighlights)
    site, top = (found["site"], found["largest_concurrency"]) if found else ("deep", 0)
    entries = _ranked(found["pages_per_s"] if found else None)
    where = f"{REALISTIC} {site} site, C {top:,}"
    return Workload("Realistic site", "pages/s", where, REALISTIC, True, entries, number)


def workloads(document: Results) -> list[Workload]:
    """The headline chart's columns; the answer picks for the first three."""
    return [w(document) for w in (few_busy, many_sleepy, memory_bound, realistic_site)]


def pick(workload: Workload) -> Rich:
    """Which model to pick for a workload: the best with its figure, the models tied with it
    within noise, and the last when it lies apart."""
    found = standing(workload.entries, workload.higher_is_better)
    head = Strong(f"{workload.title}:")
    if not found.leaders:
        return (head, f" not measured ({workload.scenario} did not run).")
    best, rest = found.leaders[0], found.leaders[1:]
    if found.all_tied and len(workload.entries) > 1:
        return (
            head,
            f" no model stands apart, all {len(workload.entries)} are tied within noise "
            f"({workload.where}; best median {best.name}, {workload.figure(best)}).",
        )
    text = f" {best.name}, {workload.figure(best)} in {workload.where}{tied_with(rest)}"
    if found.trailers and found.apart:
        worst = found.trailers[-1]
        text += f"; last: {worst.name}, {workload.figure(worst)}"
    return (head, text + ".")


def _claims(found: list[Ruling]) -> Rich:
    """The claims as links to their sections, 'C1, C2, C3'."""
    return joined(Link(r.verdict.claim, f"#{anchor(r)}") for r in found)


def tally(found: list[Ruling]) -> Rich:
    """'6 of 9 claims reproduced (C1, ...); 1 contradicted: C9; 1 inconclusive (one run): C4;
    2 not measured: C5, C8 (each needs a figure or a run it lacks: see its section).'"""
    groups = {kind: [r for r in found if r.verdict.verdict == kind] for kind in OUTCOMES}
    spans: list[Span] = [Strong(f"{len(groups[REPRODUCED])} of {len(found)} claims reproduced")]
    if groups[REPRODUCED]:
        spans += [" (", *_claims(groups[REPRODUCED]), ")"]
    for kind in OUTCOMES[1:]:
        if groups[kind]:
            spans += [f"; {len(groups[kind])} {kind}: ", *_claims(groups[kind])]
    if groups[NOT_MEASURED]:
        spans.append(" (each lacks a figure or a run it needs: see its section)")
    return (*spans, ".")


def duration(source: Source) -> str:
    """How long the run took, from its recorded start and end: '41 min 20 s'; '' unknown."""
    try:
        start = datetime.fromisoformat(str(source.started).replace("Z", "+00:00"))
        end = datetime.fromisoformat(str(source.finished).replace("Z", "+00:00"))
    except ValueError:
        return ""
    minutes, seconds = divmod(int((end - start).total_seconds()), 60)
    hours, minutes = divmod(minutes, 60)
    return (f"{hours} h " if hours else "") + f"{minutes} min {seconds} s"


def machine(source: Source) -> str:
    """'a 2-core AMD EPYC, CPython 3.11.7 with the GIL'."""
    env = source.document.get("environment") or {}
    cpu, python = env.get("cpu") or {}, env.get("python") or {}
    gil = "without the GIL" if python.get("gil_disabled") else "with the GIL"
    return (
        f"{cpu.get('model', 'an unknown CPU')} ({cpu.get('usable_cores', '?')} cores), "
        f"{python.get('implementation', 'Python')} {python.get('version', '?')} {gil}"
    )


def measured_on(found: Sources) -> Rich:
    """Which run the answer comes from: machine, profile, date and how long it took."""
    main = found.main
    if main is None:
        return ("No benchmark run was named: ", Strong("tox -e bench"), " measures one.")
    took = duration(main)
    return (
        f"Measured on {machine(main)}, profile {main.profile}, {main.date}"
        + (f" ({took} of runs)" if took else "")
        + ".",
    )


def answer(found: Sources, rulings: list[Ruling]) -> list[Rich]:
    """The page's first lines (at most five): the tally, a pick per workload, the run."""
    picks = [pick(w) for w in workloads(found.document)[:3]]
    return [tally(rulings), *picks, measured_on(found)]
