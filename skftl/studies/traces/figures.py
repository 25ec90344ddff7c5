"""Figures of the `traces` study (drawn by notebooks/00_traces.ipynb)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from skftl.run_traces import SYNTHETIC_PREFIX
from skftl.studies.captions import Caption
from skftl.traces.requests import Requests
from skftl.traces.stats import address_time_histogram, size_cdf

if TYPE_CHECKING:
    from skftl.traces.validation import RoundTrip


def size_cdf_figure(reqs: Mapping[str, Requests]) -> plt.Figure:
    """Request-size CDF of every trace (trace id -> requests): real traces above, synthetic
    presets below."""
    real = [t for t in reqs if not t.startswith(SYNTHETIC_PREFIX)]
    syn = [t for t in reqs if t.startswith(SYNTHETIC_PREFIX)]
    fig, axes = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    colors = plt.get_cmap("tab20").colors
    for ax, group, title in ((axes[0], real, "real traces"), (axes[1], syn, "synthetic presets")):
        for i, tid in enumerate(group):
            x, y = size_cdf(reqs[tid])
            ax.step(x / 1024, y, where="post", label=reqs[tid].meta.label,
                    color=colors[i % 20], linestyle=("-", "--", ":")[i // 20 % 3])  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_ylabel("fraction of requests")
        ax.set_title(title)
        if group:
            ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[1].set_xlabel("request size (KB)")
    return fig


def read_write_mix_figure(ds: xr.Dataset) -> plt.Figure:
    """Share of reads and writes, and mean read and write size, per trace."""
    labels = [str(t) for t in ds["trace"].values]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.25 * len(labels) + 1.5))
    y = np.arange(len(labels))
    rp = ds["read_pct"].values
    axes[0].barh(y, rp, label="read")
    axes[0].barh(y, 100 - rp, left=rp, label="write")
    axes[0].set_yticks(y, labels)
    axes[0].set_xlabel("share of requests (%)")
    axes[0].legend()
    axes[1].barh(y - 0.2, np.nan_to_num(ds["mean_read_size_kb"].values), height=0.4, label="read")
    axes[1].barh(y + 0.2, np.nan_to_num(ds["mean_write_size_kb"].values), height=0.4, label="write")
    axes[1].set_yticks(y, [""] * len(y))
    axes[1].set_xlabel("mean request size (KB)")
    axes[1].legend()
    for ax in axes:
        ax.invert_yaxis()
    return fig


def address_time_figure(reqs: Mapping[str, Requests], bins: int = 120) -> plt.Figure:
    """Request count per (time, start address) cell of every trace, log colour scale; time is
    the replay clock (backward jumps of the source clock held, as a simulator replays them)."""
    ids = list(reqs)
    ncol = 4
    nrow = max(1, int(np.ceil(len(ids) / ncol)))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.6 * nrow), squeeze=False)
    for ax, tid in zip(axes.flat, ids, strict=False):
        counts, t_edges, a_edges = address_time_histogram(reqs[tid], bins, bins)
        # a raster image, not a mesh of quads: small and fast to write as PDF
        ax.imshow(np.log1p(counts.T), origin="lower", aspect="auto", cmap="viridis",
                  extent=(t_edges[0], t_edges[-1], a_edges[0], a_edges[-1]),
                  interpolation="nearest")  # fmt: skip
        ax.set_title(reqs[tid].meta.label, fontsize=7)
        ax.set_xlabel("time (s)", fontsize=7)
        ax.set_ylabel("offset (GiB)", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.flat[len(ids) :]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def round_trip_figure(results: Sequence[RoundTrip], ncol: int = 4) -> plt.Figure:
    """Per trace, real beside synthetic (profile -> synthesise -> profile): the reuse-distance
    CDF (log scale) and the footprint-growth curve (each scaled to end at 1), with the KS
    distance of each pair in the panel title (target <= 0.1)."""
    nrow = max(1, int(np.ceil(len(results) / ncol)))
    fig, axes = plt.subplots(nrow, 2 * ncol, figsize=(2.6 * 2 * ncol, 2.4 * nrow), squeeze=False)
    for i, r in enumerate(results):
        ax_cdf, ax_fp = axes[i // ncol, 2 * (i % ncol)], axes[i // ncol, 2 * (i % ncol) + 1]
        ks = {row["measure"]: row["distance"] for row in r.rows}
        for data, style, label in (
            (r.reuse_real, "-", "real"),
            (r.reuse_synthetic, "--", "synthetic"),
        ):
            x = np.sort(data)
            ax_cdf.step(
                x, np.arange(1, len(x) + 1) / max(len(x), 1), style, where="post", label=label
            )
        for curve, style in ((r.growth_real, "-"), (r.growth_synthetic, "--")):
            ax_fp.plot(np.linspace(0, 1, len(curve)), curve / max(curve[-1], 1), style)
        ax_cdf.set_xscale("log")
        ax_cdf.set_title(f"{r.name}\nreuse CDF, KS {ks['reuse_distance_cdf_ks']:.2f}", fontsize=7)
        ax_fp.set_title(f"footprint growth, KS {ks['footprint_growth_ks']:.2f}", fontsize=7)
        ax_cdf.set_xlabel("reuse distance (requests)", fontsize=6)
        ax_fp.set_xlabel("share of requests", fontsize=6)
        for ax in (ax_cdf, ax_fp):
            ax.tick_params(labelsize=6)
    if results:
        axes[0, 0].legend(fontsize=6)
    for ax in axes.flat[2 * len(results) :]:
        ax.axis("off")
    fig.tight_layout()
    return fig


#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "size_cdf": Caption(
        "Cumulative distribution of request size (KB) of every trace of the run, real traces "
        "in the upper panel and the synthetic presets that stand in for the paper's traces in "
        "the lower one: the size distributions behind the mean request sizes of the paper's "
        "Table III.",
        ("tab3.*.mean_size_kb",),
    ),
    "read_write_mix": Caption(
        "Per trace: the share of reads and writes among requests (left) and the mean read and "
        "write request size (right), the quantities of the paper's Table III (read share, "
        "mean request size).",
        ("tab3.*.read_pct", "tab3.*.mean_size_kb"),
    ),
    "address_time": Caption(
        "Per trace: request count per cell of replay time (x) and start address (y), on a log "
        "colour scale; where each trace reads and writes over time, the context of its "
        "sequential shares. A view of the workloads, not a figure of the paper: it bears on "
        "no scored claim.",
    ),
    "round_trip": Caption(
        "Per trace, a real trace beside its synthetic round trip (profile, synthesise, profile "
        "again): the reuse-distance CDF and the footprint-growth curve, with the "
        "Kolmogorov-Smirnov distance of each pair in the panel title (target at most 0.1). A "
        "check of skftl's trace synthesiser, not of the paper: it bears on no scored claim.",
    ),
    "spread": Caption(
        "The Table III predictions whose verdict is not the same on every excerpt window of "
        "the real traces and every further seed of the synthetic stand-ins: per prediction, "
        "the share of those windows and seeds in which it holds, coloured by its verdict on "
        "the whole traces (skftl.studies.spread, as `make spread`).",
        ("tab3",),
    ),
}
