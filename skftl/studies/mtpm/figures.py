"""Figures of the mtpm study (one function per paper figure), drawn from its dataset."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.power.profiles import ATOMIC_LABELS, ATOMICS, LEVEL_UNIT, Profiles
from skftl.power.tokens import TokenModel
from skftl.studies.mtpm.simulate import PAPER_TABLE_III, SCHEME_LABELS


def _bars(ax, table: pd.DataFrame, ylabel: str) -> None:
    """Grouped bars: one group per column (trace), one bar per row (scheme)."""
    n = len(table.index)
    w = 0.8 / n
    x = np.arange(len(table.columns))
    for i, (name, row) in enumerate(table.iterrows()):
        ax.bar(
            x + (i - (n - 1) / 2) * w, row.to_numpy(float), w, label=SCHEME_LABELS.get(name, name)
        )
    long = len(table.columns) > 6 or max(len(str(c)) for c in table.columns) > 10
    ax.set_xticks(x, table.columns, rotation=20 if long else 0, ha="right" if long else "center")
    ax.set_ylabel(ylabel)
    ax.legend(ncol=3, loc="upper center")
    ax.set_ylim(top=ax.get_ylim()[1] * 1.25)  # room for the legend


def with_average(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(Avg=table.mean(axis=1, skipna=True))


def fig10_profiles(prof: Profiles, tokens: TokenModel) -> plt.Figure:
    """The calibrated current model (one loop / operation) with atomic and sub-atomic tokens."""
    groups = {"program (1 LSB loop)": [0, 1], "read": [2, 3, 4], "erase": [5, 6]}
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.2))
    per_token = tokens.budget_units / tokens.total_tokens / LEVEL_UNIT
    for ax, (title, atoms) in zip(axes, groups.items(), strict=True):
        t0 = 0.0
        for a in atoms:
            s = prof.samples[a] / LEVEL_UNIT
            t = t0 + np.arange(len(s)) * 0.04
            ax.plot(t, s, color="k", lw=1)
            ax.hlines(
                tokens.required_tokens(prof.peak(a)) * per_token,
                t[0],
                t[-1] + 0.04,
                color="C0",
                label="atomic tokens" if a == atoms[0] else None,
            )
            sa = prof.sub_atomic(a)
            for lo, hi, pk in zip(sa.start, sa.stop, sa.peak, strict=True):
                ax.hlines(
                    tokens.required_tokens(pk) * per_token,
                    t0 + lo * 0.04,
                    t0 + hi * 0.04,
                    color="C3",
                    ls="--",
                    label="sub-atomic tokens" if (a == atoms[0] and lo == 0) else None,
                )
            t0 = t[-1] + 0.04
        ax.set_title(title)
        ax.set_xlabel("time (us)")
        if title.startswith("erase"):
            ax.set_xscale("symlog", linthresh=100)
    axes[0].set_ylabel("current / I_max")
    axes[0].legend()
    fig.tight_layout()
    return fig


def fig11_current(ds: xr.Dataset, window_us: float) -> plt.Figure:
    cur = ds.current_trace.sel(time=slice(0, window_us))
    fig, axes = plt.subplots(len(cur.fig11_scheme), 1, figsize=(6.4, 5.6), sharex=True)
    for ax, sch in zip(np.atleast_1d(axes), cur.fig11_scheme.values, strict=True):
        ax.plot(cur.time, cur.sel(fig11_scheme=sch), lw=0.6)
        ax.axhline(1.0, color="C3", lw=1, ls="--")
        full = float(ds.current_trace.sel(fig11_scheme=sch).max())
        ax.set_title(f"{SCHEME_LABELS.get(str(sch), sch)}: peak {full:.2f} x budget", fontsize=9)
        ax.set_ylabel("I / PB")
    np.atleast_1d(axes)[-1].set_xlabel("time (us)")
    fig.tight_layout()
    return fig


def fig12_tg(ds: xr.Dataset) -> plt.Figure:
    fig, ax = plt.subplots()
    norm = ds.tg_throughput / ds.tg_mtpm_reference
    for tr in norm.trace.values:
        ax.plot(norm.tg, norm.sel(trace=tr), marker="o", label=str(tr))
    ax.set_xlabel("token granularity TG")
    ax.set_ylabel(f"throughput / MTPM (TG={int(ds.tg[0])})")
    ax.set_xticks(ds.tg.values)
    ax.legend()
    return fig


def fig13_throughput(
    ds: xr.Dataset, var: str = "throughput", dim: str = "trace", labels: list[str] | None = None
) -> plt.Figure:
    norm = (ds[var] / ds[var].sel(scheme="NPM")).to_pandas()
    if labels is not None:
        norm.columns = labels
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    _bars(ax, with_average(norm), "throughput / NPM")
    ax.set_ylim(0, 1.4)
    return fig


def fig15_alpha(ds: xr.Dataset) -> plt.Figure:
    fig, ax = plt.subplots()
    thr = (ds.alpha_throughput / ds.alpha_throughput.sel(scheme="NPM")).mean("trace")
    for sch in thr.scheme.values:
        ax.plot(thr.alpha, thr.sel(scheme=sch), marker="o", label=SCHEME_LABELS[str(sch)])
    ax.set_xlabel("power budget alpha (PB = alpha x I_max)")
    ax.set_ylabel("throughput / NPM")
    ax2 = ax.twinx()
    v = ds.alpha_violations_per_ms.sel(scheme="NPM").mean("trace")
    ax2.semilogy(v.alpha, np.where(v > 0, v, np.nan), "k:", marker="x", label="NPM violations")
    ax2.set_ylabel("NPM violations per ms")
    ax.legend(loc="lower right")
    ax2.legend(loc="center right")
    return fig


def fig16_latency(ds: xr.Dataset, var: str) -> plt.Figure:
    norm = (ds[var] / ds[var].sel(scheme="MTPM")).to_pandas().dropna(axis=1, how="all")
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    _bars(ax, with_average(norm), f"{var.replace('_', ' ')} / MTPM")
    return fig


def fig18_wait(ds: xr.Dataset) -> plt.Figure:
    w = ds.wait_time.sum("trace")
    norm = (w / w.sel(scheme="MTPM")).sel(scheme=[s for s in w.scheme.values if s != "NPM"])
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    _bars(ax, norm.to_pandas(), "cumulative wait / MTPM")
    ax.set_yscale("log")
    pos = norm.values[np.isfinite(norm.values) & (norm.values > 0)]
    ax.set_ylim(pos.min() / 2, pos.max() * 30)  # room for the legend on a log axis
    return fig


def table3(ds: xr.Dataset) -> pd.DataFrame:
    ov = ds.latency_overhead.to_pandas()
    paper = pd.DataFrame(PAPER_TABLE_III, index=["paper_min", "paper_max", "paper_max_%"]).T
    return pd.concat([ov, paper], axis=1)


def fig_multichannel(ds: xr.Dataset) -> plt.Figure:
    thr = ds.mc_throughput / ds.mc_throughput.sel(mc_scheme="NPM")
    streams = [str(x) for x in thr.mc_stream.values]
    fig, axes = plt.subplots(1, len(streams), figsize=(5 * len(streams), 3.6), squeeze=False)
    for ax, st in zip(axes[0], streams, strict=True):
        _bars(ax, thr.sel(mc_stream=st).to_pandas().T, "throughput / NPM")
        ax.set_ylim(0, 1.4)
        ax.set_title(st, fontsize=9)
    fig.tight_layout()
    return fig


def fig_sensitivity(ds: xr.Dataset) -> plt.Figure:
    thr = ds.sensitivity_throughput / ds.sensitivity_throughput.sel(scheme="NPM")
    traces = [str(t) for t in thr.sens_trace.values]
    fig, axes = plt.subplots(len(traces), 1, figsize=(7.5, 3.2 * len(traces)), squeeze=False)
    for ax, tr in zip(axes[:, 0], traces, strict=True):
        _bars(ax, thr.sel(sens_trace=tr).to_pandas().T, "throughput / NPM")
        ax.set_ylim(0, 1.4)
        ax.set_title(tr, fontsize=9)
    fig.tight_layout()
    return fig


def atomic_table(ds: xr.Dataset) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "atomic": list(ATOMICS),
            "label": list(ATOMIC_LABELS),
            "peak (I_max)": ds.atomic_peak.values,
            "tokens (atomic)": ds.atomic_tokens.values.astype(int),
            "sub-atomic ops": ds.subatomic_count.values.astype(int),
        }
    )
