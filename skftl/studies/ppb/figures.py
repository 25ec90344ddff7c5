"""Figures and tables of the `ppb` study (Figs. 12-18 and the beyond-the-paper variants),
drawn from its dataset. Each function returns a matplotlib figure or a DataFrame; the
notebook saves and shows them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.studies.ppb.claims import BIG, READINGS, improvement, is_array, policy_of

NAMES = {"page": "conventional FTL", "ppb_split": "naive split (Fig. 3)", "ppb": "PPB"}
PAPER_TRACES = ["web", "media"]


def labels(ds: xr.Dataset) -> dict[str, str]:
    """trace key -> its label (says "(synthetic)" for a stand-in)."""
    return {str(t): str(ds["trace_label"].sel(trace=t).values) for t in ds["trace"].values}


def _kb(ps: object) -> str:
    return f"{int(ps) // 1024} KB"


# --- Figs. 12 and 15 --------------------------------------------------------------------------
def improvement_bars(
    ds: xr.Dataset, var: str, ylabel: str, paper: float | None = None
) -> plt.Figure:
    """Figs. 12/15: PPB's and the naive split's improvement over the conventional FTL per
    trace (one panel per page size); bars are the mean over the speed ratios, whiskers their
    range. Traces without a finite value (write-only traces for reads) are left out."""
    lab = labels(ds)
    traces = [
        t for t in ds["trace"].values if np.isfinite(ds[var].sel(trace=t, policy="ppb")).any()
    ]
    sizes = ds["page_size"].values
    fig, axes = plt.subplots(1, len(sizes), figsize=(11, 3.6), sharey=True, squeeze=False)
    for ax, ps in zip(axes[0], sizes, strict=True):
        x = np.arange(len(traces))
        for k, pol in enumerate(["ppb_split", "ppb"]):
            v = ds[var].sel(page_size=ps, policy=pol, trace=traces)
            mean = v.mean("speed_ratio")
            ax.bar(
                x + (k - 0.5) * 0.38,
                mean,
                0.38,
                yerr=[mean - v.min("speed_ratio"), v.max("speed_ratio") - mean],
                label=NAMES[pol],
                capsize=2,
            )
        if paper is not None:
            ax.axhline(paper, color="k", ls="--", lw=0.8, label=f"paper max ({paper:g} %)")
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xticks(x, [lab[t] for t in traces], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{_kb(ps)} pages")
    axes[0, 0].set_ylabel(ylabel)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


# --- Figs. 13-14 and 16-17 --------------------------------------------------------------------
def latency_vs_ratio(ds: xr.Dataset, direction: str, trace: str) -> plt.Figure:
    """Figs. 13-14 (``read``) / 16-17 (``write``): mean latency vs the speed ratio for the
    conventional FTL, the naive split and PPB; array time left, request latency right."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, (var, what) in zip(
        axes,
        [(f"{direction}_array", "array time"), (f"{direction}_latency", "request latency")],
        strict=True,
    ):
        for ps, ls in zip(ds["page_size"].values, ["--", "-"], strict=False):
            for pol, color in zip(NAMES, ["0.3", "C1", "C0"], strict=True):
                ax.plot(
                    ds["speed_ratio"],
                    ds[var].sel(trace=trace, page_size=ps, policy=pol),
                    ls,
                    marker="o",
                    color=color,
                    ms=3,
                    label=f"{NAMES[pol]}, {_kb(ps)}",
                )
        ax.set(xlabel="slowest / fastest page latency", ylabel=f"mean {direction} {what} (us)")
    axes[0].legend(fontsize=7)
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
    """PPB's mean improvement (%) over the speed ratios under every named reading, per paper
    trace and page size (a reading whose policy was not run is left out)."""
    cols = {}
    for r in READINGS.options:
        if policy_of(r) not in ds["policy"].values:
            continue
        imp = improvement(ds, r, direction).sel(trace=PAPER_TRACES)
        cols[r] = imp.mean("speed_ratio").to_series()
    return pd.DataFrame(cols).round(3)


def reach_table(ds: xr.Dataset, policy: str = "ppb") -> pd.DataFrame:
    """Why array-time gains stay small, at the largest ratio: the share of page reads that
    hit data the trace wrote earlier (the only reads a write-time placement can move); the
    gain on those reads if every one hit the fast half of its block (linear speed profile,
    vs the block mean) and that times the share, the expected bound on the whole gain; then
    the policy's measured gain on those reads, on the other reads (data laid out by
    preconditioning: random positions under every policy, so zero in expectation except for
    data GC copied during the replay; sampling noise in a finite trace) and on all reads."""
    r = float(ds["speed_ratio"].max())
    x = 1.0 - 1.0 / r
    if_fast = 100.0 * (1.0 - (1.0 - 0.75 * x) / (1.0 - 0.5 * x))
    at = {"trace": PAPER_TRACES, "speed_ratio": r}
    frac = ds["reads_of_rewritten"].sel(trace=PAPER_TRACES)

    def gain(name: str) -> pd.Series:
        conv, pol = (ds[name].sel(**at, policy=p) for p in ("page", policy))
        return (100.0 * (conv - pol) / conv).drop_vars(["speed_ratio", "policy"]).to_series()

    return pd.DataFrame(
        {
            "reads_of_rewritten": frac.to_series(),
            "gain_if_all_fast_%": if_fast,
            "expected_bound_%": (frac * if_fast).to_series(),
            "gain_on_rewritten_%": gain("read_array_rewritten"),
            "gain_on_other_%": gain("read_array_other"),
            "gain_all_reads_%": gain("read_array"),
        }
    ).round(3)


def placement_table(ds: xr.Dataset) -> pd.DataFrame:
    """What PPB's placement did per paper trace at Table 1's page size (mean over ratios):
    programs whose level wanted the fastest VB class, how many got it, and the diversions."""
    pols = [p for p in ("ppb", "ppb_strict") if p in ds["policy"].values]
    cols = ["want_fast", "got_fast", "diverted", "promotions", "host_writes"]
    sub = ds[cols].sel(trace=PAPER_TRACES, page_size=BIG, policy=pols).mean("speed_ratio")
    return sub.to_dataframe()[cols].round(0)


def write_table(ds: xr.Dataset) -> pd.DataFrame:
    """Mean program time of host page writes (us) per paper trace, page size and policy, at
    every ratio: the evidence of the write claims under the array-time readings."""
    pols = [p for p in [*NAMES, "ppb_strict"] if p in ds["policy"].values]
    da = ds["write_array"].sel(trace=PAPER_TRACES, policy=pols)
    return da.to_dataframe()["write_array"].unstack("policy").round(3)


def readings_bars(ds: xr.Dataset) -> plt.Figure:
    """Read improvement (%) of PPB over the conventional FTL at Table 1's page size under
    each named reading, per paper trace and speed ratio."""
    lab = labels(ds)
    readings = [r for r in READINGS.options if policy_of(r) in ds["policy"].values]
    fig, axes = plt.subplots(1, len(PAPER_TRACES), figsize=(10, 3.3), sharey=True)
    ratios = ds["speed_ratio"].values
    w = 0.8 / len(readings)
    for ax, t in zip(axes, PAPER_TRACES, strict=True):
        x = np.arange(len(ratios))
        for k, r in enumerate(readings):
            v = improvement(ds, r).sel(trace=t, page_size=BIG)
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
