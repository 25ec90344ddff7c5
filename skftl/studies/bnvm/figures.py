"""Figures of the bnvm study, drawn from its dataset (used by notebooks/05_bnvm.ipynb)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

COLORS = {"static": "#4c72b0", "dynamic": "#dd8452", "static_full": "#55a868", "block": "#8172b3"}
NAMES = {"static": "static", "dynamic": "dynamic", "static_full": "static + full", "block": "block"}


def _panels(ds: xr.Dataset, height: float = 5.2):
    letters = list(ds["trace"].values)
    cols = 3
    rows = int(np.ceil(len(letters) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(9.6, height * rows / 2), squeeze=False)
    for ax in axes.flat[len(letters) :]:
        ax.set_visible(False)
    return fig, letters, list(axes.flat)


def _title(ds: xr.Dataset, letter: str) -> str:
    return f"Trace {letter}: {ds['label'].sel(trace=letter).item()}"


def fig_counts(ds: xr.Dataset, schemes: tuple[str, str]):
    """Per trace: parallel clean / dirty / total writes of two schemes side by side; the
    title gives each scheme's total time (and, for static + full, its merges and refresh
    time, too few / too large to share the count axis)."""
    fig, letters, axes = _panels(ds)
    cats = ["clean", "dirty", "total"]
    x = np.arange(len(cats))
    for ax, letter in zip(axes, letters, strict=False):
        notes = []
        for k, scheme in enumerate(schemes):
            sel = ds.sel(trace=letter, scheme=scheme)
            c, d = float(sel["parallel_clean_writes"]), float(sel["parallel_dirty_writes"])
            ax.bar(
                x + (k - 0.5) * 0.4, [c, d, c + d], 0.4, color=COLORS[scheme], label=NAMES[scheme]
            )
            note = f"{NAMES[scheme]} {float(sel['total_time']):.3g} s"
            if scheme == "static_full":
                note += (
                    f" ({int(sel['merges'])} merges, refresh {float(sel['refresh_time']):.3g} s)"
                )
            notes.append(note)
        ax.set_xticks(x, cats)
        ax.set_title(_title(ds, letter) + "\n" + ", ".join(notes), fontsize=6.5)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
    axes[0].legend()
    fig.tight_layout()
    return fig


def fig_time_breakdown(ds: xr.Dataset, schemes: tuple[str, ...]):
    """Total time per trace split into write / merge copy / refresh, relative to the first
    scheme (the paper's "total write time" plus eq. 1's merge cost)."""
    letters = list(ds["trace"].values)
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    width = 0.8 / len(schemes)
    parts = (("write_time", ""), ("merge_copy_time", "//"), ("refresh_time", ".."))
    for k, scheme in enumerate(schemes):
        base = ds["total_time"].sel(scheme=schemes[0]).values
        bottom = np.zeros(len(letters))
        xs = np.arange(len(letters)) + (k - (len(schemes) - 1) / 2) * width
        for var, hatch in parts:
            val = ds[var].sel(scheme=scheme).values / base
            ax.bar(
                xs,
                val,
                width,
                bottom=bottom,
                color=COLORS[scheme],
                hatch=hatch,
                edgecolor="white",
                label=f"{NAMES[scheme]}: {var.replace('_', ' ')}" if val.any() else None,
            )
            bottom += val
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(letters)), letters)
    ax.set_ylabel(f"time / {NAMES[schemes[0]]} total")
    ax.legend(ncol=2, fontsize=7)
    fig.tight_layout()
    return fig


def fig_wear(ds: xr.Dataset):
    """Most-written page per scheme and the lifetime it implies at the cycle limit."""
    letters = list(ds["trace"].values)
    schemes = list(ds["scheme"].values)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.6, 3.2))
    w = 0.8 / len(schemes)
    for k, scheme in enumerate(schemes):
        xs = np.arange(len(letters)) + (k - (len(schemes) - 1) / 2) * w
        a1.bar(xs, ds["max_wear"].sel(scheme=scheme), w, color=COLORS[scheme], label=NAMES[scheme])
        a2.bar(xs, ds["lifetime"].sel(scheme=scheme), w, color=COLORS[scheme])
    for ax in (a1, a2):
        ax.set_xticks(np.arange(len(letters)), letters)
        ax.set_yscale("log")
    a1.set_ylabel("max writes+refreshes of one page")
    a2.set_ylabel("years to 10^6 cycles (trace looped)")
    a1.legend(fontsize=7)
    fig.tight_layout()
    return fig


def fig_risk(ds: xr.Dataset):
    """Data at risk in the static + full buffer vs the flush timeout, and what it costs."""
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(10.5, 3.2))
    tmo = ds["flush_timeout_ms"].values
    xpos = np.arange(len(tmo))
    for letter in ds["trace"].values:
        sel = ds.sel(trace=letter)
        a1.plot(xpos, sel["risk_residency_max"], "o-", label=letter)
        a2.plot(xpos, sel["risk_bytes_mean"] / 1024, "o-")
        a3.plot(
            xpos, sel["risk_total_time"] / sel["risk_total_time"].isel(flush_timeout_ms=0), "o-"
        )
    labels = ["none (paper)" if t == 0 else f"{t:g}" for t in tmo]
    for ax in (a1, a2, a3):
        ax.set_xticks(xpos, labels, fontsize=7)
        ax.set_xlabel("buffer flush timeout (ms)")
    a1.set_yscale("log")
    a1.set_ylabel("longest buffer residency (s)")
    a2.set_ylabel("time-averaged data at risk (KiB)")
    a3.set_ylabel("total time / no-timeout total time")
    a1.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def fig_sweep(ds: xr.Dataset):
    """static total time / static + full total time over refresh unit size and latency
    (> 1: the log policy pays off), per trace."""
    fig, letters, axes = _panels(ds, height=6.4)
    sp = ds["sweep_speedup"]
    lo, hi = 0.2, 5.0
    for ax, letter in zip(axes, letters, strict=False):
        z = sp.sel(trace=letter).values.T  # latency x unit
        im = ax.imshow(
            np.log2(np.clip(z, lo, hi)),
            origin="lower",
            cmap="RdBu",
            aspect="auto",
            vmin=np.log2(lo),
            vmax=np.log2(hi),
        )
        for (r, c), val in np.ndenumerate(z):
            ax.text(c, r, f"{val:.2f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(range(sp.sizes["refresh_unit_pages"]), sp["refresh_unit_pages"].values)
        ax.set_yticks(range(sp.sizes["refresh_ms"]), [f"{v:g}" for v in sp["refresh_ms"].values])
        ax.set_xlabel("refresh unit (pages)")
        ax.set_ylabel("refresh latency (ms)")
        ax.set_title(_title(ds, letter), fontsize=7)
        ax.grid(False)
    fig.subplots_adjust(hspace=0.55, wspace=0.45, right=0.86)
    cax = fig.add_axes((0.89, 0.25, 0.015, 0.5))
    fig.colorbar(im, cax=cax, label="log2 speedup of static+full over static")
    return fig


def fig_log_size(ds: xr.Dataset):
    """static total time / static + full total time against the log size per chip, at the
    device's refresh unit and latency (> 1: the log policy pays off)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    sizes = ds["log_pages_per_chip"].values
    for letter in ds["trace"].values:
        ax.plot(sizes, ds["log_speedup"].sel(trace=letter), "o-", label=letter)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_xlabel("log area per chip (pages)")
    ax.set_ylabel("static / static+full total time")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig
