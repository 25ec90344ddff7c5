"""Figures and tables of the skrm study (used by notebooks/01_skrm.ipynb)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.skrm.model import OPS, OpCosts

OP_TITLES = {
    "inject": "Fig. 9: inject latency",
    "remove": "Fig. 10: remove latency",
    "detect": "Fig. 11: detect latency",
    "shift": "Fig. 12: shift latency",
}
SCHEME_COLORS = {"FTL": "0.55", "PW FTL": "C0", "SK-FTL": "C3"}


def _bars(ax, values: pd.DataFrame, log: bool, zero_note: bool = True) -> None:
    """Grouped bars: rows of ``values`` = traces on x, columns = schemes."""
    n = values.shape[1]
    width = 0.8 / n
    x = np.arange(len(values))
    for j, col in enumerate(values.columns):
        v = values[col].to_numpy(float)
        pos = x + (j - (n - 1) / 2) * width
        ax.bar(pos, np.where(v > 0, v, np.nan), width, label=col, color=SCHEME_COLORS.get(col))
        if zero_note:
            for p, y in zip(pos, v, strict=True):
                if y == 0:
                    ax.annotate(
                        "0",
                        (p, 0),
                        xycoords=("data", "axes fraction"),
                        ha="center",
                        va="bottom",
                        fontsize=7,
                    )
    ax.set_xticks(x, values.index, rotation=25, ha="right")
    if log:
        ax.set_yscale("log")


def op_latency_figure(ds: xr.Dataset, op: str, convention: str = "paper") -> plt.Figure:
    """One of Figs. 9-12: accumulated latency of ``op`` per trace and scheme, log scale."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    v = ds["op_latency"].sel(convention=convention, op=op).to_pandas()
    _bars(ax, v, log=True)
    ax.set(ylabel="accumulated latency (ns, log)", title=f"{OP_TITLES[op]} ({convention})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def bitdiff_figure(ds: xr.Dataset) -> plt.Figure:
    """Fig. 13: accumulated 1-bit difference per trace and scheme."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    _bars(ax, ds["bitdiff"].to_pandas(), log=True)
    ax.set(ylabel="accumulated |Δ popcount| (bits, log)", title="Fig. 13: 1-bit difference")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def nand_figure(ds: xr.Dataset) -> plt.Figure:
    """Fig. 14: mean NAND read and write response time per trace and scheme."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    for ax, d in zip(axes, ("read", "write"), strict=True):
        _bars(ax, ds[f"nand_{d}_latency"].to_pandas(), log=False, zero_note=False)
        ax.set(ylabel=f"mean {d} latency (µs)", title=f"Fig. 14: NAND {d} latency")
    axes[0].legend()
    fig.tight_layout()
    return fig


def change_table(ds: xr.Dataset, convention: str) -> pd.DataFrame:
    """Per trace: change of each operation's accumulated latency, SK-FTL vs PW FTL and
    PW FTL vs FTL (%)."""
    lat = ds["op_latency"].sel(convention=convention)
    rows = {}
    for a, b in (("SK-FTL", "PW FTL"), ("PW FTL", "FTL")):
        base = lat.sel(scheme=b)
        ch = 100 * (lat.sel(scheme=a) - base) / base.where(base != 0)
        for op in OPS:
            rows[f"{op}: {a} vs {b}"] = ch.sel(op=op).to_pandas()
    t = pd.DataFrame(rows).T
    t["mean"] = t.mean(axis=1)
    return t.round(2)


def ablation_table(ds: xr.Dataset, costs: OpCosts) -> pd.DataFrame:
    """Per variant, summed over traces: inject/remove latency, their change vs PW FTL, and
    the 1-bit difference."""
    cnt = ds["ablation_op_count"].sum("trace")
    out = pd.DataFrame(
        {
            "allocator": ds["ablation_allocator"].values.astype(bool),
            "vertical": ds["ablation_vertical"].values.astype(bool),
            "buffering": ds["ablation_buffering"].values.astype(bool),
            "inject (ns)": cnt.sel(op="inject").values * costs.inject_ns,
            "remove (ns)": cnt.sel(op="remove").values * costs.remove_ns,
            "shift (ns)": cnt.sel(op="shift").values * costs.shift_ns,
            "1-bit diff": ds["ablation_bitdiff"].sum("trace").values,
        },
        index=ds["variant"].values,
    )
    for col in ("inject (ns)", "remove (ns)", "1-bit diff"):
        out[f"{col.split(' ')[0]} vs PW (%)"] = 100 * (out[col] / out[col].iloc[0] - 1)
    return out.round(2)


def sensitivity_figure(ds: xr.Dataset) -> plt.Figure:
    """Inject+remove latency (solid) and 1-bit difference (dashed, right axis) of each
    scheme against each swept parameter."""
    params = [
        v[len("sens_") : -len("_latency")]
        for v in ds.data_vars
        if v.startswith("sens_") and v.endswith("_latency")
    ]
    ncol = 3
    nrow = -(-len(params) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(10, 3.0 * nrow), squeeze=False)
    axes = axes.ravel()
    for ax in axes[len(params) :]:
        ax.set_visible(False)
    for ax, p in zip(axes, params, strict=False):
        lat = ds[f"sens_{p}_latency"]
        x = ds[f"sens_{p}"].values
        for s in ds["scheme"].values:
            y = lat.sel(scheme=s, op=["inject", "remove"]).sum("op")
            ax.plot(x, y, "o-", color=SCHEME_COLORS.get(str(s)), label=str(s))
        ax.set(xlabel=ds[f"sens_{p}"].attrs["long_name"], yscale="log")
        if p in ("entries_per_track", "open_per_class"):
            ax.set_xscale("log", base=2)
    for r in range(nrow):
        axes[r * ncol].set_ylabel("inject + remove latency (ns)")
    axes[0].legend()
    fig.suptitle(f"Sensitivity ({ds.attrs.get('sensitivity_trace', '')})")
    fig.tight_layout()
    return fig


def energy_table(ds: xr.Dataset, costs: OpCosts) -> pd.DataFrame:
    """Accumulated SK-RM energy per scheme and operation over all traces (nJ), from the
    operation counts and the (assumed) per-operation energies in ``costs``."""
    cnt = ds["op_count"].sel(convention="paper").sum("trace").to_pandas()
    e = cnt * pd.Series({op: getattr(costs, f"{op}_pj") for op in OPS}) / 1e3
    e["total"] = e.sum(axis=1)
    return e.round(1)


def energy_figure(ds: xr.Dataset, costs: OpCosts) -> plt.Figure:
    e = energy_table(ds, costs).drop(columns="total")
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    bottom = np.zeros(len(e))
    for op in e.columns:
        ax.bar(e.index, e[op], bottom=bottom, label=op)
        bottom += e[op].to_numpy()
    ax.set(ylabel="energy (nJ, all traces)", title="SK-RM energy (assumed per-op energies)")
    ax.legend()
    fig.tight_layout()
    return fig
