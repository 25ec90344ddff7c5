"""Figures of the `ftl` study (drawn by notebooks/10_ftl_validation.ipynb)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from skftl.nand.analytic import waf_greedy, waf_lru
from skftl.studies.captions import Caption


def waf_figure(ds: xr.Dataset) -> plt.Figure:
    """Simulated WAF (markers) beside Desnoyers' greedy model (solid) and LRU cleaning
    (dotted), and the simulated / model ratio of greedy GC."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    grid = np.linspace(0.03, 0.35, 200)
    ax.plot(grid, [waf_lru(x) for x in grid], ":", color="0.4", label="LRU (Eq. 4)")
    for ppb, color in zip(ds.pages_per_block.values, ["C0", "C1", "C2"], strict=False):
        ax.plot(grid, [waf_greedy(x, int(ppb)) for x in grid], color=color,
                label=f"greedy model, $N_p$={int(ppb)}")  # fmt: skip
        for pol, marker in zip(ds.gc_policy.values, ["o", "s"], strict=False):
            m = ds.waf_measured.sel(pages_per_block=ppb, gc_policy=pol)
            ax.plot(ds.spare_factor, m, marker, color=color, mfc="none",
                    label=f"simulated {pol}, $N_p$={int(ppb)}")  # fmt: skip
            if pol == "greedy":
                rel = (m / ds.waf_analytic_greedy.sel(pages_per_block=ppb) - 1) * 100
                ax2.plot(ds.spare_factor, rel, marker + "-", color=color,
                         label=f"$N_p$={int(ppb)}")  # fmt: skip
    ax.set(xlabel="spare factor $S_f$", ylabel="write amplification", yscale="log")
    ax.legend(fontsize=7)
    ax2.axhspan(-3, 3, color="0.9", label="±3 %")
    ax2.axhline(0, color="0.5", lw=0.8)
    ax2.set(xlabel="spare factor $S_f$", ylabel="simulated / model − 1 (%)")
    ax2.legend()
    fig.tight_layout()
    return fig


def latency_cdf_figure(ds: xr.Dataset) -> plt.Figure:
    """Response-time CDF of the replayed trace's reads and writes."""
    fig, ax = plt.subplots()
    lat = ds.latency.values
    wr = ds.request_is_write.values.astype(bool)
    for name, mask in (("reads", ~wr), ("writes", wr)):
        x = np.sort(lat[mask])
        ax.plot(x, np.arange(1, len(x) + 1) / max(len(x), 1), label=f"{name} ({mask.sum():,})")
    ax.set(xscale="log", xlabel="response time (us)", ylabel="CDF",
           title=f"{ds.attrs['trace_label']} on the default device")  # fmt: skip
    ax.legend()
    return fig


#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "fig10_waf_vs_desnoyers": Caption(
        "Validation of the FTL against Desnoyers' analytic model (its Fig. 10 and eq. 12): "
        "simulated write amplification (markers) against the spare factor beside the "
        "model's greedy (solid) and LRU (dotted) cleaning, and the simulated over the "
        "model's greedy WAF.",
        ("eq12",),
    ),
    "fig10_latency_cdf": Caption(
        "Response-time CDF of the replayed trace's reads and writes on the default device: "
        "a view of the simulator's timing, not a figure of the paper. It bears on no scored "
        "claim.",
    ),
}
