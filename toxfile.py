"""tox plugin: py311 ... py314t find their interpreter in the build cache, on PATH or in pyenv."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from tox.config.loader.memory import MemoryLoader
from tox.plugin import impl

# env name -> interpreter tag (the executable is python<tag>)
ENV_TAGS = {"py311": "3.11", "py312": "3.12", "py313": "3.13", "py314": "3.14", "py314t": "3.14t"}


def cache_dir() -> Path:
    # The layout of bench/runtimes/build.py, which installs CACHE/cpython/<tag>.
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "c10k-bench"


def version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path.parent.parent.name))


def find_interpreter(tag: str) -> str | None:
    """C10K_PYTHON_<tag> (3.14t -> C10K_PYTHON_3_14T), the build cache, PATH, then pyenv."""
    override = os.environ.get("C10K_PYTHON_" + tag.replace(".", "_").upper())
    if override:
        return override
    built = cache_dir() / "cpython" / tag
    # The record is written last: without it the install is not complete.
    if (built / "c10k-build.json").exists() and (built / "bin" / f"python{tag}").exists():
        return str(built / "bin" / f"python{tag}")
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    on_path = shutil.which(f"python{tag}")
    # pyenv's shims answer for every version pyenv knows but run only the selected one.
    if on_path is not None and Path(on_path).parent != pyenv_root / "shims":
        return on_path
    suffix = "t" if tag.endswith("t") else ""
    pattern = f"{tag.rstrip('t')}.*{suffix}/bin/python{tag}"
    found = [p for p in (pyenv_root / "versions").glob(pattern) if suffix or "t" not in p.parts[-3]]
    return str(max(found, key=version_key)) if found else None


@impl
def tox_add_env_config(env_conf: Any, state: Any) -> None:
    tag = ENV_TAGS.get(env_conf.name)
    if tag is None:
        return
    # Not found: the bare name stays, so tox skips the env with "could not find python
    # interpreter with spec(s): python3.14t" (skip_missing_interpreters in tox.ini).
    env_conf.loaders.insert(0, MemoryLoader(base_python=[find_interpreter(tag) or f"python{tag}"]))
