"""A run's identity as typed fields: its crawl point and its paired round, and its label."""

from __future__ import annotations

from dataclasses import dataclass

from c10k import catalog


@dataclass(frozen=True)
class PointKey:
    """What tells a scenario's crawl points apart: concurrency, the crawler's processes and
    core, and the key of the server (runs with one key share one server process)."""

    concurrency: int
    processes: int
    core: str
    server: int

    @property
    def label(self) -> str:
        """'c1000/s3', 'c10000/p6/s2', 'c64/pure/s1' (a plain crawl names neither)."""
        processes = f"/p{self.processes}" if self.processes > 1 else ""
        core = f"/{self.core}" if self.core != catalog.CORE_C else ""
        return f"c{self.concurrency}{processes}{core}/s{self.server}"


@dataclass(frozen=True)
class Block:
    """A paired round: every model of a scenario at the points of one server, once."""

    scenario: str
    server: int
    round: int

    @property
    def rounds(self) -> tuple[str, int]:
        """The rounds it is one of: its scenario's at its server."""
        return self.scenario, self.server

    @property
    def label(self) -> str:
        return f"{self.scenario}/s{self.server}/round{self.round}"


def run_label(planned: str, again: int, wait: int) -> str:
    """A run's id, for people: its plan's id, '-again<n>' for the n-th run of a noisy round
    again, then '-wait<n>' for a sentinel kept as its round's n-th wait for quiet."""
    return planned + (f"-again{again}" if again else "") + (f"-wait{wait}" if wait else "")
