"""Plain-Python orchestration around the PCM kernel: page expansion, dense renumbering,
kernel call and the derived times."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.pcm import kernel as K
from skftl.pcm.device import PCMDevice
from skftl.pcm.schemes import GROUPINGS, IDLE_PICKS, SCHEMES, LogPolicy, lookup
from skftl.traces.pages import expand_to_pages, page_span
from skftl.traces.requests import Requests


@dataclass
class PagedTrace:
    """Page operations ready for the kernel. ``lpn`` is renumbered densely in units of
    ``n_chips`` pages, so ``lpn % n_chips`` (the static chip) is the original one and the
    state arrays scale with the footprint, not the address range; ``block`` is the dense
    rank of the original logical block (refresh unit) of each operation."""

    lpn: np.ndarray
    block: np.ndarray
    is_write: np.ndarray
    request: np.ndarray
    time_ns: np.ndarray
    prewritten: np.ndarray  # bool per dense page: holds data before the trace starts
    n_chips: int
    pages_per_block: int

    def __len__(self) -> int:
        return len(self.lpn)

    @property
    def n_lpn(self) -> int:
        return len(self.prewritten)


def written_intervals(requests: Requests, page_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint sorted page intervals ``[start, end)`` written by ``requests`` -- the state
    a preconditioning trace (e.g. an app install) leaves, without expanding it to pages."""
    w = requests[requests.is_write]
    first, count = page_span(w, page_size)
    if not len(first):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(first, kind="stable")
    s, e = first[order], (first + count)[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), bool)
    new[1:] = s[1:] > reach[:-1]  # a gap before this interval starts a new merged one
    idx = np.flatnonzero(new)
    return s[idx], np.append(reach[idx[1:] - 1], reach[-1])


def prepare_pages(
    requests: Requests, device: PCMDevice, precondition: Requests | None = None
) -> PagedTrace:
    """Split requests into page operations and renumber them for the kernel; pages written
    by ``precondition`` (replayed for state only, not timed) start as written."""
    ops = expand_to_pages(requests, device.page_size)
    pre = None
    if precondition is not None:
        starts, ends = written_intervals(precondition, device.page_size)
        k = np.searchsorted(starts, ops.lpn, side="right") - 1
        pre = (k >= 0) & (ops.lpn < ends[np.maximum(k, 0)]) if len(starts) else None
    return paged_from_lpns(
        ops.lpn,
        ops.is_write,
        ops.request,
        np.maximum.accumulate(ops.time_ns) if len(ops) else ops.time_ns,
        device,
        prewritten_ops=pre,
    )


def paged_from_lpns(
    lpn: np.ndarray,
    is_write: np.ndarray,
    request: np.ndarray,
    time_ns: np.ndarray,
    device: PCMDevice,
    prewritten_ops: np.ndarray | None = None,
) -> PagedTrace:
    """Dense renumbering of raw logical page numbers (see ``PagedTrace``);
    ``prewritten_ops[i]`` marks operation ``i``'s page as holding data before the trace."""
    c = device.n_chips
    lpn = np.asarray(lpn, dtype=np.int64)
    if len(lpn) and lpn.min() < 0:
        raise ValueError(f"negative logical page number {int(lpn.min())}")
    units, inv = np.unique(lpn // c, return_inverse=True)
    dense = inv.astype(np.int64) * c + lpn % c
    _, block = np.unique(lpn // device.pages_per_block, return_inverse=True)
    prewritten = np.zeros(len(units) * c, np.bool_)
    if prewritten_ops is not None:
        prewritten[dense[np.asarray(prewritten_ops, dtype=bool)]] = True
    return PagedTrace(
        lpn=np.ascontiguousarray(dense),
        block=np.ascontiguousarray(block.astype(np.int64)),
        is_write=np.ascontiguousarray(is_write, dtype=np.bool_),
        request=np.ascontiguousarray(request, dtype=np.int64),
        time_ns=np.ascontiguousarray(time_ns, dtype=np.int64),
        prewritten=prewritten,
        n_chips=c,
        pages_per_block=device.pages_per_block,
    )


def active_clock(time_ns: np.ndarray, idle_cap_s: float | None) -> np.ndarray:
    """Arrival times with every gap between consecutive arrivals longer than
    ``idle_cap_s`` shortened to it (``None``: wall time). Lifetime and buffer residency
    are measured on this clock, so a phone lying unused for days does not count as days
    of use (or of data waiting in the buffer)."""
    t = np.asarray(time_ns, dtype=np.int64)
    if idle_cap_s is None or len(t) == 0:
        return t
    gaps = np.minimum(np.diff(t), round(idle_cap_s * 1e9))
    return np.concatenate(([t[0]], t[0] + np.cumsum(gaps))).astype(np.int64)


def active_span_s(time_ns: np.ndarray, idle_cap_s: float | None) -> float:
    """Seconds from the first to the last arrival on the active clock."""
    a = active_clock(time_ns, idle_cap_s)
    return float(a[-1] - a[0]) * 1e-9 if len(a) else 0.0


@dataclass
class PCMResult:
    """Counters of one run (names as in ``kernel``, lower case), wear arrays and the
    histogram of write rounds by (pages, dirty pages)."""

    counters: dict[str, int]
    wear_data: np.ndarray
    wear_log: np.ndarray
    round_hist: np.ndarray
    device: PCMDevice
    refresh_units: int

    @property
    def write_time_s(self) -> float:
        """The paper's total write time: parallel clean and dirty writes by their latency."""
        d, c = self.device, self.counters
        return (c["clean_rounds"] * d.t_clean_ns + c["dirty_rounds"] * d.t_dirty_ns) * 1e-9

    @property
    def merge_copy_time_s(self) -> float:
        return self.counters["merge_rounds"] * self.device.t_dirty_ns * 1e-9

    @property
    def refresh_time_s(self) -> float:
        return self.counters["merges"] * self.refresh_units * self.device.t_refresh_ns * 1e-9

    @property
    def total_time_s(self) -> float:
        """Write time plus merge time (eq. 1) -- the static + full scheme's full cost."""
        return self.write_time_s + self.merge_copy_time_s + self.refresh_time_s


def simulate(
    pages: PagedTrace,
    device: PCMDevice,
    scheme: str,
    grouping: str = "queue",
    idle_pick: str = "round_robin",
    log: LogPolicy | None = None,
    include_reads: bool = True,
    idle_cap_s: float | None = None,
) -> PCMResult:
    """Run one mapping scheme over a page trace (rules: ``skftl.pcm.kernel``); buffer
    residency on the active clock with idle gaps capped at ``idle_cap_s``."""
    if pages.n_chips != device.n_chips:
        raise ValueError(
            f"pages were prepared for {pages.n_chips} chips, device has {device.n_chips}"
        )
    if scheme == "block" and pages.pages_per_block != device.pages_per_block:
        # only block mapping reads the logical block of each page
        raise ValueError(
            f"pages were prepared for {pages.pages_per_block} pages per block, "
            f"device has {device.pages_per_block}"
        )
    log = log or LogPolicy()
    units = log.refresh_units(device)
    cnt, wear_data, wear_log, hist = K.run_kernel(
        pages.lpn,
        pages.is_write,
        pages.request,
        pages.time_ns,
        active_clock(pages.time_ns, idle_cap_s),
        pages.block,
        lookup(SCHEMES, scheme, "scheme"),
        lookup(GROUPINGS, grouping, "grouping"),
        lookup(IDLE_PICKS, idle_pick, "idle_pick"),
        device.n_chips,
        pages.prewritten,
        log.pages_per_chip(device),
        units,
        round(log.flush_timeout_ms * 1e6),
        include_reads,
        device.t_clean_ns,
        device.t_dirty_ns,
        device.t_read_ns,
        device.t_refresh_ns,
        log.flush_rounds,
    )
    return PCMResult(
        counters=dict(zip(K.COUNTER_NAMES, (int(v) for v in cnt), strict=True)),
        wear_data=wear_data,
        wear_log=wear_log,
        round_hist=hist,
        device=device,
        refresh_units=units,
    )
