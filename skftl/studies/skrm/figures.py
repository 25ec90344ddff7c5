"""Figures and tables of the skrm study (used by notebooks/01_skrm.ipynb). Every per-trace
figure and table takes the set-up (``simulate.SETUPS``: cold, warm, multi-pass) it shows."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.skrm import PAPER_SCHEMES, CostModel, Layout
from skftl.skrm.model import OPS, OpCosts
from skftl.studies.captions import Caption
from skftl.studies.skrm.claims import (
    TABLE_I_SKRM_NS,
    TABLE_II_NS,
    conservation,
    conservation_terms,
    trace_names,
)
from skftl.studies.skrm.simulate import SETUPS

OP_TITLES = {
    "inject": "Fig. 9: inject latency",
    "remove": "Fig. 10: remove latency",
    "detect": "Fig. 11: detect latency",
    "shift": "Fig. 12: shift latency",
}
# what the convention coordinate means (a counting rule, not the paper's data)
COUNTING = {"paper": "per-skyrmion counting", "skrmsim": "SK-RMSim counting"}
SCHEME_COLORS = {"FTL": "0.55", "PW FTL": "C0", "SK-FTL": "C3"}
ROW_STYLES = {"lockstep": "-", "match": "--"}


def _at(ds: xr.Dataset, name: str, setup: str) -> xr.DataArray:
    """``ds[name]`` at ``setup``, its traces named as shown (a stand-in for the authors' PC
    trace tagged as one)."""
    da = ds[name].sel(setup=setup)
    if "trace" in da.dims:
        da = da.assign_coords(trace=trace_names(ds))
    return da


def _setup_title(ds: xr.Dataset, setup: str) -> str:
    return str(ds["setup_label"].sel(setup=setup).values)


def _bars(ax: plt.Axes, values: pd.DataFrame, log: bool, zero_note: bool = True) -> None:
    """Grouped bars: rows of ``values`` = traces on x, columns = schemes. On a log axis the
    lower limit sits below the smallest positive bar, so no bar is cropped."""
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
        pos_vals = values.to_numpy(float)
        pos_vals = pos_vals[pos_vals > 0]
        if len(pos_vals):
            ax.set_ylim(bottom=pos_vals.min() / 3, top=pos_vals.max() * 3)


def op_latency_figure(
    ds: xr.Dataset, op: str, convention: str = "paper", setup: str = "cold"
) -> plt.Figure:
    """One of Figs. 9-12: accumulated latency of ``op`` per trace and scheme, log scale."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    v = _at(ds, "op_latency", setup).sel(convention=convention, op=op).to_pandas()
    _bars(ax, v, log=True)
    ax.set(
        ylabel="accumulated latency (ns, log)",
        title=f"{OP_TITLES[op]}, ours ({COUNTING[convention]})\n{_setup_title(ds, setup)}",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def bitdiff_figure(ds: xr.Dataset, setup: str = "cold") -> plt.Figure:
    """Fig. 13: accumulated 1-bit difference per trace and scheme."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    _bars(ax, _at(ds, "bitdiff", setup).to_pandas(), log=True)
    ax.set(
        ylabel="accumulated |Δ popcount| (bits, log)",
        title=f"Fig. 13: 1-bit difference, ours\n{_setup_title(ds, setup)}",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def nand_figure(ds: xr.Dataset, setup: str = "cold") -> plt.Figure:
    """Fig. 14: mean NAND read and write response time per trace and scheme."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    for ax, d in zip(axes, ("read", "write"), strict=True):
        _bars(ax, _at(ds, f"nand_{d}_latency", setup).to_pandas(), log=False, zero_note=False)
        ax.set(ylabel=f"mean {d} latency (µs)", title=f"Fig. 14: NAND {d} latency, ours")
    axes[0].legend()
    fig.suptitle(_setup_title(ds, setup))
    fig.tight_layout()
    return fig


def _change(lat: xr.DataArray, a: str, b: str) -> xr.DataArray:
    base = lat.sel(scheme=b)
    return 100 * (lat.sel(scheme=a) - base) / base.where(base != 0)


def change_table(ds: xr.Dataset, convention: str, setup: str = "cold") -> pd.DataFrame:
    """Per trace: change of each operation's accumulated latency, SK-FTL vs PW FTL and
    PW FTL vs FTL (%); ``mean`` is the mean of the per-trace changes (the claims' "on
    average" over all traces), ``pooled`` the change of the latencies summed over traces."""
    lat = _at(ds, "op_latency", setup).sel(convention=convention)
    rows, pooled = {}, {}
    tot = lat.sum("trace")
    for a, b in (("SK-FTL", "PW FTL"), ("PW FTL", "FTL")):
        ch = _change(lat, a, b)
        for op in OPS:
            rows[f"{op}: {a} vs {b}"] = ch.sel(op=op).to_pandas()
            pooled[f"{op}: {a} vs {b}"] = float(_change(tot.sel(op=op), a, b))
    t = pd.DataFrame(rows).T
    t["mean"] = t.mean(axis=1)
    t["pooled"] = pd.Series(pooled)
    return t.round(2)


def setup_table(ds: xr.Dataset) -> pd.DataFrame:
    """The set-ups side by side (paper counting, default reading): per set-up and workload
    kind, the mean per-trace change of SK-FTL against PW FTL in inject, remove and 1-bit
    difference, the inject change on updates of mapped entries alone, the share of PW FTL's
    entry writes that update a mapped entry, and the GC copies of all replays."""
    synthetic = np.array(["(synthetic)" in str(t) for t in ds["trace"].values])
    out = {}
    for setup in ds["setup"].values:
        lat = _at(ds, "op_latency", setup).sel(convention="paper")
        bits = _at(ds, "bitdiff", setup)
        first = _at(ds, "inject_first", setup)
        over = _at(ds, "op_count", setup).sel(convention="paper", op="inject") - first
        succ = _at(ds, "successive", setup).sel(scheme="PW FTL")
        upd = _at(ds, "updates", setup).sel(scheme="PW FTL")
        gc = int(_at(ds, "gc_copies", setup).sum())
        for kind, mask in (("real", ~synthetic), ("synthetic", synthetic)):
            if not mask.any():
                continue

            def mean(x: xr.DataArray, m: np.ndarray = mask) -> float:
                return float(np.nanmean(x.values[m]))

            out[(_setup_title(ds, setup), kind)] = {
                "inject (%)": mean(_change(lat.sel(op="inject"), "SK-FTL", "PW FTL")),
                "remove (%)": mean(_change(lat.sel(op="remove"), "SK-FTL", "PW FTL")),
                "1-bit diff (%)": mean(_change(bits, "SK-FTL", "PW FTL")),
                "inject, mapped entries (%)": mean(_change(over, "SK-FTL", "PW FTL")),
                "PW updates of mapped entries (%)": mean(100 * succ / upd),
                "GC copies (all traces)": gc,
            }
    t = pd.DataFrame(out).T
    t.index.names = ["set-up", "traces"]
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


def bitdiff_table(ds: xr.Dataset, setup: str = "cold") -> pd.DataFrame:
    """Fig. 13's data per trace and scheme: 1-bit difference (popcount change), Hamming
    distance, updates of mapped entries and all entry writes; SK-FTL's 1-bit difference
    under each row rule."""
    cols = ["bitdiff", "hamming", "successive", "updates"]
    t = pd.concat({c: _at(ds, c, setup).to_pandas() for c in cols}, axis=1)
    rows = _at(ds, "rows_bitdiff", setup).to_pandas()
    rows.columns = [f"SK-FTL, rows={c}" for c in rows.columns]
    return pd.concat([t, pd.concat({"bitdiff by row rule": rows}, axis=1)], axis=1)


def nand_table(ds: xr.Dataset, setup: str = "cold") -> pd.DataFrame:
    """Fig. 14's data: mean NAND read / write response time per trace and scheme (µs), and
    the GC page copies and erases of each allocator's run."""
    return pd.concat(
        {
            "read (µs)": _at(ds, "nand_read_latency", setup).to_pandas(),
            "write (µs)": _at(ds, "nand_write_latency", setup).to_pandas(),
            "GC copies": _at(ds, "gc_copies", setup).to_pandas(),
            "erases": _at(ds, "erases", setup).to_pandas(),
        },
        axis=1,
    ).round(3)


def conservation_table(ds: xr.Dataset, setup: str = "cold") -> pd.DataFrame:
    """The evidence behind the inject miss, per trace (paper counting): PW FTL's injections
    and removals, its remove / inject ratio, SK-FTL's inject cut split by conservation into
    the removals it avoids and the skyrmions it holds less of (both over PW FTL's
    injections; only the first is bounded by the ratio), the share of PW FTL's injections
    that fill never-mapped entries, SK-FTL's inject change and that change on updates of
    mapped entries alone (%). The last row: the claims' summary."""
    cnt = _at(ds, "op_count", setup).sel(convention="paper")
    pw, sk = cnt.sel(scheme="PW FTL"), cnt.sel(scheme="SK-FTL")
    first = _at(ds, "inject_first", setup)
    inj = pw.sel(op="inject").astype(float)
    terms = conservation_terms(ds, setup)
    over_pw = inj - first.sel(scheme="PW FTL")
    over_sk = sk.sel(op="inject") - first.sel(scheme="SK-FTL")
    t = pd.DataFrame(
        {
            "PW inject": inj.values,
            "PW remove": pw.sel(op="remove").values,
            "PW remove / inject (%)": 100 * terms["pw_remove_per_inject"],
            "cut: removals avoided (%)": 100 * terms["removals_avoided"],
            "cut: held less (%)": 100 * terms["held_less"],
            "PW first-write share (%)": 100 * (first.sel(scheme="PW FTL") / inj).values,
            "SK inject change (%)": 100 * (sk.sel(op="inject") / inj - 1).values,
            "SK inject change, mapped entries (%)": 100
            * (over_sk / over_pw.where(over_pw > 0) - 1).values,
        },
        index=trace_names(ds),
    )
    c = conservation(ds, setup)
    t.loc["mean (claims)"] = [
        np.nan,
        np.nan,
        c["pw_remove_per_inject_pct"],
        c["removals_avoided_pct"],
        c["held_less_pct"],
        np.nan,
        t["SK inject change (%)"].mean(),
        c["sk_inject_change_on_updates_pct"],
    ]
    return t.round(2)


def ablation_table(ds: xr.Dataset, costs: OpCosts) -> pd.DataFrame:
    """Per variant, summed over traces (cold set-up): inject/remove latency, their change vs
    PW FTL, and the 1-bit difference."""
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


def _swept(ds: xr.Dataset) -> list[str]:
    return [
        v[len("sens_") : -len("_latency")]
        for v in ds.data_vars
        if v.startswith("sens_") and v.endswith("_latency") and "_rows_" not in v
    ]


# what each sweep's panel plots: W sets the shifts of every write and nothing else, so its
# panel shows shift latency (inject + remove do not depend on W by construction)
PANEL_OPS = {"entry_bits": ("shift",)}


def sensitivity_figure(ds: xr.Dataset) -> plt.Figure:
    """One panel per swept parameter (cold set-up, sensitivity trace): each scheme's
    accumulated inject + remove latency (the entry-width panel: shift latency, the only
    count W changes). Then, for the open blocks per class H: SK-FTL's 1-bit difference
    under each row rule beside PW FTL's, and what H costs (open blocks at the end, GC page
    copies, SK-FTL's mean NAND write time)."""
    params = _swept(ds)
    extra = 2 if "sens_open_per_class_rows_bitdiff" in ds else 0
    ncol = 3
    nrow = -(-(len(params) + extra) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(11, 3.1 * nrow), squeeze=False)
    axes = axes.ravel()
    for ax in axes[len(params) + extra :]:
        ax.set_visible(False)
    for ax, p in zip(axes, params, strict=False):
        ops = list(PANEL_OPS.get(p, ("inject", "remove")))
        lat = ds[f"sens_{p}_latency"]
        x = [str(v) for v in ds[f"sens_{p}"].values] if p == "first_write" else ds[f"sens_{p}"]
        for s in ds["scheme"].values:
            y = lat.sel(scheme=s, op=ops).sum("op")
            ax.plot(x, y, "o-", color=SCHEME_COLORS.get(str(s)), label=str(s))
        ax.set(
            xlabel=ds[f"sens_{p}"].attrs["long_name"],
            ylabel=f"{' + '.join(ops)} latency (ns)",
            yscale="log",
        )
        if p in ("entries_per_track", "open_per_class"):
            ax.set_xscale("log", base=2)
    axes[0].legend()
    if extra:
        h = ds["sens_open_per_class"]
        ax = axes[len(params)]
        for rule in ds["rows"].values:
            style = ROW_STYLES.get(str(rule), ":")
            y = ds["sens_open_per_class_rows_bitdiff"].sel(rows=rule)
            ax.plot(h, y, "o" + style, color="C3", label=f"SK-FTL, {rule} rows")
        pw = ds["sens_open_per_class_bitdiff"].sel(scheme="PW FTL")
        ax.plot(h, pw, "o-", color="C0", label="PW FTL")
        ax.set(xlabel=h.attrs["long_name"], ylabel="1-bit difference (bits)", xscale="log")
        ax.set_xscale("log", base=2)
        ax.legend(fontsize=7)
        ax = axes[len(params) + 1]
        sk = {"allocator": "sk-aware"}
        ax.plot(h, ds["sens_open_per_class_open_blocks"].sel(sk), "s-", label="open blocks")
        ax.plot(h, ds["sens_open_per_class_gc_copies"].sel(sk), "^-", label="GC page copies")
        ax.set(xlabel=h.attrs["long_name"], ylabel="blocks / pages")
        ax.set_xscale("log", base=2)
        tw = ax.twinx()
        w = ds["sens_open_per_class_nand_write"].sel(scheme="SK-FTL")
        tw.plot(h, w, "d--", color="C3", label="SK-FTL write (µs)")
        tw.set_ylabel("mean NAND write (µs)")
        ax.legend(loc="upper left", fontsize=7)
        tw.legend(loc="lower right", fontsize=7)
        ax.set_title("cost of H (SK-aware allocator)", fontsize=9)
    fig.suptitle(f"Sensitivity, cold set-up ({ds.attrs.get('sensitivity_trace', '')})")
    fig.tight_layout()
    return fig


def sensitivity_tables(ds: xr.Dataset) -> dict[str, pd.DataFrame]:
    """Per swept parameter: inject + remove latency (ns) and 1-bit difference per scheme;
    for the NAND sweeps also SK-FTL's 1-bit difference per row rule, GC copies and open
    blocks per allocator."""
    out = {}
    for p in _swept(ds):
        t = ds[f"sens_{p}_latency"].sel(op=["inject", "remove"]).sum("op").to_pandas().round(0)
        t.columns = [f"{c} inj+rem (ns)" for c in t.columns]
        parts = [t]
        b = ds[f"sens_{p}_bitdiff"].to_pandas()
        b.columns = [f"{c} 1-bit diff" for c in b.columns]
        parts.append(b)
        for name, what in (
            ("rows_bitdiff", "SK-FTL 1-bit diff, rows="),
            ("gc_copies", "GC copies, "),
            ("open_blocks", "open blocks, "),
        ):
            if f"sens_{p}_{name}" in ds:
                x = ds[f"sens_{p}_{name}"].to_pandas()
                x.columns = [f"{what}{c}" for c in x.columns]
                parts.append(x)
        out[p] = pd.concat(parts, axis=1)
    return out


def energy_table(ds: xr.Dataset, costs: OpCosts, setup: str = "cold") -> pd.DataFrame:
    """Accumulated SK-RM energy per scheme and operation over all traces (nJ), from the
    operation counts and the (assumed) per-operation energies in ``costs``."""
    cnt = _at(ds, "op_count", setup).sel(convention="paper").sum("trace").to_pandas()
    e = cnt * pd.Series({op: getattr(costs, f"{op}_pj") for op in OPS}) / 1e3
    e["total"] = e.sum(axis=1)
    return e.round(1)


def energy_figure(ds: xr.Dataset, costs: OpCosts, setup: str = "cold") -> plt.Figure:
    """Accumulated SK-RM energy per scheme, stacked by operation (assumed energies)."""
    e = energy_table(ds, costs, setup).drop(columns="total")
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    bottom = np.zeros(len(e))
    for op in e.columns:
        ax.bar(e.index, e[op], bottom=bottom, label=op)
        bottom += e[op].to_numpy()
    ax.set(ylabel="energy (nJ, all traces)", title="SK-RM energy (assumed per-op energies)")
    ax.legend()
    fig.tight_layout()
    return fig


#: the set-ups' claim-id suffixes (the cold set-up's claims carry none)
_SETUP_SUFFIX = {"cold": "", "warm": ".warm", "multi-pass": ".multipass"}
_SETUP_TEXT = {
    "cold": "the cold set-up (each trace on a fresh device, its mapping table empty)",
    "warm": "the warm set-up (part of the logical pages mapped before the trace, not counted)",
    "multi-pass": "the multi-pass set-up (each trace replayed several times back to back on "
    "one device, every pass counted)",
}


def _setup_claims(setup: str, *prefixes: str) -> tuple[str, ...]:
    """The claim patterns of one set-up: the cold claims are the ids without a suffix."""
    if setup == "cold":
        return (*prefixes, "!*.warm", "!*.multipass")
    return tuple(f"{p.rstrip('*')}*{_SETUP_SUFFIX[setup]}" for p in prefixes)


def _captions() -> dict[str, Caption]:
    out = {}
    ops = {
        9: ("inject", "Fig. 9", "skyrmion injections", ("fig9.inject",)),
        10: ("remove", "Fig. 10", "skyrmion removals", ("fig10.remove",)),
        11: ("detect", "Fig. 11", "skyrmion detections", ("fig11.detect",)),
        12: ("shift", "Fig. 12", "racetrack shifts", ("fig12.shift", "sec5.shift.no_extra")),
    }
    for setup in SETUPS:
        where = _SETUP_TEXT[setup]
        for num, (op, fig, what, claims) in ops.items():
            extra = ("fig12.shift.follows_interport", "sec5.shift.no_extra.vs_sec3a")
            pats = _setup_claims(setup, *claims)
            if op == "shift" and setup == "cold":
                pats = (*extra, *pats)
            out[f"fig{num:02d}_{op}_latency_{setup}"] = Caption(
                f"The paper's {fig}: accumulated SK-RM latency of {what} per trace (log "
                f"scale) for the naive FTL, PW FTL (Yang et al., DAC'20) and SK-FTL, under "
                f"{where}.",
                pats,
            )
        out[f"fig13_bit_difference_{setup}"] = Caption(
            "The paper's Fig. 13: accumulated 1-bit difference (the change in popcount of "
            "the racetrack entries the mapping updates write) per trace for the naive FTL, "
            f"PW FTL and SK-FTL (log scale), under {where}.",
            _setup_claims(setup, "fig13.bitdiff"),
        )
        out[f"fig14_nand_latency_{setup}"] = Caption(
            "The paper's Fig. 14: mean NAND read (left) and write (right) response time per "
            "trace for the naive FTL, PW FTL and SK-FTL (SK-FTL's allocator changes "
            f"where pages go, and so garbage collection), under {where}.",
            _setup_claims(setup, "fig14.nand*"),
        )
    out["sensitivity"] = Caption(
        "Beyond the paper: one panel per swept parameter (entry width, entries per racetrack, "
        "vertical reach, pages written before the trace, open blocks per class, first-write "
        "rule), each scheme's accumulated inject + remove latency (shift latency for the "
        "entry width) on one trace in the cold set-up; the last row shows what the open "
        "blocks per class cost SK-FTL (1-bit difference per row rule, open blocks, GC copies, "
        "NAND write time). It bears on no scored claim.",
    )
    out["energy"] = Caption(
        "Beyond the paper: accumulated SK-RM energy per scheme over all traces, stacked by "
        "operation (inject, remove, detect, shift), from the run's operation counts and "
        "assumed per-operation energies (the paper gives none). It bears on no scored claim.",
    )
    return out


#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = _captions()
