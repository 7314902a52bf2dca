"""A runtime's venv: the project editable, each dependency on its own (one that fails leaves
the others in), the models it cannot run asked of the venv, and reuse once finished."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bench.runtimes import venvs
from bench.runtimes.discover import probe

# Pins CPUs, loads the machine or changes its limits: one xdist worker runs these (tox.ini).
pytestmark = pytest.mark.xdist_group("machine")

# A stand-in for `c10k models --json`: the model whose module did not install is missing.
MODELS_CLI = """\
import importlib.util, json, sys

rows = [
    {"name": "threads", "missing": [], "peer": False},
    {"name": "gevent", "missing": [m for m in ("broken",) if importlib.util.find_spec(m) is None],
     "peer": False},
]
json.dump(rows, sys.stdout)
"""


def pyproject(name: str, version: str, rest: str) -> str:
    """A setuptools project's pyproject.toml: [build-system], then [project] NAME, VERSION
    and REST (more of [project], then further tables)."""
    head = textwrap.dedent(f"""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "{name}"
        version = "{version}"
        """)
    return head + textwrap.dedent(rest)


def package(directory: Path, name: str, setup_py: str | None = None) -> Path:
    """A local package with one module; with setup_py, that file instead of a pyproject."""
    directory.mkdir(parents=True)
    (directory / f"{name}.py").write_text("")
    if setup_py is not None:
        (directory / "setup.py").write_text(setup_py)
    else:
        tables = f'[tool.setuptools]\npy-modules = ["{name}"]\n'
        (directory / "pyproject.toml").write_text(pyproject(name, "1.0", tables))
    return directory


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout whose dependencies are a wheel, a package built from its source and one
    whose build fails."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # `python -m c10k.cli` puts the working directory first: an empty one, so that it finds
    # the fake checkout's c10k, not ours, and no package directory made below.
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    wheeled = package(tmp_path / "wheeled", "wheeled")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path, wheeled],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("wheeled-*.whl")
    good = package(tmp_path / "good", "good")
    broken = package(tmp_path / "broken", "broken", "raise SystemExit('this package never builds')")
    checkout = tmp_path / "checkout"
    (checkout / "c10k").mkdir(parents=True)
    (checkout / "c10k" / "__init__.py").write_text("")
    (checkout / "c10k" / "cli.py").write_text(MODELS_CLI)
    rest = f"""\
        dependencies = [
            "wheeled @ {wheel.as_uri()}",
            "good @ {good.as_uri()}",
            "broken @ {broken.as_uri()}",
        ]
        [tool.setuptools]
        packages = ["c10k"]
        """
    (checkout / "pyproject.toml").write_text(pyproject("checkout", "0.1", rest))
    return checkout


# pip makes two venvs and builds four packages, each in an isolated environment: about 33 s
# on the 2-core dev VM, and machines differ up to 3x, past the suite's 120 s.
@pytest.mark.slow
@pytest.mark.timeout(360)
def test_one_dependency_that_fails_leaves_the_others_and_marks_its_model(project: Path) -> None:
    runtime = probe(Path(sys.executable), "given")
    assert runtime is not None
    lines: list[str] = []
    prepared = venvs.prepare(runtime, project, lines.append)
    wheeled, good, broken = venvs.dependencies(project)
    assert prepared.dependencies[wheeled] == "wheel"
    # A local directory has no wheel: it is built from source, as an sdist would be.
    assert prepared.dependencies[good] == "source"
    assert prepared.dependencies[broken].startswith("failed: ")
    assert "\n" not in prepared.dependencies[broken]
    assert set(prepared.unavailable_models) == {"gevent"}
    assert prepared.unavailable_models["gevent"].startswith("missing broken; broken: failed:")
    assert prepared.python.parent.parent.parent == Path(
        str(project.parent / "cache/c10k-bench/venvs")
    )
    assert prepared.python.parent.parent.name.startswith(runtime.tag + "-")
    assert any("[3/3] installing broken" in line for line in lines)
    # Finished (its marker written last): the next prepare reuses it, installing nothing.
    lines.clear()
    again = venvs.prepare(runtime, project, lines.append)
    assert again.dependencies == prepared.dependencies
    assert again.unavailable_models == prepared.unavailable_models
    assert lines == [f"{runtime.tag}: reusing the venv {prepared.python.parent.parent}"]
    # Without its marker (a prepare stopped half-way) the venv is made again.
    (prepared.python.parent.parent / venvs.MARKER).unlink()
    lines.clear()
    venvs.prepare(runtime, project, lines.append)
    assert lines[0].startswith(f"{runtime.tag}: making a venv in ")


def test_a_project_that_does_not_install_fails_prepare(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = probe(Path(sys.executable), "given")
    assert runtime is not None
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text().replace('name = "checkout"', 'name = "!"')
    )
    with pytest.raises(venvs.PrepareFailed, match=r"the project \(editable\) failed: "):
        venvs.prepare(runtime, project, lambda line: None)


def test_requirement_names() -> None:
    assert venvs._name("gevent>=24") == "gevent"
    assert venvs._name("uvloop>=0.19; sys_platform != 'win32'") == "uvloop"
    assert venvs._name("Broken @ file:///x") == "broken"
