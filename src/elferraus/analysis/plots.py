"""The report's plots: one look for all of them (the colours of docs DESIGN), PNG bytes out.

matplotlib draws off-screen (the Agg backend), so the study runs on a
machine without a display.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

LEVEL_COLOURS = {"random": "#7A7A7A", "greedy": "#1F5FBF", "medium": "#1E8A4C", "expert": "#C8382D"}
"""One colour per level, from the card colours (blue, green, red) and grey for chance."""
ACCENT = "#B58900"
"""The yellow of the cards: reference lines (parity, exact values)."""
MARKERS = {"random": "o", "greedy": "s", "medium": "^", "expert": "D"}
"""A marker per level, so that colour is never the only cue."""

_STYLE: dict[Any, Any] = {
    "figure.dpi": 110,
    "savefig.dpi": 110,
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
}


@contextmanager
def figure(panels: int = 1, height: float = 3.6, width: float = 6.4) -> Iterator[tuple[Figure, list[Axes]]]:
    """A new figure of ``panels`` axes one above the other (so that each stays readable on a phone), in the
    report's style; closed afterwards."""
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(panels, 1, figsize=(width, height * panels), squeeze=False)
        try:
            yield fig, [row[0] for row in axes]
        finally:
            plt.close(fig)


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes, trimmed, without the timestamp that would make every run differ."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight")
    return buffer.getvalue()


def error_bars(figures: list[dict[str, Any]], name: str, scale: float = 100.0) -> tuple[list[float], list[list[float]]]:
    """Values and asymmetric error bars (below, above) of results entries holding ``name`` and ``ci95``."""
    values = [scale * entry[name] for entry in figures]
    below = [scale * (entry[name] - entry["ci95"][0]) for entry in figures]
    above = [scale * (entry["ci95"][1] - entry[name]) for entry in figures]
    return values, [below, above]
