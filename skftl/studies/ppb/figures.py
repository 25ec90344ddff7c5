"""Figures and tables of the `ppb` study (Figs. 12-18 and the beyond-the-paper variants),
drawn from its dataset. Each function returns a matplotlib figure or a DataFrame; the
notebook saves and shows them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr
import yaml

from skftl.studies.captions import Caption
from skftl.studies.claims import MissingInput
from skftl.studies.ppb import claims
from skftl.studies.ppb.claims import (
    BIG,
    READINGS,
    improvement,
    is_array,
    metric_of,
    policy_of,
    setup_of,
)
from skftl.studies.ppb.setups import DEFAULT_SETUP
from skftl.studies.ppb.simulate import at_setup

NAMES = {"page": "conventional FTL", "ppb_split": "naive split (Fig. 3)", "ppb": "PPB"}
PAPER_TRACES = ["web", "media"]
# a bar averaging fewer page operations than this is masked (e.g. wsrch-small's 4 writes)
MIN_OPS = 100


def labels(ds: xr.Dataset) -> dict[str, str]:
    """trace key -> its label (says "(synthetic)" for a stand-in)."""
    return {str(t): str(ds["trace_label"].sel(trace=t).values) for t in ds["trace"].values}


def _kb(ps: object) -> str:
    return f"{int(ps) // 1024} KB"


# --- Figs. 12 and 15 --------------------------------------------------------------------------
def improvement_bars(
    ds: xr.Dataset, var: str, ylabel: str, paper: float | None = None, min_ops: int = MIN_OPS
) -> plt.Figure:
    """Figs. 12/15: PPB's and the naive split's improvement over the conventional FTL per
    trace (one panel per page size), the paper's two traces first. Bars are the mean over
    the speed ratios run, whiskers their range, and a marker the best ratio: ``paper`` (the
    paper's largest bar, web server at 16 KB) is drawn in the 16 KB panel, to be read
    against the markers, like with like. Traces without a finite value (write-only traces
    for reads) are left out, and so is a bar averaging fewer than ``min_ops`` timed page
    reads (read bars) or host page writes (write bars): a mean of a handful of pages is
    noise, not a result."""
    lab = labels(ds)
    ops = ds["host_writes"] if var.startswith("write") else ds["timed_reads"]
    ds = ds.assign({var: ds[var].where(ops.min("speed_ratio") >= min_ops)})
    have = [
        str(t) for t in ds["trace"].values if np.isfinite(ds[var].sel(trace=t, policy="ppb")).any()
    ]
    traces = [t for t in PAPER_TRACES if t in have] + [t for t in have if t not in PAPER_TRACES]
    sizes = ds["page_size"].values
    fig, axes = plt.subplots(1, len(sizes), figsize=(11, 5.0), sharey=True, squeeze=False)
    for ax, ps in zip(axes[0], sizes, strict=True):
        x = np.arange(len(traces))
        for k, pol in enumerate(["ppb_split", "ppb"]):
            v = ds[var].sel(page_size=ps, policy=pol, trace=traces)
            mean = v.mean("speed_ratio")
            pos = x + (k - 0.5) * 0.38
            bars = ax.bar(
                pos,
                mean,
                0.38,
                yerr=[mean - v.min("speed_ratio"), v.max("speed_ratio") - mean],
                label=f"{NAMES[pol]}: mean over ratios",
                capsize=2,
            )
            ax.plot(
                pos,
                v.max("speed_ratio"),
                "v",
                color=bars.patches[0].get_facecolor(),
                mec="k",
                mew=0.5,
                ms=5,
                label=f"{NAMES[pol]}: best ratio",
            )
        if paper is not None and int(ps) == BIG:
            ax.axhline(paper, color="k", ls="--", lw=0.8, label=f"paper: web, 16 KB ({paper:g} %)")
        ax.axhline(0, color="0.5", lw=0.6)
        n_paper = sum(t in PAPER_TRACES for t in traces)
        if 0 < n_paper < len(traces):
            ax.axvline(n_paper - 0.5, color="0.7", lw=0.6, ls=":")
        ax.set_xticks(x, [lab[t] for t in traces], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{_kb(ps)} pages (the paper's traces left of the dotted line)", fontsize=8)
    axes[0, 0].set_ylabel(ylabel)
    fig.tight_layout()
    # above the panels, clear of the bars
    handles, names = axes[0, -1].get_legend_handles_labels()
    fig.subplots_adjust(top=0.85)
    fig.legend(handles, names, loc="upper center", ncols=3, fontsize=6.5, frameon=False)
    return fig


# --- Figs. 13-14 and 16-17 --------------------------------------------------------------------
def latency_vs_ratio(ds: xr.Dataset, direction: str, trace: str) -> plt.Figure:
    """Figs. 13-14 (``read``) / 16-17 (``write``): mean latency vs the speed ratio for the
    conventional FTL, the naive split and PPB (top), and each one's change against the
    conventional FTL (bottom, where curves a few percent apart separate); array time left,
    request latency right. Ticks at the speed ratios run."""
    fig, axes = plt.subplots(2, 2, figsize=(9, 5.4), sharex=True)
    ratios = ds["speed_ratio"].values
    styles = {"page": ("0.3", "o"), "ppb_split": ("C1", "s"), "ppb": ("C0", "^")}
    for col, (var, what) in enumerate(
        [(f"{direction}_array", "array time"), (f"{direction}_latency", "request latency")]
    ):
        top, bottom = axes[0, col], axes[1, col]
        for ps, ls in zip(ds["page_size"].values, ["--", "-"], strict=False):
            base = ds[var].sel(trace=trace, page_size=ps, policy="page")
            for pol, (color, marker) in styles.items():
                y = ds[var].sel(trace=trace, page_size=ps, policy=pol)
                label = f"{NAMES[pol]}, {_kb(ps)}"
                kw = {"color": color, "marker": marker, "ms": 4, "label": label}
                top.plot(ratios, y, ls, **kw)
                bottom.plot(ratios, 100 * (y / base - 1), ls, **kw)
        top.set(ylabel=f"mean {direction} {what} (us)")
        bottom.set(
            xlabel="slowest / fastest page latency", ylabel="vs conventional FTL (%, < 0 faster)"
        )
        bottom.axhline(0, color="0.5", lw=0.6)
        bottom.set_xticks(ratios, [f"{r:g}" for r in ratios])
    axes[0, 0].legend(fontsize=6.5)
    fig.suptitle(labels(ds)[trace], fontsize=9)
    fig.tight_layout()
    return fig


# --- Fig. 18 ----------------------------------------------------------------------------------
def erased_blocks(ds: xr.Dataset) -> plt.Figure:
    """Fig. 18: blocks erased during each replay (the same at every speed ratio)."""
    lab = labels(ds)
    traces = list(ds["trace"].values)
    sizes = ds["page_size"].values
    fig, axes = plt.subplots(1, len(sizes), figsize=(11, 3.4), squeeze=False)
    for ax, ps in zip(axes[0], sizes, strict=True):
        x = np.arange(len(traces))
        for k, pol in enumerate(NAMES):
            e = ds["erases"].sel(page_size=ps, policy=pol).isel(speed_ratio=0)
            ax.bar(x + (k - 1) * 0.27, e, 0.27, label=NAMES[pol])
        ax.set_yscale("symlog", linthresh=10)
        ax.set_xticks(x, [lab[t] for t in traces], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{_kb(ps)} pages")
    axes[0, 0].set_ylabel("blocks erased during the replay")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def gc_table(ds: xr.Dataset, traces: list[str] | None = None) -> pd.DataFrame:
    """Erased blocks and GC copies per trace, page size and policy (the paper's three and
    the strict reading when run): the evidence of the Fig. 18 and Fig. 3 claims."""
    pols = [p for p in [*NAMES, "ppb_strict"] if p in ds["policy"].values]
    sub = ds[["erases", "gc_copies", "host_writes"]].isel(speed_ratio=0)
    sub = sub.sel(policy=pols, trace=traces or list(ds["trace"].values))
    df = sub.to_dataframe()[["erases", "gc_copies", "host_writes"]]
    return df.unstack("policy").round(0)


# --- evidence for the readings and the misses -------------------------------------------------
def readings_table(ds: xr.Dataset, direction: str = "read") -> pd.DataFrame:
    """PPB's mean improvement (%) over the speed ratios under every named reading (each at
    its own set-up), per paper trace and page size; a reading whose policy or set-up was not
    run is left out."""
    cols = {}
    for r in READINGS.options:
        try:
            imp = improvement(claims.at_setup(ds, r), r, direction).sel(trace=PAPER_TRACES)
        except MissingInput:
            continue
        cols[r] = imp.mean("speed_ratio").to_series()
    return pd.DataFrame(cols).round(3)


def reach_table(ds: xr.Dataset, policy: str = "ppb") -> pd.DataFrame:
    """Why array-time gains stay small: per paper trace and page size, the share of page
    reads that hit data the trace wrote (the only reads a write-time placement can move),
    the first-read share (no history: nothing can have placed them) and the re-read share;
    at each speed ratio the ceiling (that share of reads from the fastest virtual block, the
    rest at the block mean) for reads of written data and for every re-read; then the
    policy's measured gain on reads of written data, on the other reads (data laid out by
    preconditioning: zero in expectation except for data GC copied; sampling noise in a
    finite trace) and on all reads (at the default set-up)."""
    d0 = at_setup(ds)
    at = {"trace": PAPER_TRACES}
    out = pd.DataFrame(
        {
            "reads_of_written_data": ds["reads_of_rewritten"].sel(**at).to_series(),
            "first_reads": ds["first_read_share"].sel(**at).to_series(),
            "re_reads": ds["reread_share"].sel(**at).to_series(),
        }
    )
    for what in ("written", "reread"):
        ceil = ds[f"read_ceiling_{what}"].sel(**at)
        for r in ceil["speed_ratio"].values:
            out[f"ceiling_{what}_{r:g}x_%"] = ceil.sel(speed_ratio=r).to_series()

    def gain(name: str, r: float) -> pd.Series:
        conv, pol = (d0[name].sel(**at, speed_ratio=r, policy=p) for p in ("page", policy))
        return (100.0 * (conv - pol) / conv).drop_vars(["speed_ratio", "policy"]).to_series()

    for r in ds["speed_ratio"].values:
        out[f"gain_written_{r:g}x_%"] = gain("read_array_rewritten", r)
        out[f"gain_other_{r:g}x_%"] = gain("read_array_other", r)
        out[f"gain_all_{r:g}x_%"] = gain("read_array", r)
    return out.round(3)


def placement_table(ds: xr.Dataset) -> pd.DataFrame:
    """What PPB's placement did per paper trace at Table 1's page size (mean over ratios):
    programs whose level wanted the fastest VB class, how many got it, and the diversions."""
    pols = [p for p in ("ppb", "ppb_strict") if p in ds["policy"].values]
    cols = ["want_fast", "got_fast", "diverted", "promotions", "host_writes"]
    sub = ds[cols].sel(trace=PAPER_TRACES, page_size=BIG, policy=pols).mean("speed_ratio")
    return sub.to_dataframe()[cols].round(0)


def write_table(ds: xr.Dataset) -> pd.DataFrame:
    """Mean program time (us) per paper trace, page size and policy at every ratio, of host
    page writes alone and of all programs (host writes and GC copies): the evidence of the
    write claims under the ``array`` and ``programs`` readings."""
    pols = [p for p in [*NAMES, "ppb_strict"] if p in ds["policy"].values]
    sub = ds[["write_array", "write_array_all"]].sel(trace=PAPER_TRACES, policy=pols)
    df = sub.to_dataframe()[["write_array", "write_array_all"]]
    return (
        df.rename(columns={"write_array": "host", "write_array_all": "all"})
        .unstack("policy")
        .round(3)
    )


def write_measures(ds: xr.Dataset, policy: str = "ppb") -> pd.DataFrame:
    """PPB's write change (%) per set-up, paper trace and page size, at the worst ratio:
    host programs alone beside all programs (host + GC), and request latency."""
    cols = {
        "host_programs_%": "write_array_improvement",
        "all_programs_%": "write_programs_improvement",
        "request_%": "write_improvement",
    }
    out = {}
    for k, name in cols.items():
        da = ds[name].sel(trace=PAPER_TRACES, policy=policy)
        out[k] = da.isel(speed_ratio=abs(da).argmax("speed_ratio")).to_series()
    return pd.DataFrame(out).round(4)


def readings_bars(ds: xr.Dataset) -> plt.Figure:
    """Read improvement (%) of PPB over the conventional FTL at Table 1's page size under
    each named reading of the default set-up (``programs`` reads as ``array``), per paper
    trace and speed ratio."""
    d0 = at_setup(ds)
    lab = labels(ds)
    readings = [
        r
        for r in READINGS.options
        if setup_of(r) == DEFAULT_SETUP
        and metric_of(r) != "programs"
        and policy_of(r) in ds["policy"].values
    ]
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(10, 3.3), sharey=True)
    ratios = ds["speed_ratio"].values
    w = 0.8 / len(readings)
    for ax, t in zip(axes, PAPER_TRACES, strict=True):
        x = np.arange(len(ratios))
        for k, r in enumerate(readings):
            v = improvement(d0, r).sel(trace=t, page_size=BIG)
            ax.bar(
                x + (k - (len(readings) - 1) / 2) * w,
                v,
                w,
                label=r,
                hatch="" if is_array(r) else "//",
            )
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xticks(x, [f"{r:g}x" for r in ratios])
        ax.set(title=f"{lab[t]}, {_kb(BIG)}", xlabel="slowest / fastest page latency")
    axes[0].set_ylabel("read improvement over conventional (%)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


# --- preconditioning set-ups and latency statistics ------------------------------------------
def setups_bars(ds: xr.Dataset, policy: str = "ppb", page_size: int = BIG) -> plt.Figure:
    """PPB's read improvement (%) under each preconditioning set-up, per paper trace: array
    time (bars, one per speed ratio) and request latency (markers)."""
    lab = labels(ds)
    setups = list(ds["setup"].values)
    ratios = ds["speed_ratio"].values
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(11, 3.4), sharey=True)
    w = 0.8 / len(ratios)
    for ax, t in zip(axes, PAPER_TRACES, strict=True):
        x = np.arange(len(setups))
        at = {"trace": t, "page_size": page_size, "policy": policy}
        for k, r in enumerate(ratios):
            off = (k - (len(ratios) - 1) / 2) * w
            arr = ds["read_array_improvement"].sel(**at, speed_ratio=r)
            req = ds["read_improvement"].sel(**at, speed_ratio=r)
            ax.bar(x + off, arr, w, color=f"C{k}", label=f"array, {r:g}x")
            ax.plot(x + off, req, "k^", ms=4, label="request latency" if k == 0 else None)
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xticks(x, setups)
        ax.set(title=f"{lab[t]}, {_kb(page_size)}, {policy}", xlabel="preconditioning set-up")
    axes[0].set_ylabel("read improvement over conventional (%)")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def setups_table(ds: xr.Dataset, page_size: int = BIG) -> pd.DataFrame:
    """Per set-up and paper trace (one page size, mean over the ratios): PPB's read gain in
    array time and request latency, the strict variant's, the reads timed, and the erases
    and GC copies of the conventional FTL and PPB."""
    at = {"trace": PAPER_TRACES, "page_size": page_size}
    rows = {}
    for setup in ds["setup"].values:
        d = ds.sel(setup=setup, **at)
        for t in PAPER_TRACES:
            v = d.sel(trace=t)
            rows[(str(setup), t)] = {
                "ppb_read_array_%": float(v["read_array_improvement"].sel(policy="ppb").mean()),
                "ppb_read_request_%": float(v["read_improvement"].sel(policy="ppb").mean()),
                "strict_read_array_%": float(
                    v["read_array_improvement"].sel(policy="ppb_strict").mean()
                )
                if "ppb_strict" in ds["policy"].values
                else np.nan,
                "timed_reads": float(v["timed_reads"].sel(policy="page").isel(speed_ratio=0)),
                "erases_conv": float(v["erases"].sel(policy="page").isel(speed_ratio=0)),
                "erases_ppb": float(v["erases"].sel(policy="ppb").isel(speed_ratio=0)),
                "gc_copies_conv": float(v["gc_copies"].sel(policy="page").isel(speed_ratio=0)),
                "gc_copies_ppb": float(v["gc_copies"].sel(policy="ppb").isel(speed_ratio=0)),
            }
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.names = ["setup", "trace"]
    return df.round(3)


def latency_table(ds: xr.Dataset, page_size: int = BIG) -> pd.DataFrame:
    """Read request latency of the default set-up per paper trace, policy and ratio: mean,
    median, p90, the mean of the reads not stalled by GC, the share of reads stalled and
    the share of read latency they carry, and PPB's gain (%) by each statistic."""
    d0 = at_setup(ds).sel(trace=PAPER_TRACES, page_size=page_size)
    pols = [p for p in ("page", "ppb", "ppb_strict") if p in ds["policy"].values]
    cols = {
        "mean_us": "read_latency",
        "median_us": "read_latency_median",
        "p90_us": "read_latency_p90",
        "unstalled_mean_us": "read_latency_unstalled",
        "stalled_reads": "read_gc_stalled",
        "stalled_latency_share": "read_gc_latency_share",
        "gain_mean_%": "read_improvement",
        "gain_median_%": "read_median_improvement",
        "gain_p90_%": "read_p90_improvement",
        "gain_unstalled_%": "read_unstalled_improvement",
    }
    sub = d0[list(cols.values())].sel(policy=pols)
    return (
        sub.to_dataframe()[list(cols.values())]
        .rename(columns={v: k for k, v in cols.items()})
        .round(3)
    )


def seeds_table(ds: xr.Dataset, page_size: int = BIG) -> pd.DataFrame:
    """Read request latency gain (%) of PPB and the strict variant over the conventional FTL
    for each fill seed (default set-up), per paper trace and ratio, with the mean, median,
    p90 and unstalled-mean gains of every seed: how much of a request-latency gain is the
    fill's luck."""
    pols = [p for p in ("ppb", "ppb_strict") if p in ds["policy"].values]
    at = {"trace": PAPER_TRACES, "page_size": page_size}
    out = {}
    for name in ("read_latency", "read_latency_median", "read_latency_p90",
                 "read_latency_unstalled", "read_array"):  # fmt: skip
        v = ds[f"{name}_by_seed"].sel(**at)
        conv = v.sel(policy="page")
        gain = 100.0 * (conv - v.sel(policy=pols)) / conv
        out[name.removeprefix("read_")] = gain.to_series()
    df = pd.DataFrame(out).unstack("fill_seed")
    return df.round(2)


# --- beyond the paper -------------------------------------------------------------------------
def beyond_variants(ds: xr.Dataset) -> plt.Figure:
    """Read array-time improvement of every PPB-like variant vs the speed ratio (paper traces,
    the largest page size)."""
    lab = labels(ds)
    pols = [p for p in ds["policy"].values if p != "page"]
    ps = int(ds["page_size"].max())
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(10, 3.4), sharey=True)
    for ax, trace in zip(axes, PAPER_TRACES, strict=True):
        for pol in pols:
            ax.plot(
                ds["speed_ratio"],
                ds["read_array_improvement"].sel(trace=trace, page_size=ps, policy=pol),
                marker="o",
                ms=3,
                label=pol,
            )
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set(title=f"{lab[trace]}, {_kb(ps)}", xlabel="slowest / fastest page latency")
    axes[0].set_ylabel("read array-time improvement (%)")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def beyond_table(ds: xr.Dataset) -> pd.DataFrame:
    """Every variant on the paper traces at the largest page size, mean over the ratios."""
    cols = [
        "read_array_improvement",
        "write_array_improvement",
        "read_improvement",
        "erases",
        "gc_copies",
        "got_fast",
        "want_fast",
        "diverted",
    ]
    ps = int(ds["page_size"].max())
    sub = ds[cols].sel(trace=PAPER_TRACES, page_size=ps).mean("speed_ratio")
    return sub.to_dataframe()[cols].round(2)


SK_POLICIES = ("page", "ppb", "sk_alloc", "ppb_sk")


def ppb_sk(ds: xr.Dataset) -> plt.Figure:
    """Read latency vs the mean 1-bit difference per mapping update (the ``skrm`` study's
    racetrack cost) for the conventional FTL, PPB, the SK-aware allocator and PPB+SK."""
    lab = labels(ds)
    pols = [p for p in SK_POLICIES if p in ds["policy"].values]
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(10, 3.4))
    for ax, trace in zip(axes, PAPER_TRACES, strict=True):
        for pol in pols:
            v = ds.sel(trace=trace, policy=pol).mean("speed_ratio")
            ax.scatter(v["bit_diff"], v["read_latency"], label=pol)
            for psz in ds["page_size"].values:
                ax.annotate(
                    f"{int(psz) // 1024}K",
                    (
                        float(v["bit_diff"].sel(page_size=psz)),
                        float(v["read_latency"].sel(page_size=psz)),
                    ),
                    fontsize=6,
                )
        ax.set(
            title=lab[trace],
            xlabel="mean 1-bit difference per mapping update (skrm)",
            ylabel="mean read latency (us)",
        )
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def ppb_sk_table(ds: xr.Dataset) -> pd.DataFrame:
    """NAND and racetrack measures of the SK-related policies (paper traces, mean over the
    ratios), plus PPB+SK relative to PPB (%)."""
    cols = ["read_latency", "read_array", "got_fast", "erases", "bit_diff", "block_pop_kept"]
    pols = [p for p in SK_POLICIES if p in ds["policy"].values]
    sub = ds[cols].sel(trace=PAPER_TRACES, policy=pols).mean("speed_ratio")
    return sub.to_dataframe()[cols].round(3)


# --- sentences generated from the values (they stay true when a parameter changes) ----------
def _span(values: xr.DataArray, fmt: str = ".2f") -> str:
    lo, hi = float(values.min()), float(values.max())
    return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}} to {hi:{fmt}}"


def reproducibility_text(ds: xr.Dataset, page_size: int = BIG) -> str:
    """What the traces at hand allow, in Markdown, from the run's own numbers: per paper
    trace the read shares and the ceiling at each speed ratio against the paper's 18.56 %
    (best) and 10 % (mean over 2x-5x), and what PPB measured under each set-up."""
    lines = []
    ratios = ds["speed_ratio"].values
    for t in PAPER_TRACES:
        at = {"trace": t, "page_size": page_size}
        v = {k: float(ds[k].sel(**at)) for k in ("first_read_share", "reads_of_rewritten")}
        if not np.isfinite(v["first_read_share"]):
            lines.append(f"- **{labels(ds)[t]}** has no reads at {_kb(page_size)}.")
            continue
        ceil_r = ds["read_ceiling_reread"].sel(**at)
        ceil_w = ds["read_ceiling_written"].sel(**at)
        per_ratio = ", ".join(f"{float(ceil_r.sel(speed_ratio=r)):.2f} % at {r:g}x" for r in ratios)
        gains = ds["read_array_improvement"].sel(**at, policy="ppb").max("speed_ratio")
        by_setup = ", ".join(f"{s}: {float(gains.sel(setup=s)):.2f} %" for s in ds["setup"].values)
        best = float(ceil_r.max())
        verdict = (
            "below the paper's 18.56 %: no placement of this trace's reads can reach it"
            if best < 18.56
            else "above the paper's 18.56 %: the trace would allow it"
        )
        synthetic = " (a synthetic stand-in: its numbers say nothing about the paper's trace)"
        lines.append(
            f"- **{labels(ds)[t]}**{synthetic if int(ds['trace_synthetic'].sel(trace=t)) else ''}"
            f", {int(ds['trace_requests'].sel(trace=t))} requests, {_kb(page_size)} pages: "
            f"{v['first_read_share']:.1%} of its page reads are the first access to their page "
            f"(nothing can have placed them), {v['reads_of_rewritten']:.1%} hit data the trace "
            f"wrote (the only reads a write-time placement can move). Ceiling, if every re-read "
            f"came from the fastest virtual block: {per_ratio}; best {best:.2f} %, {verdict}. "
            f"Counting only reads of written data the ceiling is {_span(ceil_w)} %. PPB's best "
            f"measured array-time read gain per set-up: {by_setup}."
        )
    return "\n".join(lines)


def latency_text(ds: xr.Dataset, trace: str = "web", page_size: int = BIG) -> str:
    """What the request-latency gain is, in Markdown, from the run's numbers: the gain's
    range over fill seeds, the GC-stalled reads and their share of read latency, median and
    unstalled gains, the same on the aged drive, and the conclusion these numbers support."""
    d0 = at_setup(ds).sel(trace=trace, page_size=page_size)
    seeds = ds["read_improvement_by_seed"].sel(trace=trace, page_size=page_size)
    conv = d0.sel(policy="page")
    out = [
        f"- **conventional FTL** ({labels(ds)[trace]}, {_kb(page_size)}): "
        f"{_span(conv['read_gc_stalled'] * 100)} % of reads arrive during a GC burst on their "
        f"chip and carry {_span(conv['read_gc_latency_share'] * 100, '.0f')} % of total read "
        "latency."
    ]
    for pol in [p for p in ("ppb", "ppb_strict") if p in ds["policy"].values]:
        v = d0.sel(policy=pol)
        g = seeds.sel(policy=pol)
        sign = (
            "its sign depends on the fill seed"
            if float(g.min()) < 0 < float(g.max())
            else "its sign is the same for every seed"
        )
        out.append(
            f"- **{pol}** ({labels(ds)[trace]}, {_kb(page_size)}): mean read request latency "
            f"gain over {g.sizes['fill_seed']} fill seeds {_span(g)} % across the ratios "
            f"({sign}); {_span(v['read_gc_stalled'] * 100)} % of reads arrive during a GC "
            f"burst on their chip and carry {_span(v['read_gc_latency_share'] * 100, '.0f')} % "
            f"of total read latency; the median gain is {_span(v['read_median_improvement'])} "
            f"%, the gain without GC-stalled reads {_span(v['read_unstalled_improvement'])} %."
        )
    if "ppb" in ds["policy"].values:
        out.append(_latency_conclusion(ds, trace, page_size))
    return "\n".join(out)


def _latency_conclusion(ds: xr.Dataset, trace: str, page_size: int) -> str:
    """Whether PPB's request-latency gain is a stable effect of fewer GC-stalled reads (the
    same sign over every fill seed, GC's share of read latency falling) or GC timing, and
    what it becomes on the aged drive."""
    d0 = at_setup(ds).sel(trace=trace, page_size=page_size)
    g = ds["read_improvement_by_seed"].sel(trace=trace, page_size=page_size, policy="ppb")
    pols = ("page", "ppb")
    share = {p: float(d0.sel(policy=p)["read_gc_latency_share"].mean()) * 100 for p in pols}
    per_erase = {
        p: float(
            d0.sel(policy=p)["gc_copies"].mean() / max(float(d0.sel(policy=p)["erases"].mean()), 1)
        )
        for p in pols
    }
    stable = bool((g > 0).all()) or bool((g < 0).all())
    if stable and share["ppb"] < share["page"]:
        text = (
            f"**What the gain is.** PPB's request-latency gain has one sign over every fill seed "
            f"and ratio ({_span(g)} %), and GC's share of read latency falls from "
            f"{share['page']:.0f} % (conventional) to {share['ppb']:.0f} % (PPB, mean over the "
            "ratios): PPB stalls fewer reads behind GC, a stable effect of the policy on GC, "
            "not of page speed and not luck. GC copies per erased block: "
            f"{per_erase['page']:.1f} (conventional), {per_erase['ppb']:.1f} (PPB)"
            + (
                ": with hot and cold data in separate blocks GC's victims hold fewer valid "
                "pages, so its bursts are shorter."
                if per_erase["ppb"] < per_erase["page"]
                else "."
            )
        )
    else:
        text = (
            f"**What the gain is.** PPB's request-latency gain ({_span(g)} % over the fill "
            f"seeds) {'changes sign with the seed' if not stable else 'keeps its sign'} and "
            f"GC's share of read latency is {share['page']:.0f} % (conventional) against "
            f"{share['ppb']:.0f} % (PPB): the run does not show a stable GC effect."
        )
    if "setup" in ds.dims and "aged" in ds["setup"].values:
        aged = at_setup(ds, "aged")["read_improvement"].sel(
            trace=trace, page_size=page_size, policy="ppb"
        )
        text += f" On the aged drive (GC steady) the same gain is {_span(aged)} %."
    return text


def aged_progression(ds: xr.Dataset, page_size: int = BIG) -> plt.Figure:
    """The aged set-up pass by pass: read array-time improvement over the conventional FTL
    (largest ratio) after each warm-up replay of the trace and in the measured one (the last
    point), per paper trace: the GC-driven progression of Sec. 3.1, where it shows."""
    lab = labels(ds)
    pols = [p for p in ("ppb_split", "ppb", "ppb_strict") if p in ds["policy"].values]
    r = float(ds["speed_ratio"].max())
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(10, 3.2), sharey=True)
    for ax, t in zip(axes, PAPER_TRACES, strict=True):
        for pol in pols:
            warm = ds["read_array_improvement_by_pass"].sel(
                trace=t, page_size=page_size, policy=pol
            )
            last = ds["read_array_improvement"].sel(
                setup="aged", trace=t, page_size=page_size, policy=pol, speed_ratio=r
            )
            y = [*warm.values, float(last)]
            ax.plot(range(1, len(y) + 1), y, marker="o", ms=3, label=pol)
        ax.set_xticks(range(1, ds.sizes["aged_pass"] + 2))
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set(
            title=f"{lab[t]}, {_kb(page_size)}, {r:g}x",
            xlabel="replay of the trace on the aged drive (last: measured)",
        )
    axes[0].set_ylabel("read array-time improvement (%)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def aged_table(ds: xr.Dataset) -> pd.DataFrame:
    """The aged set-up's warm-up passes per paper trace, page size and policy: read array-time
    improvement (largest ratio), erases and GC copies of each pass."""
    cols = ["read_array_improvement_by_pass", "erases_by_pass", "gc_copies_by_pass"]
    pols = [p for p in ("page", "ppb_split", "ppb", "ppb_strict") if p in ds["policy"].values]
    sub = ds[cols].sel(trace=PAPER_TRACES, policy=pols)
    df = sub.to_dataframe()[cols].rename(columns=lambda c: c.removesuffix("_by_pass"))
    return df.unstack("aged_pass").round(2)


# --- explicit migration (policy.migrate) ------------------------------------------------------
def migration_policies(ds: xr.Dataset) -> list[str]:
    """PPB, then the variant with the other ``policy.migrate`` setting when the run has it."""
    return ["ppb", *[str(p) for p in ds["policy"].values if str(p).startswith("ppb_migrate_")]]


def migration_table(ds: xr.Dataset) -> pd.DataFrame:
    """PPB with and without explicit migration at the default set-up, per paper trace and
    page size: host writes, migrations, every program (host, GC, migrations) and programs per
    host write, erases and GC copies (the same at every speed ratio); then at each ratio the
    array-time read gain over the conventional FTL on all reads and on the reads of data laid
    out by preconditioning (which only a migration or a GC copy can move), beside the ceiling
    if every re-read came from the fastest virtual block."""
    d0 = at_setup(ds)
    at = {"trace": PAPER_TRACES, "policy": migration_policies(ds)}
    counts = ["host_writes", "migrations", "flash_programs", "erases", "gc_copies"]
    out = d0[counts].sel(**at).isel(speed_ratio=0).drop_vars("speed_ratio").to_dataframe()
    out = out[counts].reorder_levels(["trace", "page_size", "policy"]).sort_index()
    out["programs_per_host_write"] = out["flash_programs"] / out["host_writes"]
    where = out.index.droplevel("policy")
    for r in ds["speed_ratio"].values:
        sub = d0.sel(**at, speed_ratio=r)
        conv = d0.sel(trace=PAPER_TRACES, policy="page", speed_ratio=r).drop_vars("policy")

        def gain(name: str, sub=sub, conv=conv) -> pd.Series:
            g = 100.0 * (conv[name] - sub[name]) / conv[name]
            return g.transpose("trace", "page_size", "policy").to_series()

        out[f"gain_all_{r:g}x_%"] = gain("read_array").reindex(out.index)
        out[f"gain_other_{r:g}x_%"] = gain("read_array_other").reindex(out.index)
        ceil = ds["read_ceiling_reread"].sel(trace=PAPER_TRACES, speed_ratio=r).to_series()
        out[f"ceiling_reread_{r:g}x_%"] = ceil.reindex(where).to_numpy()
    return out.round(3)


def migration_text(ds: xr.Dataset, page_size: int = BIG) -> str:
    """What explicit migration cost and bought, in Markdown, from the run's numbers: per
    paper trace its migrations, programs and erases beside PPB's without, and the read gains
    of both against the re-read ceiling over the speed ratios."""
    pols = migration_policies(ds)
    if len(pols) < 2:
        return "This run has no migration variant (`ppb.beyond.migrate: false`)."
    base, other = pols
    d0 = at_setup(ds)
    names = {"ppb": f"PPB (`migrate: {_migrate_of(ds, 'ppb')}`)"}
    names[other] = f"`{other}` (`migrate: {_migrate_of(ds, other)}`)"
    lines = []
    for t in PAPER_TRACES:
        at = {"trace": t, "page_size": page_size}
        v = {p: d0.sel(**at, policy=p).isel(speed_ratio=0) for p in pols}
        w = int(v[base]["host_writes"])
        moved = {p: int(v[p]["migrations"]) for p in pols}
        gains = {p: d0["read_array_improvement"].sel(**at, policy=p) for p in pols}
        ceil = ds["read_ceiling_reread"].sel(**at)
        parts = []
        for p in pols:
            share = f" ({moved[p] / w:.2%} of the host page writes)" if w else ""
            parts.append(
                f"{names[p]} migrated {moved[p]} pages{share}, programmed "
                f"{int(v[p]['flash_programs'])} pages in all ({int(v[p]['gc_copies'])} GC "
                f"copies) and erased {int(v[p]['erases'])} blocks; its array-time read gain "
                f"over the conventional FTL is {_span(gains[p])} % over "
                f"{_span(ds['speed_ratio'], 'g')}x"
            )
        lines.append(
            f"- **{labels(ds)[t]}**, {_kb(page_size)}, {w} host page writes: "
            + "; ".join(parts)
            + f". The ceiling if every re-read came from the fastest virtual block is "
            f"{_span(ceil)} % over the same ratios."
        )
    return "\n".join(lines)


def _migrate_of(ds: xr.Dataset, policy: str) -> str:
    """The ``policy.migrate`` setting a PPB variant of the run used."""
    default = yaml.safe_load(ds.attrs["config"])["ppb"]["policy"].get("migrate", "none")
    if policy.startswith("ppb_migrate_"):
        return policy.removeprefix("ppb_migrate_")
    return str(default)


_BARS = (
    "per trace, one panel per page size (8 KB, 16 KB), the paper's two traces first: bars "
    "are the mean over the speed ratios run, whiskers their range, markers the best ratio"
)
_LINES = (
    "against the speed ratio (slowest / fastest page latency) for the conventional FTL, the "
    "naive split of the paper's Fig. 3 and PPB at both page sizes: mean latency (top) and "
    "each one's change against the conventional FTL (bottom), array time left and request "
    "latency right"
)

#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "fig12_read_improvement": Caption(
        "The paper's Fig. 12: read array-time improvement (%) of PPB and the naive split over "
        f"the conventional FTL, {_BARS}; the dashed line is the paper's largest bar.",
        ("fig12", "sec4.2.read_mean_10pct"),
    ),
    "fig12b_read_improvement_request": Caption(
        "Fig. 12 measured as read request latency (queueing and GC stalls included) instead "
        f"of array time: improvement (%) of PPB and the naive split, {_BARS}.",
        ("fig12", "sec4.2.read_mean_10pct"),
    ),
    "fig15_write_improvement": Caption(
        "The paper's Fig. 15: write program-time improvement (%) of PPB and the naive split "
        f"over the conventional FTL, {_BARS}.",
        ("fig15",),
    ),
    "fig15b_write_improvement_request": Caption(
        "Fig. 15 measured as write request latency instead of program time: improvement (%) "
        f"of PPB and the naive split over the conventional FTL, {_BARS}.",
        ("fig15",),
    ),
    "fig13_media_read_latency": Caption(
        f"The paper's Fig. 13, reads of the media-server trace: {_LINES}.", ("fig13",)
    ),
    "fig14_web_read_latency": Caption(
        f"The paper's Fig. 14, reads of the web-server trace: {_LINES}.", ("fig14",)
    ),
    "fig16_media_write_latency": Caption(
        f"The paper's Fig. 16, writes of the media-server trace: {_LINES}.", ("fig16",)
    ),
    "fig17_web_write_latency": Caption(
        f"The paper's Fig. 17, writes of the web-server trace: {_LINES}.", ("fig17",)
    ),
    "fig18_erased_blocks": Caption(
        "The paper's Fig. 18: blocks erased during each replay per trace, page size and "
        "policy (conventional FTL, naive split, PPB; the same at every speed ratio).",
        ("fig18", "sec4.2.gc_retained"),
    ),
    "readings_read_improvement": Caption(
        "PPB's read improvement (%) over the conventional FTL at the paper's page size under "
        "each named reading of the paper's ambiguities (default set-up), per paper trace and "
        "speed ratio: how Fig. 12's gains depend on the reading.",
        ("fig12.read_gain",),
    ),
    "setups_read_improvement": Caption(
        "PPB's read improvement (%) under each preconditioning set-up of the drive (how it is "
        "filled and aged before the trace, which the paper does not state), per paper trace: "
        "array time (bars, one per speed ratio) and request latency (markers).",
        ("fig12.read_gain",),
    ),
    "aged_progression": Caption(
        "Beyond the paper: on the aged drive, read array-time improvement over the "
        "conventional FTL (largest speed ratio) after each warm-up replay of the trace and in "
        "the measured one (the last point), per paper trace and policy: the GC-driven "
        "progression the paper's Sec. 3.1 describes. It bears on no scored claim.",
    ),
    "fig_beyond_variants": Caption(
        "Beyond the paper: read array-time improvement of every PPB-like variant against the "
        "speed ratio (paper traces, the largest page size). It bears on no scored claim.",
    ),
    "fig_beyond_ppb_sk": Caption(
        "Beyond the paper: read latency against the mean 1-bit difference per mapping update "
        "(the racetrack cost of the skrm study) for the conventional FTL, PPB, the SK-aware "
        "allocator and PPB combined with it. It bears on no scored claim.",
    ),
}
