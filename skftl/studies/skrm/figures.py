"""Figures and tables of the skrm study (used by notebooks/01_skrm.ipynb)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.skrm import PAPER_SCHEMES, CostModel, Layout
from skftl.skrm.model import OPS, OpCosts
from skftl.studies.skrm.claims import TABLE_I_SKRM_NS, TABLE_II_NS, conservation

OP_TITLES = {
    "inject": "Fig. 9: inject latency",
    "remove": "Fig. 10: remove latency",
    "detect": "Fig. 11: detect latency",
    "shift": "Fig. 12: shift latency",
}
SCHEME_COLORS = {"FTL": "0.55", "PW FTL": "C0", "SK-FTL": "C3"}


def _bars(ax: plt.Axes, values: pd.DataFrame, log: bool, zero_note: bool = True) -> None:
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
    PW FTL vs FTL (%); ``mean`` is the mean of the per-trace changes (the claims' "on
    average"), ``pooled`` the change of the latencies summed over traces."""
    lat = ds["op_latency"].sel(convention=convention)
    rows, pooled = {}, {}
    for a, b in (("SK-FTL", "PW FTL"), ("PW FTL", "FTL")):
        base = lat.sel(scheme=b)
        ch = 100 * (lat.sel(scheme=a) - base) / base.where(base != 0)
        tot = lat.sum("trace")
        for op in OPS:
            rows[f"{op}: {a} vs {b}"] = ch.sel(op=op).to_pandas()
            tb = float(tot.sel(scheme=b, op=op))
            pooled[f"{op}: {a} vs {b}"] = (
                100 * (float(tot.sel(scheme=a, op=op)) - tb) / tb if tb else np.nan
            )
    t = pd.DataFrame(rows).T
    t["mean"] = t.mean(axis=1)
    t["pooled"] = pd.Series(pooled)
    return t.round(2)


def fig2_example_table(entries_per_track: int = 4) -> pd.DataFrame:
    """The paper's Fig. 2 example through the cost model: one entry written at [block 0,
    page 2], then [block 0, page 255], then [block 8, page 2] (256 pages per block), on a
    racetrack of ``entries_per_track`` otherwise free entries; counters per scheme."""
    lpn = np.zeros(3, np.int64)
    new = np.array([0 * 256 + 2, 0 * 256 + 255, 8 * 256 + 2])
    old = np.array([-1, new[0], new[1]])
    rows = {}
    for scheme in PAPER_SCHEMES:
        m = CostModel(Layout(32, entries_per_track), scheme, entries_per_track)
        m.update(lpn, old, new)
        c = m.counters()
        rows[scheme.name] = {
            k: c[k] for k in ("inject", "remove", "detect", "shift", "parked", "bitdiff", "hamming")
        }
    return pd.DataFrame(rows).T


def paper_latency_tables() -> pd.DataFrame:
    """The paper's two statements of SK-RM's operation latencies side by side (Table I's
    SK-RM column, Table II): they disagree on the remove ('1' to '0') latency."""
    rows = {
        "read / detect": (TABLE_I_SKRM_NS["read"], TABLE_II_NS["detect"]),
        "write '0' to '1' / insert": (TABLE_I_SKRM_NS["write 0->1"], TABLE_II_NS["inject"]),
        "write '1' to '0' / remove": (TABLE_I_SKRM_NS["write 1->0"], TABLE_II_NS["remove"]),
        "shift": (np.nan, TABLE_II_NS["shift"]),
    }
    return pd.DataFrame(rows, index=["Table I (ns)", "Table II (ns)"]).T


def bitdiff_table(ds: xr.Dataset) -> pd.DataFrame:
    """Fig. 13's data per trace and scheme: 1-bit difference (popcount change), Hamming
    distance, updates of mapped entries and all entry writes."""
    cols = ["bitdiff", "hamming", "successive", "updates"]
    return pd.concat({c: ds[c].to_pandas() for c in cols}, axis=1)


def nand_table(ds: xr.Dataset) -> pd.DataFrame:
    """Fig. 14's data: mean NAND read / write response time per trace and scheme (µs), and
    the GC page copies and erases of each allocator's run."""
    return pd.concat(
        {
            "read (µs)": ds["nand_read_latency"].to_pandas(),
            "write (µs)": ds["nand_write_latency"].to_pandas(),
            "GC copies": ds["gc_copies"].to_pandas(),
            "erases": ds["erases"].to_pandas(),
        },
        axis=1,
    ).round(3)


def conservation_table(ds: xr.Dataset) -> pd.DataFrame:
    """The evidence behind the inject miss, per trace (paper counting): PW FTL's injections
    and removals, its remove / inject ratio (about the most SK-FTL's reuse can save), the
    share of its injections that fill never-mapped entries, SK-FTL's inject change and that
    change on updates of mapped entries alone (%). The last row: the claims' summary."""
    cnt = ds["op_count"].sel(convention="paper")
    pw, sk = cnt.sel(scheme="PW FTL"), cnt.sel(scheme="SK-FTL")
    first = ds["inject_first"]
    inj = pw.sel(op="inject").astype(float)
    over_pw = inj - first.sel(scheme="PW FTL")
    over_sk = sk.sel(op="inject") - first.sel(scheme="SK-FTL")
    t = pd.DataFrame(
        {
            "PW inject": inj.values,
            "PW remove": pw.sel(op="remove").values,
            "PW remove / inject (%)": 100 * (pw.sel(op="remove") / inj.where(inj > 0)).values,
            "PW first-write share (%)": 100 * (first.sel(scheme="PW FTL") / inj).values,
            "SK inject change (%)": 100 * (sk.sel(op="inject") / inj - 1).values,
            "SK inject change, mapped entries (%)": 100
            * (over_sk / over_pw.where(over_pw > 0) - 1).values,
        },
        index=ds["trace"].values,
    )
    c = conservation(ds)
    t.loc["mean (claims)"] = [
        np.nan,
        np.nan,
        c["pw_remove_per_inject_pct"],
        np.nan,
        t["SK inject change (%)"].mean(),
        c["sk_inject_change_on_updates_pct"],
    ]
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


def sensitivity_tables(ds: xr.Dataset) -> dict[str, pd.DataFrame]:
    """Per swept parameter: inject + remove latency (ns) and 1-bit difference per scheme."""
    out = {}
    for v in ds.data_vars:
        if not (v.startswith("sens_") and v.endswith("_latency")):
            continue
        p = v[len("sens_") : -len("_latency")]
        t = ds[v].sel(op=["inject", "remove"]).sum("op").to_pandas().round(0)
        t.columns = [f"{c} inj+rem (ns)" for c in t.columns]
        b = ds[f"sens_{p}_bitdiff"].to_pandas()
        b.columns = [f"{c} 1-bit diff" for c in b.columns]
        out[p] = pd.concat([t, b], axis=1)
    return out


def energy_table(ds: xr.Dataset, costs: OpCosts) -> pd.DataFrame:
    """Accumulated SK-RM energy per scheme and operation over all traces (nJ), from the
    operation counts and the (assumed) per-operation energies in ``costs``."""
    cnt = ds["op_count"].sel(convention="paper").sum("trace").to_pandas()
    e = cnt * pd.Series({op: getattr(costs, f"{op}_pj") for op in OPS}) / 1e3
    e["total"] = e.sum(axis=1)
    return e.round(1)


def energy_figure(ds: xr.Dataset, costs: OpCosts) -> plt.Figure:
    """Accumulated SK-RM energy per scheme, stacked by operation (assumed energies)."""
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
