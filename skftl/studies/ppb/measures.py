"""Measures of the `ppb` study beyond mean latencies: what share of a trace's
reads a write-time placement can speed up at all, the ceiling that leaves, which reads
waited behind garbage collection, and program time over all programs (host and GC).

Everything here is a pure function of a trace, a replay's logs or the page-latency tables,
so each can be tested against a hand-computed case.
"""

from __future__ import annotations

import numpy as np

from skftl.nand import core
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests

__all__ = [
    "distinct",
    "read_shares",
    "fastest_class_ns",
    "read_ceiling",
    "gc_bursts",
    "gc_stalled_reads",
    "GcStallLog",
    "latency_summary",
    "all_programs_ns",
    "program_pages",
    "programs_mean_ns",
]


def distinct(x: np.ndarray) -> np.ndarray:
    """``np.unique(x)`` by sorting: numpy >= 2.3's hash-based ``np.unique`` takes about a
    minute on the millions of distinct pages of a paper-scale trace, sorting a second."""
    s = np.sort(x)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s


def read_shares(req: Requests, page_size: int) -> dict[str, float]:
    """Shares of a trace's page reads: ``written`` hit a page the trace wrote earlier (the
    only reads a policy that places data when it is written can move), ``first`` are the
    first access ever to their page in the trace (no history: no hotness policy can have
    placed them), ``reread`` are the rest (the page was read or written before)."""
    ops = expand_to_pages(req, page_size)
    rd = ~ops.is_write
    if not rd.any():
        return {"written": np.nan, "first": np.nan, "reread": np.nan}
    idx = np.arange(len(ops.lpn))
    _, lpn = np.unique(ops.lpn, return_inverse=True)
    first_write = np.full(lpn.max() + 1, len(idx))
    np.minimum.at(first_write, lpn[ops.is_write], idx[ops.is_write])
    first_access = np.full(lpn.max() + 1, len(idx))
    np.minimum.at(first_access, lpn, idx)
    first = first_access[lpn[rd]] == idx[rd]
    return {
        "written": float((first_write[lpn[rd]] < idx[rd]).mean()),
        "first": float(first.mean()),
        "reread": float((~first).mean()),
    }


def fastest_class_ns(read_ns: np.ndarray, n_vbs: int) -> float:
    """Mean read time of the fastest of ``n_vbs`` equal virtual blocks of a block (PPB's
    best placement: it places by virtual block, not by single page)."""
    return float(np.asarray(read_ns, float).reshape(n_vbs, -1).mean(axis=1).min())


def read_ceiling(share: float, read_ns: np.ndarray, n_vbs: int) -> float:
    """Array-time read improvement (%) over a speed-blind FTL if a ``share`` of page reads
    were served from the fastest virtual block and the rest at the block's mean page (where
    a speed-blind FTL puts a page in expectation)."""
    mean = float(np.mean(read_ns))
    return 100.0 * share * (1.0 - fastest_class_ns(read_ns, n_vbs) / mean)


def gc_bursts(
    chip: np.ndarray,
    kind: np.ndarray,
    page: np.ndarray,
    time: np.ndarray,
    origin: np.ndarray,
    read_ns: np.ndarray,
    prog_ns: np.ndarray,
    erase_ns: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """GC bursts of a flash-operation log (``Ftl`` with ``flash_log_capacity``): the GC
    operations one host write triggered on one chip (same chip and issue time, consecutive
    in the log). Returns (chip, log index of the first operation, start, end) per burst,
    with end = start + the burst's own array time (copies read + programmed, erases): a
    lower bound, as the chip may still have had queued work when GC was issued."""
    gc = np.flatnonzero(origin == core.ORIGIN_GC)
    if not len(gc):
        e = np.zeros(0, np.int64)
        return e, e, e, e
    c, t = chip[gc], time[gc]
    new = np.ones(len(gc), bool)
    new[1:] = (c[1:] != c[:-1]) | (t[1:] != t[:-1]) | (gc[1:] != gc[:-1] + 1)
    k = kind[gc]
    p = np.maximum(page[gc], 0)
    cost = np.where(
        k == core.FLASH_READ, read_ns[p], np.where(k == core.FLASH_PROGRAM, prog_ns[p], erase_ns)
    )
    burst = np.cumsum(new) - 1
    dur = np.bincount(burst, weights=cost).astype(np.int64)
    first = np.flatnonzero(new)
    return c[first].astype(np.int64), gc[first].astype(np.int64), t[first], t[first] + dur


def gc_stalled_reads(
    read_idx: np.ndarray,
    read_chip: np.ndarray,
    read_time: np.ndarray,
    bursts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    read_request: np.ndarray,
    n_requests: int,
) -> np.ndarray:
    """Per request: whether one of its page reads arrived while a GC burst issued before it
    on the same chip was certainly still running (so it waited behind GC). The host reads
    of the flash-operation log are given by log index, chip and issue time, in log order;
    ``read_request`` gives the request of each."""
    stalled = np.zeros(n_requests, bool)
    if len(read_idx) != len(read_request):
        raise ValueError(f"{len(read_idx)} host reads in the log, {len(read_request)} given")
    b_chip, b_idx, _, b_end = bursts
    for c in np.unique(b_chip):
        on = b_chip == c
        idx, end = b_idx[on], np.maximum.accumulate(b_end[on])  # bursts in log order
        mine = read_chip == c
        # the last burst issued before each read on this chip (log order = arrival order)
        j = np.searchsorted(idx, read_idx[mine]) - 1
        hit = (j >= 0) & (read_time[mine] < end[np.maximum(j, 0)])
        stalled[read_request[mine][hit]] = True
    return stalled


class GcStallLog:
    """What the GC-stall measures keep of a flash-operation log, digested chunk by chunk as
    the replay drains it (``Ftl.replay(on_flash=...)``): its GC bursts (``gc_bursts``) and
    its host reads (log index, chip, issue time). A whole replay's log does not fit in
    memory at paper scale (tens of millions of GC operations per trace). A burst that a
    drain cut in two is joined again, so the result equals ``gc_bursts`` of the whole log."""

    def __init__(self, read_ns: np.ndarray, prog_ns: np.ndarray, erase_ns: int) -> None:
        self.tables = (read_ns, prog_ns, erase_ns)
        self.n = 0  # log operations seen
        self.last_gc = False  # whether the last operation seen was a GC operation
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.reads: list[tuple[np.ndarray, ...]] = []

    def __call__(
        self,
        chip: np.ndarray,
        kind: np.ndarray,
        page: np.ndarray,
        time: np.ndarray,
        origin: np.ndarray,
    ) -> None:
        b_chip, b_idx, b_start, b_end = gc_bursts(chip, kind, page, time, origin, *self.tables)
        if len(b_idx) and self.last_gc and b_idx[0] == 0:
            prev = self.parts[-1]
            if prev[0][-1] == b_chip[0] and prev[2][-1] == b_start[0]:
                prev[3][-1] += b_end[0] - b_start[0]  # the burst continues across the drain
                b_chip, b_idx, b_start, b_end = b_chip[1:], b_idx[1:], b_start[1:], b_end[1:]
        if len(b_idx):
            self.parts.append((b_chip, b_idx + self.n, b_start, b_end))
        rd = np.flatnonzero((origin == core.ORIGIN_HOST) & (kind == core.FLASH_READ))
        self.reads.append((rd + self.n, chip[rd].astype(np.int64), time[rd].astype(np.int64)))
        if len(chip):
            self.last_gc = bool(origin[-1] == core.ORIGIN_GC)
        self.n += len(chip)

    def bursts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(chip, log index of the first operation, start, end) per burst, as ``gc_bursts``."""
        if not self.parts:
            e = np.zeros(0, np.int64)
            return e, e, e, e
        return tuple(np.concatenate(x) for x in zip(*self.parts, strict=True))

    def stalled(self, read_request: np.ndarray, n_requests: int) -> np.ndarray:
        """``gc_stalled_reads`` of the log seen so far."""
        e = np.zeros(0, np.int64)
        idx, chip, time = (
            tuple(np.concatenate(x) for x in zip(*self.reads, strict=True))
            if self.reads
            else (e, e, e)
        )
        return gc_stalled_reads(idx, chip, time, self.bursts(), read_request, n_requests)


def latency_summary(lat_us: np.ndarray, stalled: np.ndarray) -> dict[str, float]:
    """Mean, median and p90 of read request latencies (us), the share of reads stalled by
    GC, the share of total read latency they carry, and the mean of the other reads."""
    if not len(lat_us):
        keys = ("mean", "median", "p90", "stalled", "stalled_latency", "mean_unstalled")
        return dict.fromkeys(keys, np.nan)
    total = float(lat_us.sum())
    rest = lat_us[~stalled]
    return {
        "mean": float(lat_us.mean()),
        "median": float(np.median(lat_us)),
        "p90": float(np.quantile(lat_us, 0.9)),
        "stalled": float(stalled.mean()),
        "stalled_latency": float(lat_us[stalled].sum() / total) if total else 0.0,
        "mean_unstalled": float(rest.mean()) if len(rest) else np.nan,
    }


def program_pages(new: np.ndarray, kind: np.ndarray, pages_per_block: int) -> np.ndarray:
    """Page position within its block of every program of a mapping-update log, host
    writes, GC copies and migrations alike (trims excluded)."""
    prog = (new >= 0) & (
        (kind == core.LOG_HOST) | (kind == core.LOG_GC) | (kind == core.LOG_MIGRATE)
    )
    return (new[prog] % pages_per_block).astype(np.int32)


def all_programs_ns(
    new: np.ndarray, kind: np.ndarray, prog_ns: np.ndarray, pages_per_block: int
) -> float:
    """Mean program time over every program of a mapping-update log (``program_pages``).
    Over whole erase cycles every page position of a block is programmed once, so this
    mean tends to the block's mean page whatever the policy."""
    return programs_mean_ns(program_pages(new, kind, pages_per_block), prog_ns)


def programs_mean_ns(pages: np.ndarray, prog_ns: np.ndarray) -> float:
    """Mean program time of programs at the given page positions (nan without any)."""
    return float(prog_ns[pages].mean()) if len(pages) else np.nan
