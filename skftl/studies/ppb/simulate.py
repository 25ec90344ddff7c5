"""Study `ppb`: Progressive Performance Boosting on 3D charge-trap NAND with fast and slow
pages (Chen et al., DAC'17), Figs. 12-18, as an allocation policy of ``skftl.nand``.

For each page size (8 and 16 KB) and policy variant the device (Table 1, ``ppb.device``)
is preconditioned once: every logical page written once in a seeded random order, then
``age_passes`` x its logical size of uniform random one-page overwrites. Preconditioning
writes are first-stage *cold*: they stand for data already on the drive, so the traces'
writes trigger GC. Trace addresses are renumbered densely (``address_map: compact``) so a
scaled-down device replays the same pages without aliasing. Each trace is then replayed
from a copy of that state at every speed ratio (2x-5x): placement and GC never depend on
timing (static chip striping), so one preconditioned state serves all ratios and the ratio
only changes the per-page latencies.

Policies (``POLICY`` variants): ``page`` = the conventional page-mapped FTL (one write point
per chip, no hotness); ``ppb_split`` = Fig. 3's naive split (first-stage hot -> fast pages,
cold -> slow pages of the same blocks); ``ppb`` = PPB (``skftl.nand.policies_ppb``). Beyond
the paper: ``ppb_vb3/4/8`` (3, 4, 8 speed classes per block), ``ppb_openN`` (N blocks with
free space per area; GC's low watermark rises to 2N + 1 with it), ``ppb_strict`` (the literal
"new VB only when both lists are full", ``max_open = 1``) and ``ppb_bloom`` (multiple bloom
filters instead of the size check as first stage) and ``sk_alloc`` (the ``skrm`` study's
SK-aware allocator alone on this device: it keeps an updated page's page number, hence its
speed class) and ``ppb_sk`` (PPB with that allocator where PPB leaves a choice: which free
block an area opens and which of its blocks in the wanted VB phase is programmed,
``skftl.nand.policies_ppb_sk``). Beside the NAND metrics every run reports what its
mapping updates (host writes and GC copies) cost an L2P table on skyrmion racetrack memory
(the ``skrm`` study's measures, ``skftl.skrm.CostModel`` under PW FTL): the mean 1-bit
difference ``|pop(new) - pop(old)|`` and Hamming distance per update, and the fraction of
updates that keep the block-number popcount. All variants share the
device, FTL settings, seeds and traces; the ``trace`` dimension holds the web server (the MSR web_0
excerpt), the media server (``msr_media``: the real mds trace when present, else the
labelled synthetic preset) and every other real trace found, capped at ``max_requests``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing, policies_ppb, policies_ppb_sk, resolve_nand
from skftl.nand.ftl import log_reserve
from skftl.nand.hotness import identify
from skftl.nand.placement import host_page_positions
from skftl.nand.policies_skftl import block_bits, skftl_pstate
from skftl.pipeline import load_by_id, real_trace_names, workload_for
from skftl.skrm.model import PW_FTL, CostModel, Layout
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests

__all__ = [
    "PAPER_POLICIES",
    "PPB_FAMILY",
    "METRICS",
    "variants",
    "settings",
    "make_ftl",
    "precondition",
    "set_speed",
    "load_traces",
    "compact_addresses",
    "map_addresses",
    "reads_of_rewritten",
    "mapping_costs",
    "run",
]

PAPER_POLICIES = ("page", "ppb_split", "ppb")
PPB_FAMILY = ("ppb", "ppb_split", "ppb_sk")  # policies with PPB's levels and VB lists
SK_OPEN_PER_CLASS = 4  # open blocks per (chip, popcount class) of the SK-aware allocator (skrm)
# mapping-update log entries drained at once (placement.host_page_positions), beyond the
# kernel's per-op reserve of one chip's worth of pages
LOG_SLACK = 1 << 16


@dataclass(frozen=True)
class Variant:
    """One allocation policy setting (a ``policy`` coordinate value)."""

    name: str
    policy: str  # skftl.nand.policy.POLICIES key
    n_vbs: int = 2
    max_open: int = 2
    identifier: str = "size"

    @property
    def precondition_key(self) -> tuple:
        # the identifier only classifies trace writes: preconditioning is identical
        return (self.policy, self.n_vbs, self.max_open)


def variants(section: dict[str, Any]) -> list[Variant]:
    """The paper's three policies, then the beyond-the-paper PPB variants enabled."""
    p = section["policy"]
    base = Variant("ppb", "ppb", int(p["n_vbs"]), int(p["max_open"]), section["identifier"])
    out = [
        Variant("page", "page", identifier=section["identifier"]),
        replace(base, name="ppb_split", policy="ppb_split"),
        base,
    ]
    beyond = section.get("beyond", {}) or {}
    for k in beyond.get("n_vbs", []):
        out.append(replace(base, name=f"ppb_vb{int(k)}", n_vbs=int(k)))
    for k in beyond.get("max_open", []):
        out.append(replace(base, name=f"ppb_open{int(k)}", max_open=int(k)))
    if beyond.get("strict", False):
        out.append(replace(base, name="ppb_strict", max_open=1))
    if beyond.get("bloom", False):
        out.append(replace(base, name="ppb_bloom", identifier="bloom"))
    if beyond.get("sk_allocator", False):
        out.append(Variant("sk_alloc", "sk-ftl", identifier=section["identifier"]))
    if beyond.get("ppb_sk", False):
        out.append(replace(base, name="ppb_sk", policy="ppb_sk"))
    return out


def settings(cfg: dict[str, Any]) -> dict[str, Any]:
    """The ``ppb`` section with ``paper_scale`` merged in when ``scale: paper``."""
    s = dict(cfg["ppb"])
    if s.get("scale", "default") == "paper":
        for k, v in (s.get("paper_scale") or {}).items():
            s[k] = {**s[k], **v} if isinstance(v, dict) and isinstance(s.get(k), dict) else v
    elif s.get("scale", "default") != "default":
        raise ConfigError(f"ppb: scale must be 'default' or 'paper', got {s['scale']!r}")
    return s


# --- device -----------------------------------------------------------------------------
def make_ftl(section: dict[str, Any], page_size: int, variant: Variant) -> Ftl:
    nand = resolve_nand({**section["device"], "page_size": page_size})
    streams = 4
    areas = 2 if variant.policy in ("ppb", "ppb_sk") else 1
    low = max(int(section["ftl"]["gc_low_blocks"]), areas * variant.max_open + 1, streams + 1)
    sk = variant.policy == "sk-ftl"
    sk_lists = variant.policy in ("sk-ftl", "ppb_sk")  # popcount-class free lists
    geo = Geometry.from_config(nand)
    ftl_cfg = FtlConfig(
        n_free_lists=block_bits(geo.n_blocks) + 1 if sk_lists else 1,
        spare_factor=float(section["ftl"]["spare_factor"]),
        gc_policy=str(section["ftl"]["gc_policy"]),
        gc_low_blocks=low,
        gc_high_blocks=max(low, int(section["ftl"]["gc_high_blocks"])),
        chip_alloc="static",  # placement must not depend on timing (see module docstring)
        n_streams=streams,
        policy=variant.policy,
    )
    log = log_reserve(geo) + LOG_SLACK
    pstate = skftl_pstate(geo.n_chips, geo.n_blocks, SK_OPEN_PER_CLASS, "lowest") if sk else None
    ftl = Ftl(geo, Timing.from_config(nand), ftl_cfg, log_capacity=log, pstate=pstate)
    if variant.policy in PPB_FAMILY:
        p = section["policy"]
        attach = policies_ppb_sk.attach if variant.policy == "ppb_sk" else policies_ppb.attach
        attach(
            ftl,
            n_vbs=variant.n_vbs,
            max_open=variant.max_open,
            hot_fraction=float(p["hot_fraction"]),
            iron_hot_fraction=float(p["iron_hot_fraction"]),
            cold_reads=int(p["cold_reads"]),
        )
    return ftl


def precondition(ftl: Ftl, passes: float, seed: int) -> None:
    """Write every logical page once in a seeded random order (cold), then ``passes`` x the
    logical size of uniform random overwrites. The random order matters: written in LPN
    order, each policy would lay the drive out in its own regular pattern, and the reads of
    data the trace never rewrites (most reads) would then measure that pattern, not PPB."""
    ftl.fill(seed=seed)
    k = int(passes * ftl.n_lpn)
    if k:
        lpn = np.random.default_rng(seed + 1).integers(0, ftl.n_lpn, k).astype(np.int32)
        ftl.run_pages(lpn, np.ones(k, np.int8))
    ftl.reset_timelines()


def set_speed(ftl: Ftl, state, section: dict[str, Any], ratio: float) -> None:
    """Per-page latencies of ``state`` for a slowest/fastest ratio (``device.speed_anchor``
    fixes which page Table 1's latencies describe)."""
    t = Timing.from_config(resolve_nand({**section["device"], "speed_ratio": ratio}))
    ftl.timing = t
    state.read_ns[:], state.prog_ns[:] = t.page_tables(ftl.geometry.pages_per_block)


# --- traces -----------------------------------------------------------------------------
def load_traces(cfg: dict[str, Any], section: dict[str, Any]) -> dict[str, Requests]:
    """``web`` and ``media`` (paper traces) then every other real trace found."""
    cap = section.get("max_requests")
    out: dict[str, Requests] = {}
    for key, name in section["traces"].items():
        out[key] = workload_for(name, cfg, n_requests=int(section["synthetic_requests"]))
    used = {r.meta.name for r in out.values()}
    extra = section.get("extra_traces", "all")
    names = real_trace_names(cfg) if extra == "all" else list(extra or [])
    for name in names:
        if name not in used:
            out[name] = load_by_id(name, cfg)
    return {k: (r.head(int(cap)) if cap else r) for k, r in out.items()}


def compact_addresses(req: Requests, page_size: int) -> Requests:
    """The same requests with the logical pages they touch renumbered densely in address
    order (page ``k``-th smallest touched -> ``k``), offsets within a page kept. Unlike
    folding addresses modulo a smaller capacity, this never makes two different pages of the
    trace one page of the device, so a scaled-down device replays the same access pattern
    (as long as the footprint fits; the replay folds what does not)."""
    if not len(req):
        return req
    touched = np.unique(expand_to_pages(req, page_size).lpn)
    first = req.offset_bytes // page_size
    # a request touches consecutive pages, all in ``touched``: their ranks are consecutive
    rank = np.searchsorted(touched, first)
    return Requests(
        req.time_ns,
        rank * page_size + req.offset_bytes % page_size,
        req.size_bytes,
        req.is_write,
        req.meta,
    )


def map_addresses(req: Requests, page_size: int, section: dict[str, Any]) -> Requests:
    """``address_map: compact`` (default) or ``wrap`` (fold modulo the capacity only)."""
    how = section.get("address_map", "compact")
    if how == "compact":
        return compact_addresses(req, page_size)
    if how == "wrap":
        return req
    raise ConfigError(f"ppb: address_map must be 'compact' or 'wrap', got {how!r}")


def reads_of_rewritten(req: Requests, page_size: int) -> float:
    """Fraction of the trace's page reads that hit a page the trace itself wrote earlier:
    the only reads a policy that places data when it is written (PPB, the naive split) can
    speed up; the rest read data laid out by preconditioning."""
    ops = expand_to_pages(req, page_size)
    if not (~ops.is_write).any():
        return np.nan
    idx = np.arange(len(ops.lpn))
    _, lpn = np.unique(ops.lpn, return_inverse=True)
    first_write = np.full(lpn.max() + 1, len(idx))
    np.minimum.at(first_write, lpn[ops.is_write], idx[ops.is_write])
    rd = ~ops.is_write
    return float((first_write[lpn[rd]] < idx[rd]).mean())


# --- run --------------------------------------------------------------------------------
METRICS = {
    "read_latency": ("us", "mean read request response time"),
    "write_latency": ("us", "mean write request response time"),
    "read_latency_p99": ("us", "99th percentile read request response time"),
    "read_array": ("us", "mean array read time of host page reads (page speed only, no queueing)"),
    "write_array": ("us", "mean program time of host page writes (page speed only, no queueing)"),
    "read_array_rewritten": (
        "us",
        "mean array read time of host page reads of data the trace wrote earlier (placed by "
        "the policy during the replay)",
    ),
    "read_array_other": (
        "us",
        "mean array read time of the other host page reads (data laid out by preconditioning)",
    ),
    "erases": ("blocks", "blocks erased during the trace replay"),
    "gc_copies": ("pages", "valid pages copied by GC during the trace replay"),
    "host_writes": ("pages", "host page writes"),
    "want_fast": ("pages", "programs (host + GC) whose level wants the fastest VB class"),
    "got_fast": ("pages", "... of which landed in the fastest VB class"),
    "diverted": ("pages", "programs diverted to another VB class than wanted"),
    "promotions": ("entries", "hot -> iron-hot promotions (reads of hot-list entries)"),
    "bit_diff": ("bits", "mean 1-bit difference |pop(new) - pop(old)| per mapping update (skrm)"),
    "hamming": ("bits", "mean Hamming distance pop(new ^ old) per mapping update (skrm)"),
    "block_pop_kept": ("1", "fraction of mapping updates keeping the block-number popcount"),
}


def mapping_costs(
    l2p: np.ndarray, lpn: np.ndarray, old: np.ndarray, new: np.ndarray, geo: Geometry
) -> dict[str, float]:
    """What the replay's mapping updates (host writes, GC copies; trims excluded) cost an
    L2P table on skyrmion racetrack memory, with the ``skrm`` study's cost model (PW FTL,
    entries as wide as the device's largest PPN, each starting with the skyrmions of its
    preconditioned mapping)."""
    upd = (old >= 0) & (new >= 0)
    if not upd.any():
        return {"bit_diff": np.nan, "hamming": np.nan, "block_pop_kept": np.nan}
    n_pages = geo.n_blocks * geo.pages_per_block
    model = CostModel(Layout(entry_bits=max(1, (n_pages - 1).bit_length())), PW_FTL, len(l2p))
    model.cnt[:] = np.where(l2p >= 0, np.bitwise_count(np.maximum(l2p, 0)), 0)
    model.update(lpn, old, new)
    c = model.counters()
    np_ = geo.pages_per_block
    kept = np.bitwise_count(old[upd] // np_) == np.bitwise_count(new[upd] // np_)
    return {
        "bit_diff": c["bitdiff"] / c["successive"],
        "hamming": c["hamming"] / c["successive"],
        "block_pop_kept": float(kept.mean()),
    }


def _replay(ftl: Ftl, snapshot, req: Requests, stream: np.ndarray | None) -> dict[str, float]:
    """Replay ``req`` from a copy of ``snapshot``; metrics of the replay alone."""
    ftl.state = snapshot._make(a.copy() for a in snapshot)
    ppb_like = ftl.config.policy in PPB_FAMILY
    stats0 = policies_ppb.stats(ftl.state.pstate) if ppb_like else None
    logs: list[list[np.ndarray]] = []
    res = ftl.replay(
        req, stream=stream, wrap=True, on_log=lambda *a: logs.append([x.copy() for x in a])
    )
    ops = expand_to_pages(req, ftl.geometry.page_size)
    lpn = (ops.lpn % ftl.n_lpn).astype(np.int32)
    log_lpn, log_old, log_new, log_kind = (
        (np.concatenate(x) for x in zip(*logs, strict=True))
        if logs
        else (np.zeros(0, np.int32),) * 4
    )
    pos = host_page_positions(
        snapshot.l2p,
        lpn,
        ops.is_write.astype(np.int8),
        log_lpn,
        log_new,
        log_kind.astype(np.int8),
        ftl.geometry.pages_per_block,
    )
    rd_mask = ~ops.is_write & (pos >= 0)
    # reads of pages this replay wrote earlier: the only ones a write-time placement can move
    idx = np.arange(len(lpn))
    first_write = np.full(ftl.n_lpn, len(lpn))
    np.minimum.at(first_write, lpn[ops.is_write], idx[ops.is_write])
    rewritten = first_write[lpn] < idx
    rd_pos, rw_pos, other_pos = (
        pos[rd_mask],
        pos[rd_mask & rewritten],
        pos[rd_mask & ~rewritten],
    )
    wr_pos = pos[ops.is_write]
    lat = res.latency_ns / 1e3
    rd, wr = lat[~res.is_write], lat[res.is_write]
    out = {
        "read_latency": float(rd.mean()) if len(rd) else np.nan,
        "write_latency": float(wr.mean()) if len(wr) else np.nan,
        "read_latency_p99": float(np.quantile(rd, 0.99)) if len(rd) else np.nan,
        "read_array": float(snapshot.read_ns[rd_pos].mean() / 1e3) if len(rd_pos) else np.nan,
        "write_array": float(snapshot.prog_ns[wr_pos].mean() / 1e3) if len(wr_pos) else np.nan,
        "read_array_rewritten": float(snapshot.read_ns[rw_pos].mean() / 1e3)
        if len(rw_pos)
        else np.nan,
        "read_array_other": float(snapshot.read_ns[other_pos].mean() / 1e3)
        if len(other_pos)
        else np.nan,
        "erases": res.counters["erases"],
        "gc_copies": res.counters["gc_copies"],
        "host_writes": res.counters["host_writes"],
        **mapping_costs(snapshot.l2p, log_lpn, log_old, log_new, ftl.geometry),
    }
    if stats0 is not None:
        s1 = policies_ppb.stats(ftl.state.pstate)
        out.update(
            {k: s1[k] - stats0[k] for k in ("want_fast", "got_fast", "diverted", "promotions")}
        )
    return out


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    section = settings(cfg)
    seed = int(cfg["seed"])
    page_sizes = [int(x) for x in section["page_sizes"]]
    ratios = [float(x) for x in section["speed_ratios"]]
    vs = variants(section)
    traces = load_traces(cfg, section)
    main = list(section["traces"])
    shape = (len(traces), len(page_sizes), len(ratios), len(vs))
    data = {k: np.full(shape, np.nan) for k in METRICS}
    jobs = sum(
        len(ratios) * (len(traces) if v.name in PAPER_POLICIES else len(main))
        for v in vs
        for _ in page_sizes
    )
    bar = tqdm(total=jobs, desc="ppb replays", disable=not progress)
    streams: dict[tuple, np.ndarray] = {}
    mapped: dict[tuple, Requests] = {}
    for j, page_size in enumerate(page_sizes):
        snapshots: dict[tuple, tuple[Ftl, Any]] = {}
        # last variant using each preconditioned state: drop it after (paper scale holds
        # ~250 MB per state)
        last_use = {v.precondition_key: m for m, v in enumerate(vs)}
        for m, v in enumerate(vs):
            if v.precondition_key not in snapshots:
                ftl = make_ftl(section, page_size, v)
                precondition(ftl, float(section["age_passes"]), seed)
                snapshots[v.precondition_key] = (ftl, ftl.state)
            ftl, snap = snapshots[v.precondition_key]
            for i, (key, req) in enumerate(traces.items()):
                if v.name not in PAPER_POLICIES and key not in main:
                    continue
                sk = (key, page_size, v.identifier)
                if sk not in streams:
                    streams[sk] = identify(req, page_size, v.identifier, section)
                if (key, page_size) not in mapped:
                    mapped[(key, page_size)] = map_addresses(req, page_size, section)
                for r, ratio in enumerate(ratios):
                    set_speed(ftl, snap, section, ratio)
                    stream = streams[sk] if v.policy in PPB_FAMILY else None
                    out = _replay(ftl, snap, mapped[(key, page_size)], stream)
                    for k, val in out.items():
                        data[k][i, j, r, m] = val
                    bar.update(1)
            if last_use[v.precondition_key] == m:
                del snapshots[v.precondition_key], ftl, snap
    bar.close()
    names = [v.name for v in vs]
    conv = names.index("page")
    ds = xr.Dataset(
        {
            k: (
                ("trace", "page_size", "speed_ratio", "policy"),
                data[k],
                {"units": u, "long_name": ln},
            )
            for k, (u, ln) in METRICS.items()
        },
        coords={
            "trace": ("trace", list(traces), {"long_name": "workload (web/media: paper traces)"}),
            "page_size": ("page_size", page_sizes, {"units": "bytes", "long_name": "page size"}),
            "speed_ratio": (
                "speed_ratio",
                ratios,
                {"units": "1", "long_name": "slowest / fastest page latency within a block"},
            ),
            "policy": ("policy", names, {"long_name": "allocation policy"}),
            "trace_label": (
                "trace",
                [r.meta.label for r in traces.values()],
                {"long_name": "trace label"},
            ),
            "trace_sha256": (
                "trace",
                [r.meta.sha256 or "" for r in traces.values()],
                {"long_name": "trace sha256"},
            ),
            "trace_synthetic": (
                "trace",
                [int(r.meta.synthetic) for r in traces.values()],
                {"long_name": "synthetic stand-in (1) or real trace (0)"},
            ),
            "reads_of_rewritten": (
                ("trace", "page_size"),
                np.array([[reads_of_rewritten(r, p) for p in page_sizes] for r in traces.values()]),
                {
                    "units": "1",
                    "long_name": "fraction of page reads that hit a page the trace wrote earlier",
                },
            ),
            "trace_requests": (
                "trace",
                [len(r) for r in traces.values()],
                {"units": "requests", "long_name": "requests replayed"},
            ),
        },
    )
    for d in ("read", "write"):
        for what, var in (("latency", f"{d}_latency"), ("array", f"{d}_array")):
            lat = ds[var]
            ref = lat.isel(policy=conv)
            name = f"{d}_improvement" if what == "latency" else f"{d}_array_improvement"
            ds[name] = (100.0 * (ref - lat) / ref).assign_attrs(
                units="%",
                long_name=f"{d} {'request latency' if what == 'latency' else 'array time'} "
                "improvement over the conventional FTL",
            )
    ds.attrs.update(
        study="ppb",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": seed, "ppb": cfg["ppb"]}),
        scale=str(section.get("scale", "default")),
    )
    return ds
