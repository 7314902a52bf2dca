"""The report page in headless Chromium at a desktop's and a phone's width: it loads offline,
every chart is decoded, nothing is cut off and the page never scrolls sideways, as the
browser's own layout measures it (not the HTML text).

C10K_SCREENSHOTS=DIR keeps a full-page screenshot of each page at each width in DIR, to look at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench import results
from bench.report.charts import CHART_COUNT
from bench.report.page import write_report
from tests.browser_helpers import CHROMIUM, Browser

DATA = Path(__file__).parent / "data"
SAMPLE = Path(__file__).resolve().parent.parent / "reports" / "index.html"
WIDTHS = (1400, 390)  # a desktop, and a phone (CSS pixels)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install chromium; CI installs it)",
)
# With every fold open: the viewport's width, the page's scroll width, and every element that
# lies outside the viewport or holds content wider than itself (text cut off or spilling
# over), skipping what sits inside a box that scrolls on its own (.scroll: a wide table); and
# every image the browser could not decode.
LAYOUT_CHECK = """(() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const root = document.documentElement;
  const viewport = root.clientWidth;
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className ? "." + el.className : "");
  for (const el of document.body.querySelectorAll("*")) {
    if (el.parentElement && el.parentElement.closest(".scroll")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > viewport + 1 || box.left < -1) {
      problems.push({what: "outside the viewport", el: name(el), right: box.right});
    }
    const wider = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    if (wider && !el.classList.contains("scroll")) {
      problems.push({what: "wider than its box", el: name(el), scroll: el.scrollWidth});
    }
  }
  const images = Array.from(document.images);
  return {
    viewport, scrollWidth: root.scrollWidth, problems,
    images: images.length, decoded: images.filter((i) => i.complete && i.naturalWidth > 0).length,
  };
})()"""


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A page drawn from recorded results with failed runs and missing parts."""
    document = results.load(DATA / "report-failures.json")
    return write_report(document, tmp_path_factory.mktemp("report")).html


def measure(page: Path, width: int, profile: Path, shot: Path | None = None) -> dict[str, Any]:
    browser = Browser(profile)
    try:
        browser.open(page.as_uri(), width, 900)
        found: dict[str, Any] = browser.evaluate(LAYOUT_CHECK)
        if shot is not None:
            browser.evaluate('document.querySelectorAll("details").forEach((d) => d.open = false)')
            browser.screenshot(shot)
        return found
    finally:
        browser.close()


def keep(name: str) -> Path | None:
    """Where to keep a screenshot to look at, when C10K_SCREENSHOTS names a folder."""
    folder = os.environ.get("C10K_SCREENSHOTS")
    return Path(folder) / name if folder else None


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_fits_and_decodes_every_chart(rendered: Path, width: int, tmp_path: Path) -> None:
    found = measure(rendered, width, tmp_path / "profile", keep(f"report-{width}.png"))
    assert found["viewport"] == width
    assert found["scrollWidth"] <= width, "the page scrolls sideways"
    assert found["problems"] == []
    assert found["images"] == found["decoded"] == CHART_COUNT


@pytest.mark.skipif(not SAMPLE.is_file(), reason="no committed sample")
@pytest.mark.parametrize("width", WIDTHS)
def test_the_committed_sample_fits(width: int, tmp_path: Path) -> None:
    found = measure(SAMPLE, width, tmp_path / "profile", keep(f"sample-{width}.png"))
    assert found["scrollWidth"] <= width, "the page scrolls sideways"
    assert found["problems"] == []
    assert found["images"] == found["decoded"] > 0


def test_the_check_sees_what_does_not_fit(tmp_path: Path) -> None:
    # The measure itself: a page that does not fit a phone must be caught.
    page = tmp_path / "wide.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">'
        '</head><body><div style="width:900px">wide</div>'
        '<p style="width:100px;overflow:hidden;white-space:nowrap">'
        "a sentence much longer than its box</p></body></html>",
        encoding="utf-8",
    )
    found = measure(page, 390, tmp_path / "profile")
    assert found["scrollWidth"] > 390
    assert {p["what"] for p in found["problems"]} == {"outside the viewport", "wider than its box"}


def test_a_screenshot_is_not_blank(rendered: Path, tmp_path: Path) -> None:
    from matplotlib import image

    shot = tmp_path / "page.png"
    measure(rendered, 1400, tmp_path / "profile", shot)
    pixels = image.imread(shot)
    assert pixels.shape[0] >= 1000 and pixels.shape[1] == 1400
    colours = {tuple(row) for row in pixels.reshape(-1, pixels.shape[-1])[::97].tolist()}
    assert len(colours) > 20, "the screenshot is (nearly) a single colour"
    # Some of it is dark (text, axes), most of it is light (the page's background).
    brightness = pixels[..., :3].mean(axis=-1)
    assert (brightness < 0.3).mean() > 0.005
    assert (brightness > 0.9).mean() > 0.5
