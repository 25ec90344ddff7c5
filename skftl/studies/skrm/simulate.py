"""Study `skrm`: the L2P table of a page-mapped FTL on skyrmion racetrack memory (Yang et
al., "Exploring Skyrmion Racetrack Memory for High Performance Full-Nonvolatile FTL").

Per trace, the NAND FTL (``skrm.nand``, the paper's 64 GB / 16 KB-page device) replays the
trace twice: with the conventional allocator and with SK-FTL's SK-aware allocator. Each
replay's mapping-update log (host writes, GC copies, trims) drives SK-RM cost models
(``skftl.skrm``): FTL (naive) and PW FTL on the conventional stream, SK-FTL on the
SK-aware one (Figs. 9-13), under the paper's counting and SK-RMSim's; the replays'
response times give Fig. 14. The logs are kept, so the ablation (each SK-FTL component
on/off) and the layout sweeps (W, K, vertical reach) cost no further NAND replay; the
over-provisioning and utilisation sweeps replay one workload again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.errors import ConfigError, UnknownTraceError
from skftl.nand import Geometry, resolve_nand
from skftl.pipeline import workload_for
from skftl.skrm import CostModel, Layout, OpCosts, Scheme, ablation_schemes
from skftl.skrm.model import OPS, PAPER_SCHEMES
from skftl.skrm.nand_side import make_ftl
from skftl.traces.pages import expand_to_pages
from skftl.traces.requests import Requests

__all__ = ["ALLOCATORS", "load_workloads", "replay", "cost", "run", "sensitivity"]

ALLOCATORS = ("conventional", "sk-aware")


# --- inputs ---------------------------------------------------------------------------------
def load_workloads(cfg: dict[str, Any]) -> dict[str, Requests]:
    """The study's traces: per key of ``skrm.traces``, the first real candidate found, else
    its synthetic preset (labelled), else (no preset) the trace is left out."""
    sec = cfg["skrm"]
    out: dict[str, Requests] = {}
    for key, spec in sec["traces"].items():
        preset = spec.get("preset")
        try:
            req = workload_for(
                preset or key,
                cfg,
                candidates=list(spec.get("candidates", [])),
                n_requests=int(sec["synthetic_requests"]),
                allow_synthetic=preset is not None,
            )
        except UnknownTraceError:
            continue
        cap = sec.get("n_requests")
        if cap is not None and len(req) > int(cap):
            req = req.head(int(cap))
        out[key] = req
    if not out:
        raise ConfigError("skrm: no trace of skrm.traces is available")
    return out


class UpdateLog:
    """The mapping-update stream of one replay, kept for re-costing (int32 columns)."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def __call__(self, lpn, old, new, kind) -> None:
        self.parts.append((lpn.copy(), old.copy(), new.copy()))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.parts:
            z = np.zeros(0, np.int32)
            return z, z, z
        return tuple(np.concatenate(c) for c in zip(*self.parts, strict=True))  # type: ignore[return-value]


def replay(
    sec: dict[str, Any], req: Requests, sk_allocator: bool, seed: int, **overrides: Any
) -> dict[str, Any]:
    """One NAND replay of ``req``; returns the update log (preconditioning excluded), the
    logical-table size and NAND results. With ``prefill_reads`` the pages the trace reads
    are written once first (the volume held data before the trace began; reads of
    never-written pages would cost no flash access). ``overrides`` replace ``spare_factor`` (of the
    ``ftl`` subsection), ``fill_fraction``, ``open_per_class`` or ``first_write``.
    ``fill_fraction`` > 0 first writes that fraction of the logical pages (seeded random
    order). Preconditioning writes are part of the table's state, not of the counted
    updates or NAND latencies."""
    ftl_sec = dict(sec["ftl"])
    if "spare_factor" in overrides:
        ftl_sec["spare_factor"] = overrides.pop("spare_factor")
    opt = {k: overrides.get(k, sec[k]) for k in ("fill_fraction", "open_per_class", "first_write")}
    ftl = make_ftl(
        dict(sec["nand"]),
        ftl_sec,
        sk_allocator=sk_allocator,
        open_per_class=int(opt["open_per_class"]),
        first_write=str(opt["first_write"]),
    )
    fill = float(opt["fill_fraction"])
    pre = UpdateLog()
    lpn = np.zeros(0, np.int64)
    if fill > 0:
        rng = np.random.default_rng(seed)
        lpn = rng.permutation(ftl.n_lpn)[: int(fill * ftl.n_lpn)]
    if sec.get("prefill_reads", False):
        # data the trace reads existed before it started: write those pages once, in order
        ops = expand_to_pages(req, ftl.geometry.page_size)
        reads = np.unique(ops.lpn[~ops.is_write] % ftl.n_lpn)
        lpn = np.concatenate([lpn, reads[~np.isin(reads, lpn)]])
    if len(lpn):
        ftl.run_pages(lpn.astype(np.int32), np.ones(len(lpn), np.int8), on_log=pre)
        ftl.reset_timelines()
    log = UpdateLog()
    res = ftl.replay(req, wrap=bool(sec.get("wrap", True)), on_log=log)
    lat_us = res.latency_ns / 1e3
    return {
        "pre": pre.arrays(),
        "log": log.arrays(),
        "n_lpn": ftl.n_lpn,
        "read_us": float(lat_us[~res.is_write].mean()) if (~res.is_write).any() else np.nan,
        "write_us": float(lat_us[res.is_write].mean()) if res.is_write.any() else np.nan,
        "counters": res.counters,
    }


def cost(run: dict[str, Any], layout: Layout, scheme: Scheme) -> CostModel:
    """A cost model of ``scheme`` after the replay's updates (preconditioning applied to
    the state, then the counters cleared)."""
    m = CostModel(layout, scheme, run["n_lpn"])
    if len(run["pre"][0]):
        m.update(*run["pre"])
        m.ctr[:] = 0
    m.update(*run["log"])
    return m


def _scheme_run(scheme: Scheme, runs: dict[str, dict]) -> dict[str, Any]:
    return runs["sk-aware" if scheme.allocator else "conventional"]


# --- study ----------------------------------------------------------------------------------
def _settings(sec: dict[str, Any]) -> dict[str, Any]:
    if sec.get("scale", "default") == "paper":
        return {**sec, **(sec.get("paper_scale") or {})}
    return sec


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    sec = _settings(cfg["skrm"])
    cfg = {**cfg, "skrm": sec}
    seed = int(cfg["seed"])
    layout = Layout.from_config(sec["layout"])
    costs = OpCosts.from_config(sec["costs"])
    traces = load_workloads(cfg)
    keys = list(traces)
    labels = [traces[k].meta.label for k in keys]
    paper = [s.name for s in PAPER_SCHEMES]
    abl = ablation_schemes()
    n_t, n_s, n_o, n_a = len(keys), len(paper), len(OPS), len(abl)
    counts = np.zeros((2, n_t, n_s, n_o), np.int64)  # [convention, trace, scheme, op]
    extra_names = (
        "inject_first",
        "updates",
        "trims",
        "successive",
        "bitdiff",
        "hamming",
        "reused",
        "parked",
        "vshift",
    )
    extra = np.zeros((len(extra_names), n_t, n_s), np.int64)
    nand_lat = np.zeros((2, n_t, n_s))
    nand_ctr = np.zeros((3, n_t, 2), np.int64)  # host_writes, gc_copies, erases per allocator
    abl_counts = np.zeros((n_t, n_a, n_o), np.int64)
    abl_bitdiff = np.zeros((n_t, n_a), np.int64)
    logs: dict[str, dict[str, dict]] = {}
    for i, key in enumerate(tqdm(keys, desc="skrm traces", disable=not progress)):
        runs = {a: replay(sec, traces[key], a == "sk-aware", seed) for a in ALLOCATORS}
        logs[key] = runs
        for j, a in enumerate(ALLOCATORS):
            for m, name in enumerate(("host_writes", "gc_copies", "erases")):
                nand_ctr[m, i, j] = runs[a]["counters"][name]
        for j, s in enumerate(PAPER_SCHEMES):
            r = _scheme_run(s, runs)
            for cv, conv in enumerate(("paper", "skrmsim")):
                c = cost(r, layout, replace(s, convention=conv)).counters()
                counts[cv, i, j] = [c[o] for o in OPS]
                if conv == "paper":
                    extra[:, i, j] = [c[n] for n in extra_names]
            nand_lat[:, i, j] = r["read_us"], r["write_us"]
        for j, s in enumerate(abl):
            c = cost(_scheme_run(s, runs), layout, s).counters()
            abl_counts[i, j] = [c[o] for o in OPS]
            abl_bitdiff[i, j] = c["bitdiff"]
    lat = counts * np.array([getattr(costs, f"{o}_ns") for o in OPS])
    en = counts[0] * np.array([getattr(costs, f"{o}_pj") for o in OPS])
    coords = {
        "trace": ("trace", labels, {"long_name": "workload (label says real or synthetic)"}),
        "trace_key": ("trace", keys, {"long_name": "key in skrm.traces"}),
        "scheme": ("scheme", paper, {"long_name": "SK-RM write scheme"}),
        "op": ("op", list(OPS), {"long_name": "SK-RM operation"}),
        "convention": (
            "convention",
            ["paper", "skrmsim"],
            {"long_name": "counting convention (paper's reading / SK-RMSim)"},
        ),
        "allocator": ("allocator", list(ALLOCATORS), {"long_name": "NAND page allocator"}),
        "variant": ("variant", [s.name for s in abl], {"long_name": "ablation variant"}),
    }
    ev = {
        "inject_first": ("skyrmions injected by first writes of free entries", "skyrmions"),
        "updates": ("entry writes (host writes + GC copies)", "updates"),
        "trims": ("entry trims", "updates"),
        "successive": ("updates of an entry with a valid mapping", "updates"),
        "bitdiff": ("accumulated 1-bit difference |pop(new) - pop(old)| (Fig. 13)", "bits"),
        "hamming": ("accumulated Hamming distance pop(new ^ old)", "bits"),
        "reused": ("parked skyrmions reused instead of injected", "skyrmions"),
        "parked": ("surplus skyrmions parked instead of removed", "skyrmions"),
        "vshift": ("vertical shifts (part of the shift count)", "shifts"),
    }
    data = {
        "op_count": (
            ("convention", "trace", "scheme", "op"),
            counts,
            {"units": "operations", "long_name": "accumulated SK-RM operations"},
        ),
        "op_latency": (
            ("convention", "trace", "scheme", "op"),
            lat,
            {"units": "ns", "long_name": "accumulated SK-RM operation latency (Figs. 9-12)"},
        ),
        "op_energy": (
            ("trace", "scheme", "op"),
            en,
            {
                "units": "pJ",
                "long_name": "accumulated SK-RM operation energy (assumed per-op energies)",
            },
        ),
        "nand_read_latency": (
            ("trace", "scheme"),
            nand_lat[0],
            {"units": "us", "long_name": "mean NAND read response time (Fig. 14)"},
        ),
        "nand_write_latency": (
            ("trace", "scheme"),
            nand_lat[1],
            {"units": "us", "long_name": "mean NAND write response time (Fig. 14)"},
        ),
        "host_page_writes": (
            ("trace", "allocator"),
            nand_ctr[0],
            {"units": "pages", "long_name": "host page writes"},
        ),
        "gc_copies": (
            ("trace", "allocator"),
            nand_ctr[1],
            {"units": "pages", "long_name": "GC page copies"},
        ),
        "erases": (
            ("trace", "allocator"),
            nand_ctr[2],
            {"units": "blocks", "long_name": "block erases"},
        ),
        "ablation_op_count": (
            ("trace", "variant", "op"),
            abl_counts,
            {"units": "operations", "long_name": "accumulated SK-RM operations, ablation"},
        ),
        "ablation_bitdiff": (
            ("trace", "variant"),
            abl_bitdiff,
            {"units": "bits", "long_name": "accumulated 1-bit difference, ablation"},
        ),
    }
    for n, name in enumerate(extra_names):
        long_name, units = ev[name]
        data[name] = (("trace", "scheme"), extra[n], {"units": units, "long_name": long_name})
    ds = xr.Dataset(data, coords=coords)
    # the set-up Sec. IV-A states, as the run used it (the claims check them)
    geo = Geometry.from_config(resolve_nand(dict(sec["nand"])))
    ds["nand_capacity"] = (
        (),
        geo.capacity_bytes / 2**30,
        {"units": "GiB", "long_name": "simulated NAND capacity (physical)"},
    )
    ds["page_size"] = ((), geo.page_size / 1024, {"units": "KiB", "long_name": "NAND page size"})
    ds["op_unit_latency"] = (
        "op",
        [getattr(costs, f"{o}_ns") for o in OPS],
        {"units": "ns", "long_name": "latency of one SK-RM operation (Table II)"},
    )
    ds["ablation_allocator"] = (
        "variant",
        [int(s.allocator) for s in abl],
        {"units": "1", "long_name": "SK-aware allocator on"},
    )
    ds["ablation_vertical"] = (
        "variant",
        [int(s.vertical) for s in abl],
        {"units": "1", "long_name": "vertical shift on"},
    )
    ds["ablation_buffering"] = (
        "variant",
        [int(s.buffering) for s in abl],
        {"units": "1", "long_name": "active SK buffering on"},
    )
    sens_ds = sensitivity(cfg, traces, logs, layout, costs, progress)
    ds = xr.merge([ds, sens_ds], combine_attrs="override")
    ds.attrs.update(
        sensitivity_trace=sens_ds.attrs["sensitivity_trace"],
        study="skrm",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": cfg["seed"], "skrm": sec}),
        trace_labels=yaml.safe_dump(dict(zip(keys, labels, strict=True))),
        trace_sha256=yaml.safe_dump({k: traces[k].meta.sha256 for k in keys}),
        trace_synthetic=yaml.safe_dump({k: bool(traces[k].meta.synthetic) for k in keys}),
    )
    return ds


def sensitivity(
    cfg: dict[str, Any],
    traces: dict[str, Requests],
    logs: dict[str, dict],
    layout: Layout,
    costs: OpCosts,
    progress: bool,
) -> xr.Dataset:
    """One-parameter sweeps on ``skrm.sensitivity.workload``: W, K and vertical reach
    re-cost the kept logs; spare factor and fill fraction replay the NAND side again.
    Each gives the accumulated latency per (value, scheme, op)."""
    sec = cfg["skrm"]
    sens = sec["sensitivity"]
    key = sens["workload"] if sens["workload"] in traces else next(iter(traces))
    runs = logs[key]
    seed = int(cfg["seed"])
    per_ns = np.array([getattr(costs, f"{o}_ns") for o in OPS])
    data = {}
    coords = {}
    sweeps = [
        ("entry_bits", "bits", "entry width W"),
        ("entries_per_track", "entries", "entries per racetrack K"),
        ("vertical_reach", "racetracks", "vertical reach"),
        ("spare_factor", "1", "over-provisioning (spare factor)"),
        ("fill_fraction", "1", "logical pages written before the trace"),
        ("open_per_class", "blocks", "open blocks per (chip, popcount class)"),
    ]
    nand_params = ("spare_factor", "fill_fraction", "open_per_class")
    total = sum(len(sens[p]) for p, _, _ in sweeps)
    bar = tqdm(total=total, desc=f"skrm sensitivity ({key})", disable=not progress)
    for param, units, long_name in sweeps:
        values = list(sens[param])
        out = np.zeros((len(values), len(PAPER_SCHEMES), len(OPS)))
        bd = np.zeros((len(values), len(PAPER_SCHEMES)))
        nl = np.zeros((2, len(values), len(PAPER_SCHEMES)))
        for v, value in enumerate(values):
            if param in nand_params:
                r = {
                    a: replay(sec, traces[key], a == "sk-aware", seed, **{param: value})
                    for a in ALLOCATORS
                }
                lay = layout
            else:
                r = runs
                lay = replace(layout, **{param: int(value)})
            for j, s in enumerate(PAPER_SCHEMES):
                c = cost(_scheme_run(s, r), lay, s).counters()
                out[v, j] = np.array([c[o] for o in OPS]) * per_ns
                bd[v, j] = c["bitdiff"]
                nl[:, v, j] = _scheme_run(s, r)["read_us"], _scheme_run(s, r)["write_us"]
            bar.update()
        dim = f"sens_{param}"
        coords[dim] = (dim, values, {"units": units, "long_name": long_name})
        data[f"sens_{param}_latency"] = (
            (dim, "scheme", "op"),
            out,
            {"units": "ns", "long_name": f"accumulated SK-RM latency vs {long_name}"},
        )
        data[f"sens_{param}_bitdiff"] = (
            (dim, "scheme"),
            bd,
            {"units": "bits", "long_name": f"accumulated 1-bit difference vs {long_name}"},
        )
        for d, direction in enumerate(("read", "write")):
            data[f"sens_{param}_nand_{direction}"] = (
                (dim, "scheme"),
                nl[d],
                {"units": "us", "long_name": f"mean NAND {direction} response time vs {long_name}"},
            )
    bar.close()
    return xr.Dataset(data, coords=coords, attrs={"sensitivity_trace": traces[key].meta.label})
