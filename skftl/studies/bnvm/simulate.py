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
from skftl.errors import ConfigError, UnknownTraceError
from skftl.pcm import GROUPINGS, IDLE_PICKS, LogPolicy, PCMDevice, prepare_pages, simulate
from skftl.pcm.simulate import PagedTrace, PCMResult, paged_from_lpns
from skftl.pipeline import workload_for
from skftl.traces.requests import Requests

LETTERS = ("A", "B", "C", "D", "E", "F")
SCHEMES = ("static", "dynamic", "static_full", "block")
YEAR_S = 365.25 * 24 * 3600

# what ``from skftl.studies.bnvm.simulate import *`` exports (not skftl.pcm's ``simulate``,
# which would shadow this module in the package)
__all__ = ["LETTERS", "SCHEMES", "VARS", "parallel_writes", "run", "worked_example"]


def _load_workload(letter: str, sec: dict, cfg: dict) -> Requests:
    """The trace standing for the paper's trace ``letter``: the first real stand-in found,
    else the synthetic preset ``nexus5_<letter>``."""
    stand_ins = sec.get("stand_ins", {}) or {}
    req = workload_for(
        f"nexus5_{letter}",
        cfg,
        candidates=list(stand_ins.get(letter, []) or []),
        n_requests=sec["synthetic_requests"],
    )
    n = sec.get("n_requests")
    return req.head(int(n)) if n else req


def _load_precondition(req: Requests, sec: dict, cfg: dict) -> Requests | None:
    """The install trace to replay (state only) before real trace ``req``, if configured and
    found; never for synthetic traces."""
    name = (sec.get("preconditions", {}) or {}).get(req.meta.name)
    if req.meta.synthetic or not sec.get("precondition") or not name:
        return None
    try:
        return workload_for(name, cfg, candidates=[name], allow_synthetic=False)
    except UnknownTraceError:
        return None


def _options(sec: dict) -> dict[str, Any]:
    return {
        "grouping": sec["grouping"],
        "idle_pick": sec["idle_pick"],
        "include_reads": bool(sec["include_reads"]),
    }


def parallel_writes(res: PCMResult, scheme: str) -> tuple[int, int]:
    """(parallel clean writes, parallel dirty writes) as plotted in Figs. 2-3. For static +
    full the merge copies of eq. (1) count as parallel dirty writes (the paper's Fig. 3 shows
    dirty writes for static + full although its updates never overwrite in place)."""
    c = res.counters
    dirty = c["dirty_rounds"] + (c["merge_rounds"] if scheme == "static_full" else 0)
    return c["clean_rounds"], dirty


def _wear(res: PCMResult, duration_s: float) -> tuple[int, float, float]:
    """(max writes+refreshes of any page, mean over written pages, years to the cycle limit
    if the trace repeated back to back)."""
    w = res.wear_data[res.wear_data > 0]
    mx = int(max(w.max(initial=0), res.wear_log.max(initial=0)))
    mean = float(w.mean()) if len(w) else 0.0
    life = duration_s * res.device.endurance / mx / YEAR_S if mx and duration_s > 0 else np.nan
    return mx, mean, life


# output variables: name -> (dimensions after "trace", units, long name); "grouping" first:
# computed under every grouping rule (the readings), the rest under the configured one
VARS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "parallel_clean_writes": (
        ("grouping", "scheme"),
        "1",
        "parallel clean writes (incl. buffer flushes)",
    ),
    "parallel_dirty_writes": (
        ("grouping", "scheme"),
        "1",
        "parallel dirty writes (static+full: merge copies of eq. 1)",
    ),
    "write_time": (("grouping", "scheme"), "s", "parallel writes x their latency"),
    "merges": (("grouping", "scheme"), "1", "log merges"),
    "merge_copy_time": (("grouping", "scheme"), "s", "merge copies: t_dirty x M_valid_pages"),
    "refresh_time": (("grouping", "scheme"), "s", "log refresh: t_refresh x refresh_units"),
    "total_time": (("grouping", "scheme"), "s", "write + merge copy + refresh time"),
    "clean_page_writes": (("grouping", "scheme"), "1", "host page writes done as clean writes"),
    "dirty_page_writes": (("grouping", "scheme"), "1", "host page writes done as dirty writes"),
    "buffered_page_writes": (("grouping", "scheme"), "1", "host page writes put in the log buffer"),
    "buffer_flushes": (("grouping", "scheme"), "1", "buffer flushes to the log area"),
    "parallel_reads": (("grouping", "scheme"), "1", "parallel page reads"),
    "host_page_writes": (("grouping", "scheme"), "1", "host page writes"),
    "host_page_reads": (("grouping", "scheme"), "1", "host page reads"),
    "max_wear": (("grouping", "scheme"), "cycles", "most writes+refreshes of any page"),
    "mean_wear": (("grouping", "scheme"), "cycles", "mean writes of written data pages"),
    "lifetime": (
        ("grouping", "scheme"),
        "years",
        "years until the hottest page reaches the cycle limit, trace repeated back to back",
    ),
    "round_hist": (
        ("grouping", "scheme", "round_pages", "round_dirty"),
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
        "longest time an update sat in the volatile buffer before its flush was issued",
    ),
    "risk_residency_mean": (
        ("flush_timeout_ms",),
        "s",
        "mean time an update sat in the volatile buffer",
    ),
    "risk_bytes_mean": (
        ("flush_timeout_ms",),
        "B",
        "time-averaged bytes in the volatile buffer",
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
    "duration": ((), "s", "trace duration (monotonic arrival span)"),
}


def _breakeven_ms(static_total: float, res: PCMResult) -> float:
    """Refresh latency (ms) at which static+full's total time equals static's: the total is
    affine in the latency (merge count barely moves with it). Negative: never pays off."""
    per_ms = res.counters["merges"] * res.refresh_units * 1e-3  # s of refresh per ms latency
    base = res.total_time_s - res.refresh_time_s
    if per_ms == 0:
        return np.inf if base <= static_total else np.nan
    return (static_total - base) / per_ms


def _simulate_trace(
    pages: PagedTrace, device: PCMDevice, log: LogPolicy, sec: dict
) -> dict[str, Any]:
    """Every run of the study on one paged trace -> {variable: value without "trace"}.

    The per-scheme variables are computed under every grouping rule (the paper does not say
    which page operations are issued together; each rule is a reading the claims are scored
    under). The beyond-the-paper runs (data at risk, sweeps) use the configured grouping."""
    opts = _options(sec)
    t = pages.time_ns
    duration = float(t[-1] - t[0]) * 1e-9 if len(t) else 0.0
    out: dict[str, Any] = {"duration": duration}
    per_scheme: dict[str, list] = {k: [] for k, v in VARS.items() if "scheme" in v[0]}
    for grouping in GROUPINGS:
        rows: dict[str, list] = {k: [] for k in per_scheme}
        for scheme in SCHEMES:
            res = simulate(pages, device, scheme, log=log, **(opts | {"grouping": grouping}))
            c = res.counters
            clean, dirty = parallel_writes(res, scheme)
            wear = _wear(res, duration)
            vals = {
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
            for k, val in vals.items():
                rows[k].append(val)
        for k, v in rows.items():
            per_scheme[k].append(v)
    out.update({k: np.array(v) for k, v in per_scheme.items()})
    here = list(GROUPINGS).index(opts["grouping"])
    static_total = out["total_time"][here, SCHEMES.index("static")]

    reads = {"include_reads": opts["include_reads"]}
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
        span = float(t[-1]) if len(t) else 0.0
        risk["risk_bytes_mean"].append(
            c["residency_sum_ns"] * device.page_size / span if span > 0 else 0.0
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
        lg = LogPolicy(log_pages_per_chip=int(ppb) * int(sweep["log_units_per_chip"]))
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


def run(cfg: dict, progress: bool = True) -> xr.Dataset:
    """Simulate every scheme on traces A-F, the buffer-timeout (data at risk) variants, the
    reading sensitivity and the refresh / log-size sweeps; return one dataset."""
    from tqdm.auto import tqdm

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
        pages = prepare_pages(req, device, precondition=pre)
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
            "grouping": list(GROUPINGS),
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
    static_total = ds["total_time"].sel(scheme="static", grouping=sec["grouping"], drop=True)
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
    ds.attrs.update(
        study="bnvm",
        config=yaml.safe_dump({"bnvm": sec, "seed": cfg["seed"]}, sort_keys=False),
        skftl_version=skftl.__version__,
        trace_sha256=yaml.safe_dump({x: m.sha256 for x, m in zip(letters, metas, strict=True)}),
        trace_labels=yaml.safe_dump({x: m.label for x, m in zip(letters, metas, strict=True)}),
        buffer_bytes=device.n_chips * device.page_size,
        grouping=sec["grouping"],  # the grouping of the beyond-the-paper runs and the figures
    )
    return ds
