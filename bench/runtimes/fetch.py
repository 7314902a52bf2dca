"""Debian's python3.14 source (fetched, checked, extracted) and the build's cache layout."""

from __future__ import annotations

import functools
import hashlib
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

PACKAGE = "python3.14"  # Debian's source package
SERIES = "3.14"


class BuildFailed(Exception):
    """A step failed: the message names the step and, where there is one, its log."""


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
    def work(self) -> Path:
        # A sibling of cpython/, so that nothing in there looks like an interpreter.
        return self.cache / "cpython-build"

    def prefix(self, tag: str) -> Path:
        return self.cache / "cpython" / tag

    def interpreter(self, tag: str) -> Path:
        return self.prefix(tag) / "bin" / f"python{tag}"

    def log(self, name: str) -> Path:
        return self.work / "logs" / f"{name}.log"


KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# How far back the pool fallback looks: Debian revisions per upstream release.
MAX_DEBIAN_REVISION = 9


@dataclass(frozen=True)
class Source:
    """The upstream tarball of one Debian source package version, verified."""

    debian_version: str
    tarball: Path
    sha256: str
    how: str  # how it was fetched, and why that way


def debian_version_key(a: str, b: str) -> int:
    """Debian's own version order (dpkg --compare-versions)."""
    if a == b:
        return 0
    lower = subprocess.run(["dpkg", "--compare-versions", a, "lt", b], check=False).returncode
    return -1 if lower == 0 else 1


def upstream_of(debian_version: str) -> str:
    return debian_version.rsplit("-", 1)[0].split(":")[-1]


def pool_candidates(
    known: Sequence[str], exists: Callable[[str], bool]
) -> tuple[str | None, list[str]]:
    """The newest version whose .dsc the pool serves, and the versions found missing: the
    index's first, then each older upstream release, probed by its tarball, by its newest
    Debian revision (a bounded number of requests; the pool has no listing)."""
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
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


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
        return sorted(set(versions), key=functools.cmp_to_key(debian_version_key), reverse=True)

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
