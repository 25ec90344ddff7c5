"""Figures and tables of the bnvm study, drawn from its dataset (notebooks/05_bnvm.ipynb
calls them; it holds no plotting or table code of its own).

The per-scheme variables carry ``install``, ``grouping`` and ``flush_rounds`` dimensions (the
study's readings and set-up variant); figures show one reading, by default the run's
configured one (``run_reading(ds)``), which is also that of the beyond-the-paper runs.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.studies.bnvm import claims as C
from skftl.studies.captions import Caption

COLORS = {"static": "#4c72b0", "dynamic": "#dd8452", "static_full": "#55a868", "block": "#8172b3"}
NAMES = {"static": "static", "dynamic": "dynamic", "static_full": "static + full", "block": "block"}


def run_reading(ds: xr.Dataset) -> str:
    """The reading the run was configured with (figures and beyond-the-paper runs)."""
    a = ds.attrs
    if not {"grouping", "flush_rounds", "install"} <= set(a):
        return C.READINGS.default
    return C.reading_name(str(a["grouping"]), int(a["flush_rounds"]), str(a["install"]))


def at(ds: xr.Dataset, reading: str | None = None) -> xr.Dataset:
    """``ds`` at one reading (default: the run's configured one)."""
    return ds.sel(**C.reading_coords(reading or run_reading(ds)))


def _panels(ds: xr.Dataset, height: float = 5.2) -> tuple[plt.Figure, list, list]:
    letters = list(ds["trace"].values)
    cols = 3
    rows = int(np.ceil(len(letters) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(9.6, height * rows / 2), squeeze=False)
    for ax in axes.flat[len(letters) :]:
        ax.set_visible(False)
    return fig, letters, list(axes.flat)


def _title(ds: xr.Dataset, letter: str) -> str:
    return f"Trace {letter}: {ds['label'].sel(trace=letter).item()}"


def fig_counts(ds: xr.Dataset, schemes: tuple[str, str], reading: str | None = None) -> plt.Figure:
    """Per trace: parallel clean / dirty / total writes of two schemes side by side; the
    title gives each scheme's total time (and, for static + full, its merges and refresh
    time, too few / too large to share the count axis)."""
    ds = at(ds, reading)
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
        ax.set_ylabel("parallel writes")
    axes[0].legend()
    fig.tight_layout()
    return fig


def fig_count_ratios(
    ds: xr.Dataset, schemes: tuple[str, str], reading: str | None = None
) -> plt.Figure:
    """Per trace, scheme ``schemes[1]`` over ``schemes[0]``: parallel clean, dirty and total
    writes and write time, around a line at 1, so differences of a percent that share a
    count axis with 10^5 writes can be read."""
    ds = at(ds, reading)
    num, den = (ds.sel(scheme=s) for s in reversed(schemes))
    quantities = {
        "clean": (num["parallel_clean_writes"], den["parallel_clean_writes"]),
        "dirty": (num["parallel_dirty_writes"], den["parallel_dirty_writes"]),
        "total": (
            num["parallel_clean_writes"] + num["parallel_dirty_writes"],
            den["parallel_clean_writes"] + den["parallel_dirty_writes"],
        ),
        "write time": (num["write_time"], den["write_time"]),
    }
    letters = [str(x) for x in ds["trace"].values]
    x = np.arange(len(letters))
    width = 0.8 / len(quantities)
    fig, ax = plt.subplots(figsize=(9.6, 3.0))
    for k, (name, (a, b)) in enumerate(quantities.items()):
        ratio = (a / b.where(b > 0)).values
        ax.bar(x + (k - (len(quantities) - 1) / 2) * width, ratio, width, label=name)
    ax.axhline(1.0, color="0.3", lw=0.8)
    ax.set_xticks(x, letters)
    ax.set_xlabel("trace")
    ax.set_ylabel(f"{NAMES[schemes[1]]} / {NAMES[schemes[0]]}")
    ax.legend(ncols=len(quantities), fontsize=7, loc="upper left", bbox_to_anchor=(0, -0.22))
    fig.tight_layout()
    return fig


def fig_time_breakdown(
    ds: xr.Dataset, schemes: tuple[str, ...], reading: str | None = None
) -> plt.Figure:
    """Total time per trace split into write / merge copy / refresh, relative to the first
    scheme (the paper's "total write time" plus eq. 1's merge cost)."""
    ds = at(ds, reading)
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


def fig_wear(ds: xr.Dataset, reading: str | None = None) -> plt.Figure:
    """Most-written page per scheme and the lifetime it implies at the cycle limit."""
    ds = at(ds, reading)
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
    a2.set_ylabel("years to 10^6 cycles (active time looped)")
    a1.legend(fontsize=7)
    fig.tight_layout()
    return fig


def fig_risk(ds: xr.Dataset) -> plt.Figure:
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


def fig_sweep(ds: xr.Dataset) -> plt.Figure:
    """static total time / static + full total time over refresh unit size and latency
    (> 1: the log policy pays off, framed in red), per trace."""
    fig, letters, axes = _panels(ds, height=6.4)
    sp = ds["sweep_speedup"]
    # one sequential scale over the speedups shown (log2), so the cells use the whole colour
    # range whatever side of 1 they fall on; cells where the log pays off (> 1) are framed
    logs = np.log2(sp.values[np.isfinite(sp.values) & (sp.values > 0)])
    lo, hi = (float(logs.min()), float(logs.max())) if len(logs) else (-1.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    cmap = plt.get_cmap("viridis")
    for ax, letter in zip(axes, letters, strict=False):
        z = sp.sel(trace=letter).values.T  # latency x unit
        lz = np.log2(np.where(z > 0, z, np.nan))
        im = ax.imshow(lz, origin="lower", cmap=cmap, aspect="auto", vmin=lo, vmax=hi)
        for (r, c), val in np.ndenumerate(z):
            rgb = cmap((lz[r, c] - lo) / (hi - lo))[:3] if np.isfinite(lz[r, c]) else (1, 1, 1)
            dark = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 0.5
            ax.text(
                c,
                r,
                f"{val:.2f}",
                ha="center",
                va="center",
                fontsize=6,
                color="white" if dark else "black",
                fontweight="bold" if val > 1 else "normal",
            )
            if val > 1:
                ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, ec="red", lw=1.2))
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


def fig_log_size(ds: xr.Dataset) -> plt.Figure:
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


# --- tables ---------------------------------------------------------------------------------
def traces_table(ds: xr.Dataset, reading: str | None = None) -> pd.DataFrame:
    """The trace standing for each paper letter: what it holds and how it was replayed."""
    sel = at(ds, reading).sel(scheme="static")
    return pd.DataFrame(
        {
            "trace": ds["label"].values,
            "synthetic": ds["synthetic"].values,
            "host page writes": sel["host_page_writes"].values.astype(int),
            "host page reads": sel["host_page_reads"].values.astype(int),
            "rewrites (dirty page writes)": sel["dirty_page_writes"].values.astype(int),
            "duration (h)": (ds["duration"].values / 3600).round(2),
            "active (h)": (ds["active_duration"].values / 3600).round(2),
            "longest gap (h)": (ds["longest_gap"].values / 3600).round(2),
            "install trace (replay variant)": ds["precondition"].values,
        },
        index=pd.Index(ds["trace"].values, name="paper trace"),
    )


def example_table(ds: xr.Dataset) -> pd.DataFrame:
    """ "w 0 A0-3, 4" on an idle device, in write response times, per scheme and grouping."""
    return ds["example_write_time"].to_pandas().round(3)


def sensitivity_table(ds: xr.Dataset) -> pd.DataFrame:
    """dynamic / static total write time per trace under every grouping x idle-chip pick."""
    s = ds["sensitivity_dynamic_vs_static"].reset_coords(drop=True)
    name = "dynamic / static write time"
    return s.to_dataframe(name=name)[name].unstack(["grouping", "idle_pick"]).round(4)


def fig2_table(ds: xr.Dataset) -> pd.DataFrame:
    """Fig. 2's quantities under every grouping, without and with the install replay (the
    flush count does not touch static or dynamic): dynamic / static write time and parallel
    writes, and dynamic - static parallel clean and dirty writes, per trace."""
    one = ds.sel(flush_rounds=int(ds.attrs.get("flush_rounds", 2)))
    one = one.stack(reading=("install", "grouping"))
    labels = [C.reading_name(g, 0, i).replace("+flush0", "") for i, g in one["reading"].values]
    one = one.drop_vars(["reading", "install", "grouping"]).assign_coords(reading=labels)
    clean, dirty = one["parallel_clean_writes"], one["parallel_dirty_writes"]
    total = clean + dirty
    cols = {
        "write time dyn/static": one["write_time"].sel(scheme="dynamic")
        / one["write_time"].sel(scheme="static"),
        "parallel writes dyn/static": total.sel(scheme="dynamic") / total.sel(scheme="static"),
        "clean dyn-static": clean.sel(scheme="dynamic") - clean.sel(scheme="static"),
        "dirty dyn-static": dirty.sel(scheme="dynamic") - dirty.sel(scheme="static"),
    }
    frames = {k: v.reset_coords(drop=True).to_pandas() for k, v in cols.items()}
    out = pd.concat(frames, axis=1)  # rows: trace; columns: (quantity, grouping[+install])
    return out.round(4)


def round_makeup_table(ds: xr.Dataset, reading: str | None = None) -> pd.DataFrame:
    """Per trace and page scheme: dirty write rounds, the share holding one or two dirty
    writes, and the dirty rounds that also hold clean writes (Sec. IV.B.1 on trace B)."""
    g = reading or run_reading(ds)
    rows = {}
    for x in ds["trace"].values:
        for s in ("static", "dynamic"):
            m = C.dirty_round_makeup(ds, g, str(x), s)
            n = max(m["dirty_rounds"], 1.0)
            rows[(str(x), s)] = {
                "dirty rounds": int(m["dirty_rounds"]),
                "share with 1-2 dirty": round(m["one_or_two"] / n, 3),
                "dirty rounds holding clean writes": int(m["mixed"]),
            }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(["trace", "scheme"])


def paper_c_table() -> pd.Series:
    """Trace C's differences computed from the paper's own counts beside those it states."""
    return pd.Series(C.paper_c_arithmetic(), name="parallel writes (paper)")


def fig3_table(ds: xr.Dataset, reading: str | None = None) -> pd.DataFrame:
    """Fig. 3's quantities and the evidence behind them, per trace: static + full / static
    clean, dirty and total time; static's dirty share of parallel writes (the rewriting the
    log absorbs); share of host page writes buffered; extra clean rounds per flush; merges
    and the refresh share of the merge time."""
    d = at(ds, reading)
    st, sf = d.sel(scheme="static"), d.sel(scheme="static_full")
    st_total = st["parallel_clean_writes"] + st["parallel_dirty_writes"]
    merge = sf["merge_copy_time"] + sf["refresh_time"]
    cols = {
        "clean sf/static": sf["parallel_clean_writes"] / st["parallel_clean_writes"],
        "dirty sf/static": sf["parallel_dirty_writes"] / st["parallel_dirty_writes"],
        "total time sf/static": sf["total_time"] / st["total_time"],
        "static dirty share": st["parallel_dirty_writes"] / st_total,
        "buffered share": sf["buffered_page_writes"] / sf["host_page_writes"],
        "extra clean per flush": (sf["parallel_clean_writes"] - st["parallel_clean_writes"])
        / sf["buffer_flushes"],
        "merges": sf["merges"],
        "refresh share of merge": sf["refresh_time"] / merge.where(merge > 0),
    }
    out = pd.DataFrame({k: v.reset_coords(drop=True).to_pandas() for k, v in cols.items()})
    return out.round(3)


def wear_table(ds: xr.Dataset, reading: str | None = None) -> pd.DataFrame:
    d = at(ds, reading)[["max_wear", "lifetime"]].reset_coords(drop=True)
    return d.to_dataframe().unstack("scheme").round(3)


def risk_table(ds: xr.Dataset) -> pd.DataFrame:
    d = ds[["risk_residency_max", "risk_bytes_mean"]].reset_coords(drop=True)
    return d.to_dataframe().unstack("flush_timeout_ms").round(3)


def breakeven_table(ds: xr.Dataset) -> pd.DataFrame:
    """Refresh latency (ms) below which static + full beats static, by refresh unit size."""
    return ds["breakeven_refresh_ms"].reset_coords(drop=True).to_pandas().round(3)


def log_breakeven_table(ds: xr.Dataset) -> pd.DataFrame:
    """The same by log size at the device's refresh unit (inf: the log never filled)."""
    return ds["log_breakeven_refresh_ms"].reset_coords(drop=True).to_pandas().round(3)


# --- can the model class produce Fig. 2's split? ------------------------------------------
def fig_split(ds: xr.Dataset) -> plt.Figure:
    """dynamic / static write time of the constructed workload (``split``) against its
    update share, per grouping rule (solid: round-robin idle pick, dashed: lowest)."""
    r = ds["split_ratio"]
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    for k, g in enumerate(r["grouping"].values):
        for pick, style in zip(r["idle_pick"].values, ("-", "--"), strict=False):
            ax.plot(
                r["update_share"],
                r.sel(grouping=g, idle_pick=pick),
                style,
                marker="o",
                color=f"C{k}",
                label=f"{g}, {pick}",
            )
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xlabel("update share of page writes (constructed workload)")
    ax.set_ylabel("dynamic / static write time")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def split_table(ds: xr.Dataset) -> pd.DataFrame:
    """The split experiment per update share and grouping (round-robin idle pick): the
    write-time ratio and dynamic - static parallel clean and dirty writes."""
    cols = {
        "dyn/static time": ds["split_ratio"],
        "clean dyn-static": ds["split_clean_diff"],
        "dirty dyn-static": ds["split_dirty_diff"],
    }
    pick = str(ds["idle_pick"].values[0])
    frames = {k: v.sel(idle_pick=pick, drop=True).to_pandas() for k, v in cols.items()}
    return pd.concat(frames, axis=1).round(3)


def split_sides(ds: xr.Dataset) -> pd.DataFrame:
    """Per grouping rule: whether some update share makes dynamic faster (Fig. 2's A-B
    side) and some makes static faster (the C-F side), under either idle pick."""
    r = ds["split_ratio"]
    rows = {
        str(g): {
            "dynamic faster somewhere (A-B side)": bool((r.sel(grouping=g) < 1).any()),
            "static faster somewhere (C-F side)": bool((r.sel(grouping=g) > 1).any()),
        }
        for g in r["grouping"].values
    }
    out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("grouping")
    out["both sides (the split)"] = out.all(axis=1)
    return out


_FIG2 = ("fig2.write_time", "fig2.parallel_writes", "fig2.clean_diff", "fig2.dirty_diff",
         "fig2.count")  # fmt: skip

#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "fig2_static_vs_dynamic": Caption(
        "The paper's Fig. 2: parallel clean, dirty and total writes of static and dynamic "
        "page mapping, one panel per trace A-F (the panel title names the trace standing for "
        "the paper's letter and gives each scheme's total write time).",
        _FIG2,
    ),
    "fig2_dynamic_over_static": Caption(
        "Fig. 2 as ratios: dynamic over static parallel clean, dirty and total writes and "
        "write time per trace A-F, around a line at 1, so that differences of a percent can "
        "be read.",
        _FIG2,
    ),
    "fig2_split_experiment": Caption(
        "Whether this model class can produce Fig. 2's split at all: dynamic over static "
        "write time of a constructed workload against its share of updates, per grouping rule "
        "(solid: round-robin idle-chip pick, dashed: lowest). An experiment beyond the "
        "paper's traces: it bears on no scored claim.",
    ),
    "fig3_static_vs_static_full": Caption(
        "The paper's Fig. 3: parallel clean, dirty and total writes of static mapping and "
        "static mapping with a full-associative log, one panel per trace A-F (titles: each "
        "scheme's total time, and the log's merges and refresh time).",
        ("fig3.dirty_ratio", "fig3.clean_ratio"),
    ),
    "fig3b_time_breakdown": Caption(
        "Total time per trace A-F of static, dynamic and static + full, split into write "
        "time, merge copy time and refresh time (the paper's eq. 1), relative to static's.",
        ("fig3.refresh_share", "sec5.log_slower", "sec5.winner_varies"),
    ),
    "wear": Caption(
        "Beyond the paper: the most-written page of each scheme per trace and the lifetime it "
        "implies at the cell's cycle limit. It bears on no scored claim.",
    ),
    "data_at_risk": Caption(
        "Beyond the paper: against the buffer's flush timeout, static + full's longest "
        "buffer residency, its time-averaged data at risk on power loss, and its total time "
        "over the no-timeout run, per trace. It bears on no scored claim.",
    ),
    "refresh_sweep": Caption(
        "Static's total time over static + full's against the refresh unit size and the "
        "refresh latency, per trace (above 1: the log policy pays off, framed in red): where "
        "the smaller, faster refresh the paper asks for would pay off.",
        ("sec5.small_fast_refresh",),
    ),
    "log_size_sweep": Caption(
        "Beyond the paper: static's total time over static + full's against the log size "
        "per chip, at the device's refresh unit and latency (above 1: the log pays off). It "
        "bears on no scored claim.",
    ),
}
