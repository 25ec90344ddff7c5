"""Shared figure style and saving (PNG for viewing, PDF for papers)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from skftl.io import atomic_path

STYLE = {
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
}


def use_style() -> None:
    """Apply the project's figure style to matplotlib's global state."""
    plt.rcParams.update(STYLE)


class SavedFiles(list):
    """The paths a figure was saved to. A notebook cell ending in ``save_figure(...)`` shows
    the figure only: the paths are not echoed as the cell's output."""

    def _ipython_display_(self) -> None:  # IPython's display protocol: display nothing
        return None


def save_figure(
    fig: plt.Figure, path: str | Path, formats: tuple[str, ...] = ("png", "pdf")
) -> SavedFiles:
    """Save ``fig`` as ``path.<fmt>`` for each format, atomically; returns the paths written."""
    base = Path(path)
    if base.suffix in {".png", ".pdf", ".svg"}:
        base = base.with_suffix("")
    out = SavedFiles()
    for fmt in formats:
        target = base.with_name(f"{base.name}.{fmt}")
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=fmt, bbox_inches="tight")
        out.append(target)
    return out
