"""Build hook: a wheel records the git commit of the checkout it is built from (c10k --version)."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # c10k.version from this checkout (standard library only)

from c10k.version import RECORDED_COMMIT, checkout_commit  # noqa: E402


class BuildPyWithCommit(build_py):
    """build_py, then c10k/commit.txt in the build: the checkout's HEAD, when it is one."""

    def run(self) -> None:
        super().run()
        commit = checkout_commit(HERE)
        if commit is not None:
            (Path(self.build_lib) / "c10k" / RECORDED_COMMIT.name).write_text(commit + "\n")


setup(cmdclass={"build_py": BuildPyWithCommit})
