"""Explore one MTPM configuration: one operation mix (a synthetic R0..R100 trace or a block
trace mapped to NAND operations), one power-management scheme, one power budget (alpha)
and token granularity (TG), against NPM (no power management) on the same operations. The
study's runs do the rest (every scheme x trace x alpha x TG, the set-ups and sweeps).

The operation streams and the current profiles are kept in memory: a knob's change costs
two simulations of 5,000 operations (well under a second once the kernel is compiled) and
the drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from skftl.explore import Knob, Memo, new_figure, styled
from skftl.power.device import OP_PROGRAM, OP_READ, Device
from skftl.power.profiles import ATOMIC_LABELS, LEVEL_UNIT, SAMPLE_NS, load_profiles
from skftl.power.sim import SimResult, simulate
from skftl.power.tokens import TokenModel
from skftl.power.variants import device_profiles
from skftl.power.workload import OpStream
from skftl.studies.mtpm import simulate as study
from skftl.studies.mtpm.simulate import SCHEME_LABELS, SCHEMES

__all__ = ["KEYS", "Result", "compute", "defaults", "figure", "knobs"]

# knob -> the config key it sets (the panel checks a starting value against the schema)
KEYS = {"alpha": "mtpm.alpha", "tg": "mtpm.tg"}

ALPHAS = (1, 2, 3, 4, 5, 6, 7, 8)
TGS = (1, 2, 3, 4, 5, 6, 7, 8)
_OPS = Memo(maxsize=16)
_PROFILES = Memo(maxsize=2)


def _mixes(cfg: dict[str, Any]) -> tuple[str, ...]:
    sec = cfg["mtpm"]
    return (*sec["synthetic"]["traces"], *sec["real"]["workloads"])


def knobs(cfg: dict[str, Any]) -> list[Knob]:
    """The panel's controls: scheme, operation mix, power budget, token granularity."""
    return [
        Knob("scheme", "scheme", tuple(SCHEMES),
             help="NPM: none; PPM, DCC: the earlier schemes; MTPM and KMTPM: the paper's"),
        Knob("mix", "operations", _mixes(cfg),
             help="R<x>: synthetic, x % reads (Sec. IV-A); the others: block traces mapped to "
             "NAND operations by address (Fig. 14)"),
        Knob("alpha", "alpha (PB / I_max)", ALPHAS, slider=True,
             help="power budget in units of one chip's peak current (the paper: 4)"),
        Knob("tg", "tokens: TG", TGS, slider=True,
             help="token granularity: bits that represent I_max (the paper's optimum: 4)"),
    ]  # fmt: skip


def defaults(cfg: dict[str, Any]) -> dict[str, Any]:
    """The config's alpha and TG, KMTPM (sub-atomic) on Fig. 11's trace."""
    sec = cfg["mtpm"]
    alpha = float(sec["alpha"])
    return {
        "scheme": "KMTPM_SA",
        "mix": str(sec["fig11"]["trace"]),
        "alpha": int(alpha) if alpha.is_integer() else alpha,
        "tg": int(sec["tg"]),
    }


@dataclass(frozen=True)
class Result:
    """One configuration and NPM on the same operations."""

    values: dict[str, Any]
    label: str
    n_ops: int
    read_share: float
    total_tokens: int
    run: SimResult
    npm: SimResult
    kinds: np.ndarray  # operation kind (OP_READ, OP_PROGRAM, ...) per operation
    bin_us: float  # width of one bin of the current series
    window_us: float

    @property
    def throughput_vs_npm(self) -> float:
        return self.run.throughput_ops_per_s / self.npm.throughput_ops_per_s


def _device(sec: dict[str, Any]) -> Device:
    return Device.from_config(sec["device"])


def operations(cfg: dict[str, Any], mix: str) -> OpStream:
    """The operation stream of ``mix`` (kept in memory across knob changes)."""
    sec = cfg["mtpm"]
    n_chips = _device(sec).n_chips
    key = (mix, n_chips, cfg.get("seed"), sec["synthetic"], sec["real"], cfg.get("traces"))

    def load() -> OpStream:
        if mix in sec["synthetic"]["traces"]:
            one = {**sec, "synthetic": {**sec["synthetic"], "traces": {
                mix: sec["synthetic"]["traces"][mix]}}}  # fmt: skip
            return study._synthetic(one, int(cfg.get("seed", 0)), n_chips)[mix]
        if mix not in sec["real"]["workloads"]:
            raise ValueError(f"mtpm explore: unknown operation mix {mix!r}")
        one = {**sec, "real": {**sec["real"], "workloads": {mix: sec["real"]["workloads"][mix]}}}
        streams, _ = study._real(cfg, one, n_chips)
        if mix not in streams:
            raise ValueError(f"mtpm explore: workload {mix} has no trace or preset")
        return streams[mix]

    return _OPS.get(key, load)


def compute(cfg: dict[str, Any], scheme: str, mix: str, alpha: float, tg: int) -> Result:
    """Simulate ``scheme`` and NPM on ``mix`` at power budget ``alpha`` x I_max and token
    granularity ``tg``, recording the current as Fig. 11 does."""
    sec = cfg["mtpm"]
    dev = _device(sec)
    path = study._profile_path(sec.get("profiles"))
    prof = _PROFILES.get(
        (str(path), sec["device"]),
        lambda: device_profiles(load_profiles(path), dev),
    )
    ops = operations(cfg, mix)
    tok = TokenModel(float(alpha), int(tg))
    f11 = sec["fig11"]
    bin_samples = int(f11["bin_samples"])
    kw = {
        "record_bin_samples": bin_samples,
        "dcc_model": str(sec["dcc_model"]),
        "dcc_decision_ns": int(sec["dcc_decision_ns"]),
    }
    run = simulate(ops, scheme, prof, dev, tok, **kw)
    npm = run if scheme == "NPM" else simulate(ops, "NPM", prof, dev, tok, **kw)
    for r in (run, npm):
        if not r.completed:
            raise ValueError(f"mtpm explore: {r.scheme} did not complete {mix} (deadlock?)")
    return Result(
        values={"scheme": scheme, "mix": mix, "alpha": alpha, "tg": int(tg)},
        label=str(ops.label or mix),
        n_ops=len(ops),
        read_share=float(np.mean(ops.kind == OP_READ)),
        total_tokens=tok.total_tokens,
        run=run,
        npm=npm,
        kinds=ops.kind,
        bin_us=bin_samples * SAMPLE_NS / 1000.0,
        window_us=float(f11["window_us"]),
    )


def _current(r: SimResult, alpha: float, n_bins: int) -> np.ndarray:
    """The recorded current over the first ``n_bins`` bins, normalised to the budget."""
    return r.series[:n_bins] / (float(alpha) * LEVEL_UNIT)


@styled
def figure(result: Result) -> Figure:
    """Left: the current over the first ``fig11.window_us`` of the run (the maximum per bin,
    normalised to the power budget; above 1 is a violation), the scheme over NPM. Right:
    throughput and mean program and read latency, the scheme beside NPM."""
    v, r, n = result.values, result.run, result.npm
    name = SCHEME_LABELS.get(v["scheme"], v["scheme"])
    fig = new_figure(10.0, 4.0)
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1.0]})
    n_bins = int(np.ceil(result.window_us / result.bin_us))
    t = np.arange(n_bins) * result.bin_us
    if v["scheme"] != "NPM":
        cur = _current(n, v["alpha"], n_bins)
        ax.plot(t[: len(cur)], cur, lw=0.5, color="0.6", label="NPM")
    cur = _current(r, v["alpha"], n_bins)
    ax.plot(t[: len(cur)], cur, lw=0.6, color="C0", label=name)
    ax.axhline(1.0, color="C3", ls="--", lw=1, label="power budget")
    ax.set_xlabel("time (us)")
    ax.set_ylabel("current / power budget")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=7)
    rows = {
        "throughput\n(kops/s)": (n.throughput_ops_per_s / 1e3, r.throughput_ops_per_s / 1e3),
        "program\nlatency (us)": tuple(
            x.mean_latency_ns(result.kinds, OP_PROGRAM) / 1e3 for x in (n, r)
        ),
        "read\nlatency (us)": tuple(x.mean_latency_ns(result.kinds, OP_READ) / 1e3 for x in (n, r)),
    }
    x = np.arange(len(rows))
    vals = np.array(list(rows.values()))
    bx.bar(x - 0.2, vals[:, 0], width=0.4, color="0.6", label="NPM")
    bx.bar(x + 0.2, vals[:, 1], width=0.4, color="C0", label=name)
    for i, (a, b) in enumerate(vals):
        if np.isfinite(a) and np.isfinite(b) and a > 0:
            bx.annotate(f"{100 * (b / a - 1):+.0f} %", (i + 0.2, b), ha="center", va="bottom",
                        fontsize=7)  # fmt: skip
    bx.set_xticks(x, list(rows), fontsize=7)
    bx.set_yscale("log")
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=7)
    waits = r.wait_ns / max(r.wait_ns.sum(), 1)
    most = ATOMIC_LABELS[int(np.argmax(waits))] if r.wait_ns.sum() else "-"
    fig.suptitle(
        f"{name} on {result.label} ({result.n_ops:,} operations, {100 * result.read_share:.0f} % "
        f"reads) | alpha = {v['alpha']} (PB = {v['alpha']} I_max), TG = {v['tg']} "
        f"({result.total_tokens} tokens)\nthroughput {100 * result.throughput_vs_npm:.1f} % of "
        f"NPM's; peak {1 + r.peak_over_budget:.2f} x budget (NPM {1 + n.peak_over_budget:.2f}), "
        f"{r.violations_per_ms:.1f} violations per ms; most waiting before: {most}",
        fontsize=8,
    )
    return fig
