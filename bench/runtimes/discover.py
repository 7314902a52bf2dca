"""The CPython interpreters on this machine: pyenv's, PATH's and the ones built into the cache."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Origin = Literal["pyenv", "PATH", "built", "given"]
MINIMUM = (3, 11)  # pyproject.toml's requires-python
BUILD_MARKER = "c10k-build.json"  # build.py writes it last: a prefix without it is unfinished
PROBE_TIMEOUT_S = 20.0
# The interpreter describes itself: never an import of it in the harness.
PROBE_SCRIPT = (
    "import json, platform, sys, sysconfig; print(json.dumps({"
    "'version': platform.python_version(), 'major': sys.version_info[0],"
    " 'minor': sys.version_info[1], 'implementation': platform.python_implementation(),"
    " 'gil_disabled': bool(sysconfig.get_config_var('Py_GIL_DISABLED')),"
    " 'build': ' '.join(sys.version.split()[1:]), 'executable': sys.executable}))"
)
_VERSIONED = re.compile(r"^python(\d+)\.(\d+)(t?)$")


class NoSuchRuntime(ValueError):
    """A spec that names no usable interpreter: the message is one line for the user."""


@dataclass(frozen=True)
class Runtime:
    """One interpreter as it described itself."""

    tag: str  # major.minor, with "t" when free-threaded: "3.12", "3.14t"
    executable: Path
    version: str  # "3.14.0"
    gil_disabled: bool  # sysconfig's Py_GIL_DISABLED: a free-threaded build
    origin: Origin
    build: str  # sys.version after the version: "(main, Jan  5 2024, ...) [GCC 12.2.0]"

    @property
    def supported(self) -> bool:
        """The project needs 3.11 or later."""
        return _numbers(self.version) >= MINIMUM

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"executable": str(self.executable)}


def cache_dir() -> Path:
    """~/.cache/c10k-bench, or under $XDG_CACHE_HOME when it is set."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "c10k-bench"


def probe(executable: Path, origin: Origin) -> Runtime | None:
    """Run the interpreter with PROBE_SCRIPT; None when it does not answer as a CPython."""
    try:
        done = subprocess.run(
            [str(executable), "-I", "-c", PROBE_SCRIPT],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=True,
        )
        found = json.loads(done.stdout)
        version = str(found["version"])
        gil_disabled = bool(found["gil_disabled"])
        tag = f"{int(found['major'])}.{int(found['minor'])}{'t' if gil_disabled else ''}"
        build = " ".join(str(found.get("build") or "").split())
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return None
    return Runtime(tag, executable, version, gil_disabled, origin, build)


def pyenv_root() -> Path | None:
    """$PYENV_ROOT, else what `pyenv root` says, else None."""
    if root := os.environ.get("PYENV_ROOT"):
        return Path(root)
    if shutil.which("pyenv") is None:
        return None
    try:
        done = subprocess.run(
            ["pyenv", "root"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(done.stdout.strip()) if done.stdout.strip() else None


def _versioned(directory: Path) -> list[Path]:
    """python3.N and python3.Nt in a directory, in version order."""
    try:
        found = [m for p in directory.iterdir() if (m := _VERSIONED.match(p.name))]
    except OSError:
        return []
    return [directory / m[0] for m in sorted(found, key=lambda m: (int(m[1]), int(m[2]), m[3]))]


def candidates(
    root: Path | None, path: Sequence[str], cache: Path
) -> Iterator[tuple[Path, Origin]]:
    """Every executable worth asking, with where it was found: pyenv's versions, the built
    prefixes (finished ones only), then PATH (pyenv's shims left out: they are pyenv's)."""
    if root is not None:
        for version in sorted((root / "versions").glob("*")):
            bin_dir = version / "bin"
            if (bin_dir / "python3").exists():
                yield bin_dir / "python3", "pyenv"
            for found in _versioned(bin_dir):
                if found.name.endswith("t"):  # a free-threaded pyenv version (3.13t)
                    yield found, "pyenv"
    for prefix in sorted((cache / "cpython").glob("*")):
        if (prefix / BUILD_MARKER).is_file():
            for found in _versioned(prefix / "bin"):
                yield found, "built"
    shims = (root / "shims").resolve() if root is not None else None
    for directory in path:
        if directory and Path(directory).resolve() != shims:
            for found in _versioned(Path(directory)):
                yield found, "PATH"


def find_runtimes(
    root: Path | None = None, path: Sequence[str] | None = None, cache: Path | None = None
) -> list[Runtime]:
    """Every interpreter found, once per file, old ones included (`supported`
    says which the project runs on). Defaults: pyenv's root, $PATH and cache_dir()."""
    root = pyenv_root() if root is None else root
    path = os.environ.get("PATH", "").split(os.pathsep) if path is None else path
    cache = cache_dir() if cache is None else cache
    seen: set[tuple[int, int]] = set()
    found: list[Runtime] = []
    for executable, origin in candidates(root, path, cache):
        try:
            info = executable.stat()  # one file by any name: symlinks and hard links
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen or not os.access(executable, os.X_OK):
            continue
        seen.add((info.st_dev, info.st_ino))
        runtime = probe(executable, origin)
        if runtime is not None:
            found.append(runtime)
    # In version order; the first of a tag (pyenv, built, then PATH) is the one resolve picks.
    return sorted(found, key=lambda r: (*_numbers(r.version), r.gil_disabled))


def _numbers(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def resolve(spec: str, runtimes: Sequence[Runtime] | None = None) -> Runtime:
    """The interpreter a spec names: a tag ("3.12", "3.14t"), a version ("3.11.7") or a
    path to an interpreter. NoSuchRuntime with one line (the tags found) when none fits."""
    if os.sep in spec or spec.startswith("."):
        given = Path(spec).expanduser()
        runtime = probe(given, "given") if given.is_file() else None
        if runtime is None:
            raise NoSuchRuntime(f"{spec} is not a Python interpreter that answers")
        if not runtime.supported:
            raise NoSuchRuntime(f"{spec} is Python {runtime.version}; the project needs 3.11+")
        return runtime
    everything = find_runtimes() if runtimes is None else list(runtimes)
    usable = [r for r in everything if r.supported]
    for runtime in usable:
        if spec in (runtime.tag, runtime.version, runtime.version + ("t" * runtime.gil_disabled)):
            return runtime
    too_old = [r for r in everything if not r.supported and spec in (r.tag, r.version)]
    tags = ", ".join(dict.fromkeys(r.tag for r in usable)) or "none"
    if too_old:
        raise NoSuchRuntime(f"Python {spec} is too old (the project needs 3.11+); found: {tags}")
    raise NoSuchRuntime(f"no Python {spec} found (`c10k runtimes` lists them); found: {tags}")
