"""Explore one PPB configuration: one trace, one policy, one preconditioning set-up, page
size and speed ratio, against the conventional FTL (``page``) on the same drive and trace.
The study's runs do the rest (every policy x trace x page size x ratio x set-up, the fill
seeds).

Placement and GC never depend on timing (static chip striping, see
:mod:`skftl.studies.ppb.simulate`), so the preconditioned drive of each (trace, page size,
policy, set-up) is kept in memory and a change of speed ratio only replays the trace from
it: two replays (a tenth of a second each on the web_0 excerpt) and the drawing. A new page
size, policy or set-up also preconditions the drive once (a fill of the default 8 GiB
drive: a fraction of a second once compiled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from skftl.explore import Knob, Memo, new_figure, styled
from skftl.nand import Ftl, resolve_nand
from skftl.nand.hotness import identify
from skftl.run_traces import load_by_id, real_trace_names, workload_for
from skftl.studies.ppb import measures
from skftl.studies.ppb.setups import DEFAULT_SETUP, SETUPS, TRACE_SETUPS, aged_section, prepare
from skftl.studies.ppb.simulate import (
    PPB_FAMILY,
    Variant,
    _replay,
    make_ftl,
    map_addresses,
    set_speed,
    settings,
    variants,
)
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests

__all__ = ["KEYS", "Result", "compute", "defaults", "figure", "knobs"]

# knob -> the config key it sets (the panel checks a starting value against the schema)
KEYS = {"page_size": "ppb.page_sizes[]", "speed_ratio": "ppb.speed_ratios[]"}

RATIOS = (1.0, 8.0, 0.5)  # slider: low, high, step (the paper's Figs. 13-17: 2-5)
POSITION_BINS = 24
_TRACES = Memo(maxsize=6)
# preconditioned drives: (Ftl, its state, the section it was built from); tens of MB each
_DRIVES = Memo(maxsize=6)


def _trace_keys(cfg: dict[str, Any]) -> tuple[str, ...]:
    sec = settings(cfg)
    used = {str(v) for v in sec["traces"].values()}
    extra = sec.get("extra_traces", "all")
    names = real_trace_names(cfg) if extra == "all" else list(extra or [])
    return (*sec["traces"], *(n for n in names if n not in used))


def _policies(cfg: dict[str, Any]) -> dict[str, Variant]:
    return {v.name: v for v in variants(settings(cfg)) if v.name != "page"}


def knobs(cfg: dict[str, Any]) -> list[Knob]:
    """The panel's controls: speed ratio, page size, policy, trace, set-up."""
    sec = settings(cfg)
    lo, hi, step = RATIOS
    return [
        Knob("speed_ratio", "speed ratio", low=lo, high=hi, step=step,
             help="slowest / fastest page latency within a block (the paper: 2-5)"),
        Knob("page_size", "page size", tuple(int(p) for p in sec["page_sizes"]), slider=True,
             help="bytes per page (Figs. 12 and 15: 8 KB and 16 KB)"),
        Knob("policy", "policy", tuple(_policies(cfg)),
             help="ppb: PPB; ppb_split: Fig. 3's naive split; the rest: beyond the paper"),
        Knob("trace", "trace", _trace_keys(cfg),
             help="web, media: the paper's traces (or their stand-ins); the rest: other real "
             "traces found, capped at extra_max_requests"),
        Knob("setup", "drive before the trace", SETUPS,
             help="fill (default): every logical page written once; none: fresh; footprint, "
             "warmup, aged: see the notebook"),
    ]  # fmt: skip


def defaults(cfg: dict[str, Any]) -> dict[str, Any]:
    """PPB on the web trace, the default set-up, the config's largest page size and ratio."""
    sec = settings(cfg)
    return {
        "speed_ratio": float(max(sec["speed_ratios"])),
        "page_size": int(max(sec["page_sizes"])),
        "policy": "ppb",
        "trace": next(iter(sec["traces"])),
        "setup": DEFAULT_SETUP,
    }


@dataclass(frozen=True)
class Result:
    """One configuration and the conventional FTL on the same drive and trace."""

    values: dict[str, Any]
    label: str
    requests: int
    pages_per_block: int
    read_ns: np.ndarray  # array read time of each page position in a block
    policy: dict[str, float]  # the metrics of the replay (simulate.METRICS)
    page: dict[str, float]
    # page position of each host page read of data the trace wrote earlier (the reads a
    # write-time placement can move), and the share of timed page reads they are
    policy_reads: np.ndarray
    page_reads: np.ndarray
    rewritten_share: float


def trace_of(cfg: dict[str, Any], key: str) -> Requests:
    """The trace ``key`` as the study replays it (capped as ``load_traces`` caps it)."""
    sec = settings(cfg)
    main = key in sec["traces"]
    cap = sec.get("max_requests") if main else sec.get("extra_max_requests")
    inputs = {k: sec.get(k) for k in ("traces", "synthetic_requests")}
    ident = (key, cfg.get("seed"), cfg.get("traces"), inputs, cap)

    def load() -> Requests:
        if main:
            req = workload_for(sec["traces"][key], cfg, n_requests=int(sec["synthetic_requests"]))
        else:
            req = load_by_id(key, cfg)
        return req.head(int(cap)) if cap else req

    return _TRACES.get(ident, load)


def _drive(
    cfg: dict[str, Any], key: str, req: Requests, page_size: int, v: Variant, setup: str,
    stream: np.ndarray | None,
) -> tuple[Ftl, Any, dict[str, Any]]:  # fmt: skip
    """The drive of ``v`` in the state ``setup`` leaves it, for ``req`` (the mapped trace)."""
    sec = settings(cfg)
    seed = int(cfg["seed"])
    ident = (key, page_size, v.precondition_key, setup, seed, sec)

    def build() -> tuple[Ftl, Any, dict[str, Any]]:
        s = sec
        if setup == "aged":
            ppb_ = int(resolve_nand({**sec["device"], "page_size": page_size})["pages_per_block"])
            fp = len(measures.distinct(expand_to_pages(req, page_size).lpn))
            s = aged_section(sec, fp, page_size, ppb_)
        ftl = make_ftl(s, page_size, v)
        prepare(ftl, setup, s, seed, req=req if setup in TRACE_SETUPS else None, stream=stream)
        return ftl, ftl.state, s

    return _DRIVES.get(ident, build)


def compute(
    cfg: dict[str, Any], speed_ratio: float, page_size: int, policy: str, trace: str, setup: str
) -> Result:
    """Replay ``trace`` under ``policy`` and the conventional FTL at one page size and
    speed ratio, each from its drive in the state ``setup`` leaves it."""
    sec = settings(cfg)
    pols = _policies(cfg)
    if policy not in pols:
        raise ValueError(f"ppb explore: policy must be one of {', '.join(pols)}, got {policy!r}")
    if setup not in SETUPS:
        raise ValueError(f"ppb explore: set-up must be one of {', '.join(SETUPS)}, got {setup!r}")
    key = trace
    req = trace_of(cfg, key)
    page_size = int(page_size)
    mapped = map_addresses(req, page_size, sec)
    chosen = pols[policy]
    conventional = Variant("page", "page", identifier=chosen.identifier)
    out: dict[str, tuple[dict[str, float], Any]] = {}
    read_ns = np.zeros(0)
    for v in (conventional, chosen):
        stream = identify(req, page_size, v.identifier, sec) if v.policy in PPB_FAMILY else None
        ftl, snap, s = _drive(cfg, key, mapped, page_size, v, setup, stream)
        set_speed(ftl, snap, s, float(speed_ratio))
        out[v.name] = _replay(ftl, snap, mapped, stream)
        read_ns = snap.read_ns.copy()
    (m_page, p_page), (m_pol, p_pol) = out["page"], out[chosen.name]
    return Result(
        values={"speed_ratio": float(speed_ratio), "page_size": page_size, "policy": policy,
                "trace": key, "setup": setup},
        label=req.meta.label,
        requests=len(req),
        pages_per_block=len(read_ns),
        read_ns=read_ns,
        policy=m_pol,
        page=m_page,
        policy_reads=p_pol.rw_pos,
        page_reads=p_page.rw_pos,
        rewritten_share=len(p_pol.rw_pos) / max(len(p_pol.rd_pos), 1),
    )  # fmt: skip


def _improvement(page: float, other: float) -> float:
    return 100.0 * (page - other) / page if page else float("nan")


@styled
def figure(result: Result) -> Figure:
    """Left: where the host's page reads of data the trace wrote landed in their blocks
    (share per position bin; the only reads a write-time placement can move), the policy
    beside the conventional FTL, with each position's read time. Right: mean read
    and program array time and read request latency, the policy beside the conventional
    FTL, with the improvement."""
    v, pol, page = result.values, result.policy, result.page
    fig = new_figure(10.0, 4.0)
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1.0]})
    ppb_ = max(result.pages_per_block, 1)
    edges = np.linspace(0, ppb_, POSITION_BINS + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    width = edges[1] - edges[0]
    for reads, name, colour, off in ((result.page_reads, "page (conventional)", "0.6", -0.2),
                                     (result.policy_reads, v["policy"], "C0", 0.2)):  # fmt: skip
        hist, _ = np.histogram(reads, bins=edges)
        share = 100.0 * hist / max(hist.sum(), 1)
        ax.bar(centres + off * width, share, width=0.4 * width, color=colour, label=name)
    ax.set_xlabel("page position in its block (programmed first -> last)")
    ax.set_ylabel("reads of data the trace wrote (%)")
    ax.set_title(
        f"{100 * result.rewritten_share:.1f} % of the host page reads read data the trace wrote",
        fontsize=8,
    )
    tx = ax.twinx()
    tx.plot(np.arange(ppb_), result.read_ns / 1e3, color="C3", lw=1, label="read time")
    tx.set_ylabel("array read time (us)", color="C3")
    tx.set_ylim(0, None)
    tx.grid(False)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = tx.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3,
              fontsize=7)  # fmt: skip
    rows = {
        "read array\n(us)": "read_array",
        "program array\n(us)": "write_array",
        "read request\n(us)": "read_latency",
    }
    x = np.arange(len(rows))
    a = np.array([page[m] for m in rows.values()])
    b = np.array([pol[m] for m in rows.values()])
    bx.bar(x - 0.2, a, width=0.4, color="0.6", label="page (conventional)")
    bx.bar(x + 0.2, b, width=0.4, color="C0", label=v["policy"])
    for i in range(len(rows)):
        if np.isfinite(a[i]) and np.isfinite(b[i]):
            bx.annotate(f"{_improvement(a[i], b[i]):+.1f} %", (i + 0.2, b[i]), ha="center",
                        va="bottom", fontsize=7)  # fmt: skip
    bx.set_xticks(x, list(rows), fontsize=7)
    bx.set_yscale("log")
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=7)
    fig.suptitle(
        f"{v['policy']} vs the conventional FTL on {v['trace']} [{result.label}], "
        f"{result.requests:,} requests | set-up {v['setup']}, {v['page_size'] // 1024} KB pages, "
        f"speed ratio {v['speed_ratio']:g}\nread array time "
        f"{_improvement(page['read_array'], pol['read_array']):+.2f} %, program time "
        f"{_improvement(page['write_array'], pol['write_array']):+.4f} % (improvement); "
        f"erases {int(page['erases'])} -> {int(pol['erases'])}",
        fontsize=8,
    )
    return fig
