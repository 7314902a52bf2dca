"""`python -m bench.regress.repeat N OUT_DIR -- PYTEST_ARGS`: the suite run N times, a file each."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

RUN_FILE = "run-{index}.json"


def clear_runs(out_dir: Path) -> None:
    """Remove the run files of an earlier repeat, so that none is pooled with these."""
    for stale in out_dir.glob(RUN_FILE.format(index="*")):
        stale.unlink()


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.regress.repeat", description=__doc__)
    p.add_argument("runs", type=positive, help="how many runs of the suite")
    p.add_argument("out_dir", type=Path, help="where run-1.json ... run-N.json go")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: pytest's arguments")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    if args.out_dir.exists() and not args.out_dir.is_dir():
        sys.stderr.write(f"bench.regress.repeat: error: {args.out_dir} is not a directory\n")
        return 2
    args.out_dir.mkdir(parents=True, exist_ok=True)
    clear_runs(args.out_dir)
    for index in range(1, args.runs + 1):
        print(f"bench.regress.repeat: run {index} of {args.runs}", flush=True)
        out_file = args.out_dir / RUN_FILE.format(index=index)
        argv = [sys.executable, "-m", "pytest", *pytest_args, f"--benchmark-json={out_file}"]
        done = subprocess.run(argv, check=False)
        if done.returncode != 0:  # a failed run must not leave a short set to pool
            sys.stderr.write(
                f"bench.regress.repeat: error: run {index} of {args.runs} exited "
                f"{done.returncode}; no baseline from a partial set\n"
            )
            clear_runs(args.out_dir)
            return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
