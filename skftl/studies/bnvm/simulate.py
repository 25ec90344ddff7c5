"""Study ``bnvm``: address mapping for a PCM-based SSD (Kwon, IEEE Access 2019).

Figs. 2-3 of the paper (static vs dynamic page mapping; static vs static + full-associative
log) on six mobile traces standing for its Nexus 5 traces A-F, plus block mapping, wear,
the data-at-risk window of the static + full buffer and a refresh unit size x latency
sweep. The model and its accounting rules are in ``skftl.pcm.kernel``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import xarray as xr
import yaml

import skftl
from skftl.config import validate_sections
from skftl.errors import ConfigError, UnknownTraceError
from skftl.pcm import GROUPINGS, IDLE_PICKS, LogPolicy, PCMDevice, prepare_pages, simulate
from skftl.pcm.device import PAGE_ENTRY_BYTES
from skftl.pcm.schemes import FLUSH_ROUNDS
from skftl.pcm.simulate import PagedTrace, PCMResult, active_span_s, paged_from_lpns
from skftl.run_traces import workload_for
from skftl.studies.bnvm.split import split_experiment
from skftl.traces.requests import Requests
from skftl.traces.workload import check_candidates

LETTERS = ("A", "B", "C", "D", "E", "F")
SCHEMES = ("static", "dynamic", "static_full", "block")
YEAR_S = 365.25 * 24 * 3600
# set-ups of the device before each usage trace: "none" (the paper's: it says nothing of a
# warm-up) and "replay" (our variant: the app's install trace replayed first, state only)
INSTALLS = ("none", "replay")

# what ``from skftl.studies.bnvm.simulate import *`` exports (not skftl.pcm's ``simulate``,
# which would shadow this module in the package)
__all__ = ["INSTALLS", "LETTERS", "SCHEMES", "VARS", "parallel_writes", "run", "worked_example"]


def _load_workload(letter: str, sec: dict, cfg: dict) -> Requests:
    """The trace standing for the paper's trace ``letter``: the first real stand-in found,
    else the synthetic preset ``nexus5_<letter>``."""
    stand_ins = sec.get("stand_ins", {}) or {}
    req = workload_for(
        f"nexus5_{letter}",
        cfg,
        candidates=check_candidates(
            list(stand_ins.get(letter, []) or []), f"bnvm.stand_ins.{letter}"
        ),
        n_requests=sec["synthetic_requests"],
    )
    n = sec.get("n_requests")
    return req.head(int(n)) if n else req


def _load_precondition(req: Requests, sec: dict, cfg: dict) -> Requests | None:
    """The install trace to replay (state only) before real trace ``req`` in the "replay"
    set-up, if configured and found; never for synthetic traces."""
    name = (sec.get("preconditions", {}) or {}).get(req.meta.name)
    if req.meta.synthetic or not name:
        return None
    check_candidates([name], f"bnvm.preconditions.{req.meta.name}")
    try:
        return workload_for(name, cfg, candidates=[name], allow_synthetic=False)
    except UnknownTraceError:
        return None


def _options(sec: dict) -> dict[str, Any]:
    return {
        "grouping": sec["grouping"],
        "idle_pick": sec["idle_pick"],
        "include_reads": bool(sec["include_reads"]),
        "idle_cap_s": _idle_cap(sec),
    }


def _idle_cap(sec: dict) -> float | None:
    cap = sec.get("idle_gap_cap_s")
    if cap is not None and not float(cap) > 0:
        raise ConfigError(f"bnvm.idle_gap_cap_s must be > 0 or null, got {cap!r}")
    return None if cap is None else float(cap)


def _install(sec: dict) -> str:
    """The set-up of the beyond-the-paper runs and figures: ``bnvm.precondition``."""
    pre = sec.get("precondition", False)
    if not isinstance(pre, bool):
        raise ConfigError(f"bnvm.precondition must be true or false, got {pre!r}")
    return "replay" if pre else "none"


def parallel_writes(res: PCMResult, scheme: str) -> tuple[int, int]:
    """(parallel clean writes, parallel dirty writes) as plotted in Figs. 2-3. For static +
    full the merge copies of eq. (1) count as parallel dirty writes (the paper's Fig. 3 shows
    dirty writes for static + full although its updates never overwrite in place)."""
    c = res.counters
    dirty = c["dirty_rounds"] + (c["merge_rounds"] if scheme == "static_full" else 0)
    return c["clean_rounds"], dirty


def _wear(res: PCMResult, duration_s: float) -> tuple[int, float, float]:
    """(max writes+refreshes of any page, mean over written pages, years to the cycle limit
    if the trace's ``duration_s`` of activity repeated back to back)."""
    w = res.wear_data[res.wear_data > 0]
    mx = int(max(w.max(initial=0), res.wear_log.max(initial=0)))
    mean = float(w.mean()) if len(w) else 0.0
    life = duration_s * res.device.endurance / mx / YEAR_S if mx and duration_s > 0 else np.nan
    return mx, mean, life


# the per-scheme variables are computed under every set-up, grouping rule and flush count
# (the readings); the beyond-the-paper runs under the configured ones
PER_SCHEME = ("install", "grouping", "flush_rounds", "scheme")
# output variables: name -> (dimensions after "trace", units, long name)
VARS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "parallel_clean_writes": (
        PER_SCHEME,
        "1",
        "parallel clean writes (incl. buffer flushes)",
    ),
    "parallel_dirty_writes": (
        PER_SCHEME,
        "1",
        "parallel dirty writes (static+full: merge copies of eq. 1)",
    ),
    "write_time": (PER_SCHEME, "s", "parallel writes x their latency"),
    "merges": (PER_SCHEME, "1", "log merges"),
    "merge_copy_time": (PER_SCHEME, "s", "merge copies: t_dirty x M_valid_pages"),
    "refresh_time": (PER_SCHEME, "s", "log refresh: t_refresh x refresh_units"),
    "total_time": (PER_SCHEME, "s", "write + merge copy + refresh time"),
    "clean_page_writes": (PER_SCHEME, "1", "host page writes done as clean writes"),
    "dirty_page_writes": (PER_SCHEME, "1", "host page writes done as dirty writes"),
    "buffered_page_writes": (PER_SCHEME, "1", "host page writes put in the log buffer"),
    "buffer_flushes": (PER_SCHEME, "1", "buffer flushes to the log area"),
    "parallel_reads": (PER_SCHEME, "1", "parallel page reads"),
    "host_page_writes": (PER_SCHEME, "1", "host page writes"),
    "host_page_reads": (PER_SCHEME, "1", "host page reads"),
    "max_wear": (PER_SCHEME, "cycles", "most writes+refreshes of any page"),
    "mean_wear": (PER_SCHEME, "cycles", "mean writes of written data pages"),
    "lifetime": (
        PER_SCHEME,
        "years",
        "years until the hottest page reaches the cycle limit, the trace's active time "
        "repeated back to back",
    ),
    "round_hist": (
        (*PER_SCHEME, "round_pages", "round_dirty"),
        "1",
        "write rounds by pages and dirty pages",
    ),
    "sensitivity_dynamic_vs_static": (
        ("grouping", "idle_pick"),
        "1",
        "dynamic / static total write time under each reading",
    ),
    "risk_residency_max": (
        ("flush_timeout_ms",),
        "s",
        "longest time an update sat in the volatile buffer before its flush was issued "
        "(active time)",
    ),
    "risk_residency_mean": (
        ("flush_timeout_ms",),
        "s",
        "mean time an update sat in the volatile buffer (active time)",
    ),
    "risk_bytes_mean": (
        ("flush_timeout_ms",),
        "B",
        "bytes in the volatile buffer averaged over active time",
    ),
    "risk_total_time": (
        ("flush_timeout_ms",),
        "s",
        "static+full total time with this flush timeout",
    ),
    "risk_timeout_flushes": (
        ("flush_timeout_ms",),
        "1",
        "flushes of a partly filled buffer by timeout",
    ),
    "sweep_total_time": (
        ("refresh_unit_pages", "refresh_ms"),
        "s",
        "static+full total time, log = sweep.log_units_per_chip refresh units per chip",
    ),
    "breakeven_refresh_ms": (
        ("refresh_unit_pages",),
        "ms",
        "refresh latency below which static+full beats static (<0: never; inf: no merge)",
    ),
    "log_breakeven_refresh_ms": (
        ("log_pages_per_chip",),
        "ms",
        "refresh latency below which static+full beats static, by log size "
        "(device refresh unit; <0: never; inf: no merge)",
    ),
    "log_speedup": (
        ("log_pages_per_chip",),
        "1",
        "static total time / static+full total time, by log size (device refresh latency)",
    ),
    "duration": ((), "s", "trace duration (monotonic arrival span, wall time)"),
    "active_duration": ((), "s", "trace duration with idle gaps capped at bnvm.idle_gap_cap_s"),
    "longest_gap": ((), "s", "longest gap between two arrivals"),
}


def _breakeven_ms(static_total: float, res: PCMResult) -> float:
    """Refresh latency (ms) at which static+full's total time equals static's: the total is
    affine in the latency (merge count barely moves with it). Negative: never pays off."""
    per_ms = res.counters["merges"] * res.refresh_units * 1e-3  # s of refresh per ms latency
    base = res.total_time_s - res.refresh_time_s
    if per_ms == 0:
        return np.inf if base <= static_total else np.nan
    return (static_total - base) / per_ms


def _per_scheme(
    pages: dict[str, PagedTrace], device: PCMDevice, log: LogPolicy, opts: dict, span_s: float
) -> dict[str, np.ndarray]:
    """The per-scheme variables under every set-up (``pages`` per install state), grouping
    rule and flush count (flush_rounds changes static + full only: the other schemes run
    once and are repeated along it)."""
    names = [k for k, v in VARS.items() if v[0][: len(PER_SCHEME)] == PER_SCHEME]
    out: dict[str, list] = {k: [] for k in names}
    for install in INSTALLS:
        by_g: dict[str, list] = {k: [] for k in names}
        for grouping in GROUPINGS:
            o = opts | {"grouping": grouping}
            common = {s: simulate(pages[install], device, s, log=log, **o) for s in SCHEMES}
            by_f: dict[str, list] = {k: [] for k in names}
            for rounds in FLUSH_ROUNDS:
                lg = dataclasses.replace(log, flush_rounds=rounds)
                full = simulate(pages[install], device, "static_full", log=lg, **o)
                rows = [
                    _scheme_values(full if s == "static_full" else common[s], s, span_s)
                    for s in SCHEMES
                ]
                for k in names:
                    by_f[k].append([r[k] for r in rows])
            for k in names:
                by_g[k].append(by_f[k])
        for k in names:
            out[k].append(by_g[k])
    return {k: np.array(v) for k, v in out.items()}


def _scheme_values(res: PCMResult, scheme: str, span_s: float) -> dict[str, Any]:
    c = res.counters
    clean, dirty = parallel_writes(res, scheme)
    wear = _wear(res, span_s)
    return {
        "parallel_clean_writes": clean,
        "parallel_dirty_writes": dirty,
        "write_time": res.write_time_s,
        "merges": c["merges"],
        "merge_copy_time": res.merge_copy_time_s,
        "refresh_time": res.refresh_time_s,
        "total_time": res.total_time_s,
        "clean_page_writes": c["clean_pages"],
        "dirty_page_writes": c["dirty_pages"],
        "buffered_page_writes": c["buffered"],
        "buffer_flushes": c["flushes"],
        "parallel_reads": c["read_rounds"],
        "host_page_writes": c["host_writes"],
        "host_page_reads": c["host_reads"],
        "max_wear": wear[0],
        "mean_wear": wear[1],
        "lifetime": wear[2],
        "round_hist": res.round_hist,
    }


def _simulate_trace(
    pages_by_install: dict[str, PagedTrace], device: PCMDevice, log: LogPolicy, sec: dict
) -> dict[str, Any]:
    """Every run of the study on one trace -> {variable: value without "trace"}.

    The per-scheme variables are computed under every set-up, grouping rule and flush count
    (the paper does not say which page operations are issued together, and counts a flush
    as one parallel write in Sec. IV.C.1 and two in IV.C.2.b; each is a reading the claims
    are scored under). The beyond-the-paper runs use the configured ones."""
    opts = _options(sec)
    pages = pages_by_install[_install(sec)]
    t = pages.time_ns
    active = active_span_s(t, opts["idle_cap_s"])
    out: dict[str, Any] = {
        "duration": float(t[-1] - t[0]) * 1e-9 if len(t) else 0.0,
        "active_duration": active,
        "longest_gap": float(np.diff(t).max(initial=0)) * 1e-9,
    }
    out |= _per_scheme(pages_by_install, device, log, opts, active)
    here = (
        INSTALLS.index(_install(sec)),
        list(GROUPINGS).index(opts["grouping"]),
        FLUSH_ROUNDS.index(log.flush_rounds),
        SCHEMES.index("static"),
    )
    static_total = out["total_time"][here]

    reads = {"include_reads": opts["include_reads"], "idle_cap_s": opts["idle_cap_s"]}
    sens = np.zeros((len(GROUPINGS), len(IDLE_PICKS)))
    for a, grouping in enumerate(GROUPINGS):
        base = simulate(pages, device, "static", grouping=grouping, **reads)
        for b, pick in enumerate(IDLE_PICKS):
            dyn = simulate(pages, device, "dynamic", grouping=grouping, idle_pick=pick, **reads)
            sens[a, b] = dyn.write_time_s / base.write_time_s
    out["sensitivity_dynamic_vs_static"] = sens

    risk: dict[str, list] = {k: [] for k in VARS if k.startswith("risk_")}
    for tmo in sec["risk_timeouts_ms"]:
        lg = dataclasses.replace(log, flush_timeout_ms=float(tmo))
        res = simulate(pages, device, "static_full", log=lg, **opts)
        c = res.counters
        risk["risk_residency_max"].append(c["residency_max_ns"] * 1e-9)
        risk["risk_residency_mean"].append(c["residency_sum_ns"] * 1e-9 / max(c["buffered"], 1))
        risk["risk_bytes_mean"].append(
            c["residency_sum_ns"] * 1e-9 * device.page_size / active if active > 0 else 0.0
        )
        risk["risk_total_time"].append(res.total_time_s)
        risk["risk_timeout_flushes"].append(c["timeout_flushes"])
    out.update({k: np.array(v) for k, v in risk.items()})

    sweep = sec["sweep"]
    ppbs, lats = sweep["refresh_unit_pages"], sweep["refresh_ms"]
    total = np.zeros((len(ppbs), len(lats)))
    breakeven = np.zeros(len(ppbs))
    fastest = int(np.argmin(lats))  # break-even solved from the run closest to a free refresh
    for a, ppb in enumerate(ppbs):
        lg = dataclasses.replace(
            log, log_pages_per_chip=int(ppb) * int(sweep["log_units_per_chip"])
        )
        for b, lat in enumerate(lats):
            dev = dataclasses.replace(device, pages_per_block=int(ppb), t_refresh_ms=float(lat))
            res = simulate(pages, dev, "static_full", log=lg, **opts)
            total[a, b] = res.total_time_s
            if b == fastest:
                breakeven[a] = _breakeven_ms(static_total, res)
    out["sweep_total_time"] = total
    out["breakeven_refresh_ms"] = breakeven
    be, speed = [], []
    for pages_per_chip in sweep["log_pages_per_chip"]:
        lg = dataclasses.replace(log, log_pages_per_chip=int(pages_per_chip))
        res = simulate(pages, device, "static_full", log=lg, **opts)
        be.append(_breakeven_ms(static_total, res))
        speed.append(static_total / res.total_time_s)
    out["log_breakeven_refresh_ms"] = np.array(be)
    out["log_speedup"] = np.array(speed)
    return out


def worked_example(device: PCMDevice, n_pages: int = 4) -> np.ndarray:
    """The paper's "w 0 A0-3, 4" (Secs. II.B.2 and IV.A) on an idle device: the write time of
    every scheme (rows: groupings, columns: :data:`SCHEMES`) in units of one clean write."""
    pages = paged_from_lpns(
        np.arange(n_pages),
        np.ones(n_pages, bool),
        np.zeros(n_pages, int),
        np.zeros(n_pages, int),
        device,
    )
    unit = device.t_clean_us * 1e-6
    return np.array(
        [
            [simulate(pages, device, s, grouping=g).write_time_s / unit for s in SCHEMES]
            for g in GROUPINGS
        ]
    )


def flush_example(device: PCMDevice, log: LogPolicy) -> int:
    """Sec. IV.C.1's flush on an idle device: pages 0..C-1 written, then all updated, so
    the buffer fills once; the parallel clean writes the flush adds to the first round."""
    c = device.n_chips
    lpns = np.concatenate([np.arange(c), np.arange(c)])
    zeros = np.zeros(2 * c, np.int64)
    pages = paged_from_lpns(lpns, np.ones(2 * c, bool), zeros, zeros, device)
    big = dataclasses.replace(log, log_pages_per_chip=device.pages_per_block)  # no merge
    res = simulate(pages, device, "static_full", log=big)
    return res.counters["clean_rounds"] - 1


def merge_example(device: PCMDevice) -> int:
    """Sec. IV.C.1's merge example on a 4-chip device with a two-row log: valid log pages
    two for chip 0, one each for chips 1-3 -> the dirty write times of the merge."""
    dev = dataclasses.replace(device, n_chips=4, pages_per_block=2)
    first, updates = np.arange(5), np.array([0, 1, 2, 3, 4, 0, 1, 2])
    lpns = np.concatenate([first, updates])
    zeros = np.zeros(len(lpns), np.int64)
    pages = paged_from_lpns(lpns, np.ones(len(lpns), bool), zeros, zeros, dev)
    res = simulate(pages, dev, "static_full", log=LogPolicy(log_pages_per_chip=2))
    return res.counters["merge_rounds"]


def _table_bytes(device: PCMDevice, log: LogPolicy, scheme: str) -> int:
    if scheme == "static_full":  # static data area + a page table for the log (Sec. II.B.3)
        return log.pages_per_chip(device) * device.n_chips * PAGE_ENTRY_BYTES
    return device.mapping_table_bytes(scheme)


def run(cfg: dict, progress: bool = True) -> xr.Dataset:
    """Simulate every scheme on traces A-F, the buffer-timeout (data at risk) variants, the
    reading sensitivity and the refresh / log-size sweeps; return one dataset."""
    from tqdm.auto import tqdm

    validate_sections(cfg, "the config given to bnvm.run")  # a notebook may have changed it
    sec = cfg.get("bnvm")
    if not sec:
        raise ConfigError("config has no 'bnvm' section")
    device = PCMDevice.from_config(sec["device"])
    log = LogPolicy.from_config(sec["log"])
    letters = list(sec.get("traces", LETTERS))
    per_trace, metas, precond = [], [], []
    for letter in tqdm(letters, desc="bnvm", disable=not progress):
        req = _load_workload(letter, sec, cfg)
        pre = _load_precondition(req, sec, cfg)
        metas.append(req.meta)
        precond.append(pre.meta.name if pre is not None else "")
        pages = {
            "none": prepare_pages(req, device),
            "replay": prepare_pages(req, device, precondition=pre),
        }
        per_trace.append(_simulate_trace(pages, device, log, sec))
    sweep = sec["sweep"]
    data = {
        name: (
            ("trace", *dims),
            np.stack([np.asarray(r[name]) for r in per_trace]),
            {"units": units, "long_name": long_name},
        )
        for name, (dims, units, long_name) in VARS.items()
    }
    n = device.n_chips + 1
    ds = xr.Dataset(
        data,
        coords={
            "trace": letters,
            "scheme": list(SCHEMES),
            "round_pages": np.arange(n),
            "round_dirty": np.arange(n),
            "install": list(INSTALLS),
            "grouping": list(GROUPINGS),
            "flush_rounds": list(FLUSH_ROUNDS),
            "idle_pick": list(IDLE_PICKS),
            "flush_timeout_ms": [float(x) for x in sec["risk_timeouts_ms"]],
            "refresh_unit_pages": [int(x) for x in sweep["refresh_unit_pages"]],
            "refresh_ms": [float(x) for x in sweep["refresh_ms"]],
            "log_pages_per_chip": [int(x) for x in sweep["log_pages_per_chip"]],
            "label": ("trace", [m.label for m in metas]),
            "source": ("trace", [m.name for m in metas]),
            "synthetic": ("trace", np.array([bool(m.synthetic) for m in metas])),
            "precondition": ("trace", precond),
        },
    )
    here = {"install": _install(sec), "grouping": sec["grouping"], "flush_rounds": log.flush_rounds}
    static_total = ds["total_time"].sel(scheme="static", **here, drop=True)
    ds["sweep_speedup"] = (static_total / ds["sweep_total_time"]).assign_attrs(
        units="1", long_name="static total time / static+full total time"
    )
    ds["example_write_time"] = xr.DataArray(
        worked_example(device, n_pages=min(4, device.n_chips)),
        dims=("grouping", "scheme"),
        attrs={
            "units": "clean write times",
            "long_name": '"w 0 A0-3, 4" on an idle device: write time / one clean write',
        },
    )
    ds["example_flush_rounds"] = xr.DataArray(
        [flush_example(device, dataclasses.replace(log, flush_rounds=r)) for r in FLUSH_ROUNDS],
        dims=("flush_rounds",),
        attrs={
            "units": "parallel clean writes",
            "long_name": "one full-buffer flush on idle chips: parallel clean writes it adds",
        },
    )
    if "split" not in sec:
        raise ConfigError("bnvm.split: missing (the Fig. 2 split experiment's workload)")
    split = split_experiment(device, sec["split"])
    dims = ("update_share", "grouping", "idle_pick")
    shares = [float(u) for u in sec["split"]["update_shares"]]
    for key, units, what in (
        ("ratio", "1", "dynamic / static write time"),
        ("clean_diff", "1", "dynamic - static parallel clean writes"),
        ("dirty_diff", "1", "dynamic - static parallel dirty writes"),
    ):
        ds[f"split_{key}"] = xr.DataArray(
            split[key],
            dims=dims,
            coords={"update_share": shares},
            attrs={"units": units, "long_name": f"split experiment: {what}"},
        )
    ds["example_merge_rounds"] = xr.DataArray(
        merge_example(device),
        attrs={"units": "dirty write times", "long_name": "Sec. IV.C.1's merge: M_valid_pages"},
    )
    ds["mapping_table_bytes"] = xr.DataArray(
        [_table_bytes(device, log, s) for s in SCHEMES],
        dims=("scheme",),
        attrs={
            "units": "B",
            "long_name": f"mapping table in DRAM for a {device.capacity_gib:g} GiB device "
            "(static + full: the log area's page table)",
        },
    )
    ds.attrs.update(
        study="bnvm",
        config=yaml.safe_dump({"bnvm": sec, "seed": cfg["seed"]}, sort_keys=False),
        skftl_version=skftl.__version__,
        trace_sha256=yaml.safe_dump({x: m.sha256 for x, m in zip(letters, metas, strict=True)}),
        trace_labels=yaml.safe_dump({x: m.label for x, m in zip(letters, metas, strict=True)}),
        buffer_bytes=device.n_chips * device.page_size,
        # the readings of the beyond-the-paper runs and the figures
        grouping=sec["grouping"],
        flush_rounds=log.flush_rounds,
        install=_install(sec),
        log_pages_per_chip=log.pages_per_chip(device),
        idle_gap_cap_s=str(_idle_cap(sec)),
    )
    return ds
