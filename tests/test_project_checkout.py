"""--python/--pythons install the project from a checkout of the very code that runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.runtimes.venvs import project_checkout
from c10k.version import PACKAGES


def tree(root: Path, text: str, pyproject: bool) -> Path:
    """A copy of the project's packages (one module each, holding text)."""
    for package in PACKAGES:
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(text)
    if pyproject:
        (root / "pyproject.toml").write_text('[project]\nname = "c10k-bench"\n')
    return root


def test_a_checkout_is_its_own_project(tmp_path: Path) -> None:
    checkout = tree(tmp_path / "checkout", "x = 1\n", pyproject=True)
    assert project_checkout(checkout) == checkout


@pytest.mark.parametrize(("text", "taken"), [("x = 1\n", True), ("x = 2\n", False)])
def test_an_installed_wheel_takes_the_current_folder_only_when_it_holds_the_same_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, taken: bool
) -> None:
    installed = tree(tmp_path / "site-packages", "x = 1\n", pyproject=False)
    checkout = tree(tmp_path / "checkout", text, pyproject=True)
    monkeypatch.chdir(checkout)
    assert project_checkout(installed) == (checkout if taken else None)


def test_bench_without_a_checkout_of_its_code_refuses_another_python_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.harness import cli as bench_cli

    installed = tree(tmp_path / "site-packages", "x = 1\n", pyproject=False)
    monkeypatch.setattr(bench_cli, "PROJECT_DIR", installed)
    # any runtime: the plan asks only its tag and version
    runtime = SimpleNamespace(tag="3.14", version="3.14.0")
    monkeypatch.setattr(bench_cli, "resolve", lambda spec: runtime)
    monkeypatch.chdir(tmp_path)
    code = bench_cli.main(["--python", "3.14", "--models", "threads", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        err.startswith("c10k bench: error: --python and --pythons install") and err.count("\n") == 1
    )
