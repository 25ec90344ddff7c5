"""Study `ppb`: Progressive Performance Boosting on 3D charge-trap NAND with fast and slow
pages (Chen et al., DAC'17), Figs. 12-18, as an allocation policy of ``skftl.nand``.

The paper does not say what was on the drive before a trace, so the drive's state is a
switch (``ppb.preconditioning.setups``, ``skftl.studies.ppb.setups``): ``fill`` (default:
every logical page written once in a seeded random order, then ``age_passes`` x its
logical size of random overwrites; the data stand for what was already on the drive, so the
traces' writes trigger GC), ``none``, ``footprint``, ``warmup`` and ``aged`` (a small drive
sized to the trace and warmed by several replays, where GC runs steadily). Every set-up is
run side by side for the paper's policies (and ``ppb_strict``) on the paper traces; the
``fill`` set-up is also run over ``fill_seeds`` seeds for the latency statistics.
Trace addresses are renumbered densely (``address_map: compact``) so a scaled-down device
replays the same pages without aliasing. Each trace is replayed from a copy of the
preconditioned state at every speed ratio (2x-5x): placement and GC never depend on timing
(static chip striping), so one state serves all ratios and the ratio only changes the
per-page latencies; the placement measures come from the first ratio's mapping-update log,
and the other ratios' logs are only checked against it (a signature), not kept. Beside
mean latencies each replay reports the median and p90 of read requests, the reads that
arrived during a GC burst on their chip (and the mean without them), and program time
over host writes alone and over all programs (host, GC and migrations), see
``skftl.studies.ppb.measures``.

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
``skftl.nand.policies_ppb_sk``) and ``ppb_migrate_cold`` (PPB with the other
``policy.migrate`` setting: the cold area moves data a read makes cold right away, or, with
``migrate: cold`` the default, ``ppb_migrate_none`` without). Beside the NAND metrics every
run reports what its mapping updates (host writes, GC copies and migrations) cost an L2P
table on skyrmion racetrack memory (the ``skrm`` study's measures, ``skftl.skrm.CostModel``
under PW FTL): the mean 1-bit
difference ``|pop(new) - pop(old)|`` and Hamming distance per update, and the fraction of
updates that keep the block-number popcount. All variants share the
device, FTL settings, seeds and traces; the ``trace`` dimension holds the web server (the MSR web_0
excerpt, whole unless ``max_requests`` caps it), the media server (``msr_media``: the real
mds trace when present, else the labelled synthetic preset) and every other real trace
found, capped at ``extra_max_requests`` (default set-up only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import validate_sections
from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing, policies_ppb, policies_ppb_sk, resolve_nand
from skftl.nand.ftl import flash_log_reserve, log_reserve
from skftl.nand.hotness import identify
from skftl.nand.placement import host_page_positions
from skftl.nand.policies_skftl import block_bits, skftl_pstate
from skftl.run_traces import load_by_id, real_trace_names, workload_for
from skftl.skrm.model import PW_FTL, CostModel, Layout
from skftl.studies.ppb import measures
from skftl.studies.ppb.measures import read_shares
from skftl.studies.ppb.setups import (
    DEFAULT_SETUP,
    SETUPS,
    TRACE_SETUPS,
    aged_section,
    prepare,
    setup_settings,
)
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
    "SETUPS",
    "DEFAULT_SETUP",
    "SETUP_POLICIES",
    "at_setup",
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
    migrate: str = "none"  # policies_ppb.MIGRATE key (the PPB family only)

    @property
    def precondition_key(self) -> tuple:
        # the identifier only classifies trace writes: preconditioning is identical
        return (self.policy, self.n_vbs, self.max_open, self.migrate)


def variants(section: dict[str, Any]) -> list[Variant]:
    """The paper's three policies, then the beyond-the-paper PPB variants enabled."""
    p = section["policy"]
    migrate = str(p.get("migrate", "none"))
    base = Variant(
        "ppb", "ppb", int(p["n_vbs"]), int(p["max_open"]), section["identifier"], migrate
    )
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
    if beyond.get("migrate", False):
        other = "cold" if migrate == "none" else "none"
        out.append(replace(base, name=f"ppb_migrate_{other}", migrate=other))
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
    """A fresh drive for ``variant``, logging mapping updates and flash operations."""
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
    ftl = Ftl(
        geo,
        Timing.from_config(nand),
        ftl_cfg,
        log_capacity=log,
        pstate=pstate,
        flash_log_capacity=flash_log_reserve(geo) + LOG_SLACK,
    )
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
            migrate=variant.migrate,
        )
    return ftl


def precondition(ftl: Ftl, passes: float, seed: int) -> None:
    """The ``fill`` set-up: every logical page once in a seeded random order (cold), then
    ``passes`` x the logical size of uniform random overwrites. The random order matters:
    written in LPN order, each policy would lay the drive out in its own regular pattern,
    and the reads of data the trace never rewrites would then measure that pattern."""
    prepare(ftl, "fill", {"age_passes": passes}, seed)


def set_speed(ftl: Ftl, state, section: dict[str, Any], ratio: float) -> None:
    """Per-page latencies of ``state`` for a slowest/fastest ratio (``device.speed_anchor``
    fixes which page Table 1's latencies describe)."""
    t = Timing.from_config(resolve_nand({**section["device"], "speed_ratio": ratio}))
    ftl.timing = t
    state.read_ns[:], state.prog_ns[:] = t.page_tables(ftl.geometry.pages_per_block)


# --- traces -----------------------------------------------------------------------------
def load_traces(cfg: dict[str, Any], section: dict[str, Any]) -> dict[str, Requests]:
    """``web`` and ``media`` (paper traces, capped at ``max_requests``: null = whole) then
    every other real trace found (capped at ``extra_max_requests``)."""
    out: dict[str, Requests] = {}
    for key, name in section["traces"].items():
        out[key] = workload_for(name, cfg, n_requests=int(section["synthetic_requests"]))
    used = {r.meta.name for r in out.values()}
    extra = section.get("extra_traces", "all")
    names = real_trace_names(cfg) if extra == "all" else list(extra or [])
    for name in names:
        if name not in used:
            out[name] = load_by_id(name, cfg)
    main = set(section["traces"])

    def cap(key: str) -> int | None:
        c = section.get("max_requests") if key in main else section.get("extra_max_requests")
        return int(c) if c else None

    return {k: (r.head(cap(k)) if cap(k) else r) for k, r in out.items()}


def compact_addresses(req: Requests, page_size: int) -> Requests:
    """The same requests with the logical pages they touch renumbered densely in address
    order (page ``k``-th smallest touched -> ``k``), offsets within a page kept. Unlike
    folding addresses modulo a smaller capacity, this never makes two different pages of the
    trace one page of the device, so a scaled-down device replays the same access pattern
    (as long as the footprint fits; the replay folds what does not)."""
    if not len(req):
        return req
    touched = measures.distinct(expand_to_pages(req, page_size).lpn)
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
    return read_shares(req, page_size)["written"]


# --- run --------------------------------------------------------------------------------
METRICS = {
    "read_latency": ("us", "mean read request response time"),
    "write_latency": ("us", "mean write request response time"),
    "read_latency_p99": ("us", "99th percentile read request response time"),
    "read_latency_median": ("us", "median read request response time"),
    "read_latency_p90": ("us", "90th percentile read request response time"),
    "read_latency_unstalled": (
        "us",
        "mean response time of the read requests that did not arrive during a GC burst on "
        "their chip",
    ),
    "read_gc_stalled": (
        "1",
        "fraction of read requests arriving while a GC burst on their chip was still running",
    ),
    "read_gc_latency_share": ("1", "share of total read response time carried by those reads"),
    "read_array": ("us", "mean array read time of host page reads (page speed only, no queueing)"),
    "write_array": (
        "us",
        "mean program time of the pages host writes programmed (page speed only, no queueing; "
        "with a write cache: the pages they evicted)",
    ),
    "write_array_all": (
        "us",
        "mean program time of all programs: host writes, GC copies and migrations",
    ),
    "read_array_rewritten": (
        "us",
        "mean array read time of host page reads of data the trace wrote earlier (placed by "
        "the policy during the replay)",
    ),
    "read_array_other": (
        "us",
        "mean array read time of the other host page reads (data laid out by preconditioning)",
    ),
    "timed_reads": ("pages", "host page reads of mapped data (the reads array time averages)"),
    "erases": ("blocks", "blocks erased during the trace replay"),
    "gc_copies": ("pages", "valid pages copied by GC during the trace replay"),
    "host_writes": ("pages", "host page writes"),
    "migrations": (
        "pages",
        "pages moved right after a host read made them cold (policy.migrate: cold)",
    ),
    "flash_programs": (
        "pages",
        "flash programs during the trace replay (host writes + GC copies + migrations)",
    ),
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


@dataclass
class _Placement:
    """What a replay's mapping-update log says, the same at every speed ratio (placement and
    GC never depend on timing, see the module docstring): where each host page op landed,
    the programs' pages, the mapping costs, and a signature of the log that the replays at
    the other ratios are checked against instead of being logged again."""

    read_request: np.ndarray  # request of each timed host page read, in log order
    rd_pos: np.ndarray  # physical page of each timed host page read
    rw_pos: np.ndarray  # ... of those reading data the replay wrote earlier
    other_pos: np.ndarray  # ... of the others
    wr_pos: np.ndarray  # physical page of each host page write
    prog_pages: np.ndarray  # page within its block of every program (host + GC)
    costs: dict[str, float]
    signature: tuple[int, int, int]


def _signature(lpn: np.ndarray, new: np.ndarray) -> np.ndarray:
    return np.array([len(lpn), lpn.sum(dtype=np.int64), new.sum(dtype=np.int64)], np.int64)


def _placement(ftl: Ftl, snapshot, req: Requests, logs: list[list[np.ndarray]]) -> _Placement:
    geo = ftl.geometry
    ops = expand_to_pages(req, geo.page_size)
    lpn = (ops.lpn % ftl.n_lpn).astype(np.int32)
    log_lpn, log_old, log_new, log_kind, log_op = _joined(logs, 5, np.int32)
    pos = host_page_positions(
        snapshot.l2p,
        snapshot.wc_slot >= 0,
        lpn,
        ops.is_write.astype(np.int8),
        log_lpn,
        log_new,
        log_kind.astype(np.int8),
        log_op.astype(np.int64),
        geo.pages_per_block,
    )
    rd_mask = ~ops.is_write & (pos >= 0)
    # reads of pages this replay wrote earlier: the only ones a write-time placement can move
    idx = np.arange(len(lpn))
    first_write = np.full(ftl.n_lpn, len(lpn))
    np.minimum.at(first_write, lpn[ops.is_write], idx[ops.is_write])
    rewritten = first_write[lpn] < idx
    return _Placement(
        read_request=ops.request[rd_mask],
        rd_pos=pos[rd_mask],
        rw_pos=pos[rd_mask & rewritten],
        other_pos=pos[rd_mask & ~rewritten],
        wr_pos=pos[ops.is_write & (pos >= 0)],  # a write cache absorbs some writes
        prog_pages=measures.program_pages(log_new, log_kind, geo.pages_per_block),
        costs=mapping_costs(snapshot.l2p, log_lpn, log_old, log_new, geo),
        signature=tuple(int(x) for x in _signature(log_lpn, log_new)),
    )


def _replay(
    ftl: Ftl,
    snapshot,
    req: Requests,
    stream: np.ndarray | None,
    placed: _Placement | None = None,
) -> tuple[dict[str, float], _Placement]:
    """Replay ``req`` from a copy of ``snapshot``; metrics of the replay alone, and its
    placement. ``placed``: the placement of a replay of the same trace from the same state
    at another speed ratio, reused (and checked) rather than logged again."""
    ftl.state = snapshot._make(a.copy() for a in snapshot)
    ppb_like = ftl.config.policy in PPB_FAMILY
    stats0 = policies_ppb.stats(ftl.state.pstate) if ppb_like else None
    logs: list[list[np.ndarray]] = []
    signature = np.zeros(3, np.int64)

    def on_log(lpn, old, new, kind, op) -> None:
        if placed is None:
            logs.append([x.copy() for x in (lpn, old, new, kind, op)])
        else:
            signature[:] += _signature(lpn, new)

    gc_log = measures.GcStallLog(snapshot.read_ns, snapshot.prog_ns, ftl.timing.t_erase_ns)
    res = ftl.replay(req, stream=stream, wrap=True, on_log=on_log, log_ops=True, on_flash=gc_log)
    if placed is None:
        placed = _placement(ftl, snapshot, req, logs)
        del logs
    elif tuple(int(x) for x in signature) != placed.signature:
        raise RuntimeError("ppb: the replay's placement changed with the speed ratio")
    # which read requests waited behind a GC burst on their chip
    stalled = gc_log.stalled(placed.read_request, len(req))
    lat = res.latency_ns / 1e3
    is_rd = ~res.is_write
    summary = measures.latency_summary(lat[is_rd], stalled[is_rd])
    wr = lat[res.is_write]

    def mean_ns(table: np.ndarray, where: np.ndarray) -> float:
        return float(table[where].mean() / 1e3) if len(where) else np.nan

    out = {
        "read_latency": summary["mean"],
        "write_latency": float(wr.mean()) if len(wr) else np.nan,
        "read_latency_p99": float(np.quantile(lat[is_rd], 0.99)) if is_rd.any() else np.nan,
        "read_latency_median": summary["median"],
        "read_latency_p90": summary["p90"],
        "read_latency_unstalled": summary["mean_unstalled"],
        "read_gc_stalled": summary["stalled"],
        "read_gc_latency_share": summary["stalled_latency"],
        "read_array": mean_ns(snapshot.read_ns, placed.rd_pos),
        "write_array": mean_ns(snapshot.prog_ns, placed.wr_pos),
        "write_array_all": measures.programs_mean_ns(placed.prog_pages, snapshot.prog_ns) / 1e3,
        "read_array_rewritten": mean_ns(snapshot.read_ns, placed.rw_pos),
        "read_array_other": mean_ns(snapshot.read_ns, placed.other_pos),
        "timed_reads": float(len(placed.rd_pos)),
        "erases": res.counters["erases"],
        "gc_copies": res.counters["gc_copies"],
        "host_writes": res.counters["host_writes"],
        "migrations": res.counters["migrations"],
        "flash_programs": res.counters["flash_programs"],
        **placed.costs,
    }
    if stats0 is not None:
        s1 = policies_ppb.stats(ftl.state.pstate)
        out.update(
            {k: s1[k] - stats0[k] for k in ("want_fast", "got_fast", "diverted", "promotions")}
        )
    return out, placed


def _joined(chunks: list[list[np.ndarray]], n: int, dtype: type) -> tuple[np.ndarray, ...]:
    """A drained log's chunks joined column by column (empty columns when nothing came)."""
    if not chunks:
        return (np.zeros(0, dtype),) * n
    return tuple(np.concatenate(x) for x in zip(*chunks, strict=True))


SETUP_POLICIES = (*PAPER_POLICIES, "ppb_strict")  # run under every set-up and fill seed
PASS_METRICS = ("read_array", "erases", "gc_copies")  # per aged warm-up pass
SEED_METRICS = (
    "read_latency",
    "read_latency_median",
    "read_latency_p90",
    "read_latency_unstalled",
    "read_array",
)


def _jobs(setups: list[str], n_seeds: int, vs: list[Variant], traces: dict, main: list):
    """(seed index, set-up, variant index, trace key) of every replay series: the default
    set-up runs every variant (beyond-the-paper ones on the paper traces only), other
    set-ups and further fill seeds the paper's policies and ``ppb_strict`` on the paper
    traces."""
    for k in range(n_seeds):
        for setup in setups:
            if k and setup != "fill":
                continue
            for m, v in enumerate(vs):
                full = setup == DEFAULT_SETUP and k == 0
                if not full and v.name not in SETUP_POLICIES:
                    continue
                for key in traces:
                    if key in main or (full and v.name in PAPER_POLICIES):
                        yield k, setup, m, key


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    validate_sections(cfg, "the config given to ppb.run")  # a notebook may have changed it
    section = settings(cfg)
    pre = setup_settings(section)
    seed = int(cfg["seed"])
    page_sizes = [int(x) for x in section["page_sizes"]]
    ratios = [float(x) for x in section["speed_ratios"]]
    vs = variants(section)
    traces = load_traces(cfg, section)
    main = list(section["traces"])
    setups = pre["setups"]
    seeds = [seed + 1000 * k for k in range(pre["fill_seeds"] if "fill" in setups else 1)]
    shape = (len(setups), len(traces), len(page_sizes), len(ratios), len(vs))
    data = {k: np.full(shape, np.nan) for k in METRICS}
    by_seed = {k: np.full((len(seeds), *shape[1:]), np.nan) for k in SEED_METRICS}
    n_pass = int(pre["aged"].get("passes", 0)) if "aged" in setups else 0
    by_pass = {k: np.full((n_pass, *shape[1:3], len(vs)), np.nan) for k in PASS_METRICS}
    jobs = list(_jobs(setups, len(seeds), vs, traces, main))
    bar = tqdm(total=len(jobs) * len(page_sizes), desc="ppb replays", disable=not progress)
    streams: dict[tuple, np.ndarray] = {}
    tkeys = list(traces)
    for j, page_size in enumerate(page_sizes):
        ppb_ = int(resolve_nand({**section["device"], "page_size": page_size})["pages_per_block"])
        mapped = {key: map_addresses(req, page_size, section) for key, req in traces.items()}
        # the state each job replays from; a state is dropped after its last job (paper
        # scale holds ~250 MB per state)
        state_key = [
            (k, setup, vs[m].precondition_key, key if setup in TRACE_SETUPS else "")
            for k, setup, m, key in jobs
        ]
        last_use = {sk: n for n, sk in enumerate(state_key)}
        snapshots: dict[tuple, tuple[Ftl, Any, dict]] = {}
        for n, (k, setup, m, key) in enumerate(jobs):
            v, i, u = vs[m], tkeys.index(key), setups.index(setup)
            sk = (key, page_size, v.identifier)
            if sk not in streams:
                streams[sk] = identify(traces[key], page_size, v.identifier, section)
            stream = streams[sk] if v.policy in PPB_FAMILY else None
            if state_key[n] not in snapshots:
                sec = section
                if setup == "aged":
                    fp = len(measures.distinct(expand_to_pages(mapped[key], page_size).lpn))
                    sec = aged_section(section, fp, page_size, ppb_)
                ftl = make_ftl(sec, page_size, v)

                def record(
                    f: Ftl, p: int, i=i, j=j, m=m, sec=sec, stream=stream, req=mapped[key]
                ) -> None:
                    # an aged warm-up pass, measured at the largest ratio (placement and GC
                    # do not depend on it)
                    set_speed(f, f.state, sec, ratios[-1])
                    out, _ = _replay(f, f.state, req, stream)
                    for name in PASS_METRICS:
                        by_pass[name][p, i, j, m] = out[name]

                prepare(
                    ftl,
                    setup,
                    sec,
                    seeds[k],
                    req=mapped[key],
                    stream=stream,
                    replay_pass=record if setup == "aged" else None,
                )
                snapshots[state_key[n]] = (ftl, ftl.state, sec)
            ftl, snap, sec = snapshots[state_key[n]]
            placed = None  # the same at every ratio: drawn from the first replay's log
            for r, ratio in enumerate(ratios):
                set_speed(ftl, snap, sec, ratio)
                out, placed = _replay(ftl, snap, mapped[key], stream, placed)
                if k == 0:
                    for name, val in out.items():
                        data[name][u, i, j, r, m] = val
                if setup == "fill":
                    for name in SEED_METRICS:
                        by_seed[name][k, i, j, r, m] = out[name]
            bar.update(1)
            if last_use[state_key[n]] == n:
                del snapshots[state_key[n]], ftl, snap
    bar.close()
    return _dataset(cfg, section, traces, vs, setups, seeds, data, by_seed, by_pass)


def _trace_coords(
    traces: dict[str, Requests], page_sizes: list[int], section: dict[str, Any]
) -> dict[str, tuple]:
    """Per trace (and page size): label, checksum, kind, length and the read shares."""
    shares = {
        name: np.array([[read_shares(r, p)[name] for p in page_sizes] for r in traces.values()])
        for name in ("written", "first", "reread")
    }
    both = ("trace", "page_size")
    return {
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
        "trace_requests": (
            "trace",
            [len(r) for r in traces.values()],
            {"units": "requests", "long_name": "requests replayed"},
        ),
        "reads_of_rewritten": (
            both,
            shares["written"],
            {
                "units": "1",
                "long_name": "fraction of page reads that hit a page the trace wrote earlier",
            },
        ),
        "first_read_share": (
            both,
            shares["first"],
            {
                "units": "1",
                "long_name": "fraction of page reads that are the first access to their page",
            },
        ),
        "reread_share": (
            both,
            shares["reread"],
            {
                "units": "1",
                "long_name": "fraction of page reads of a page accessed before in the trace",
            },
        ),
    }


def _ceilings(ds: xr.Dataset, section: dict[str, Any]) -> xr.Dataset:
    """``read_ceiling_reread`` / ``read_ceiling_written``: the array-time read improvement if
    every re-read (every read of data the trace wrote) came from the fastest virtual block,
    at each page size and speed ratio."""
    n_vbs = int(section["policy"]["n_vbs"])
    for what, share in (("reread", ds["reread_share"]), ("written", ds["reads_of_rewritten"])):
        vals = np.full((ds.sizes["trace"], ds.sizes["page_size"], ds.sizes["speed_ratio"]), np.nan)
        for j, ps in enumerate(ds["page_size"].values):
            for r, ratio in enumerate(ds["speed_ratio"].values):
                nand = resolve_nand(
                    {**section["device"], "page_size": int(ps), "speed_ratio": float(ratio)}
                )
                read_ns = Timing.from_config(nand).page_tables(int(nand["pages_per_block"]))[0]
                for i in range(ds.sizes["trace"]):
                    vals[i, j, r] = measures.read_ceiling(float(share[i, j]), read_ns, n_vbs)
        ds[f"read_ceiling_{what}"] = (
            ("trace", "page_size", "speed_ratio"),
            vals,
            {
                "units": "%",
                "long_name": f"array-time read improvement if every "
                f"{'re-read' if what == 'reread' else 'read of data the trace wrote'} came "
                f"from the fastest of {n_vbs} virtual blocks (the rest at the block mean)",
            },
        )
    return ds


IMPROVEMENTS = {
    # name: (metric, long name)
    "read_improvement": ("read_latency", "mean read request latency"),
    "write_improvement": ("write_latency", "mean write request latency"),
    "read_array_improvement": ("read_array", "read array time (host page reads)"),
    "write_array_improvement": ("write_array", "program time of host page writes"),
    "write_programs_improvement": ("write_array_all", "program time of all programs (host + GC)"),
    "read_median_improvement": ("read_latency_median", "median read request latency"),
    "read_p90_improvement": ("read_latency_p90", "90th percentile read request latency"),
    "read_unstalled_improvement": (
        "read_latency_unstalled",
        "mean latency of the read requests not stalled by GC",
    ),
}


def _improvement(da: xr.DataArray, conv: int) -> xr.DataArray:
    ref = da.isel(policy=conv)
    return 100.0 * (ref - da) / ref


def _dataset(cfg, section, traces, vs, setups, seeds, data, by_seed, by_pass) -> xr.Dataset:
    page_sizes = [int(x) for x in section["page_sizes"]]
    ratios = [float(x) for x in section["speed_ratios"]]
    names = [v.name for v in vs]
    conv = names.index("page")
    dims = ("setup", "trace", "page_size", "speed_ratio", "policy")
    variables = {
        k: (dims, data[k], {"units": u, "long_name": ln}) for k, (u, ln) in METRICS.items()
    }
    for k, arr in by_seed.items():
        u, ln = METRICS[k]
        variables[f"{k}_by_seed"] = (
            ("fill_seed", *dims[1:]),
            arr,
            {"units": u, "long_name": f"{ln}, fill set-up, per fill seed"},
        )
    for k, arr in by_pass.items():
        u, ln = METRICS[k]
        variables[f"{k}_by_pass"] = (
            ("aged_pass", "trace", "page_size", "policy"),
            arr,
            {"units": u, "long_name": f"{ln}, aged set-up, per warm-up pass (largest ratio)"},
        )
    ds = xr.Dataset(
        variables,
        coords={
            "aged_pass": (
                "aged_pass",
                np.arange(1, len(next(iter(by_pass.values()))) + 1),
                {"long_name": "replay of the trace on the aged drive (the measured one follows)"},
            ),
            "setup": (
                "setup",
                setups,
                {"long_name": "preconditioning set-up (simulate docstring)"},
            ),
            "trace": ("trace", list(traces), {"long_name": "workload (web/media: paper traces)"}),
            "page_size": ("page_size", page_sizes, {"units": "bytes", "long_name": "page size"}),
            "speed_ratio": (
                "speed_ratio",
                ratios,
                {"units": "1", "long_name": "slowest / fastest page latency within a block"},
            ),
            "policy": ("policy", names, {"long_name": "allocation policy"}),
            "fill_seed": (
                "fill_seed",
                seeds,
                {"long_name": "seed of the fill set-up's random fill"},
            ),
            **_trace_coords(traces, page_sizes, section),
        },
    )
    for name, (metric, what) in IMPROVEMENTS.items():
        ds[name] = _improvement(ds[metric], conv).assign_attrs(
            units="%", long_name=f"{what}: improvement over the conventional FTL"
        )
    ds["read_improvement_by_seed"] = _improvement(ds["read_latency_by_seed"], conv).assign_attrs(
        units="%", long_name="mean read request latency improvement, fill set-up, per fill seed"
    )
    ds["read_array_improvement_by_pass"] = _improvement(
        ds["read_array_by_pass"], conv
    ).assign_attrs(
        units="%",
        long_name="read array-time improvement, aged set-up, per warm-up pass (largest ratio)",
    )
    ds = _ceilings(ds, section)
    ds.attrs.update(
        study="ppb",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": int(cfg["seed"]), "ppb": cfg["ppb"]}),
        scale=str(section.get("scale", "default")),
        default_setup=DEFAULT_SETUP,
    )
    return ds


def at_setup(ds: xr.Dataset, setup: str | None = None) -> xr.Dataset:
    """The dataset at one preconditioning set-up (default: the default set-up, ``fill``)."""
    if "setup" not in ds.dims:
        return ds
    return ds.sel(setup=setup or DEFAULT_SETUP)
