"""A bench run's start: its runtime, pinning, latencies chosen, and each runtime's lane."""

from __future__ import annotations

import argparse
import platform
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from bench.harness.cores import Pinning, plan_pinning
from bench.harness.latencies import chooses, with_latencies
from bench.harness.plan import PlannedRun, build_plan, plan_estimate_s
from bench.harness.points import Profile
from bench.harness.progress import describe_plan, pinning_line
from bench.harness.server_cost import measure_server_cost, probe_text
from bench.harness.ssh_server import server_environment
from bench.interpreter import missing_models
from bench.results import (
    Environment,
    ProfileRecord,
    ResultsStore,
    RuntimeRecord,
    new_document,
)
from bench.results.words import latencies_text
from c10k import catalog, probes


@dataclass
class Lane:
    """One runtime's side of a bench run: its results, and the models it skips (with why)."""

    runtime: RuntimeRecord
    store: ResultsStore
    skip: dict[str, str]


def harness_runtime() -> RuntimeRecord:
    """The runtime of a run without --python: the harness's own interpreter."""
    gil_disabled = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    return {
        "tag": f"{sys.version_info[0]}.{sys.version_info[1]}{'t' if gil_disabled else ''}",
        "version": platform.python_version(),
        "gil_disabled": gil_disabled,
        "executable": sys.executable,
        "origin": "harness",
        "build": " ".join(sys.version.split()[1:]),
        "dependencies": None,
        "unavailable_models": {
            name: reason
            for name, model in catalog.CRAWLERS.items()
            if (reason := model.unavailable())
        },
    }


def stderr_line(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class Session:
    """What a bench run runs: its profile and plan (with the latencies chosen at its start),
    where each side runs, and what each runtime skips."""

    profile: Profile
    plan: list[PlannedRun]
    pinning: Pinning
    skips: dict[str, dict[str, str]]  # by runtime tag: the models it skips, with why


def start_session(
    args: argparse.Namespace,
    profile: Profile,
    plan: list[PlannedRun],
    runtimes: Sequence[RuntimeRecord],
) -> Session:
    """Where each side runs; the server's cost measured when a point chooses its latency
    (args.latencies records the choices; the budget grows by what they add to the plan's
    least); then the plan, the runtimes and the pinning on stderr."""
    pinning = plan_pinning(args.pin, remote=args.remote is not None)
    if largest := chooses(profile, args.scenarios):
        stderr_line(f"c10k bench: measuring the server's cost ({probe_text(largest)})")
        try:
            cost, error = measure_server_cost(largest, pinning, args.remote)
        except KeyboardInterrupt:  # the probe's server and crawl are stopped by then
            stderr_line("\nc10k bench: interrupted while measuring the server's cost; nothing ran")
            raise SystemExit(130) from None
        chosen, args.latencies = with_latencies(profile, args.scenarios, cost, error)
        stderr_line(latencies_text(args.latencies))
        again = build_plan(chosen, args.models, args.scenarios, args.seed)
        added = plan_estimate_s(again, conditional=False) - plan_estimate_s(plan, conditional=False)
        profile, plan = replace(chosen, budget_s=profile.budget_s + max(0.0, added)), again
    # What no runtime can run is skipped, at no cost.
    skips = {r["tag"]: skipped_models(args.models, r) for r in runtimes}
    skipped = frozenset.intersection(*(frozenset(skip) for skip in skips.values()))
    sys.stderr.write(describe_plan(profile, plan, len(runtimes), skipped) + "\n")
    for runtime in runtimes:
        sys.stderr.write(
            f"runtime: Python {runtime['version']} ({runtime['tag']}), {runtime['executable']}\n"
        )
    sys.stderr.write(pinning_line(pinning) + "\n")
    return Session(profile, plan, pinning, skips)


def skipped_models(models: Sequence[str], runtime: RuntimeRecord) -> dict[str, str]:
    """The models a runtime skips, with why: not installed, or unavailable on the runtime."""
    skip = missing_models(models, runtime["executable"])
    for model, reason in runtime["unavailable_models"].items():
        if model in skip:
            skip[model] = f"unavailable on {runtime['tag']}: {reason}"
    return skip


def new_lane(
    args: argparse.Namespace,
    session: Session,
    out: Path,
    runtime: RuntimeRecord,
    command: list[str],
) -> Lane:
    """A runtime's lane, its empty results document in out/results.json."""
    profile, plan, pinning = session.profile, session.plan, session.pinning
    environment = cast(Environment, probes.environment())
    environment["pinning"] = pinning.as_dict()
    environment["server"] = server_environment(args.remote)
    record: ProfileRecord = {
        "name": profile.name,
        "models": args.models,
        "scenarios": args.scenarios,
        "sample_interval_s": profile.sample_interval_s,
        "budget_s": profile.budget_s,
        "estimate_s": plan_estimate_s(plan),
        "definition": profile.definition(),
        "order_seed": args.seed,
        "left_out": args.left_out,
    }
    if args.latencies is not None:
        record["latencies"] = args.latencies
    document = new_document(
        profile=record,
        command=command,
        environment=environment,
        plan=[
            {"id": r.id, "round": r.round, "estimate_s": r.estimate_s, "timeout_s": r.timeout_s}
            for r in plan
        ],
    )
    document["runtime"] = runtime
    return Lane(runtime, ResultsStore(out, document), session.skips[runtime["tag"]])
