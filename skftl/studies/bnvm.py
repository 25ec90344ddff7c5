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
import pandas as pd
import xarray as xr
import yaml

import skftl
from skftl.config import trace_dirs
from skftl.errors import ConfigError, UnknownTraceError
from skftl.pcm import GROUPINGS, IDLE_PICKS, LogPolicy, PCMDevice, prepare_pages, simulate
from skftl.pcm.simulate import PCMResult
from skftl.pipeline import _cache_dir, _raw_dir
from skftl.traces import workload
from skftl.traces.requests import Requests

LETTERS = ("A", "B", "C", "D", "E", "F")
SCHEMES = ("static", "dynamic", "static_full", "block")
YEAR_S = 365.25 * 24 * 3600

# paper numbers (Sec. IV.B.1 and IV.C.2)
PAPER_C = {
    "C: static parallel clean writes": 67_595,
    "C: static parallel dirty writes": 38_714,
    "C: dynamic parallel clean writes": 64_797,
    "C: dynamic parallel dirty writes": 43_119,
}
PAPER_CLEAN_RATIO = (1.5, 1.8)


def _load_workload(letter: str, sec: dict, cfg: dict) -> Requests:
    """The trace standing for the paper's trace ``letter``: the first real stand-in found,
    else the synthetic preset ``nexus5_<letter>``."""
    stand_ins = sec.get("stand_ins", {}) or {}
    req = workload(
        f"nexus5_{letter}",
        candidates=list(stand_ins.get(letter, []) or []),
        # same folders and cache as the workflow's trace step (repository-relative paths)
        trace_dirs=[*trace_dirs(cfg), _raw_dir(cfg)],
        cache_dir=_cache_dir(cfg),
        seed=cfg["seed"],
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
        return workload(
            name,
            candidates=[name],
            trace_dirs=[*trace_dirs(cfg), _raw_dir(cfg)],
            cache_dir=_cache_dir(cfg),
            allow_synthetic=False,
        )
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


def run(cfg: dict, progress: bool = True) -> xr.Dataset:
    """Simulate every scheme on traces A-F, the buffer-timeout (data at risk) variants and
    the refresh sweep; return one dataset."""
    sec = cfg.get("bnvm")
    if not sec:
        raise ConfigError("config has no 'bnvm' section")
    device = PCMDevice.from_config(sec["device"])
    log = LogPolicy.from_config(sec["log"])
    opts = _options(sec)
    sweep = sec["sweep"]
    ppbs = [int(x) for x in sweep["refresh_unit_pages"]]
    lats = [float(x) for x in sweep["refresh_ms"]]
    timeouts = [float(x) for x in sec["risk_timeouts_ms"]]
    letters = list(sec.get("traces", LETTERS))
    from tqdm.auto import tqdm

    shape = (len(letters), len(SCHEMES))
    v: dict[str, np.ndarray] = {
        k: np.zeros(shape)
        for k in (
            "clean",
            "dirty",
            "write_time",
            "merges",
            "merge_time",
            "refresh_time",
            "total_time",
            "clean_pages",
            "dirty_pages",
            "buffered",
            "flushes",
            "read_rounds",
            "host_writes",
            "host_reads",
            "max_wear",
            "mean_wear",
            "lifetime",
        )
    }
    hist = np.zeros((*shape, device.n_chips + 1, device.n_chips + 1), np.int64)
    risk = {
        k: np.zeros((len(letters), len(timeouts)))
        for k in ("res_max", "res_mean", "bytes_mean", "risk_total", "risk_flushes")
    }
    sens = np.zeros((len(letters), len(GROUPINGS), len(IDLE_PICKS)))
    sw = np.zeros((len(letters), len(ppbs), len(lats)))
    sw_merges = np.zeros((len(letters), len(ppbs)))
    sw_base = np.zeros((len(letters), len(ppbs)))
    labels, names, shas, synth, durations, precond = [], [], [], [], [], []
    bar = tqdm(letters, desc="bnvm", disable=not progress)
    for i, letter in enumerate(bar):
        req = _load_workload(letter, sec, cfg)
        labels.append(req.meta.label)
        names.append(req.meta.name)
        shas.append(req.meta.sha256)
        synth.append(bool(req.meta.synthetic))
        pre = _load_precondition(req, sec, cfg)
        precond.append(pre.meta.name if pre is not None else "")
        pages = prepare_pages(req, device, precondition=pre)
        t = pages.time_ns
        duration = float(t[-1] - t[0]) * 1e-9 if len(t) else 0.0
        durations.append(duration)
        for j, scheme in enumerate(SCHEMES):
            res = simulate(pages, device, scheme, log=log, **opts)
            c = res.counters
            v["clean"][i, j], v["dirty"][i, j] = parallel_writes(res, scheme)
            v["write_time"][i, j] = res.write_time_s
            v["merges"][i, j] = c["merges"]
            v["merge_time"][i, j] = res.merge_copy_time_s
            v["refresh_time"][i, j] = res.refresh_time_s
            v["total_time"][i, j] = res.total_time_s
            for key in (
                "clean_pages",
                "dirty_pages",
                "buffered",
                "flushes",
                "read_rounds",
                "host_writes",
                "host_reads",
            ):
                v[key][i, j] = c[key]
            v["max_wear"][i, j], v["mean_wear"][i, j], v["lifetime"][i, j] = _wear(res, duration)
            hist[i, j] = res.round_hist
        for a, grouping in enumerate(GROUPINGS):
            base = simulate(
                pages, device, "static", grouping=grouping, include_reads=opts["include_reads"]
            )
            for b, pick in enumerate(IDLE_PICKS):
                dyn = simulate(
                    pages,
                    device,
                    "dynamic",
                    grouping=grouping,
                    idle_pick=pick,
                    include_reads=opts["include_reads"],
                )
                sens[i, a, b] = dyn.write_time_s / base.write_time_s
        for k, tmo in enumerate(timeouts):
            res = simulate(
                pages,
                device,
                "static_full",
                log=dataclasses.replace(log, flush_timeout_ms=tmo),
                **opts,
            )
            c = res.counters
            risk["res_max"][i, k] = c["residency_max_ns"] * 1e-9
            risk["res_mean"][i, k] = c["residency_sum_ns"] * 1e-9 / max(c["buffered"], 1)
            risk["bytes_mean"][i, k] = (
                c["residency_sum_ns"] * device.page_size / t[-1] if len(t) and t[-1] > 0 else 0.0
            )
            risk["risk_total"][i, k] = res.total_time_s
            risk["risk_flushes"][i, k] = c["timeout_flushes"]
        for a, ppb in enumerate(ppbs):
            for b, lat in enumerate(lats):
                dev = dataclasses.replace(device, pages_per_block=ppb, t_refresh_ms=lat)
                lg = LogPolicy(log_pages_per_chip=ppb * int(sweep["log_units_per_chip"]))
                res = simulate(pages, dev, "static_full", log=lg, **opts)
                sw[i, a, b] = res.total_time_s
                if b == 0:
                    sw_merges[i, a] = res.counters["merges"] * res.refresh_units
                    sw_base[i, a] = res.total_time_s - res.refresh_time_s
    return _dataset(
        cfg,
        precond,
        sec,
        device,
        letters,
        labels,
        names,
        shas,
        synth,
        durations,
        v,
        hist,
        risk,
        timeouts,
        sens,
        sw,
        sw_merges,
        sw_base,
        ppbs,
        lats,
    )


def _dataset(
    cfg,
    precond,
    sec,
    device,
    letters,
    labels,
    names,
    shas,
    synth,
    durations,
    v,
    hist,
    risk,
    timeouts,
    sens,
    sw,
    sw_merges,
    sw_base,
    ppbs,
    lats,
) -> xr.Dataset:
    ts = ("trace", "scheme")
    spec = {
        "clean": ("parallel_clean_writes", "1", "parallel clean writes (incl. buffer flushes)"),
        "dirty": (
            "parallel_dirty_writes",
            "1",
            "parallel dirty writes (static+full: merge copies of eq. 1)",
        ),
        "write_time": ("write_time", "s", "parallel writes x their latency"),
        "merges": ("merges", "1", "log merges"),
        "merge_time": ("merge_copy_time", "s", "merge copies: t_dirty x M_valid_pages"),
        "refresh_time": ("refresh_time", "s", "log refresh: t_refresh x refresh_units"),
        "total_time": ("total_time", "s", "write + merge copy + refresh time"),
        "clean_pages": ("clean_page_writes", "1", "host page writes done as clean writes"),
        "dirty_pages": ("dirty_page_writes", "1", "host page writes done as dirty writes"),
        "buffered": ("buffered_page_writes", "1", "host page writes put in the log buffer"),
        "flushes": ("buffer_flushes", "1", "buffer flushes to the log area"),
        "read_rounds": ("parallel_reads", "1", "parallel page reads"),
        "host_writes": ("host_page_writes", "1", "host page writes"),
        "host_reads": ("host_page_reads", "1", "host page reads"),
        "max_wear": ("max_wear", "cycles", "most writes+refreshes of any page"),
        "mean_wear": ("mean_wear", "cycles", "mean writes of written data pages"),
        "lifetime": (
            "lifetime",
            "years",
            "years until the hottest page reaches the cycle limit, trace repeated back to back",
        ),
    }
    data = {name: (ts, v[k], {"units": u, "long_name": ln}) for k, (name, u, ln) in spec.items()}
    n = device.n_chips + 1
    data["round_hist"] = (
        ("trace", "scheme", "round_pages", "round_dirty"),
        hist,
        {"units": "1", "long_name": "write rounds by pages and dirty pages"},
    )
    tr = ("trace", "flush_timeout_ms")
    data["risk_residency_max"] = (
        tr,
        risk["res_max"],
        {"units": "s", "long_name": "longest time an update sat in the volatile buffer"},
    )
    data["risk_residency_mean"] = (
        tr,
        risk["res_mean"],
        {"units": "s", "long_name": "mean time an update sat in the volatile buffer"},
    )
    data["risk_bytes_mean"] = (
        tr,
        risk["bytes_mean"],
        {"units": "B", "long_name": "time-averaged bytes in the volatile buffer"},
    )
    data["risk_total_time"] = (
        tr,
        risk["risk_total"],
        {"units": "s", "long_name": "static+full total time with this flush timeout"},
    )
    data["risk_timeout_flushes"] = (
        tr,
        risk["risk_flushes"],
        {"units": "1", "long_name": "flushes of a partly filled buffer by timeout"},
    )
    data["sensitivity_dynamic_vs_static"] = (
        ("trace", "grouping", "idle_pick"),
        sens,
        {"units": "1", "long_name": "dynamic / static total write time under each reading"},
    )
    sd = ("trace", "refresh_unit_pages", "refresh_ms")
    data["sweep_total_time"] = (
        sd,
        sw,
        {"units": "s", "long_name": "static+full total time (log = log_units_per_chip units)"},
    )
    static_total = v["total_time"][:, SCHEMES.index("static")]
    data["sweep_speedup"] = (
        sd,
        static_total[:, None, None] / sw,
        {"units": "1", "long_name": "static total time / static+full total time"},
    )
    # total time is affine in t_refresh (merges barely move with it): solve for break-even
    with np.errstate(divide="ignore", invalid="ignore"):
        be = (static_total[:, None] - sw_base) / sw_merges * 1e3
    be = np.where(sw_merges > 0, be, np.where(sw_base <= static_total[:, None], np.inf, np.nan))
    data["breakeven_refresh_ms"] = (
        ("trace", "refresh_unit_pages"),
        be,
        {
            "units": "ms",
            "long_name": "refresh latency below which static+full beats static "
            "(<0: never; inf: no merge happened)",
        },
    )
    data["duration"] = (
        ("trace",),
        np.array(durations),
        {"units": "s", "long_name": "trace duration (monotonic arrival span)"},
    )
    ds = xr.Dataset(
        data,
        coords={
            "trace": letters,
            "scheme": list(SCHEMES),
            "round_pages": np.arange(n),
            "round_dirty": np.arange(n),
            "flush_timeout_ms": timeouts,
            "refresh_unit_pages": ppbs,
            "refresh_ms": lats,
            "grouping": list(GROUPINGS),
            "idle_pick": list(IDLE_PICKS),
            "label": ("trace", labels),
            "source": ("trace", names),
            "synthetic": ("trace", np.array(synth)),
            "precondition": ("trace", precond),
        },
    )
    ds.attrs.update(
        study="bnvm",
        config=yaml.safe_dump({"bnvm": sec, "seed": cfg["seed"]}, sort_keys=False),
        skftl_version=skftl.__version__,
        trace_sha256=yaml.safe_dump(dict(zip(letters, shas, strict=True))),
        trace_labels=yaml.safe_dump(dict(zip(letters, labels, strict=True))),
        buffer_bytes=device.n_chips * device.page_size,
    )
    return ds


def _row(metric, paper, ours, note, paper_num=None):
    rel = (ours / paper_num - 1) if paper_num not in (None, 0) and np.isfinite(ours) else np.nan
    return {"metric": metric, "paper": paper, "ours": ours, "rel_diff": rel, "note": note}


def headline(ds: xr.Dataset) -> pd.DataFrame:
    """The paper's findings one by one, and trace C's counts for scale."""
    rows = []

    def val(var, letter, scheme):
        return float(ds[var].sel(trace=letter, scheme=scheme))

    def lab(letter):
        return str(ds["label"].sel(trace=letter).item())

    letters = list(ds["trace"].values)
    for letter in [x for x in ("A", "B") if x in letters]:
        r = val("write_time", letter, "dynamic") / val("write_time", letter, "static")
        rows.append(
            _row(
                f"{letter}: dynamic/static total write time",
                "<1 (dynamic wins)",
                r,
                f"{'holds' if r < 1 else 'does not hold'}; {lab(letter)}",
            )
        )
        tot = {
            s: val("parallel_clean_writes", letter, s) + val("parallel_dirty_writes", letter, s)
            for s in ("static", "dynamic")
        }
        r = tot["dynamic"] / tot["static"]
        rows.append(
            _row(
                f"{letter}: dynamic/static parallel writes",
                "<1 (more parallelism)",
                r,
                f"{'holds' if r < 1 else 'does not hold'}; {lab(letter)}",
            )
        )
    for letter in [x for x in ("C", "D", "E", "F") if x in letters]:
        r = val("write_time", letter, "static") / val("write_time", letter, "dynamic")
        rows.append(
            _row(
                f"{letter}: static/dynamic total write time",
                "<1 (static wins)",
                r,
                f"{'holds' if r < 1 else 'does not hold'}; {lab(letter)}",
            )
        )
        d = val("parallel_dirty_writes", letter, "dynamic") - val(
            "parallel_dirty_writes", letter, "static"
        )
        cl = val("parallel_clean_writes", letter, "dynamic") - val(
            "parallel_clean_writes", letter, "static"
        )
        paper = "+4,149 dirty / -2,798 clean (trace C)" if letter == "C" else ">0 dirty"
        rows.append(
            _row(
                f"{letter}: dynamic-static parallel dirty writes",
                paper,
                d,
                f"clean diff {cl:+.0f}; {'holds' if d > 0 else 'does not hold'}; {lab(letter)}",
                4149 if letter == "C" else None,
            )
        )
    lo, hi = PAPER_CLEAN_RATIO
    fewer = 0
    for letter in letters:
        r = val("parallel_clean_writes", letter, "static_full") / val(
            "parallel_clean_writes", letter, "static"
        )
        inside = "inside" if lo <= r <= hi else "outside"
        rows.append(
            _row(
                f"{letter}: static+full/static parallel clean writes",
                "1.5-1.8",
                r,
                f"{inside} the paper's range; {lab(letter)}",
                (lo + hi) / 2,
            )
        )
        fewer += val("parallel_dirty_writes", letter, "static_full") < val(
            "parallel_dirty_writes", letter, "static"
        )
    rows.append(
        _row(
            "traces where static+full has fewer parallel dirty writes",
            len(letters),
            float(fewer),
            "dirty writes of static+full = merge copies (eq. 1)",
            len(letters),
        )
    )
    share = []
    for letter in letters:
        m = val("merge_copy_time", letter, "static_full")
        f = val("refresh_time", letter, "static_full")
        share.append(f / (f + m) if f + m > 0 else np.nan)
    share = np.array(share)
    rows.append(
        _row(
            "min over traces: refresh share of merge cost",
            ">0.5 (refresh dominates)",
            float(np.nanmin(share)) if np.isfinite(share).any() else np.nan,
            f"per trace {np.round(share, 2).tolist()}",
        )
    )
    if "C" in letters:
        for metric, paper in PAPER_C.items():
            scheme = "static" if "static" in metric.split()[1] else "dynamic"
            var = "parallel_clean_writes" if "clean" in metric else "parallel_dirty_writes"
            rows.append(
                _row(
                    metric,
                    paper,
                    val(var, "C", scheme),
                    f"scale only: different trace ({lab('C')})",
                    paper,
                )
            )
    return pd.DataFrame(rows, columns=["metric", "paper", "ours", "rel_diff", "note"])
