"""The report page in headless Chromium: it loads offline, shows every chart, is not blank."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench import results
from bench.report.charts import CHARTS
from bench.report.page import write_report

DATA = Path(__file__).parent / "data"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install chromium; CI installs it)",
)
# No network, no profile, no background services: the page must stand on its own.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    document: dict[str, Any] = dict(results.load(DATA / "report-failures.json"))
    return write_report(document, tmp_path_factory.mktemp("report")).html


def test_the_page_loads_with_every_image_decoded(page: Path, tmp_path: Path) -> None:
    result = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert "<h1>c10k-bench report</h1>" in dom
    assert dom.count('src="data:image/png;base64,') == len(CHARTS)
    for message in ("ERR_FILE_NOT_FOUND", "Uncaught", "net::ERR_"):
        assert message not in result.stderr


def test_the_screenshot_is_not_blank(page: Path, tmp_path: Path) -> None:
    from matplotlib import image

    shot = tmp_path / "page.png"
    result = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    pixels = image.imread(shot)
    assert pixels.shape[0] >= 1000 and pixels.shape[1] >= 1000
    colours = {tuple(row) for row in pixels.reshape(-1, pixels.shape[-1])[::97].tolist()}
    assert len(colours) > 20, "the screenshot is (nearly) a single colour"
    # Some of it is dark (text, axes), most of it is light (the page's background).
    brightness = pixels[..., :3].mean(axis=-1)
    assert (brightness < 0.3).mean() > 0.005
    assert (brightness > 0.9).mean() > 0.5
