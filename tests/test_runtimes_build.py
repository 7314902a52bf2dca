"""The CPython build script: source selection, the install swap and the skip, on a fake CPython."""

from __future__ import annotations

import json
import re
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from bench.runtimes import build, fetch, install
from bench.runtimes.fetch import BuildFailed, Layout, Progress, Source

DSC = """\
-----BEGIN PGP SIGNED MESSAGE-----
Hash: SHA512

Format: 3.0 (quilt)
Source: python3.14
Version: 3.14.7-4
Checksums-Sha1:
 1239d153c968b5fa1958963acd350a42b73d895b 24053924 python3.14_3.14.7.orig.tar.xz
Checksums-Sha256:
 3b48dac8fb59f62eaa67ac83c1eb12bda1b7a08406dd286e252c11a66be27f81 2405 python3.14_3.14.7.orig.tar.xz
 f9ddd4932686138aff2cc6948e40380d82c2b9b151eb4595660e9cb190a75ec5 4 python3.14_3.14.7-4.debian.tar
Files:
 a4c4c2991b4126e227073c2d9445f432 24053924 python3.14_3.14.7.orig.tar.xz
"""


def test_dsc_files_reads_the_sha256_field_only() -> None:
    assert fetch.dsc_files(DSC) == {
        "python3.14_3.14.7.orig.tar.xz": (
            "3b48dac8fb59f62eaa67ac83c1eb12bda1b7a08406dd286e252c11a66be27f81"
        ),
        "python3.14_3.14.7-4.debian.tar": (
            "f9ddd4932686138aff2cc6948e40380d82c2b9b151eb4595660e9cb190a75ec5"
        ),
    }


def test_the_pool_fallback_takes_the_newest_revision_the_pool_serves() -> None:
    served = {"python3.14_3.14.7.orig.tar.xz", "python3.14_3.14.7-1.dsc", "python3.14_3.14.7-4.dsc"}
    probed: list[str] = []

    def exists(name: str) -> bool:
        probed.append(name)
        return name in served

    version, missing = fetch.pool_candidates(["3.14.10-1", "3.14.9-1"], exists)
    assert (version, missing) == ("3.14.7-4", ["3.14.10-1", "3.14.9-1"])
    assert "python3.14_3.14.8.orig.tar.xz" in probed


def test_the_index_version_wins_when_the_pool_serves_it() -> None:
    version, missing = fetch.pool_candidates(["3.14.10-1"], lambda name: True)
    assert (version, missing) == ("3.14.10-1", [])


def test_no_version_when_the_pool_serves_none() -> None:
    assert fetch.pool_candidates(["3.14.2-1"], lambda name: False) == (None, ["3.14.2-1"])


def test_the_pair_differs_only_in_disable_gil(tmp_path: Path) -> None:
    gil = install.configure_flags(tmp_path, "3.14", optimizations=False)
    free = install.configure_flags(tmp_path, "3.14t", optimizations=False)
    assert [f for f in free if f != "--disable-gil"] == gil
    assert "--disable-gil" in free


@pytest.mark.parametrize(
    "argv",
    [["3.13"], ["--version", "3.13.1-1"], ["--jobs", "0"], ["--no-such-option"]],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        code = build.main(argv)
        raise SystemExit(code)
    assert exited.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# The fake build is this interpreter: its tag must match its GIL, or the check refuses it.
TAG = "3.14t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "3.14"


def fake_cpython(tree: Path, install_fails: bool = False) -> None:
    """A configure that writes a Makefile whose install links python<TAG> to this interpreter."""
    tree.mkdir(parents=True)
    install = [
        "mkdir -p $(DESTDIR)$(PREFIX)/bin",
        f"ln -s {sys.executable} $(DESTDIR)$(PREFIX)/bin/python{TAG}",
    ]
    if install_fails:
        install.append("false")
    makefile = "all:\n\t@echo built\ninstall:\n" + "".join(f"\t{line}\n" for line in install)
    configure = tree / "configure"
    configure.write_text(
        "#!/bin/sh\n"
        'echo "PREFIX=${1#--prefix=}" > Makefile\n'
        f"cat >> Makefile <<'EOF'\n{makefile}EOF\n"
    )
    configure.chmod(0o755)


def fake_source(tmp_path: Path) -> Source:
    return Source("3.14.7-4", tmp_path / "python3.14_3.14.7.orig.tar.xz", "ab" * 32, "test")


def test_a_build_lands_whole_with_its_record_and_then_counts_as_built(tmp_path: Path) -> None:
    layout = Layout(tmp_path / "cache")
    flags = install.configure_flags(layout.prefix(TAG), TAG, optimizations=False)
    fake_cpython(tmp_path / "src")
    assert not install.usable_build(layout, TAG, flags, None)
    record = install.build_one(
        TAG, tmp_path / "src", fake_source(tmp_path), layout, flags, 1, Progress()
    )
    on_disk = json.loads((layout.prefix(TAG) / install.RECORD).read_text())
    assert on_disk == record
    assert on_disk["debian_version"] == "3.14.7-4"
    assert on_disk["configure_flags"] == flags
    assert on_disk["sys_version"] == sys.version
    assert install.usable_build(layout, TAG, flags, None)
    assert install.usable_build(layout, TAG, flags, "3.14.7-4")
    assert not install.usable_build(layout, TAG, flags, "3.14.6-1")
    other_flags = install.configure_flags(layout.prefix(TAG), TAG, optimizations=True)
    assert not install.usable_build(layout, TAG, other_flags, None)
    # Only the install is left: no stage, no build tree.
    assert sorted(p.name for p in layout.work.iterdir()) == ["logs"]


def test_a_failed_install_leaves_the_previous_install_alone(tmp_path: Path) -> None:
    layout = Layout(tmp_path / "cache")
    flags = install.configure_flags(layout.prefix(TAG), TAG, optimizations=False)
    fake_cpython(tmp_path / "good")
    install.build_one(TAG, tmp_path / "good", fake_source(tmp_path), layout, flags, 1, Progress())
    before = (layout.prefix(TAG) / install.RECORD).read_text()
    fake_cpython(tmp_path / "bad", install_fails=True)
    with pytest.raises(BuildFailed, match=f"{re.escape(TAG)} install failed .*{re.escape(TAG)}"):
        install.build_one(
            TAG, tmp_path / "bad", fake_source(tmp_path), layout, flags, 1, Progress()
        )
    assert (layout.prefix(TAG) / install.RECORD).read_text() == before
    assert install.usable_build(layout, TAG, flags, None)


def test_a_failed_first_build_leaves_no_prefix(tmp_path: Path) -> None:
    layout = Layout(tmp_path / "cache")
    flags = install.configure_flags(layout.prefix(TAG), TAG, optimizations=False)
    fake_cpython(tmp_path / "bad", install_fails=True)
    with pytest.raises(BuildFailed):
        install.build_one(
            TAG, tmp_path / "bad", fake_source(tmp_path), layout, flags, 1, Progress()
        )
    assert not layout.prefix(TAG).exists()


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs apt-get (Debian)")
def test_an_unreachable_mirror_fails_in_one_line_naming_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Port 9 on loopback: refused at once, no traffic leaves the machine.
    argv = ["--cache-dir", str(tmp_path), "--mirror", "http://127.0.0.1:9/debian", "3.14t"]
    code = build.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err[-1].startswith("build failed: ")
    assert "fetch" in err[-1] or "build dependencies" in err[-1]
    assert not (tmp_path / "cpython" / "3.14t").exists()
