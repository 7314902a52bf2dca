"""Build CPython 3.14 from Debian's python3.14 source twice: free-threaded (3.14t) and GIL."""

from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from bench.runtimes.discover import cache_dir

PACKAGE = "python3.14"
SERIES = "3.14"
TAGS = ("3.14t", "3.14")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEFAULT_SUITE = "unstable"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
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
# How far back the pool fallback looks: Debian revisions per upstream release.
MAX_DEBIAN_REVISION = 9


class BuildFailed(Exception):
    """A step failed: the message names the step and, where there is one, its log."""


class BadInput(Exception):
    """An option that cannot work; reported as one line, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """Bad input is one line on stderr and exit code 2, not the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


class Progress:
    """Progress lines on stderr, each with the seconds since the start."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def say(self, message: str) -> None:
        print(f"[{time.monotonic() - self.start:7.1f}s] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Layout:
    """Where everything lives under the cache directory."""

    cache: Path

    @property
    def installs(self) -> Path:
        return self.cache / "cpython"

    @property
    def work(self) -> Path:
        # A sibling of installs/, so that nothing in there looks like an interpreter.
        return self.cache / "cpython-build"

    def prefix(self, tag: str) -> Path:
        return self.installs / tag

    def interpreter(self, tag: str) -> Path:
        return self.prefix(tag) / "bin" / f"python{tag}"

    def log(self, name: str) -> Path:
        return self.work / "logs" / f"{name}.log"


@dataclass(frozen=True)
class Source:
    """The upstream tarball of one Debian source package version, verified."""

    debian_version: str
    tarball: Path
    sha256: str
    how: str  # how it was fetched, and why that way


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


# --- fetching the source ---------------------------------------------------------------------


def debian_version_key(a: str, b: str) -> int:
    """Debian's own version order (dpkg --compare-versions)."""
    if a == b:
        return 0
    lower = subprocess.run(["dpkg", "--compare-versions", a, "lt", b], check=False).returncode
    return -1 if lower == 0 else 1


def newest_first(versions: Sequence[str]) -> list[str]:
    return sorted(set(versions), key=functools.cmp_to_key(debian_version_key), reverse=True)


def upstream_of(debian_version: str) -> str:
    return debian_version.rsplit("-", 1)[0].split(":")[-1]


def pool_candidates(
    known: Sequence[str], exists: Callable[[str], bool]
) -> tuple[str | None, list[str]]:
    """The newest version whose .dsc the pool serves, and the versions found missing.

    The index's versions come first (newest first). Below them, each older upstream release of
    the series is probed by its tarball, and the first one found by its newest Debian revision:
    a bounded number of requests, and no listing of the pool needed (it has none).
    """
    missing: list[str] = []
    for version in known:
        if exists(f"{PACKAGE}_{version}.dsc"):
            return version, missing
        missing.append(version)
    patches = [int(m.group(1)) for v in known if (m := re.match(r"3\.14\.(\d+)", upstream_of(v)))]
    below = min(patches, default=0)
    for patch in range(below - 1, -1, -1):
        if not exists(f"{PACKAGE}_{SERIES}.{patch}.orig.tar.xz"):
            continue
        for revision in range(MAX_DEBIAN_REVISION, 0, -1):
            version = f"{SERIES}.{patch}-{revision}"
            if exists(f"{PACKAGE}_{version}.dsc"):
                return version, missing
    return None, missing


def dsc_files(dsc_text: str) -> dict[str, str]:
    """File name -> sha256, from a .dsc's Checksums-Sha256 field."""
    files: dict[str, str] = {}
    in_field = False
    for line in dsc_text.splitlines():
        if line.startswith("Checksums-Sha256:"):
            in_field = True
            continue
        if in_field:
            if not line.startswith(" "):
                break
            sha, _size, name = line.split()
            files[name] = sha
    return files


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pool_url(mirror: str, name: str) -> str:
    return f"{mirror.rstrip('/')}/pool/main/p/{PACKAGE}/{name}"


def url_exists(url: str) -> bool:
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return bool(response.status == 200)
    except urllib.error.HTTPError:
        return False


def download(url: str, target: Path) -> None:
    partial = target.with_name(target.name + ".part")
    with urllib.request.urlopen(url, timeout=60) as response, partial.open("wb") as out:
        shutil.copyfileobj(response, out, 1 << 20)
    partial.replace(target)


class Fetcher:
    """Debian's source package through a private apt setup: the system's apt config is untouched."""

    def __init__(self, layout: Layout, mirror: str, suite: str, progress: Progress) -> None:
        self.layout = layout
        self.mirror = mirror
        self.suite = suite
        self.progress = progress
        self.apt = layout.work / "apt"
        self.downloads = layout.work / "downloads"
        self.log = layout.log("fetch")

    def apt_options(self) -> list[str]:
        return [
            "-o", f"Dir::Etc::SourceList={self.apt / 'sources.list'}",
            "-o", f"Dir::Etc::SourceParts={self.apt / 'sources.list.d'}",
            "-o", f"Dir::State::Lists={self.apt / 'lists'}",
            "-o", f"Dir::Cache={self.apt / 'cache'}",
        ]  # fmt: skip

    def run(self, command: list[str], cwd: Path | None = None) -> bool:
        with self.log.open("a") as log:
            log.write(f"\n$ {' '.join(command)}\n")
            log.flush()
            done = subprocess.run(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        return done.returncode == 0

    def index_versions(self) -> list[str]:
        for sub in ("lists/partial", "cache/archives/partial", "sources.list.d"):
            (self.apt / sub).mkdir(parents=True, exist_ok=True)
        (self.apt / "sources.list").write_text(
            f"deb-src [signed-by={KEYRING}] {self.mirror} {self.suite} main\n"
        )
        self.progress.say(f"fetch: apt-get update ({self.suite} sources, private lists)")
        if not self.run(["apt-get", *self.apt_options(), "update", "--error-on=any"]):
            raise BuildFailed(f"fetch: apt-get update failed; see {self.log}")
        shown = subprocess.run(
            ["apt-cache", *self.apt_options(), "showsrc", PACKAGE],
            capture_output=True,
            text=True,
            check=False,
        )
        versions = re.findall(r"^Version: (\S+)$", shown.stdout, flags=re.MULTILINE)
        return newest_first(versions)

    def fetch(self, wanted: str | None) -> Source:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.downloads.mkdir(parents=True, exist_ok=True)
        known = self.index_versions()
        self.progress.say(
            f"fetch: the {self.suite} index lists {PACKAGE} {', '.join(known) or 'no version'}"
        )
        version = wanted or (known[0] if known else None)
        if version is not None and version in known:
            self.progress.say(f"fetch: apt-get source --download-only {PACKAGE}={version}")
            command = ["apt-get", *self.apt_options(), "source", "--download-only"]
            if self.run([*command, f"{PACKAGE}={version}"], self.downloads):
                return self.verified(version, f"apt-get source from {self.suite}")
            self.progress.say(f"fetch: the pool does not serve {version} (see {self.log})")
        if wanted is not None:
            if not url_exists(pool_url(self.mirror, f"{PACKAGE}_{wanted}.dsc")):
                raise BuildFailed(f"fetch: the pool has no {PACKAGE}_{wanted}.dsc ({self.mirror})")
            elsewhere = "apt-get could not fetch it" if wanted in known else "not in the index"
            version, why = wanted, f"--version {wanted}: {elsewhere}"
        else:
            version, missing = pool_candidates(
                known, lambda name: url_exists(pool_url(self.mirror, name))
            )
            if version is None:
                raise BuildFailed(f"fetch: the pool serves no {PACKAGE} version ({self.mirror})")
            why = (
                f"the {self.suite} index lists {', '.join(missing)} but the pool answers 404 "
                f"for them; {version} is the newest version the pool serves"
            )
        self.progress.say(f"fetch: using {PACKAGE} {version} from the pool over HTTP: {why}")
        dsc = self.downloads / f"{PACKAGE}_{version}.dsc"
        download(pool_url(self.mirror, dsc.name), dsc)
        for name, sha in dsc_files(dsc.read_text()).items():
            target = self.downloads / name
            if target.exists() and sha256_of(target) == sha:
                continue
            self.progress.say(f"fetch: downloading {name}")
            download(pool_url(self.mirror, name), target)
        return self.verified(version, f"pool over HTTP: {why}")

    def verified(self, version: str, how: str) -> Source:
        """Each file against the .dsc's sha256; the tarball is the upstream CPython source."""
        dsc = self.downloads / f"{PACKAGE}_{version}.dsc"
        files = dsc_files(dsc.read_text())
        for name, sha in files.items():
            if sha256_of(self.downloads / name) != sha:
                raise BuildFailed(f"fetch: {name} does not match the sha256 in {dsc.name}")
        tarballs = [name for name in files if name.endswith(".orig.tar.xz")]
        if len(tarballs) != 1:
            raise BuildFailed(f"fetch: {dsc.name} names no single .orig.tar.xz")
        self.progress.say(f"fetch: {len(files)} files match the sha256 sums in {dsc.name}")
        return Source(version, self.downloads / tarballs[0], files[tarballs[0]], how)


def extract(source: Source, layout: Layout, progress: Progress) -> Path:
    """The upstream tree, extracted once per tarball (a marker names the tarball's sha256)."""
    tree = layout.work / "src" / f"Python-{upstream_of(source.debian_version)}"
    marker = tree / ".c10k-sha256"
    if marker.exists() and marker.read_text() == source.sha256:
        return tree
    progress.say(f"extract: {source.tarball.name}")
    staging = layout.work / "src" / ".extracting"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(source.tarball) as tar:
        tar.extractall(staging, filter="tar")
    (top,) = staging.iterdir()
    (top / ".c10k-sha256").write_text(source.sha256)
    shutil.rmtree(tree, ignore_errors=True)
    top.rename(tree)
    staging.rmdir()
    return tree


# --- building ------------------------------------------------------------------------------

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


def run_logged(
    step: str, command: list[str], cwd: Path, log: Path, progress: Progress, env: dict[str, str]
) -> None:
    """One step, its output appended to the log; a line every minute while it runs."""
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
    python = staged / "bin" / f"python{tag}"
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
    facts = json.loads(checked.stdout)
    required_missing = [m for m in facts["missing_modules"] if m in REQUIRED_MODULES]
    if required_missing:
        raise BuildFailed(
            f"{tag} check: modules {', '.join(required_missing)} were not built; see {log}"
        )
    if facts["free_threaded_build"] != tag.endswith("t") or facts["gil_enabled"] == tag.endswith(
        "t"
    ):
        raise BuildFailed(f"{tag} check: GIL status is not what {tag} means: {facts}")
    if facts["missing_modules"]:
        progress.say(
            f"{tag} check: optional modules missing: {', '.join(facts['missing_modules'])}"
        )
    progress.say(f"{tag} check: {facts['sys_version'].splitlines()[0]}, GIL {_gil(facts)}")

    record = {
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


def _gil(facts: dict[str, Any]) -> str:
    return "enabled" if facts["gil_enabled"] else "disabled"


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


# --- the command ---------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m bench.runtimes.build",
        description=f"Build CPython {SERIES} from Debian's {PACKAGE} source package twice, "
        "from one upstream tarball and the same configure flags: free-threaded (3.14t, "
        "--disable-gil) and with the GIL (3.14). Each installs into CACHE/cpython/TAG, "
        "CACHE being $XDG_CACHE_HOME/c10k-bench (default ~/.cache/c10k-bench), once: a build "
        "whose install and record (c10k-build.json) exist is skipped. Debian's patches are "
        "not applied. Takes minutes per build on 2 cores; run it under the exclusive lock: "
        "flock -x /tmp/c10k-bench.lock python -m bench.runtimes.build",
        epilog="exit 0: built or already there; 1: a step failed (the line names it and its "
        "log); 2: bad input",
    )
    p.add_argument(
        "tags",
        nargs="*",
        metavar="TAG",
        help=f"which builds: {' and '.join(TAGS)} (default: both)",
    )
    p.add_argument("--cache-dir", type=Path, help="instead of $XDG_CACHE_HOME/c10k-bench")
    p.add_argument(
        "--version",
        dest="debian_version",
        help="the Debian version to build, such as 3.14.7-4 (default: the newest the mirror's "
        "pool serves; a build already there for the other tag sets it, to keep the pair equal)",
    )
    p.add_argument("--force", action="store_true", help="build again even if already built")
    p.add_argument(
        "--optimizations",
        action="store_true",
        help="add --enable-optimizations --with-lto (PGO and LTO: several times longer)",
    )
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="make -j (default: cores)")
    p.add_argument(
        "--install-deps",
        action="store_true",
        help="apt-get install the missing header packages instead of failing",
    )
    p.add_argument("--mirror", default=DEFAULT_MIRROR, help=f"default {DEFAULT_MIRROR}")
    p.add_argument("--suite", default=DEFAULT_SUITE, help=f"default {DEFAULT_SUITE}")
    return p


def validated(args: argparse.Namespace) -> argparse.Namespace:
    unknown = [tag for tag in args.tags if tag not in TAGS]
    if unknown:
        raise BadInput(f"unknown build {', '.join(unknown)}; choose from {', '.join(TAGS)}")
    args.tags = [tag for tag in TAGS if tag in args.tags] if args.tags else list(TAGS)
    if args.debian_version is not None and not re.fullmatch(
        r"3\.14\.\d+(?:~?[a-z]+\d+)?-[0-9A-Za-z.+~]+", args.debian_version
    ):
        raise BadInput(f"--version {args.debian_version}: not a {PACKAGE} version like 3.14.7-4")
    if args.jobs < 1:
        raise BadInput("--jobs must be at least 1")
    cache = args.cache_dir if args.cache_dir is not None else cache_dir()
    if cache.exists() and not cache.is_dir():
        raise BadInput(f"--cache-dir {cache}: not a directory")
    args.layout = Layout(cache.absolute())
    return args


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        args = validated(args)
    except BadInput as bad:
        print(f"{p.prog}: error: {bad}", file=sys.stderr)
        return 2
    layout: Layout = args.layout
    progress = Progress()
    flags = {tag: configure_flags(layout.prefix(tag), tag, args.optimizations) for tag in TAGS}
    version: str | None = args.debian_version
    todo = []
    for tag in args.tags:
        if not args.force and usable_build(layout, tag, flags[tag], version):
            record = read_record(layout.prefix(tag)) or {}
            progress.say(
                f"{tag}: already built from {PACKAGE} {record.get('debian_version')} on "
                f"{record.get('built_at')} ({layout.interpreter(tag)}); --force builds again"
            )
        else:
            todo.append(tag)
    if not todo:
        return 0
    if version is None:
        # The pair must differ only in the GIL: the sibling's version wins if it is there.
        for tag in TAGS:
            sibling = read_record(layout.prefix(tag))
            if tag not in todo and sibling is not None:
                version = str(sibling["debian_version"])
                progress.say(f"fetch: {tag} was built from {version}; the same version for both")
    step = "build dependencies"
    try:
        check_build_dependencies(args.install_deps, progress)
        step = "fetch"
        source = Fetcher(layout, args.mirror, args.suite, progress).fetch(version)
        step = "extract"
        tree = extract(source, layout, progress)
        for tag in todo:
            step = f"{tag} build"
            build_one(tag, tree, source, layout, flags[tag], args.jobs, progress)
    except BuildFailed as failed:
        print(f"build failed: {failed}", file=sys.stderr)
        return 1
    except (OSError, tarfile.TarError) as failed:  # URLError is an OSError
        print(f"build failed: {step}: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
