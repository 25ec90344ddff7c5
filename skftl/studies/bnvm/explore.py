"""Explore one BNVM configuration: one trace standing for the paper's trace A-F, one device
(chips, page size, refresh latency) and one reading (grouping rule, parallel writes per
buffer flush), every mapping scheme of Figs. 2-3 on it. The study's runs do the rest (every
trace x set-up x reading, the sweeps, wear and data at risk).

The schemes are the figure's subject, so the panel runs all four on the one configuration:
four passes of the PCM kernel over the trace's page operations (a fraction of a second on
the largest stand-in once compiled). The trace and its page operations for a device shape
are kept in memory.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from skftl.explore import Knob, Memo, new_figure, styled
from skftl.pcm import GROUPINGS, LogPolicy, PCMDevice, PCMResult, prepare_pages, simulate
from skftl.pcm.schemes import FLUSH_ROUNDS
from skftl.pcm.simulate import PagedTrace
from skftl.studies.bnvm.simulate import SCHEMES, _idle_cap, _load_workload, parallel_writes
from skftl.traces.requests import Requests

__all__ = ["KEYS", "Result", "compute", "defaults", "figure", "knobs"]

# knob -> the config key it sets (the panel checks a starting value against the schema)
KEYS = {"n_chips": "bnvm.device.n_chips", "page_size": "bnvm.device.page_size",
        "t_refresh_ms": "bnvm.device.t_refresh_ms", "grouping": "bnvm.grouping",
        "flush_rounds": "bnvm.log.flush_rounds"}  # fmt: skip

CHIPS = (1, 2, 4, 8, 16)
PAGE_SIZES = (2048, 4096)  # the paper allows 2 KB or 4 KB pages
REFRESH_MS = (0.01, 0.1, 1.0, 10.0, 50.0, 100.0)  # the paper: 50-100 ms, used 100 ms
_TRACES = Memo(maxsize=6)
_PAGES = Memo(maxsize=8)


def knobs(cfg: dict[str, Any]) -> list[Knob]:
    """The panel's controls: chips, trace, refresh latency, page size, grouping rule and
    parallel writes per buffer flush."""
    sec = cfg["bnvm"]
    return [
        Knob("n_chips", "chips", CHIPS, slider=True,
             help="PCM chips working in parallel (the paper: 4)"),
        Knob("trace", "trace", tuple(sec.get("traces", "ABCDEF")),
             help="the paper's trace A-F: its real stand-in when found, else the preset"),
        Knob("t_refresh_ms", "refresh (ms)", REFRESH_MS, slider=True,
             help="refresh of one refresh unit (the paper: 50-100 ms, used 100 ms)"),
        Knob("page_size", "page size", PAGE_SIZES, slider=True,
             help="bytes per page (the paper allows 2 KB or 4 KB)"),
        Knob("grouping", "issued together", tuple(GROUPINGS),
             help="queue (default): pages waiting at a round's issue; request: never across "
             "requests; stream: arrival times ignored"),
        Knob("flush_rounds", "writes per flush", FLUSH_ROUNDS,
             help="parallel clean writes one buffer flush counts (Sec. IV.C.1: 1, IV.C.2.b: 2)"),
    ]  # fmt: skip


def defaults(cfg: dict[str, Any]) -> dict[str, Any]:
    """The config's device and readings on the first trace."""
    sec = cfg["bnvm"]
    dev = sec["device"]
    return {
        "n_chips": int(dev["n_chips"]),
        "trace": str(list(sec.get("traces", "ABCDEF"))[0]),
        "t_refresh_ms": float(dev["t_refresh_ms"]),
        "page_size": int(dev["page_size"]),
        "grouping": str(sec["grouping"]),
        "flush_rounds": int(sec["log"]["flush_rounds"]),
    }


@dataclass(frozen=True)
class Result:
    """Every mapping scheme on one configuration."""

    values: dict[str, Any]
    label: str
    synthetic: bool
    requests: int
    page_ops: int
    runs: dict[str, PCMResult]

    def parallel(self, scheme: str) -> tuple[int, int]:
        """(parallel clean writes, parallel dirty writes) as Figs. 2-3 plot them."""
        return parallel_writes(self.runs[scheme], scheme)


def _trace_key(cfg: dict[str, Any], letter: str) -> tuple:
    """What the trace standing for ``letter`` depends on."""
    sec = cfg["bnvm"]
    inputs = {k: sec.get(k) for k in ("stand_ins", "synthetic_requests", "n_requests")}
    return (letter, cfg.get("seed"), cfg.get("traces"), inputs)


def trace_of(cfg: dict[str, Any], letter: str) -> Requests:
    """The trace standing for the paper's trace ``letter`` (kept in memory)."""
    return _TRACES.get(_trace_key(cfg, letter), lambda: _load_workload(letter, cfg["bnvm"], cfg))


def pages_of(cfg: dict[str, Any], letter: str, device: PCMDevice) -> PagedTrace:
    """The trace's page operations for ``device``'s chips, page and refresh unit."""
    key = (_trace_key(cfg, letter), device.n_chips, device.page_size, device.pages_per_block)
    return _PAGES.get(key, lambda: prepare_pages(trace_of(cfg, letter), device))


def compute(
    cfg: dict[str, Any],
    n_chips: int,
    trace: str,
    t_refresh_ms: float,
    page_size: int,
    grouping: str,
    flush_rounds: int,
) -> Result:
    """Run every scheme of ``SCHEMES`` on ``trace`` with the device and readings given (the
    rest from the config's ``bnvm`` section; no install replay: the paper's set-up)."""
    sec = cfg["bnvm"]
    device = dataclasses.replace(
        PCMDevice.from_config(sec["device"]),
        n_chips=int(n_chips),
        page_size=int(page_size),
        t_refresh_ms=float(t_refresh_ms),
    )
    log = dataclasses.replace(LogPolicy.from_config(sec["log"]), flush_rounds=int(flush_rounds))
    pages = pages_of(cfg, trace, device)
    opts = {"grouping": grouping, "idle_pick": sec["idle_pick"],
            "include_reads": bool(sec["include_reads"]), "idle_cap_s": _idle_cap(sec)}  # fmt: skip
    runs = {s: simulate(pages, device, s, log=log, **opts) for s in SCHEMES}
    req = trace_of(cfg, trace)
    return Result(
        values={"n_chips": int(n_chips), "trace": trace, "t_refresh_ms": float(t_refresh_ms),
                "page_size": int(page_size), "grouping": grouping,
                "flush_rounds": int(flush_rounds)},
        label=req.meta.label,
        synthetic=bool(req.meta.synthetic),
        requests=len(req),
        page_ops=len(pages),
        runs=runs,
    )  # fmt: skip


@styled
def figure(result: Result) -> Figure:
    """Left: parallel clean and dirty writes per scheme (Figs. 2-3; static + full's merge
    copies count as dirty writes). Right: total time per scheme, split into parallel writes,
    merge copies and log refresh (eq. 1)."""
    v = result.values
    fig = new_figure(10.0, 4.0)
    ax, bx = fig.subplots(1, 2)
    x = np.arange(len(SCHEMES))
    clean = np.array([result.parallel(s)[0] for s in SCHEMES], dtype=float)
    dirty = np.array([result.parallel(s)[1] for s in SCHEMES], dtype=float)
    ax.bar(x, clean / 1e3, color="C0", label="parallel clean writes")
    ax.bar(x, dirty / 1e3, bottom=clean / 1e3, color="C1", label="parallel dirty writes")
    ax.set_xticks(x, SCHEMES)
    ax.set_ylabel("parallel writes (thousands)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=7)
    parts = {
        "parallel writes": np.array([result.runs[s].write_time_s for s in SCHEMES]),
        "merge copies": np.array([result.runs[s].merge_copy_time_s for s in SCHEMES]),
        "log refresh": np.array([result.runs[s].refresh_time_s for s in SCHEMES]),
    }
    bottom = np.zeros(len(SCHEMES))
    for (name, t), colour in zip(parts.items(), ("C0", "C1", "C2"), strict=True):
        bx.bar(x, t, bottom=bottom, color=colour, label=name)
        bottom += t
    static = result.runs["static"].total_time_s
    for i in range(len(SCHEMES)):
        bx.annotate(f"{bottom[i] / static:.2f}x", (i, bottom[i]), ha="center", va="bottom",
                    fontsize=7)  # fmt: skip
    bx.set_xticks(x, SCHEMES)
    bx.margins(y=0.1)
    bx.set_ylabel("total time (s)")
    bx.set_title("labels: total time / static's", fontsize=8)
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=7)
    dyn = result.runs["dynamic"].write_time_s / result.runs["static"].write_time_s
    fig.suptitle(
        f"trace {v['trace']} [{result.label}], {result.requests:,} requests, "
        f"{result.page_ops:,} page operations | {v['n_chips']} chips, {v['page_size'] // 1024} KB "
        f"pages, refresh {v['t_refresh_ms']:g} ms, grouping {v['grouping']}, "
        f"{v['flush_rounds']} writes per flush\ndynamic / static write time {dyn:.3f}; "
        f"static + full / static total time {result.runs['static_full'].total_time_s / static:.3f}",
        fontsize=8,
    )
    return fig
