"""Figures and tables of the mtpm study, drawn from its dataset: one function per paper figure
and table, the tables behind them, the evidence the notebook shows beside each miss, and the
claims registry laid out for reading (coverage, verdict counts, rows by claim id)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.power.profiles import ATOMIC_LABELS, ATOMICS, LEVEL_UNIT, Profiles
from skftl.power.tokens import TokenModel
from skftl.studies import scorecard
from skftl.studies.captions import Caption
from skftl.studies.mtpm import claims as C
from skftl.studies.mtpm.simulate import SCHEME_LABELS


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
    """Fig. 11: the current over the first ``window_us``; each title gives the peak in the
    plotted window and over the whole run (``peak_over_budget``), which can differ."""
    cur = ds.current_trace.sel(time=slice(0, window_us))
    trace = str(ds.current_trace.attrs.get("long_name", "")).rsplit("(", 1)[-1].rstrip(")")
    fig, axes = plt.subplots(len(cur.fig11_scheme), 1, figsize=(6.4, 5.6), sharex=True)
    for ax, sch in zip(np.atleast_1d(axes), cur.fig11_scheme.values, strict=True):
        ax.plot(cur.time, cur.sel(fig11_scheme=sch), lw=0.6)
        ax.axhline(1.0, color="C3", lw=1, ls="--")
        shown = float(cur.sel(fig11_scheme=sch).max())
        title = f"{SCHEME_LABELS.get(str(sch), sch)}: peak {shown:.2f} x budget in this window"
        if "peak_over_budget" in ds and trace in ds.trace.values:
            run = 1.0 + float(ds.peak_over_budget.sel(scheme=str(sch), trace=trace))
            title += f", {run:.2f} over the whole run"
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("I / PB")
    np.atleast_1d(axes)[-1].set_xlabel("time (us)")
    fig.tight_layout()
    return fig


def fig12_tg(ds: xr.Dataset) -> plt.Figure:
    """Fig. 12, the legend beside the axes (inside it sat on the R100 line)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    norm = ds.tg_throughput / ds.tg_mtpm_reference
    for tr in norm.trace.values:
        ax.plot(norm.tg, norm.sel(trace=tr), marker="o", label=str(tr))
    ax.set_xlabel("token granularity TG")
    ax.set_ylabel(f"throughput / MTPM (TG={int(ds.tg[0])})")
    ax.set_xticks(ds.tg.values)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
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
    """Fig. 15 on the paper's axes: the average throughput (mean over the synthetic traces,
    operations per second, NPM's included) and NPM's violations per ms on a log axis, made
    symmetric-log so that alphas without a violation show as 0 at its foot (a plain log axis
    drops them)."""
    fig, ax = plt.subplots(figsize=(7.2, 4.0))
    thr = ds.alpha_throughput.mean("trace") / 1e3
    for sch in thr.scheme.values:
        ax.plot(thr.alpha, thr.sel(scheme=sch), marker="o", label=SCHEME_LABELS[str(sch)])
    ax.set_xlabel("power budget alpha (PB = alpha x I_max)")
    ax.set_ylabel("average throughput (k NAND operations / s)")
    ax2 = ax.twinx()
    v = ds.alpha_violations_per_ms.sel(scheme="NPM").mean("trace")
    ax2.plot(v.alpha, v, "k:", marker="x", label="NPM violations per ms")
    zero = v.values == 0
    ax2.plot(v.alpha.values[zero], v.values[zero], "s", mfc="none", mec="C3", ms=9,
             label="NPM: no violation (0)")  # fmt: skip
    ax2.set_yscale("symlog", linthresh=0.01)
    ax2.set_ylim(bottom=0, top=max(float(v.max()), 1.0) * 5)
    ax2.set_ylabel("NPM violations per ms (log; 0 at the foot)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.15, 1.0), borderaxespad=0.0, fontsize=8)
    ax2.legend(loc="upper left", bbox_to_anchor=(1.15, 0.35), borderaxespad=0.0, fontsize=8)
    fig.tight_layout()
    return fig


def fig16_latency(ds: xr.Dataset, var: str) -> plt.Figure:
    norm = (ds[var] / ds[var].sel(scheme="MTPM")).to_pandas().dropna(axis=1, how="all")
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    _bars(ax, with_average(norm), f"{var.replace('_', ' ')} / MTPM")
    return fig


def fig18_wait(ds: xr.Dataset) -> plt.Figure:
    """Fig. 18: waits for the key and tokens before each atomic operation, token schemes only
    (PPM's and DCC's waits are start delays of another kind: :func:`start_delay_table`)."""
    w = ds.wait_time.sum("trace")
    norm = (w / w.sel(scheme="MTPM")).sel(scheme=[s for s in C.TOKEN if s in w.scheme.values])
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    _bars(ax, norm.to_pandas(), "cumulative wait / MTPM")
    ax.set_yscale("log")
    pos = norm.values[np.isfinite(norm.values) & (norm.values > 0)]
    ax.set_ylim(pos.min() / 2, pos.max() * 30)  # room for the legend on a log axis
    return fig


def table3(ds: xr.Dataset) -> pd.DataFrame:
    """Table III: eq. (3) from the model beside the paper's cells."""
    ours = ds.latency_overhead.to_pandas()
    ours.insert(0, "n_atomic", ds.table3_n_atomic.to_pandas())
    ours["op_latency_us"] = ds.table3_op_latency.to_pandas()
    paper = pd.DataFrame(C.TABLE_III).T.add_prefix("paper_")
    out = pd.concat([ours, paper], axis=1)
    # the erase row's n = 7 cell is not printed in the paper: its value is eq. (3)'s
    out["paper_note"] = ["", "", "paper_max derived from eq. (3), not printed"]
    return out


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
            "duration (us)": ds.atomic_duration.values,
        }
    )


# ------------------------------------------------------------------ tables behind the figures
def throughput_table(
    ds: xr.Dataset, kind: str = "synthetic", reading: str = C.READINGS.default
) -> pd.DataFrame:
    """Throughput / NPM per scheme and trace (Fig. 13) or workload (Fig. 14), with the
    average; DCC under the reading's current model."""
    schemes = [str(x) for x in ds.scheme.values]
    t = pd.DataFrame({s: C.norm(ds, s, reading, kind).to_pandas() for s in schemes}).T
    if kind == "real":
        t.columns = [str(x) for x in ds.workload_label.values]
    return with_average(t)


def tg_table(ds: xr.Dataset) -> pd.DataFrame:
    """Fig. 12: KMTPM (sub-atomic) throughput per TG / MTPM at the first TG."""
    return (ds.tg_throughput / ds.tg_mtpm_reference).to_pandas()


def workloads_table(ds: xr.Dataset) -> pd.DataFrame:
    """The real workloads: the trace used, its kind, its read share and the paper's."""
    wl = [str(w) for w in ds.workload.values]
    return pd.DataFrame(
        {
            "paper's trace": [C.PAPER_TRACE.get(w, "") for w in wl],
            "ours": [str(x) for x in ds.workload_label.values],
            "read % (ours, NAND ops)": 100 * ds.workload_read_fraction.values,
            "read % (paper)": [C.READ_RATIO.get(w, np.nan) for w in wl],
        },
        index=pd.Index(wl, name="workload"),
    )


def alpha_table(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """Fig. 15: mean throughput / NPM per alpha (DCC under the reading), NPM's violations."""
    schemes = [str(x) for x in ds.scheme.values]
    t = pd.DataFrame(
        {s: C.norm(ds, s, reading, "alpha").mean("trace").to_pandas() for s in schemes}
    )
    t["NPM violations / ms"] = ds.alpha_violations_per_ms.sel(scheme="NPM").mean("trace")
    return t


def latency_table(ds: xr.Dataset, name: str, ref: str = "MTPM") -> pd.DataFrame:
    """Figs. 16-17: mean latency per scheme and trace / ``ref``'s, with the average."""
    t = (ds[name] / ds[name].sel(scheme=ref)).to_pandas().dropna(axis=1, how="all")
    return with_average(t)


def wait_table(ds: xr.Dataset) -> pd.DataFrame:
    """Fig. 18: cumulative wait for key / tokens before each atomic operation / MTPM's
    (summed over traces), token schemes only."""
    w = ds.wait_time.sum("trace")
    return (w / w.sel(scheme="MTPM")).sel(scheme=list(C.TOKEN)).to_pandas()


def start_delay_table(ds: xr.Dataset) -> pd.DataFrame:
    """What PPM (pre-charge lock) and DCC (scheduled start) delay each atomic operation by,
    in ms summed over the traces: not a key / token wait, so not in Fig. 18."""
    w = ds.wait_time.sum("trace").sel(scheme=[s for s in ("PPM", "DCC") if s in ds.scheme])
    return (w / 1e6).to_pandas()


def setup_table(ds: xr.Dataset, ids: list[str] | None = None) -> pd.DataFrame:
    """Our value and verdict of each claim under every reading / set-up, side by side (the
    claims whose verdict changes first, or the claims ``ids``)."""
    t = scorecard.readings("mtpm", ds)
    if ids is not None:
        t = t[t.claim.isin(ids)]
    return t.sort_values("changes", ascending=False, kind="stable").set_index("claim")


def dcc_latency_table(ds: xr.Dataset) -> pd.DataFrame:
    """DCC's throughput / NPM over its decision latency at the sweep's alphas (mean over the
    traces) and the alpha-8 overhead (the CALIBRATION's pick: ``dcc_calibrated_decision_ns``)."""
    norm = (ds.dcc_latency_throughput / ds.dcc_latency_npm).mean("trace")
    t = norm.to_pandas()
    t.columns = [f"DCC / NPM at alpha = {a:g}" for a in t.columns]
    t["overhead at alpha = 8 (%)"] = ds.dcc_latency_overhead_alpha8.to_pandas()
    t.index.name = "decision latency (ns)"
    return t


def fig_dcc_latency(ds: xr.Dataset) -> plt.Figure:
    """DCC / NPM per trace over the decision latency, at each alpha of the sweep; the
    calibrated latency marked as a calibration."""
    norm = ds.dcc_latency_throughput / ds.dcc_latency_npm
    alphas = list(norm.dcc_alpha.values)
    fig, axes = plt.subplots(1, len(alphas), figsize=(9, 3.4), sharey=True)
    for ax, a in zip(np.atleast_1d(axes), alphas, strict=True):
        for tr in norm.trace.values:
            ax.plot(norm.dcc_latency / 1000, norm.sel(dcc_alpha=a, trace=tr), marker="o",
                    label=str(tr))  # fmt: skip
        ax.axvline(float(ds.dcc_calibrated_decision_ns) / 1000, color="k", ls=":",
                   label="CALIBRATION (8.21 % at alpha 8)")  # fmt: skip
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("DCC decision latency (us)")
        ax.set_title(f"alpha = {a:g}", fontsize=9)
    np.atleast_1d(axes)[0].set_ylabel("DCC throughput / NPM")
    np.atleast_1d(axes)[-1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def dcc_model_table(ds: xr.Dataset) -> pd.DataFrame:
    """DCC's throughput / NPM under each current model, beside KMTPM (sub-atomic)."""
    npm = ds.throughput.sel(scheme="NPM")
    t = (ds.dcc_model_throughput / npm).to_pandas()
    t.index = [f"DCC ({m} peaks)" for m in t.index]
    t.loc["KMTPM (sub-atomic)"] = (ds.throughput.sel(scheme="KMTPM_SA") / npm).to_pandas()
    return with_average(t)


def multichannel_tables(ds: xr.Dataset) -> dict[str, pd.DataFrame]:
    """Beyond the paper (Sec. III-F2): op mix, FTL origin, and per stream throughput / NPM
    and peak / budget - 1 per arrangement."""
    out = {
        "operation mix per stream": ds.mc_op_mix.to_pandas(),
        "operations the FTL issued, by origin": ds.mc_ftl_ops.dropna("mc_stream", how="all")
        .to_pandas(),
    }  # fmt: skip
    norm = ds.mc_throughput / ds.mc_throughput.sel(mc_scheme="NPM")
    for st in norm.mc_stream.values:
        out[f"{st}: throughput / NPM"] = norm.sel(mc_stream=st).to_pandas()
        out[f"{st}: peak / budget - 1"] = ds.mc_peak_over_budget.sel(mc_stream=st).to_pandas()
    return out


def sensitivity_tables(ds: xr.Dataset) -> dict[str, pd.DataFrame]:
    """Beyond the paper: throughput / NPM per profile variant, and NPM's peak."""
    norm = ds.sensitivity_throughput / ds.sensitivity_throughput.sel(scheme="NPM")
    out = {
        f"{t}: throughput / NPM": norm.sel(sens_trace=t).to_pandas() for t in norm.sens_trace.values
    }
    out["NPM peak / budget - 1"] = ds.sensitivity_npm_peak.to_pandas()
    return out


# ------------------------------------------------------------------ evidence beside the misses
def token_budget_table(ds: xr.Dataset) -> pd.Series:
    """Why the atomic schemes lose more than the paper's: tokens a program execution holds,
    for how long, against the ring's total."""
    dur = ds.atomic_duration.to_pandas()
    rt = int(ds.atomic_tokens.sel(atomic="P_A1"))
    tt = int(ds.total_tokens)
    return pd.Series(
        {
            "total tokens TT": tt,
            "tokens of P_A1 (atomic model)": rt,
            "chips in program execution at once (TT // RT)": tt // rt,
            "P_A1 duration (us)": dur["P_A1"],
            "LSB loop (P_A1 + P_A2, us)": dur["P_A1"] + dur["P_A2"],
            "P_A1 share of the loop": dur["P_A1"] / (dur["P_A1"] + dur["P_A2"]),
            "read execution R_A2 tokens": int(ds.atomic_tokens.sel(atomic="R_A2")),
            "reads in execution at once": tt // int(ds.atomic_tokens.sel(atomic="R_A2")),
        }
    )


def read_scale_table(ds: xr.Dataset) -> pd.DataFrame:
    """The token schemes over the read current (``read_scale_*``): a read's peak and its
    execution's tokens, R100's spread over the token granularities (Fig. 12), KMTPM (atomic)'s
    read and program latency against MTPM's (%, mean over the traces) and each scheme's mean
    throughput / NPM."""
    thr = ds.read_scale_throughput
    lat = {k: ds[f"read_scale_{k}_latency"] for k in ("read", "program")}
    tg = ds.read_scale_tg_throughput.sel(trace="R100")
    t = pd.DataFrame(
        {
            "read peak (I_max)": ds.read_scale_peak.to_pandas(),
            "read execution tokens": ds.read_scale_tokens.sel(read_atomic="R_A2").to_pandas(),
            "R100 spread over TG": ((tg.max("tg") - tg.min("tg")) / tg.mean("tg")).to_pandas(),
            **{
                f"KMTPM (atomic) {k} latency vs MTPM (%)": (
                    100 * ((v.sel(rs_scheme="KMTPM_A") / v.sel(rs_scheme="MTPM")).mean("trace") - 1)
                ).to_pandas()
                for k, v in lat.items()
            },
        }
    )
    for s in thr.rs_scheme.values:
        if s != "NPM":
            x = (thr.sel(rs_scheme=s) / thr.sel(rs_scheme="NPM")).mean("trace")
            t[f"{SCHEME_LABELS[str(s)]} / NPM"] = x.to_pandas()
    t.index.name = "read current scale"
    return t


def arbitration_table(ds: xr.Dataset) -> pd.DataFrame:
    """Throughput / NPM per channel arbitration (``arbitration_throughput``): each token
    scheme's mean over the synthetic traces and on R100, and NPM's own throughput on R100."""
    thr = ds.arbitration_throughput
    npm = thr.sel(rs_scheme="NPM")
    t = pd.DataFrame(index=pd.Index([str(a) for a in thr.arbitration.values], name="arbitration"))
    t["NPM on R100 (k ops/s)"] = (npm.sel(trace="R100") / 1e3).to_pandas().values
    for s in thr.rs_scheme.values:
        if s == "NPM":
            continue
        x = thr.sel(rs_scheme=s) / npm
        t[f"{SCHEME_LABELS[str(s)]} / NPM, mean"] = x.mean("trace").to_pandas().values
        t[f"{SCHEME_LABELS[str(s)]} / NPM, R100"] = x.sel(trace="R100").to_pandas().values
    return t


def guard_table(ds: xr.Dataset) -> pd.DataFrame:
    """KMTPM (sub-atomic) throughput / NPM per sub-atomic guard band and trace, with the mean
    (``guard_throughput``; NPM's from the run), in %, beside the paper's Fig. 13 mean."""
    npm = ds.throughput.sel(scheme="NPM")
    t = (100 * (ds.guard_throughput / npm - 1)).to_pandas()
    t = with_average(t)
    t.index.name = "guard band (% of each sub-atomic end)"
    t["paper's mean (%)"] = C.FIG13_VS_NPM["KMTPM_SA"]
    return t


def overhead_table(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """At the largest alpha of the run: 1 - mean throughput / NPM per scheme (%), beside the
    paper's (its alpha = 8; eq. (3)'s protocol overhead is in :func:`table3`)."""
    a = float(ds.alpha.max())
    schemes = [str(x) for x in ds.scheme.values]
    ours = {
        s: 100 * (1 - float(C.norm(ds, s, reading, "alpha").sel(alpha=a).mean())) for s in schemes
    }
    return pd.DataFrame(
        {f"ours at alpha = {a:g} (%)": ours, "paper at alpha = 8 (%)": C.ALPHA8_OVERHEAD}
    )


def paper_checks() -> pd.DataFrame:
    """The paper against its own numbers (no simulation): what its figures imply."""
    sa, mtpm, ka = (1 + C.FIG13_VS_NPM[s] / 100 for s in ("KMTPM_SA", "MTPM", "KMTPM_A"))

    def lat(name: str) -> float:  # the paper's mean KMTPM (sub-atomic) change vs MTPM (%)
        return next(v for _, n, s, t, v in C.LATENCY if n == name and s == "KMTPM_SA" and not t)

    rows = [
        ("KMTPM (atomic) - MTPM, points of NPM (Sec. IV-C2 averages)", 100 * (ka - mtpm),
         f"the sentence says lower by {-C.KMTPM_A_VS_MTPM} %"),
        ("DCC / NPM implied if 22.85 % is a ratio", sa / (1 + C.SA_VS_DCC / 100),
         "below MTPM and KMTPM (atomic): consistent with 'less degradation than DCC'"),
        ("DCC / NPM implied if 22.85 % is in points", sa - C.SA_VS_DCC / 100,
         "also below both: the text does not tell the readings apart by this"),
        ("KMTPM (sub-atomic) gain from alpha 4 to 8, points",
         100 * (1 - C.ALPHA8_OVERHEAD["KMTPM_SA"] / 100 - sa),
         "what 'saturated beyond alpha = 4' allows by the paper's own numbers"),
        ("NPM / MTPM program latency implied by Fig. 16's two numbers",
         (1 + lat("program_latency") / 100) / (1 + C.LATENCY_SA_VS_NPM["program_latency"] / 100),
         "KMTPM (sub-atomic) vs MTPM over KMTPM (sub-atomic) vs NPM"),
        ("NPM / MTPM read latency implied by Fig. 17's two numbers",
         (1 + lat("read_latency") / 100) / (1 + C.LATENCY_SA_VS_NPM["read_latency"] / 100),
         "KMTPM (sub-atomic) vs MTPM over KMTPM (sub-atomic) vs NPM"),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["quantity", "value", "remark"]).set_index("quantity")


#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "fig10_profiles": Caption(
        "The current model the run uses (cf. the paper's Fig. 10): current over time of one "
        "LSB program loop, a read and an erase (normalised to I_max, black) with the tokens "
        "the atomic model (blue) and the sub-atomic model (red dashed) reserve for them. The "
        "model is calibrated to the paper's profiles, an input of every throughput figure; "
        "it bears on no scored claim itself.",
    ),
    "fig11_current": Caption(
        "The paper's Fig. 11: total current over time (normalised to the power budget, red "
        "line) of NPM, PPM and KMTPM (sub-atomic) on R50 over the first window of the run; "
        "each panel's title gives the peak in the window and over the whole run, which the "
        "claims score.",
        ("fig11",),
    ),
    "fig12_tg": Caption(
        "The paper's Fig. 12: KMTPM (sub-atomic) throughput against the token granularity TG, "
        "normalised to MTPM at the first TG, one line per synthetic trace (R0-R100: the "
        "share of reads).",
        ("fig12",),
    ),
    "fig13_throughput_synthetic": Caption(
        "The paper's Fig. 13: throughput of every scheme (NPM, PPM, DCC, MTPM, KMTPM atomic "
        "and sub-atomic) on the synthetic traces R0-R100 and their average, normalised to "
        "NPM (no power management).",
        ("fig13",),
    ),
    "fig14_throughput_real": Caption(
        "The paper's Fig. 14: throughput of every scheme on the real workloads (labels say "
        "which trace stands for each; a label ending in (synthetic) is a preset standing in for an "
        "unavailable trace) and their average, normalised to NPM.",
        ("fig14",),
    ),
    "fig15_alpha": Caption(
        "The paper's Fig. 15: against the power budget alpha, the average throughput of every "
        "scheme over the synthetic traces (operations per second) and NPM's budget violations "
        "per ms (symmetric-log axis, so that no violation shows as 0).",
        ("fig15",),
    ),
    "fig16_program_latency": Caption(
        "The paper's Fig. 16: mean program latency (from hand-over to the chip to "
        "completion) per scheme and synthetic trace, with the average, normalised to MTPM.",
        ("fig16",),
    ),
    "fig17_read_latency": Caption(
        "The paper's Fig. 17: mean read latency (from hand-over to the chip to completion) "
        "per scheme and synthetic trace, with the average, normalised to MTPM.",
        ("fig17",),
    ),
    "fig18_wait": Caption(
        "The paper's Fig. 18: cumulative wait for the key and tokens before each atomic "
        "operation, token schemes only (MTPM, KMTPM atomic and sub-atomic), per synthetic "
        "trace, normalised to MTPM.",
        ("fig18",),
    ),
    "dcc_decision_latency": Caption(
        "DCC's throughput over NPM's per synthetic trace against DCC's decision latency "
        "(which the paper does not give), one panel per alpha of the sweep; the dotted line "
        "is the latency calibrated to the paper's DCC overhead at alpha 8.",
        ("fig15.overhead_alpha8.DCC", "fig13.dcc_low_with_reads"),
    ),
    "beyond_multichannel": Caption(
        "Beyond the paper's experiments (its Sec. III-F2 discusses them): throughput over "
        "NPM's of NPM, MTPM and KMTPM (sub-atomic) on 4 channels x 8 ways under three "
        "arrangements (one ring, a ring per channel, tokens through the controller), one "
        "panel per operation stream.",
        ("sec3f2",),
    ),
    "beyond_sensitivity": Caption(
        "Beyond the paper: throughput over NPM's of every scheme under current-profile "
        "variants (valleys, pre-charge length, execution / verify split) that the paper does "
        "not pin down, one panel per trace. It bears on no scored claim.",
    ),
}
