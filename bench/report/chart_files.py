"""Charts as files: drawn with the same settings, saved as SVG and as a small PNG.

The PNG is quantised to a palette of PALETTE_COLOURS (Pillow, which matplotlib brings):
charts are flat colours and anti-aliased text, so a palette keeps them sharp at about a
quarter of the bytes, which keeps index.html (every chart inline) small.
"""

from __future__ import annotations

import io
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from PIL import Image

from bench.report.chart_kit import FIXED_RC

DPI = 110
PALETTE_COLOURS = 128


def drawing() -> AbstractContextManager[Any]:
    """The settings every chart is drawn and saved with."""
    return plt.rc_context(FIXED_RC)


def small_png(data: bytes) -> bytes:
    """A PNG as a palette image of PALETTE_COLOURS, without dithering, optimised."""
    image = Image.open(io.BytesIO(data)).convert("RGB")
    quantised = image.quantize(
        colors=PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    quantised.save(out, "PNG", optimize=True)
    return out.getvalue()


def save_figure(figure: Figure, png: Path, svg: Path) -> None:
    """Write a figure as PNG and SVG without dates or versions (a redraw is the same file)."""
    with drawing():
        drawn = io.BytesIO()
        figure.savefig(drawn, format="png", dpi=DPI, metadata={"Software": None})
        png.write_bytes(small_png(drawn.getvalue()))
        figure.savefig(svg, metadata={"Date": None, "Creator": None})
    plt.close(figure)
