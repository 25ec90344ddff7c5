"""Study `mtpm`: multi-token power management of NAND flash (You et al.) -- NPM, PPM, DCC,
MTPM, KMTPM (atomic), KMTPM (sub-atomic) on a token ring of 8 chips.

Reproduces Figs. 11-18 and Table III of the paper, plus studies beyond it: the three
multi-channel arrangements of Section IV-F2, the sensitivity to the (unpublished)
current-profile shape and the token schemes over the read current. The current profiles are a
calibrated model (see ``skftl/data/power/profiles_default.csv``), not the paper's
measurements.
"""

from __future__ import annotations

import multiprocessing
import os
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import REPO_ROOT, validate_sections
from skftl.errors import ConfigError, UnknownTraceError
from skftl.nand import Ftl, Geometry, resolve_nand
from skftl.nand.ftl import flash_log_reserve
from skftl.power.device import CHANNEL_ARBITRATIONS, OP_PROGRAM, OP_READ, TYPE_NAMES, Device
from skftl.power.profiles import (
    ATOMIC_LABELS,
    ATOMICS,
    LEVEL_UNIT,
    SAMPLE_NS,
    Profiles,
    load_profiles,
)
from skftl.power.sim import DCC_MODELS, OpStream, SimResult, Tables, build_tables, simulate
from skftl.power.state import A_CHAN
from skftl.power.tokens import TokenModel, latency_overhead_cycles
from skftl.power.variants import device_profiles, profile_variant
from skftl.power.workload import FtlStreamInfo, from_nand_ops, ops_from_ftl, ops_from_requests
from skftl.run_traces import workload_for
from skftl.traces.nand_ops import mtpm_ops
from skftl.traces.workload import check_candidates, configured_candidates

# what `from skftl.studies.mtpm.simulate import *` exports: without it the package would also
# get skftl.power.sim's `simulate`, which shadows this very module's name
__all__ = ["ARRANGEMENTS", "SCHEMES", "SCHEME_LABELS", "run"]

SCHEMES = ["NPM", "PPM", "DCC", "MTPM", "KMTPM_A", "KMTPM_SA"]
SCHEME_LABELS = {
    "NPM": "NPM",
    "PPM": "PPM",
    "DCC": "DCC",
    "MTPM": "MTPM",
    "KMTPM_A": "KMTPM (atomic)",
    "KMTPM_SA": "KMTPM (sub-atomic)",
    "CTRL": "tokens via controller",
}
ARRANGEMENTS = ["single_ring", "ring_per_channel", "via_controller"]


@dataclass
class _Runner:
    """Runs simulations with shared tables (one per profile set, alpha, TG) and a progress bar."""

    profiles: Profiles
    device: Device
    bar: Any
    dcc_model: str = "subatomic"
    dcc_decision_ns: int = 0
    _tables: dict = field(default_factory=dict)

    def sim(
        self,
        ops: OpStream,
        scheme: str,
        alpha: float,
        tg: int,
        *,
        profiles=None,
        device=None,
        key="default",
        dcc_model=None,
        **kw,
    ) -> SimResult:
        dev = device or self.device
        prof = device_profiles(profiles or self.profiles, dev)
        dcc = dcc_model or self.dcc_model
        tok = TokenModel(alpha, tg)
        tk = (key, dev, alpha, tg, dcc)
        if tk not in self._tables:
            self._tables[tk] = build_tables(prof, dev, tok, dcc)
        tables: Tables = self._tables[tk]
        kw.setdefault("dcc_decision_ns", self.dcc_decision_ns)
        res = simulate(ops, scheme, prof, dev, tok, tables=tables, **kw)
        if not res.completed:
            raise RuntimeError(f"{scheme} did not complete {ops.label} (deadlock?)")
        self.bar.update(1)
        return res


def _profile_path(p: str | None) -> Path | None:
    """Config profile path: empty = shipped model; relative = from the repository root."""
    if not p:
        return None
    path = Path(p)
    return path if path.is_absolute() else REPO_ROOT / path


def _shown_path(source: str) -> str:
    """A path as a dataset records it: relative to the repository root when inside it (the
    same dataset from any checkout), else as given."""
    path = Path(source)
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else source


def _synthetic(sec: dict, seed: int, n_chips: int) -> dict[str, OpStream]:
    s = sec["synthetic"]
    out = {}
    for name, pct in s["traces"].items():
        ops = mtpm_ops(
            int(pct),
            n_ops=int(s["n_ops"]),
            erase_every=int(s["erase_every"]),
            n_chips=n_chips,
            seed=seed,
            burst_size=s.get("burst_size"),
            burst_gap_ns=int(s["burst_gap_ns"]),
        )
        out[name] = from_nand_ops(ops)
        out[name].label = name
    return out


def _real(cfg: dict, sec: dict, n_chips: int) -> tuple[dict[str, OpStream], dict[str, Any]]:
    r = sec["real"]
    out: dict[str, OpStream] = {}
    meta: dict[str, Any] = {}
    for name, cands in r["workloads"].items():
        if cands is None:
            cands = configured_candidates(name, cfg)
        check_candidates(list(cands), f"mtpm.real.workloads.{name}")
        try:
            req = workload_for(name, cfg, candidates=list(cands), n_requests=int(r["n_requests"]))
        except UnknownTraceError as exc:
            warnings.warn(f"mtpm: workload {name} skipped: {exc}", stacklevel=2)
            continue
        ops = ops_from_requests(
            req,
            n_chips=n_chips,
            page_size=int(r["page_size"]),
            n_ops=int(r["n_ops"]),
            erase_every=int(r["erase_every"]),
            time_scale=float(r["time_scale"]),
            label=req.meta.label,
        )
        out[name] = ops
        meta[name] = {
            "label": req.meta.label,
            "sha256": req.meta.sha256,
            "synthetic": bool(req.meta.synthetic),
        }
    return out, meta


def _da(values, dims, coords, units, long_name) -> xr.DataArray:
    return xr.DataArray(
        np.asarray(values, dtype=float),
        dims=dims,
        coords=coords,
        attrs={"units": units, "long_name": long_name},
    )


SETUPS = {
    "default": "the config as given",
    "read_on_chip": "set-up variant: read data-out inside the chip (the earlier model: a 9 us "
    "phase that never uses the channel)",
    "verify2": "reading: 2 verifies per MSB loop (execution / verify re-split so Table IV's "
    "tPROG LSB and MSB still hold)",
    "dcc_calibrated": "CALIBRATION: DCC's decision latency set so that DCC's overhead at "
    "alpha = 8 is the paper's 8.21 %",
}


def _setup_device(sec: dict, setup: str) -> dict:
    """The ``device`` section of a set-up."""
    dev = dict(sec["device"])
    if setup == "read_on_chip":
        dev["read_model"] = "chip"
    elif setup == "verify2":
        dev["msb_verifies"] = int(sec["msb_verifies_alt"])
    return dev


def _workers(sec: dict) -> int:
    w = int(sec.get("workers", 0))
    if w < 0:
        raise ConfigError(f"mtpm.workers must be >= 0 (0 = all cores), got {w}")
    return w or (os.cpu_count() or 1)


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    """Every figure's data for the config's ``mtpm`` section (see config/config.yaml): the
    paper's figures under every set-up of ``SETUPS`` (dimension ``setup``), DCC's decision
    latency sweep, and the two studies beyond the paper. The parts are independent and run
    in ``mtpm.workers`` processes; the result is the same for any number of workers."""
    validate_sections(cfg, "the config given to mtpm.run")  # a notebook may have changed it
    if "mtpm" not in cfg:
        raise ConfigError("config has no 'mtpm' section")
    sec = cfg["mtpm"]
    seed = int(cfg.get("seed", 0))
    prof = load_profiles(_profile_path(sec.get("profiles")))
    dev = Device.from_config(sec["device"])
    syn = _synthetic(sec, seed, dev.n_chips)
    real, real_meta = _real(cfg, sec, dev.n_chips)
    inp = _Inputs(cfg, prof, syn, real, real_meta)
    # the longest part first: the calibrated set-up runs the latency sweep before its figures
    parts = (
        [("calibrated", "dcc_calibrated")]
        + [("figures", s) for s in SETUPS if s != "dcc_calibrated"]
        + [("multichannel", ""), ("sensitivity", ""), ("read_current", "")]
    )
    workers = min(_workers(sec), len(parts))
    bar = tqdm(total=len(parts), desc="mtpm", disable=not progress)
    out: dict[tuple[str, str], xr.Dataset] = {}
    if workers == 1:
        for part in parts:
            out[part] = _part(inp, *part)
            bar.update(1)
    else:
        _warm_up(prof, dev)
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            futs = {pool.submit(_part, inp, *part): part for part in parts}
            for f in as_completed(futs):
                out[futs[f]] = f.result()
                bar.update(1)
    bar.close()
    per_setup = [out[("calibrated", "dcc_calibrated")] if s == "dcc_calibrated"
                 else out[("figures", s)] for s in SETUPS]  # fmt: skip
    base = out[("figures", "default")]
    fig_vars = [v for v in base.data_vars if v not in _SHARED]
    ds = xr.concat(
        [d[fig_vars].expand_dims(setup=[s]) for s, d in zip(SETUPS, per_setup, strict=True)],
        dim="setup",
    )
    ds["setup_description"] = xr.DataArray(list(SETUPS.values()), dims=("setup",))
    cal = out[("calibrated", "dcc_calibrated")]
    ds = ds.merge(cal[[v for v in cal.data_vars if v not in fig_vars]])
    ds = ds.merge(out[("multichannel", "")]).merge(out[("sensitivity", "")])
    ds = ds.merge(out[("read_current", "")])
    for v in _SHARED:
        ds[v] = base[v]
    mch = out[("multichannel", "")]
    ds.attrs.update(
        # without `workers`: the dataset is the same for any number of them
        config=yaml.safe_dump(
            {"mtpm": {k: v for k, v in sec.items() if k != "workers"}, "seed": seed},
            sort_keys=False,
        ),
        skftl_version=skftl.__version__,
        profiles=_shown_path(prof.source),
        op_types=",".join(TYPE_NAMES),
        trace_labels=yaml.safe_dump(real_meta, sort_keys=False),
        trace_sha256=",".join(f"{w}:{m['sha256']}" for w, m in real_meta.items()),
        multichannel_source=mch.attrs.get("source", ""),
        multichannel_trace=mch.attrs.get("multichannel_trace", ""),
        dcc_calibrated_decision_ns=float(cal["dcc_calibrated_decision_ns"]),
    )
    return ds


# variables every set-up shares (the inputs' properties)
_SHARED = ("workload_label", "workload_read_fraction", "token_transfer_cycles")


@dataclass(frozen=True)
class _Inputs:
    """What every part of the study reads (handed to the worker processes)."""

    cfg: dict
    prof: Profiles
    syn: dict
    real: dict
    real_meta: dict


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def _part(inp: _Inputs, kind: str, setup: str) -> xr.Dataset:
    """One independent part of the study (see ``run``)."""
    sec = inp.cfg["mtpm"]
    seed = int(inp.cfg.get("seed", 0))
    rn = _Runner(
        inp.prof,
        Device.from_config(_setup_device(sec, setup or "default")),
        _NoBar(),
        dcc_model=str(sec["dcc_model"]),
        dcc_decision_ns=int(sec["dcc_decision_ns"]),
    )
    if kind == "multichannel":
        return _multichannel(inp.cfg, sec, rn, seed)
    if kind == "sensitivity":
        return _sensitivity(sec, rn, inp.syn)
    if kind == "read_current":
        return _read_current(sec, rn, inp.syn)
    if kind == "figures":
        return _figures(sec, rn, inp)
    sweep = _dcc_sweep(sec, rn, inp.syn)
    rn.dcc_decision_ns = int(sweep["dcc_calibrated_decision_ns"])
    return _figures(sec, rn, inp).merge(sweep)


def _dcc_sweep(sec: dict, rn: _Runner, syn: dict[str, OpStream]) -> xr.Dataset:
    """DCC over its decision latency (``dcc_decision_sweep_ns``) at the study's alpha and at
    alpha = 8 (no binding budget: the overhead), and the latency that CALIBRATES DCC's
    alpha-8 overhead to ``dcc_calibration_target`` % (linear interpolation on the sweep)."""
    lats = [int(x) for x in sec["dcc_decision_sweep_ns"]]
    if sorted(lats) != lats or len(lats) < 2 or lats[0] < 0:
        raise ConfigError(
            f"mtpm.dcc_decision_sweep_ns must be >= 2 increasing values >= 0, got {lats}"
        )
    alphas = sorted({float(sec["alpha"]), 8.0})
    tg = int(sec["tg"])
    tr = list(syn)
    thr = np.zeros((len(lats), len(alphas), len(tr)))
    npm = np.zeros((len(alphas), len(tr)))
    for k, a in enumerate(alphas):
        for j, name in enumerate(tr):
            npm[k, j] = rn.sim(syn[name], "NPM", a, tg).throughput_ops_per_s
            for i, lat in enumerate(lats):
                r = rn.sim(syn[name], "DCC", a, tg, dcc_decision_ns=lat)
                thr[i, k, j] = r.throughput_ops_per_s
    ovh = 100.0 * (1.0 - (thr[:, alphas.index(8.0)] / npm[alphas.index(8.0)]).mean(axis=1))
    target = float(sec["dcc_calibration_target"])
    cal = _calibrate(lats, ovh, target)
    c = {"dcc_latency": lats, "dcc_alpha": alphas, "trace": tr}
    return xr.Dataset(
        {
            "dcc_latency_throughput": _da(
                thr, ("dcc_latency", "dcc_alpha", "trace"), c, "ops/s",
                "DCC throughput vs its decision latency (ns per decision)",
            ),
            "dcc_latency_npm": _da(
                npm, ("dcc_alpha", "trace"), {"dcc_alpha": alphas, "trace": tr}, "ops/s",
                "NPM throughput at the sweep's alphas",
            ),
            "dcc_latency_overhead_alpha8": _da(
                ovh, ("dcc_latency",), {"dcc_latency": lats}, "%",
                "DCC throughput overhead vs NPM at alpha = 8, mean over traces",
            ),
            "dcc_calibrated_decision_ns": _da(
                round(cal), (), {}, "ns",
                f"CALIBRATION: DCC decision latency giving {target} % overhead at alpha = 8",
            ),
        }
    )  # fmt: skip


def _calibrate(lats: list[int], ovh: np.ndarray, target: float) -> float:
    """The latency at which the overhead first reaches ``target``: linear interpolation in
    the first sweep interval that brackets it; the sweep point closest to it if none does
    (the dataset keeps the sweep, so the miss shows)."""
    for i in range(len(lats) - 1):
        lo, hi = ovh[i], ovh[i + 1]
        if lo <= target <= hi and hi > lo:
            return lats[i] + (target - lo) / (hi - lo) * (lats[i + 1] - lats[i])
    return float(lats[int(np.argmin(np.abs(ovh - target)))])


def _warm_up(prof: Profiles, dev: Device) -> None:
    """Compile (or load) the kernels once before the worker processes fork, so that they
    inherit them instead of each compiling its own."""
    ops = OpStream(np.array([0, 1]), np.array([0, 1]), np.array([0, 0]), np.array([0, 0]))
    simulate(ops, "KMTPM_SA", device_profiles(prof, dev), dev, TokenModel(4, 4))


def _figures(sec: dict, rn: _Runner, inp: _Inputs) -> xr.Dataset:
    """Figs. 11-18 and Table III under the runner's device and DCC decision latency."""
    syn, real, real_meta = inp.syn, inp.real, inp.real_meta
    dev = rn.device
    prof = device_profiles(rn.profiles, dev)
    alpha, tg = float(sec["alpha"]), int(sec["tg"])
    schemes = list(sec["schemes"])
    tgs = [int(x) for x in sec["tg_sweep"]]
    alphas = [float(x) for x in sec["alpha_sweep"]]
    tr = list(syn)
    ds = xr.Dataset()

    # Figs. 13, 16, 17, 18 and Fig. 11's peaks: every scheme on every synthetic trace
    shape = (len(schemes), len(tr))
    thr, peak, vpm = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    plat, rlat = np.zeros(shape), np.zeros(shape)
    wait = np.zeros((len(schemes), len(tr), len(ATOMICS)))
    for j, name in enumerate(tr):
        ops = syn[name]
        for i, sch in enumerate(schemes):
            r = rn.sim(ops, sch, alpha, tg)
            thr[i, j], peak[i, j], vpm[i, j] = (
                r.throughput_ops_per_s,
                r.peak_over_budget,
                r.violations_per_ms,
            )
            plat[i, j] = r.mean_latency_ns(ops.kind, OP_PROGRAM)
            rlat[i, j] = r.mean_latency_ns(ops.kind, OP_READ)
            wait[i, j] = r.wait_ns
    c2 = {"scheme": schemes, "trace": tr}
    ds["throughput"] = _da(
        thr,
        ("scheme", "trace"),
        c2,
        "ops/s",
        "NAND operations completed per second (synthetic traces)",
    )
    ds["peak_over_budget"] = _da(
        peak, ("scheme", "trace"), c2, "1", "peak 40 ns current / power budget - 1"
    )
    ds["violations_per_ms"] = _da(
        vpm, ("scheme", "trace"), c2, "1/ms", "40 ns samples above the budget per ms"
    )
    ds["program_latency"] = _da(
        plat, ("scheme", "trace"), c2, "ns", "mean program latency (issued to chip -> done)"
    )
    ds["read_latency"] = _da(
        rlat, ("scheme", "trace"), c2, "ns", "mean read latency (issued to chip -> done)"
    )
    ds["wait_time"] = _da(
        wait,
        ("scheme", "trace", "atomic"),
        {**c2, "atomic": list(ATOMIC_LABELS)},
        "ns",
        "cumulative wait for key / tokens / start before atomic operations",
    )

    # DCC's current-model resolution is a reading of the paper (Sec. II / IV-A say only
    # "current models ... based on a series of linear functions"): DCC under both models on
    # every input a DCC claim rests on (synthetic traces, alpha sweep, real traces)
    models = list(DCC_MODELS)
    dm = np.zeros((len(models), len(tr)))
    dp = np.zeros_like(dm)
    dma = np.zeros((len(models), len(alphas), len(tr)))
    for k, model in enumerate(models):
        for j, name in enumerate(tr):
            r = rn.sim(syn[name], "DCC", alpha, tg, dcc_model=model)
            dm[k, j], dp[k, j] = r.throughput_ops_per_s, r.peak_over_budget
            for m, a in enumerate(alphas):
                r = rn.sim(syn[name], "DCC", a, tg, dcc_model=model)
                dma[k, m, j] = r.throughput_ops_per_s
    cm = {"dcc_model": models, "trace": tr}
    ds["dcc_model_throughput"] = _da(
        dm, ("dcc_model", "trace"), cm, "ops/s",
        "DCC throughput per current-model resolution (atomic / sub-atomic peaks)",
    )  # fmt: skip
    ds["dcc_model_peak_over_budget"] = _da(
        dp, ("dcc_model", "trace"), cm, "1", "DCC peak 40 ns current / budget - 1 per model"
    )
    ds["dcc_model_alpha_throughput"] = _da(
        dma, ("dcc_model", "alpha", "trace"), {**cm, "alpha": alphas}, "ops/s",
        "DCC throughput vs power budget alpha per current-model resolution",
    )  # fmt: skip

    # Fig. 12: KMTPM (sub-atomic) vs token granularity, normalised to MTPM at the first TG
    tgt = np.zeros((len(tgs), len(tr)))
    mtpm_ref = np.zeros(len(tr))
    for j, name in enumerate(tr):
        mtpm_ref[j] = rn.sim(syn[name], "MTPM", alpha, tgs[0]).throughput_ops_per_s
        for k, g in enumerate(tgs):
            tgt[k, j] = rn.sim(syn[name], "KMTPM_SA", alpha, g).throughput_ops_per_s
    ds["tg_throughput"] = _da(
        tgt,
        ("tg", "trace"),
        {"tg": tgs, "trace": tr},
        "ops/s",
        "KMTPM (sub-atomic) throughput per token granularity",
    )
    ds["tg_mtpm_reference"] = _da(
        mtpm_ref, ("trace",), {"trace": tr}, "ops/s", f"MTPM throughput at TG = {tgs[0]}"
    )

    # Fig. 15: throughput and violations vs alpha
    at = np.zeros((len(schemes), len(alphas), len(tr)))
    av = np.zeros_like(at)
    for i, sch in enumerate(schemes):
        for k, a in enumerate(alphas):
            for j, name in enumerate(tr):
                r = rn.sim(syn[name], sch, a, tg)
                at[i, k, j], av[i, k, j] = r.throughput_ops_per_s, r.violations_per_ms
    c3 = {"scheme": schemes, "alpha": alphas, "trace": tr}
    ds["alpha_throughput"] = _da(
        at, ("scheme", "alpha", "trace"), c3, "ops/s", "throughput vs power budget alpha"
    )
    ds["alpha_violations_per_ms"] = _da(
        av, ("scheme", "alpha", "trace"), c3, "1/ms", "budget violations per ms vs alpha"
    )

    # Fig. 14: real (or preset) workloads mapped onto the chips by address
    wl = list(real)
    rt = np.zeros((len(schemes), len(wl)))
    for j, name in enumerate(wl):
        for i, sch in enumerate(schemes):
            rt[i, j] = rn.sim(real[name], sch, alpha, tg).throughput_ops_per_s
    cw = {"scheme": schemes, "workload": wl}
    ds["real_throughput"] = _da(
        rt,
        ("scheme", "workload"),
        cw,
        "ops/s",
        "throughput on block traces mapped to NAND operations",
    )
    drt = np.zeros((len(models), len(wl)))
    for j, name in enumerate(wl):
        for k, model in enumerate(models):
            r = rn.sim(real[name], "DCC", alpha, tg, dcc_model=model)
            drt[k, j] = r.throughput_ops_per_s
    ds["dcc_model_real_throughput"] = _da(
        drt, ("dcc_model", "workload"), {"dcc_model": models, "workload": wl}, "ops/s",
        "DCC throughput on the block traces per current-model resolution",
    )  # fmt: skip
    ds["workload_label"] = xr.DataArray(
        [real_meta[w]["label"] for w in wl],
        dims=("workload",),
        attrs={"units": "1", "long_name": "trace label"},
    )
    ds["workload_read_fraction"] = _da(
        [float(np.mean(real[w].kind == OP_READ)) for w in wl],
        ("workload",),
        {"workload": wl},
        "1",
        "fraction of NAND operations that are reads",
    )

    # Fig. 11: current over time on one trace
    f11 = sec["fig11"]
    bin_s = int(f11["bin_samples"])
    series = {}
    for sch in f11["schemes"]:
        r = rn.sim(syn[f11["trace"]], sch, alpha, tg, record_bin_samples=bin_s)
        series[sch] = r.series / (alpha * LEVEL_UNIT)
    # the plotted window only (the whole run's peak is peak_over_budget)
    n_bins = int(np.ceil(float(f11["window_us"]) * 1000.0 / (bin_s * SAMPLE_NS)))
    mat = np.zeros((len(series), n_bins))
    for i, s in enumerate(series.values()):
        mat[i, : min(len(s), n_bins)] = s[:n_bins]
    ds["current_trace"] = _da(
        mat,
        ("fig11_scheme", "time"),
        {"fig11_scheme": list(series), "time": np.arange(n_bins) * bin_s * SAMPLE_NS / 1000.0},
        "1",
        f"max current per {bin_s * SAMPLE_NS} ns over the first {f11['window_us']} us, "
        f"normalised to the budget ({f11['trace']})",
    )
    ds["time"].attrs.update(units="us", long_name="time")

    # Table III: eq. (3), from the model's own operation structure and durations
    tok = TokenModel(alpha, tg)
    tmpl = dev.templates()
    tab_ops = {"program_lsb": 1, "read": 0, "erase": 3}
    on_channel = build_tables(prof, dev, tok).arrays[A_CHAN]
    ovh = np.zeros((3, 3))
    n_atomic, op_us = np.zeros(3), np.zeros(3)
    for i, ty in enumerate(tab_ops.values()):
        n_at = len(tmpl[ty])
        lo = latency_overhead_cycles(n_at, tok.transfer_cycles(), 0, dev.t_comp_cycles)
        hi = latency_overhead_cycles(
            n_at, tok.transfer_cycles(), dev.n_chips - 1, dev.t_comp_cycles
        )
        # on the chip only: Table IV's tR ends with the page in the page buffer, so a data-out
        # on the channel is not part of it
        op_ns = sum(prof.duration_ns(a) for a in tmpl[ty] if not on_channel[a])
        ovh[i] = (lo, hi, 100.0 * hi * dev.cycle_ns / op_ns)
        n_atomic[i], op_us[i] = n_at, op_ns / 1000.0
    c_op = {"operation": list(tab_ops)}
    ds["latency_overhead"] = _da(
        ovh,
        ("operation", "overhead_case"),
        {**c_op, "overhead_case": ["min_cycles", "max_cycles", "max_percent"]},
        "cycles | %",
        "eq. (3) latency overhead (Table III)",
    )
    ds["table3_n_atomic"] = _da(
        n_atomic, ("operation",), c_op, "1", "atomic operations per operation (Table III)"
    )
    ds["table3_op_latency"] = _da(
        op_us, ("operation",), c_op, "us", "operation latency of the current model (Table III)"
    )
    ds["token_transfer_cycles"] = _da(
        tok.transfer_cycles(), (), {}, "cycles", "key + token bits sent per hop (T_trans)"
    )

    # sub-atomic model of the profiles in use (documented in the notebook)
    tabs = build_tables(prof, dev, tok)
    ds["atomic_tokens"] = _da(
        tabs.atomic_rt,
        ("atomic",),
        {"atomic": list(ATOMIC_LABELS)},
        "tokens",
        f"tokens per atomic operation (TG={tg})",
    )
    ds["subatomic_count"] = _da(
        tabs.n_subatomic,
        ("atomic",),
        {"atomic": list(ATOMIC_LABELS)},
        "1",
        "sub-atomic operations per atomic operation",
    )
    ds["atomic_peak"] = _da(
        [prof.peak(a) / LEVEL_UNIT for a in range(len(ATOMICS))],
        ("atomic",),
        {"atomic": list(ATOMIC_LABELS)},
        "I_max",
        "peak current of each atomic operation",
    )
    ds["atomic_duration"] = _da(
        [prof.duration_ns(a) / 1000.0 for a in range(len(ATOMICS))],
        ("atomic",),
        {"atomic": list(ATOMIC_LABELS)},
        "us",
        "duration of each atomic operation in the current model",
    )
    ds["total_tokens"] = _da(tok.total_tokens, (), {}, "tokens", f"TT at alpha={alpha:g}, TG={tg}")
    return ds


def _sensitivity(sec: dict, rn: _Runner, syn: dict[str, OpStream]) -> xr.Dataset:
    """Beyond the paper: profile-shape variants (``skftl.power.variants``) on a few traces,
    and KMTPM (sub-atomic) under each sub-atomic guard band of ``sensitivity.guard_pct``
    (``device.subatomic_guard_pct``) on every synthetic trace."""
    alpha, tg = float(sec["alpha"]), int(sec["tg"])
    schemes = list(sec["schemes"])
    variants = list(sec["sensitivity"]["variants"])
    sens_tr = list(sec["sensitivity"]["traces"])
    st = np.zeros((len(variants), len(schemes), len(sens_tr)))
    sp = np.zeros((len(variants), len(sens_tr)))
    for k, v in enumerate(variants):
        pv = profile_variant(rn.profiles, v)
        for j, name in enumerate(sens_tr):
            for i, sch in enumerate(schemes):
                r = rn.sim(syn[name], sch, alpha, tg, profiles=pv, key=v)
                st[k, i, j] = r.throughput_ops_per_s
                if sch == "NPM":
                    sp[k, j] = r.peak_over_budget
    cs = {"variant": variants, "scheme": schemes, "sens_trace": sens_tr}
    ds = xr.Dataset()
    ds["sensitivity_throughput"] = _da(
        st, ("variant", "scheme", "sens_trace"), cs, "ops/s", "throughput per profile variant"
    )
    ds["sensitivity_npm_peak"] = _da(
        sp,
        ("variant", "sens_trace"),
        {"variant": variants, "sens_trace": sens_tr},
        "1",
        "NPM peak current / budget - 1 per profile variant",
    )
    guards = [int(g) for g in sec["sensitivity"]["guard_pct"]]
    tr = list(syn)
    gt = np.zeros((len(guards), len(tr)))
    for k, g in enumerate(guards):
        dev = replace(rn.device, subatomic_guard_pct=g)
        for j, name in enumerate(tr):
            gt[k, j] = rn.sim(syn[name], "KMTPM_SA", alpha, tg, device=dev).throughput_ops_per_s
    ds["guard_throughput"] = _da(
        gt, ("guard_pct", "trace"), {"guard_pct": guards, "trace": tr}, "ops/s",
        "KMTPM (sub-atomic) throughput per sub-atomic guard band (% of each sub-atomic end)",
    )  # fmt: skip
    return ds


#: the schemes run over the read current: NPM (the reference) and the token schemes
READ_SCALE_SCHEMES = ["NPM", "MTPM", "KMTPM_A", "KMTPM_SA"]


def _read_current(sec: dict, rn: _Runner, syn: dict[str, OpStream]) -> xr.Dataset:
    """Beyond the paper: the token schemes at every read current scale of
    ``read_current_sweep`` (``device.read_current_scale``, every read phase scaled) on the
    synthetic traces (throughput, mean read and program latency), KMTPM (sub-atomic) over the
    token granularities (Fig. 12) and the tokens of each read atomic operation; and the same
    schemes' throughput under every channel arbitration (``device.channel_arbitration``)."""
    alpha, tg = float(sec["alpha"]), int(sec["tg"])
    scales = [float(x) for x in sec["read_current_sweep"]]
    tgs = [int(x) for x in sec["tg_sweep"]]
    tr = list(syn)
    schemes = READ_SCALE_SCHEMES
    thr = np.zeros((len(scales), len(schemes), len(tr)))
    rlat, plat = np.zeros_like(thr), np.zeros_like(thr)
    tgt = np.zeros((len(scales), len(tgs), len(tr)))
    reads = [ATOMICS.index(a) for a in ("read_setup", "read_exec", "read_dataout")]
    rt = np.zeros((len(scales), len(reads)))
    peak = np.zeros(len(scales))
    for k, scale in enumerate(scales):
        dev = replace(rn.device, read_current_scale=scale)
        prof = device_profiles(rn.profiles, dev)
        rt[k] = build_tables(prof, dev, TokenModel(alpha, tg)).atomic_rt[reads]
        peak[k] = max(prof.peak(a) for a in reads) / LEVEL_UNIT
        for j, name in enumerate(tr):
            ops = syn[name]
            for i, sch in enumerate(schemes):
                r = rn.sim(ops, sch, alpha, tg, device=dev)
                thr[k, i, j] = r.throughput_ops_per_s
                rlat[k, i, j] = r.mean_latency_ns(ops.kind, OP_READ)
                plat[k, i, j] = r.mean_latency_ns(ops.kind, OP_PROGRAM)
            for m, g in enumerate(tgs):
                tgt[k, m, j] = rn.sim(ops, "KMTPM_SA", alpha, g, device=dev).throughput_ops_per_s
    arbs = list(CHANNEL_ARBITRATIONS)
    at = np.zeros((len(arbs), len(schemes), len(tr)))
    for k, arb in enumerate(arbs):
        dev = replace(rn.device, channel_arbitration=arb)
        for j, name in enumerate(tr):
            for i, sch in enumerate(schemes):
                at[k, i, j] = rn.sim(syn[name], sch, alpha, tg, device=dev).throughput_ops_per_s
    c = {"read_scale": scales, "rs_scheme": schemes, "trace": tr}
    dims = ("read_scale", "rs_scheme", "trace")
    return xr.Dataset(
        {
            "arbitration_throughput": _da(
                at, ("arbitration", "rs_scheme", "trace"),
                {"arbitration": arbs, "rs_scheme": schemes, "trace": tr}, "ops/s",
                "throughput per channel arbitration (synthetic traces)",
            ),
            "read_scale_throughput": _da(
                thr, dims, c, "ops/s", "throughput per read current scale (synthetic traces)"
            ),
            "read_scale_read_latency": _da(
                rlat, dims, c, "ns", "mean read latency per read current scale"
            ),
            "read_scale_program_latency": _da(
                plat, dims, c, "ns", "mean program latency per read current scale"
            ),
            "read_scale_tg_throughput": _da(
                tgt, ("read_scale", "tg", "trace"), {"read_scale": scales, "tg": tgs, "trace": tr},
                "ops/s", "KMTPM (sub-atomic) throughput per read current scale and TG",
            ),
            "read_scale_peak": _da(
                peak, ("read_scale",), {"read_scale": scales}, "I_max",
                "a read's peak current per read current scale",
            ),
            "read_scale_tokens": _da(
                rt, ("read_scale", "read_atomic"),
                {"read_scale": scales, "read_atomic": ["R_A1", "R_A2", "R_A3"]}, "tokens",
                f"tokens of each read atomic operation per read current scale (TG={tg})",
            ),
        }
    )  # fmt: skip


def _multichannel(cfg: dict, sec: dict, rn: _Runner, seed: int) -> xr.Dataset:
    """Three arrangements of the token scheme on a multi-channel device (Sec. IV-F2), on the
    NAND operations the FTL kernel issues for a block trace (GC included), on the same trace
    mapped by address (``address_mapped``) and on the synthetic R50 mix."""
    mc = sec["multichannel"]
    n_ch, ways = int(mc["channels"]), int(mc["ways"])
    dev = Device.from_config({**sec["device"], "n_chips": n_ch * ways, "ways_per_channel": ways})
    alpha = float(mc["alpha"])
    tg = int(sec["tg"])
    n_ops = int(mc["n_ops"])
    src = mc["workload"]
    streams: dict[str, OpStream] = {}
    gc_info: dict[str, FtlStreamInfo] = {}
    trace = ""
    try:
        req = workload_for(src, cfg, n_requests=n_ops)
    except UnknownTraceError as exc:
        warnings.warn(f"mtpm: multi-channel workload {src} skipped: {exc}", stacklevel=2)
        req = None
    if req is not None:
        # the NAND operations the FTL kernel issues for the trace, GC included
        ftl = _stream_ftl(mc["ftl_stream"], n_ch, ways, int(sec["real"]["page_size"]), seed)
        ops, info = ops_from_ftl(req, ftl, n_ops=n_ops, time_scale=float(sec["real"]["time_scale"]))
        ops.label = f"{req.meta.label} via FTL"
        streams[ops.label] = ops
        gc_info[ops.label] = info
        trace = f"{req.meta.label}:{req.meta.sha256}"
        if mc.get("address_mapped", True):
            # the same trace mapped by address (channel-first page interleaving, no GC beyond
            # one erase per erase_every programs), for comparison
            ops = ops_from_requests(
                req,
                n_chips=dev.n_chips,
                page_size=int(sec["real"]["page_size"]),
                n_ops=n_ops,
                erase_every=int(sec["real"]["erase_every"]),
                time_scale=float(sec["real"]["time_scale"]),
                label=f"{req.meta.label} by address",
            )
            # chip c of the page-interleaved stream -> channel c % n_ch, way c // n_ch
            ops.chip = (ops.chip % n_ch) * ways + ops.chip // n_ch
            streams[ops.label] = ops
    streams["R50 (synthetic)"] = from_nand_ops(
        mtpm_ops(50, n_ops=n_ops, n_chips=dev.n_chips, seed=seed)
    )
    schemes = list(mc["schemes"])
    thr = np.full((len(streams), len(ARRANGEMENTS), len(schemes)), np.nan)
    peak = np.full_like(thr, np.nan)
    for k, ops in enumerate(streams.values()):
        for i, arr in enumerate(ARRANGEMENTS):
            for j, sch in enumerate(schemes):
                if arr == "via_controller" and sch not in ("NPM", "KMTPM_SA"):
                    rn.bar.update(1)
                    continue  # the controller pool is modelled with sub-atomic tokens only
                if arr == "via_controller":
                    kw = {} if sch == "NPM" else {"ctrl_msg_ns": int(mc["ctrl_msg_ns"])}
                    sch_run = "NPM" if sch == "NPM" else "CTRL"
                else:
                    kw = {"n_rings": n_ch if arr == "ring_per_channel" else 1}
                    sch_run = sch
                r = rn.sim(ops, sch_run, alpha, tg, device=dev, **kw)
                thr[k, i, j], peak[k, i, j] = r.throughput_ops_per_s, r.peak_over_budget
    c = {"mc_stream": list(streams), "arrangement": ARRANGEMENTS, "mc_scheme": schemes}
    dims = ("mc_stream", "arrangement", "mc_scheme")
    out = xr.Dataset(
        {
            "mc_throughput": _da(
                thr, dims, c, "ops/s",
                f"throughput, {n_ch} channels x {ways} ways, alpha={alpha:g}",
            ),
            "mc_peak_over_budget": _da(peak, dims, c, "1", "peak current / budget - 1"),
        }
    )  # fmt: skip
    names = list(streams)
    origin = np.array([[getattr(gc_info[n], f) if n in gc_info else np.nan for f in _GC_FIELDS]
                     for n in names], float)  # fmt: skip
    out["mc_op_mix"] = _da(
        [[float(np.mean(streams[n].kind == k)) for k in range(3)] for n in names],
        ("mc_stream", "op_kind"),
        {"mc_stream": names, "op_kind": ["read", "program", "erase"]},
        "1",
        "fraction of the stream's NAND operations per kind",
    )
    out["mc_ftl_ops"] = _da(
        origin,
        ("mc_stream", "ftl_origin"),
        {"mc_stream": names, "ftl_origin": list(_GC_FIELDS)},
        "operations",
        "FTL-issued operations by origin (NaN: stream not from the FTL)",
    )
    out.attrs["source"] = (
        "NAND operations issued by the FTL kernel (skftl.nand, GC included, preconditioned "
        "full device), the same trace mapped by address, and synthetic R50"
    )
    out.attrs["multichannel_trace"] = trace
    return out


_GC_FIELDS = ("host_reads", "host_programs", "gc_reads", "gc_programs", "erases", "host_requests")


def _stream_ftl(sec: dict, n_ch: int, ways: int, page_size: int, seed: int) -> Ftl:
    """The FTL that produces the multi-channel op stream: ``sec['nand']`` (preset allowed)
    with the arrangement's channels and ways, preconditioned as ``sec['precondition']``
    says (``fill``: every logical page written once in seeded random order, so the device
    is full and GC runs from the first writes; ``none``: empty)."""
    nand = {**sec["nand"], "channels": n_ch, "chips_per_channel": ways, "page_size": page_size}
    nand = resolve_nand(nand)
    geo = Geometry.from_config(nand)
    # room for a few of the largest GC bursts between drains
    ftl = Ftl.from_config(
        nand,
        sec.get("ftl") or {},
        flash_log_capacity=max(1 << 16, 4 * flash_log_reserve(geo)),
    )
    pre = sec.get("precondition", "fill")
    if pre == "fill":
        ftl.fill(seed=seed)
    elif pre != "none":
        raise ConfigError(f"mtpm.multichannel.ftl_stream.precondition: fill | none, got {pre!r}")
    return ftl
