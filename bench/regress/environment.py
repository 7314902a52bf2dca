"""What a suite run's deterministic figures depend on, and whether two runs share it."""

from __future__ import annotations

import platform
import sys
import sysconfig
from typing import Any

from c10k.probes import package_versions

# The packages on a crawl's instruction path (every gated model's): their versions move
# instructions per page. bench/regress/constraints.txt pins them (and theirs) for the gate.
GATED_PACKAGES = (
    "aiohttp", "uvloop", "rloop", "httpx", "httpcore", "anyio", "h11", "gevent", "greenlet",
    "trio", "httptools", "selectolax", "yarl", "multidict",
)  # fmt: skip
ENVIRONMENT_KEY = "c10k_environment"  # where a suite run records it, in machine_info


def current_environment() -> dict[str, Any]:
    """This interpreter, its build, the platform and the gated packages' versions."""
    libc, libc_version = platform.libc_ver()
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "build": " ".join(platform.python_build()),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "platform": f"{sys.platform}-{platform.machine()}-{libc}{libc_version}",
        "packages": package_versions(GATED_PACKAGES),
    }


def describe(environment: dict[str, Any]) -> str:
    """One line: 'CPython 3.11.7 (main May 9 2026), linux-x86_64-glibc2.36, aiohttp 3.14.5, ...'."""
    threading = ", free-threaded" if environment.get("free_threaded") else ""
    packages = ", ".join(
        f"{name} {version or 'absent'}"
        for name, version in sorted(environment.get("packages", {}).items())
    )
    return (
        f"{environment.get('python')} ({environment.get('build')}{threading}), "
        f"{environment.get('platform')}, {packages}"
    )


def differences(base: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two environments, e.g. ['python CPython 3.11.7 vs CPython 3.12.1']."""
    found = []
    for key in ("python", "build", "free_threaded", "platform"):
        if base.get(key) != new.get(key):
            found.append(f"{key} {base.get(key)} vs {new.get(key)}")
    base_packages, new_packages = base.get("packages", {}), new.get("packages", {})
    for name in sorted(set(base_packages) | set(new_packages)):
        if base_packages.get(name) != new_packages.get(name):
            found.append(f"{name} {base_packages.get(name)} vs {new_packages.get(name)}")
    return found


def file_slug(environment: dict[str, Any]) -> str:
    """A baseline file name for an environment: 'cpython-3.11.7-linux-x86_64.json'."""
    python = str(environment.get("python", "python")).lower().replace(" ", "-")
    threading = "t" if environment.get("free_threaded") else ""
    system = "-".join(str(environment.get("platform", "unknown")).split("-")[:2])
    return f"{python}{threading}-{system}.json"
