"""Study `skrm`: the L2P table of a page-mapped FTL on skyrmion racetrack memory (Yang et
al., "Exploring Skyrmion Racetrack Memory for High Performance Full-Nonvolatile FTL").

Per set-up and trace, the NAND FTL (``skrm.nand``, the paper's 64 GB / 16 KB-page device)
replays the trace with the conventional allocator and with SK-FTL's SK-aware allocator
under each row rule (``skftl.nand.policies_skftl``). Each replay's mapping-update log (host
writes, GC copies, trims) drives SK-RM cost models (``skftl.skrm``): FTL (naive) and PW FTL
on the conventional stream, SK-FTL on the SK-aware one (Figs. 9-13), under the paper's
counting and SK-RMSim's; the replays' response times give Fig. 14.

Set-ups (``SETUPS``, side by side, every one labelled): ``cold`` (the trace on a fresh
device, its table empty), ``warm`` (``skrm.setups.warm_fraction`` of the logical pages
mapped in seeded random order before the trace, not counted; the paper's week- and
month-long traces see a table whose entry writes are mostly updates) and ``multi-pass``
(each trace replayed ``skrm.setups.passes`` times back to back on one device, every pass
counted). A trace with a configured precondition (an app's install trace before its usage
trace) has it replayed first, state only, in every set-up.

The cold logs are kept, so the ablation (each SK-FTL component on/off) and the layout
sweeps (W, K, vertical reach) cost no further NAND replay; the over-provisioning,
utilisation and open-blocks sweeps replay one workload again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import validate_sections
from skftl.errors import ConfigError, UnknownTraceError
from skftl.nand import Geometry, Timing, resolve_nand
from skftl.nand.core import OPEN
from skftl.nand.policies_skftl import FIRST_WRITE, ROWS
from skftl.run_traces import workload_for
from skftl.skrm import CostModel, Layout, OpCosts, Scheme, ablation_schemes
from skftl.skrm.model import OPS, PAPER_SCHEMES
from skftl.skrm.nand_side import LIST_WIDE, make_ftl
from skftl.traces.pages import expand_to_pages
from skftl.traces.requests import Requests
from skftl.traces.workload import check_candidates

__all__ = [
    "ALLOCATORS",
    "ROW_RULES",
    "SETUPS",
    "load_workloads",
    "load_preconditions",
    "check_allocator",
    "setup_options",
    "replay",
    "class_kept",
    "cost",
    "run",
    "sensitivity",
]

ALLOCATORS = ("conventional", "sk-aware")
ROW_RULES = tuple(ROWS)  # SK-aware allocator's row rules (readings of horizontal allocation)
SETUPS = ("cold", "warm", "multi-pass")


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
                candidates=check_candidates(
                    list(spec.get("candidates", []) or []), f"skrm.traces.{key}.candidates"
                ),
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


def load_preconditions(cfg: dict[str, Any], traces: dict[str, Requests]) -> dict[str, Requests]:
    """Per trace key with ``precondition`` in ``skrm.traces``: the real trace replayed (state
    only) before it, e.g. an app's install trace before its usage trace; never before a
    synthetic stand-in, and left out when not found."""
    out: dict[str, Requests] = {}
    for key, spec in cfg["skrm"]["traces"].items():
        name = spec.get("precondition")
        if not name or key not in traces or traces[key].meta.synthetic:
            continue
        check_candidates([name], f"skrm.traces.{key}.precondition")
        try:
            out[key] = workload_for(name, cfg, candidates=[name], allow_synthetic=False)
        except UnknownTraceError:
            continue
    return out


def check_allocator(sec: dict[str, Any]) -> None:
    """Raise a ConfigError naming the key when ``skrm``'s allocator settings are invalid."""
    if sec.get("rows") not in ROWS:
        raise ConfigError(f"skrm.rows must be one of {ROW_RULES}, got {sec.get('rows')!r}")
    if sec.get("first_write") not in FIRST_WRITE:
        raise ConfigError(
            f"skrm.first_write must be one of {tuple(FIRST_WRITE)}, got {sec.get('first_write')!r}"
        )
    h = sec.get("open_per_class")
    if h != LIST_WIDE and (not isinstance(h, int) or isinstance(h, bool) or h < 1):
        raise ConfigError(
            f"skrm.open_per_class must be an integer >= 1 or {LIST_WIDE!r}, got {h!r}"
        )


def setup_options(sec: dict[str, Any], setup: str) -> dict[str, Any]:
    """The replay options of ``setup`` (see the module docstring) from ``skrm.setups``."""
    st = sec.get("setups") or {}
    if setup == "cold":
        return {}
    if setup == "warm":
        f = float(st.get("warm_fraction", 0))
        if not 0 < f < 1:
            raise ConfigError(f"skrm.setups.warm_fraction must be in (0, 1), got {f}")
        return {"fill_fraction": f}
    if setup == "multi-pass":
        n = st.get("passes", 0)
        if not isinstance(n, int) or n < 2:
            raise ConfigError(f"skrm.setups.passes must be an integer >= 2, got {n!r}")
        return {"passes": n}
    raise ConfigError(f"skrm: unknown set-up {setup!r} (one of {SETUPS})")


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
    sec: dict[str, Any],
    req: Requests,
    sk_allocator: bool,
    seed: int,
    precondition: Requests | None = None,
    passes: int = 1,
    **overrides: Any,
) -> dict[str, Any]:
    """One NAND replay of ``req`` (``passes`` times back to back, all counted); returns the
    update log (preconditioning excluded), the logical-table size and NAND results.
    Preconditioning, in this order, is part of the table's state, not of the counted
    updates or NAND latencies: ``fill_fraction`` > 0 first writes that fraction of the
    logical pages (seeded random order); ``precondition`` is replayed; with
    ``prefill_reads`` the pages the trace reads and nothing has written yet are written
    once (the volume held data before the trace began; reads of never-written pages would
    cost no flash access). ``overrides`` replace ``spare_factor`` (of the ``ftl``
    subsection), ``fill_fraction``, ``open_per_class``, ``first_write`` or ``rows``."""
    ftl_sec = dict(sec["ftl"])
    if "spare_factor" in overrides:
        ftl_sec["spare_factor"] = overrides.pop("spare_factor")
    names = ("fill_fraction", "open_per_class", "first_write", "rows")
    opt = {k: overrides.get(k, sec[k]) for k in names}
    ftl = make_ftl(
        dict(sec["nand"]),
        ftl_sec,
        sk_allocator=sk_allocator,
        open_per_class=opt["open_per_class"],
        first_write=str(opt["first_write"]),
        rows=str(opt["rows"]),
    )
    wrap = bool(sec.get("wrap", True))
    fill = float(opt["fill_fraction"])
    pre = UpdateLog()
    if fill > 0:
        rng = np.random.default_rng(seed)
        lpn = rng.permutation(ftl.n_lpn)[: int(fill * ftl.n_lpn)]
        ftl.run_pages(lpn.astype(np.int32), np.ones(len(lpn), np.int8), on_log=pre)
    if precondition is not None:
        ftl.replay(precondition, wrap=wrap, on_log=pre)
    if sec.get("prefill_reads", False):
        ops = expand_to_pages(req, ftl.geometry.page_size)
        reads = np.unique(ops.lpn[~ops.is_write] % ftl.n_lpn)
        reads = reads[ftl.state.l2p[reads] < 0]
        ftl.run_pages(reads.astype(np.int32), np.ones(len(reads), np.int8), on_log=pre)
    gc_pre = ftl.counters()["gc_copies"]
    log = UpdateLog()
    lat, is_write, counters = [], [], {}
    for _ in range(int(passes)):
        ftl.reset_timelines()
        res = ftl.replay(req, wrap=wrap, on_log=log)
        lat.append(res.latency_ns / 1e3)
        is_write.append(res.is_write)
        counters = {k: counters.get(k, 0) + v for k, v in res.counters.items()}
    lat_us, w = np.concatenate(lat), np.concatenate(is_write)
    return {
        "pre": pre.arrays(),
        "log": log.arrays(),
        "n_lpn": ftl.n_lpn,
        "read_us": float(lat_us[~w].mean()) if (~w).any() else np.nan,
        "write_us": float(lat_us[w].mean()) if w.any() else np.nan,
        "counters": counters,
        "gc_copies_pre": gc_pre,
        "open_blocks": int((ftl.state.blk_state == OPEN).sum()),
    }


def class_kept(log: tuple[np.ndarray, ...], pages_per_block: int) -> float:
    """Share of the updates of mapped entries in ``log`` whose new block number has the
    popcount of the old one (NaN without such updates)."""
    _, old, new = log
    upd = (old >= 0) & (new >= 0)
    if not upd.any():
        return np.nan
    ob, nb = old[upd] // pages_per_block, new[upd] // pages_per_block
    return float(np.mean(np.bitwise_count(ob) == np.bitwise_count(nb)))


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


def _replays(
    sec: dict[str, Any], req: Requests, pre: Requests | None, seed: int, **opt: Any
) -> dict[str, dict]:
    """The conventional replay and the SK-aware one under each row rule (``sk-aware`` is
    the configured rule's)."""
    runs = {"conventional": replay(sec, req, False, seed, pre, **opt)}
    for rule in ROW_RULES:
        runs[f"sk-aware:{rule}"] = replay(sec, req, True, seed, pre, **{**opt, "rows": rule})
    runs["sk-aware"] = runs[f"sk-aware:{sec['rows']}"]
    return runs


# --- study ----------------------------------------------------------------------------------
def _settings(sec: dict[str, Any]) -> dict[str, Any]:
    if sec.get("scale", "default") == "paper":
        return {**sec, **(sec.get("paper_scale") or {})}
    return sec


EXTRA = {
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
ROWS_EXTRA = ("bitdiff", "hamming", "successive", "inject_first")
NAND_COUNTERS = ("host_writes", "gc_copies", "erases")


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    validate_sections(cfg, "the config given to skrm.run")  # a notebook may have changed it
    sec = _settings(cfg["skrm"])
    check_allocator(sec)
    cfg = {**cfg, "skrm": sec}
    seed = int(cfg["seed"])
    layout = Layout.from_config(sec["layout"])
    costs = OpCosts.from_config(sec["costs"])
    traces = load_workloads(cfg)
    precond = load_preconditions(cfg, traces)
    opts = {st: setup_options(sec, st) for st in SETUPS}
    keys = list(traces)
    labels = [traces[k].meta.label for k in keys]
    paper = [s.name for s in PAPER_SCHEMES]
    abl = ablation_schemes()
    n_u, n_t, n_s, n_o, n_a, n_r = len(SETUPS), len(keys), len(paper), len(OPS), len(abl), 2
    counts = np.zeros((2, n_u, n_t, n_s, n_o), np.int64)  # [convention, setup, trace, scheme, op]
    extra = np.zeros((len(EXTRA), n_u, n_t, n_s), np.int64)
    nand_lat = np.zeros((2, n_u, n_t, n_s))
    nand_ctr = np.zeros((len(NAND_COUNTERS) + 1, n_u, n_t, 2), np.int64)  # + GC while preparing
    rows_counts = np.zeros((n_u, n_t, n_r, n_o), np.int64)  # SK-FTL under each row rule
    rows_extra = np.zeros((len(ROWS_EXTRA), n_u, n_t, n_r), np.int64)
    rows_lat = np.zeros((2, n_u, n_t, n_r))
    rows_kept = np.zeros((n_u, n_t, n_r))
    pages_per_block = Geometry.from_config(resolve_nand(dict(sec["nand"]))).pages_per_block
    abl_counts = np.zeros((n_t, n_a, n_o), np.int64)
    abl_bitdiff = np.zeros((n_t, n_a), np.int64)
    logs: dict[str, dict[str, dict]] = {}
    todo = [(u, i) for u in range(n_u) for i in range(n_t)]
    for u, i in tqdm(todo, desc="skrm set-ups x traces", disable=not progress):
        key = keys[i]
        runs = _replays(sec, traces[key], precond.get(key), seed, **opts[SETUPS[u]])
        if SETUPS[u] == "cold":
            logs[key] = runs
        for j, a in enumerate(ALLOCATORS):
            for m, name in enumerate(NAND_COUNTERS):
                nand_ctr[m, u, i, j] = runs[a]["counters"][name]
            nand_ctr[-1, u, i, j] = runs[a]["gc_copies_pre"]
        for j, s in enumerate(PAPER_SCHEMES):
            r = _scheme_run(s, runs)
            for cv, conv in enumerate(("paper", "skrmsim")):
                c = cost(r, layout, replace(s, convention=conv)).counters()
                counts[cv, u, i, j] = [c[o] for o in OPS]
                if conv == "paper":
                    extra[:, u, i, j] = [c[n] for n in EXTRA]
            nand_lat[:, u, i, j] = r["read_us"], r["write_us"]
        for j, rule in enumerate(ROW_RULES):
            r = runs[f"sk-aware:{rule}"]
            c = cost(r, layout, PAPER_SCHEMES[-1]).counters()
            rows_counts[u, i, j] = [c[o] for o in OPS]
            rows_extra[:, u, i, j] = [c[n] for n in ROWS_EXTRA]
            rows_lat[:, u, i, j] = r["read_us"], r["write_us"]
            rows_kept[u, i, j] = class_kept(r["log"], pages_per_block)
    for i, key in enumerate(keys):
        for j, s in enumerate(abl):
            c = cost(_scheme_run(s, logs[key]), layout, s).counters()
            abl_counts[i, j] = [c[o] for o in OPS]
            abl_bitdiff[i, j] = c["bitdiff"]
    per_ns = np.array([getattr(costs, f"{o}_ns") for o in OPS])
    per_pj = np.array([getattr(costs, f"{o}_pj") for o in OPS])
    st = sec.get("setups") or {}
    setup_labels = [
        "cold (fresh device, empty table)",
        f"warm ({100 * float(st.get('warm_fraction', 0)):.0f} % of logical pages mapped first)",
        f"multi-pass ({st.get('passes')} passes, all counted)",
    ]
    coords = {
        "trace": ("trace", labels, {"long_name": "workload (label says real or synthetic)"}),
        "trace_key": ("trace", keys, {"long_name": "key in skrm.traces"}),
        "setup": ("setup", list(SETUPS), {"long_name": "set-up (see setup_label)"}),
        "setup_label": ("setup", setup_labels, {"long_name": "set-up, as configured"}),
        "scheme": ("scheme", paper, {"long_name": "SK-RM write scheme"}),
        "op": ("op", list(OPS), {"long_name": "SK-RM operation"}),
        "convention": (
            "convention",
            ["paper", "skrmsim"],
            {"long_name": "counting convention (paper's reading / SK-RMSim)"},
        ),
        "allocator": ("allocator", list(ALLOCATORS), {"long_name": "NAND page allocator"}),
        "rows": ("rows", list(ROW_RULES), {"long_name": "SK-aware allocator's row rule"}),
        "variant": ("variant", [s.name for s in abl], {"long_name": "ablation variant"}),
    }
    sut = ("setup", "trace")
    data = {
        "op_count": (
            ("convention", *sut, "scheme", "op"),
            counts,
            {"units": "operations", "long_name": "accumulated SK-RM operations"},
        ),
        "op_latency": (
            ("convention", *sut, "scheme", "op"),
            counts * per_ns,
            {"units": "ns", "long_name": "accumulated SK-RM operation latency (Figs. 9-12)"},
        ),
        "op_energy": (
            (*sut, "scheme", "op"),
            counts[0] * per_pj,
            {
                "units": "pJ",
                "long_name": "accumulated SK-RM operation energy (assumed per-op energies)",
            },
        ),
        "ablation_op_count": (
            ("trace", "variant", "op"),
            abl_counts,
            {"units": "operations", "long_name": "accumulated SK-RM operations, ablation (cold)"},
        ),
        "ablation_bitdiff": (
            ("trace", "variant"),
            abl_bitdiff,
            {"units": "bits", "long_name": "accumulated 1-bit difference, ablation (cold)"},
        ),
        "rows_op_latency": (
            (*sut, "rows", "op"),
            rows_counts * per_ns,
            {"units": "ns", "long_name": "SK-FTL's accumulated SK-RM latency per row rule"},
        ),
    }
    for d, direction in enumerate(("read", "write")):
        data[f"nand_{direction}_latency"] = (
            (*sut, "scheme"),
            nand_lat[d],
            {"units": "us", "long_name": f"mean NAND {direction} response time (Fig. 14)"},
        )
        data[f"rows_nand_{direction}_latency"] = (
            (*sut, "rows"),
            rows_lat[d],
            {"units": "us", "long_name": f"SK-FTL's mean NAND {direction} time per row rule"},
        )
    for m, (name, units, long_name) in enumerate(
        (
            ("host_page_writes", "pages", "host page writes"),
            ("gc_copies", "pages", "GC page copies"),
            ("erases", "blocks", "block erases"),
            ("precondition_gc_copies", "pages", "GC page copies while preparing the state"),
        )
    ):
        data[name] = ((*sut, "allocator"), nand_ctr[m], {"units": units, "long_name": long_name})
    for n, name in enumerate(EXTRA):
        long_name, units = EXTRA[name]
        data[name] = ((*sut, "scheme"), extra[n], {"units": units, "long_name": long_name})
    for n, name in enumerate(ROWS_EXTRA):
        long_name, units = EXTRA[name]
        data[f"rows_{name}"] = (
            (*sut, "rows"),
            rows_extra[n],
            {"units": units, "long_name": f"SK-FTL: {long_name}, per row rule"},
        )
    data["rows_class_kept"] = (
        (*sut, "rows"),
        rows_kept,
        {
            "units": "1",
            "long_name": "SK-FTL: share of updates of mapped entries that keep the old block's "
            "popcount class, per row rule",
        },
    )
    ds = xr.Dataset(data, coords=coords)
    # the set-up Sec. IV-A states, as the run used it (the claims check them)
    geo = Geometry.from_config(resolve_nand(dict(sec["nand"])))
    ds["nand_capacity"] = (
        (),
        geo.capacity_bytes / 2**30,
        {"units": "GiB", "long_name": "simulated NAND capacity (physical)"},
    )
    ds["page_size"] = ((), geo.page_size / 1024, {"units": "KiB", "long_name": "NAND page size"})
    ds.attrs["nand_page_speed"] = Timing.from_config(resolve_nand(dict(sec["nand"]))).page_speed
    ds["op_unit_latency"] = (
        "op",
        [getattr(costs, f"{o}_ns") for o in OPS],
        {"units": "ns", "long_name": "latency of one SK-RM operation (Table II)"},
    )
    ds["precondition"] = (
        "trace",
        [precond[k].meta.name if k in precond else "" for k in keys],
        {"long_name": "trace replayed first (state only)"},
    )
    for part in ("allocator", "vertical", "buffering"):
        ds[f"ablation_{part}"] = (
            "variant",
            [int(getattr(s, part)) for s in abl],
            {"units": "1", "long_name": f"{part} on"},
        )
    sens_ds = sensitivity(cfg, traces, logs, layout, costs, progress, precond)
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


SWEEPS = (
    ("entry_bits", "bits", "entry width W"),
    ("entries_per_track", "entries", "entries per racetrack K"),
    ("vertical_reach", "racetracks", "vertical reach"),
    ("spare_factor", "1", "over-provisioning (spare factor)"),
    ("fill_fraction", "1", "logical pages written before the trace"),
    ("open_per_class", "blocks", "open blocks per (chip, popcount class)"),
    ("first_write", "", "first-write rule"),
)
NAND_PARAMS = ("spare_factor", "fill_fraction", "open_per_class", "first_write")


def sensitivity(
    cfg: dict[str, Any],
    traces: dict[str, Requests],
    logs: dict[str, dict],
    layout: Layout,
    costs: OpCosts,
    progress: bool,
    precond: dict[str, Requests] | None = None,
) -> xr.Dataset:
    """One-parameter sweeps (``SWEEPS``, those listed in ``skrm.sensitivity``) on the cold
    set-up of ``skrm.sensitivity.workload``: W, K and vertical reach re-cost the kept logs;
    spare factor, fill fraction, open blocks per class and the first-write rule replay the
    NAND side again
    (conventional, and SK-aware under each row rule). Per value: each scheme's accumulated
    latency per operation, 1-bit difference and mean NAND read / write time; for the NAND
    sweeps also each allocator's GC copies and open blocks at the end, and SK-FTL's
    latency and 1-bit difference under each row rule."""
    sec = cfg["skrm"]
    sens = sec["sensitivity"]
    key = sens["workload"] if sens["workload"] in traces else next(iter(traces))
    pre = (precond or {}).get(key)
    seed = int(cfg["seed"])
    per_ns = np.array([getattr(costs, f"{o}_ns") for o in OPS])
    sweeps = [sw for sw in SWEEPS if sw[0] in sens]
    data, coords = {}, {}
    total = sum(len(sens[p]) for p, _, _ in sweeps)
    bar = tqdm(total=total, desc=f"skrm sensitivity ({key})", disable=not progress)
    n_s, n_o, n_r = len(PAPER_SCHEMES), len(OPS), len(ROW_RULES)
    for param, units, long_name in sweeps:
        values = list(sens[param])
        n_v = len(values)
        out, bd, nl = np.zeros((n_v, n_s, n_o)), np.zeros((n_v, n_s)), np.zeros((2, n_v, n_s))
        nand_cost = np.zeros((2, n_v, len(ALLOCATORS)), np.int64)  # gc copies, open blocks
        rows_lat, rows_bd = np.zeros((n_v, n_r, n_o)), np.zeros((n_v, n_r))
        for v, value in enumerate(values):
            if param in NAND_PARAMS:
                r = _replays(sec, traces[key], pre, seed, **{param: value})
                lay = layout
            else:
                r, lay = logs[key], replace(layout, **{param: int(value)})
            for j, s in enumerate(PAPER_SCHEMES):
                c = cost(_scheme_run(s, r), lay, s).counters()
                out[v, j] = np.array([c[o] for o in OPS]) * per_ns
                bd[v, j] = c["bitdiff"]
                nl[:, v, j] = _scheme_run(s, r)["read_us"], _scheme_run(s, r)["write_us"]
            for j, a in enumerate(ALLOCATORS):
                nand_cost[:, v, j] = r[a]["counters"]["gc_copies"], r[a]["open_blocks"]
            for j, rule in enumerate(ROW_RULES):
                c = cost(r[f"sk-aware:{rule}"], lay, PAPER_SCHEMES[-1]).counters()
                rows_lat[v, j] = np.array([c[o] for o in OPS]) * per_ns
                rows_bd[v, j] = c["bitdiff"]
            bar.update()
        dim = f"sens_{param}"
        vs = f"vs {long_name}"
        coords[dim] = (dim, values, {"units": units, "long_name": long_name})
        entries = [
            ("latency", ("scheme", "op"), out, "ns", "accumulated SK-RM latency"),
            ("bitdiff", ("scheme",), bd, "bits", "accumulated 1-bit difference"),
            ("nand_read", ("scheme",), nl[0], "us", "mean NAND read response time"),
            ("nand_write", ("scheme",), nl[1], "us", "mean NAND write response time"),
        ]
        if param in NAND_PARAMS:
            entries += [
                ("gc_copies", ("allocator",), nand_cost[0], "pages", "GC page copies"),
                ("open_blocks", ("allocator",), nand_cost[1], "blocks", "open blocks"),
                ("rows_latency", ("rows", "op"), rows_lat, "ns", "SK-FTL's latency per row rule"),
                ("rows_bitdiff", ("rows",), rows_bd, "bits", "SK-FTL's 1-bit diff. per row rule"),
            ]
        for name, dims, arr, unit, what in entries:
            data[f"{dim}_{name}"] = (
                (dim, *dims),
                arr,
                {"units": unit, "long_name": f"{what} {vs}"},
            )
    bar.close()
    return xr.Dataset(data, coords=coords, attrs={"sensitivity_trace": traces[key].meta.label})
