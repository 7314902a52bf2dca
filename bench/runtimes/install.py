"""One CPython build: configure, make and install into a stage, check it, record it, move it in."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.runtimes.fetch import PACKAGE, BuildFailed, Layout, Progress, Source

RECORD = "c10k-build.json"
# The headers CPython's optional modules need; without one, `make` skips the module quietly.
HEADER_PACKAGES = {
    "libssl-dev": "ssl",
    "libffi-dev": "ctypes",
    "zlib1g-dev": "zlib",
    "libbz2-dev": "bz2",
    "liblzma-dev": "lzma",
    "libsqlite3-dev": "sqlite3",
    "libreadline-dev": "readline",
    "uuid-dev": "_uuid",
}
# pip needs ssl; cffi-style extensions and the idle probes need ctypes.
REQUIRED_MODULES = ("ssl", "ctypes")
TOOLS = ("cc", "make", "apt-get", "apt-cache")
CHECK_SCRIPT = """
import importlib, json, sys, sysconfig
missing = []
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError:
        missing.append(name)
print(json.dumps({
    "sys_version": sys.version,
    "free_threaded_build": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    "gil_enabled": getattr(sys, "_is_gil_enabled", lambda: True)(),
    "missing_modules": missing,
}))
"""


def configure_flags(prefix: Path, tag: str, optimizations: bool) -> list[str]:
    """The same flags for both builds except --disable-gil."""
    flags = [f"--prefix={prefix}", "--with-ensurepip=no"]
    if optimizations:
        flags += ["--enable-optimizations", "--with-lto"]
    if tag.endswith("t"):
        flags.append("--disable-gil")
    return flags


def read_record(prefix: Path) -> dict[str, Any] | None:
    try:
        record = json.loads((prefix / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def usable_build(layout: Layout, tag: str, flags: list[str], version: str | None) -> bool:
    """An install counts only with its record (written last), the same flags, and a live python."""
    record = read_record(layout.prefix(tag))
    if record is None or record.get("configure_flags") != flags:
        return False
    if version is not None and record.get("debian_version") != version:
        return False
    try:
        subprocess.run(
            [str(layout.interpreter(tag)), "-c", "import sys"], check=True, capture_output=True
        )
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def check_build_dependencies(install: bool, progress: Progress) -> None:
    absent_tools = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent_tools:
        raise BuildFailed(f"build dependencies: no {', '.join(absent_tools)} on PATH")
    missing = []
    for package in HEADER_PACKAGES:
        status = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
        )
        if "install ok installed" not in status.stdout:
            missing.append(package)
    if not missing:
        progress.say(f"build dependencies: {len(HEADER_PACKAGES)} header packages present")
        return
    if not install:
        raise BuildFailed(
            f"build dependencies: missing {' '.join(missing)}; "
            "install them with apt-get or pass --install-deps"
        )
    progress.say(f"build dependencies: apt-get install {' '.join(missing)}")
    done = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *missing])
    if done.returncode != 0:
        raise BuildFailed(f"build dependencies: apt-get install {' '.join(missing)} failed")


def run_logged(
    step: str, command: list[str], cwd: Path, log: Path, progress: Progress, env: dict[str, str]
) -> None:
    """One step, its output appended to the log; a progress line every minute."""
    progress.say(f"{step}: {' '.join(command)}")
    with log.open("a") as out:
        out.write(f"\n$ (cd {cwd} && {' '.join(command)})\n")
        out.flush()
        process = subprocess.Popen(
            command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env}
        )
        started = time.monotonic()
        while True:
            try:
                code = process.wait(timeout=60)
                break
            except subprocess.TimeoutExpired:
                progress.say(f"{step}: running for {time.monotonic() - started:.0f}s")
    if code != 0:
        raise BuildFailed(f"{step} failed (exit {code}); see {log}")


def build_one(
    tag: str,
    tree: Path,
    source: Source,
    layout: Layout,
    flags: list[str],
    jobs: int,
    progress: Progress,
) -> dict[str, Any]:
    """Configure, make and install into a staging root; move it in place only when it works."""
    prefix = layout.prefix(tag)
    build_dir = layout.work / f"build-{tag}"
    stage = layout.work / f"stage-{tag}"
    log = layout.log(tag)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"# {tag} from {PACKAGE} {source.debian_version}\n")
    for path in (build_dir, stage):
        shutil.rmtree(path, ignore_errors=True)
    build_dir.mkdir(parents=True)
    progress.say(f"{tag}: building out of tree in {build_dir}; log {log}")

    started = time.monotonic()
    env = {"LC_ALL": "C"}
    run_logged(f"{tag} configure", [str(tree / "configure"), *flags], build_dir, log, progress, env)
    run_logged(f"{tag} make", ["make", f"-j{jobs}"], build_dir, log, progress, env)
    # DESTDIR: the files carry the final prefix in them, but land in the stage first.
    run_logged(
        f"{tag} install", ["make", "install", f"DESTDIR={stage}"], build_dir, log, progress, env
    )
    build_seconds = time.monotonic() - started

    staged = stage / prefix.relative_to(prefix.anchor)
    facts = checked_interpreter(tag, staged / "bin" / f"python{tag}", log, progress)
    record = build_record(tag, source, flags, jobs, build_seconds, facts)
    (staged / RECORD).write_text(json.dumps(record, indent=2) + "\n")

    # The swap: the old install moves aside, the new one in, then the old one goes.
    old = layout.work / f"old-{tag}"
    shutil.rmtree(old, ignore_errors=True)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    if prefix.exists():
        prefix.rename(old)
    staged.rename(prefix)
    for path in (old, stage, build_dir):
        shutil.rmtree(path, ignore_errors=True)
    progress.say(f"{tag}: installed {layout.interpreter(tag)} ({build_seconds:.0f}s to build)")
    return record


def checked_interpreter(tag: str, python: Path, log: Path, progress: Progress) -> dict[str, Any]:
    """What the new interpreter says of itself; BuildFailed when a required module is
    missing or its GIL status is not what its tag means."""
    if not python.exists():
        raise BuildFailed(f"{tag} install: no bin/python{tag} in the installed tree; see {log}")
    checked = subprocess.run(
        [str(python), "-c", CHECK_SCRIPT, *REQUIRED_MODULES, *HEADER_PACKAGES.values()],
        capture_output=True,
        text=True,
        check=False,
    )
    if checked.returncode != 0:
        raise BuildFailed(f"{tag} check: the new interpreter failed: {checked.stderr.strip()}")
    facts: dict[str, Any] = json.loads(checked.stdout)
    required_missing = [m for m in facts["missing_modules"] if m in REQUIRED_MODULES]
    if required_missing:
        raise BuildFailed(
            f"{tag} check: modules {', '.join(required_missing)} were not built; see {log}"
        )
    free_threaded = tag.endswith("t")
    if facts["free_threaded_build"] != free_threaded or facts["gil_enabled"] == free_threaded:
        raise BuildFailed(f"{tag} check: GIL status is not what {tag} means: {facts}")
    if facts["missing_modules"]:
        progress.say(
            f"{tag} check: optional modules missing: {', '.join(facts['missing_modules'])}"
        )
    gil = "enabled" if facts["gil_enabled"] else "disabled"
    progress.say(f"{tag} check: {facts['sys_version'].splitlines()[0]}, GIL {gil}")
    return facts


def build_record(
    tag: str,
    source: Source,
    flags: list[str],
    jobs: int,
    build_seconds: float,
    facts: dict[str, Any],
) -> dict[str, Any]:
    """The install's record (c10k-build.json): where it came from, how, and what it is."""
    return {
        "tag": tag,
        "debian_source_package": PACKAGE,
        "debian_version": source.debian_version,
        "fetched": source.how,
        "debian_patches_applied": False,
        "upstream_tarball": source.tarball.name,
        "upstream_tarball_sha256": source.sha256,
        "configure_flags": flags,
        "make_jobs": jobs,
        "build_seconds": round(build_seconds, 1),
        "built_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "sys_version": facts["sys_version"],
        "gil_enabled": facts["gil_enabled"],
        "missing_modules": facts["missing_modules"],
    }
