"""Locality of a block trace, measured (vectorised numpy and one sort of the page operations,
whose page measures a Numba pass takes in one walk: O(n log n)).

What the FTL-facing studies depend on beyond Table III's aggregates: how often a written
page is written again (rewrites), how often a read hits data written earlier in the trace,
how long until an address comes back (reuse distance), and how fast the footprint grows.

Definitions (``page_size`` bytes per logical page):

- **reuse distance** of a request: the number of requests since the latest earlier request
  with the same *start* page (an inter-reference distance in requests, not an LRU stack
  distance); requests whose start page is new have none.
- **rewrite share** of writes: page writes whose page was written earlier in the trace,
  over all page writes (what an FTL sees as an update of an already-mapped entry).
- **read-hit-written share**: page reads whose page was written earlier, over all page reads.
- **footprint growth**: distinct pages touched by the first k requests, for every k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError
from skftl.traces.pages import expand_to_pages, page_span
from skftl.traces.requests import Requests


def _previous_same_start(requests: Requests, page_size: int) -> np.ndarray:
    """Per request, the index of the latest earlier request with the same start page; -1
    where there is none."""
    first, _ = page_span(requests, page_size)
    order = page_order(first)  # by page, then trace order
    prev = np.full(len(first), -1, dtype=np.int64)
    if len(first) > 1:
        same = first[order[1:]] == first[order[:-1]]
        prev[order[1:][same]] = order[:-1][same]
    return prev


def reuse_distances(requests: Requests, page_size: int = 4096) -> np.ndarray:
    """Per request, the reuse distance in requests (see the module docstring); -1 where the
    start page has not been a start page before."""
    prev = _previous_same_start(requests, page_size)
    return np.where(prev >= 0, np.arange(len(prev)) - prev, -1)


def page_order(lpn: np.ndarray) -> np.ndarray:
    """The rows of page ops (in trace order) sorted by page, then trace order: the one sort
    every page measure here works on. Where page and row fit one int64 key (the page's
    distance from the lowest times the rows, plus the row), a plain sort of the keys gives
    it faster than a stable two-key sort."""
    m = len(lpn)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    low = int(lpn.min())
    if (int(lpn.max()) - low + 1) * m < 2**62:
        key = lpn - low
        key *= m
        key += np.arange(m, dtype=np.int64)
        key.sort()
        key %= m
        return key
    return np.lexsort((np.arange(m), lpn))


def _seen_before(lpn: np.ndarray, flag: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Per row (rows in trace order): an earlier row with the same lpn has ``flag`` set
    (``order``: :func:`page_order` of ``lpn``, if already sorted)."""
    order = page_order(lpn) if order is None else order
    key, f = lpn[order], flag[order].astype(np.int64)
    csum = np.cumsum(f) - f  # flagged rows before this one, over the sorted order
    group_start = np.ones(len(key), dtype=np.bool_)
    group_start[1:] = key[1:] != key[:-1]
    base = np.maximum.accumulate(np.where(group_start, csum, 0))
    out = np.empty(len(lpn), dtype=np.bool_)
    out[order] = csum - base > 0
    return out


def _written_before(ops, order: np.ndarray | None = None) -> tuple[float, float, np.ndarray]:
    """:func:`written_before_shares` of the page ops of a trace, and per page op whether
    its page was written before."""
    hit = _seen_before(ops.lpn, ops.is_write, order)
    w = ops.is_write
    rewrite = float(hit[w].mean()) if w.any() else float("nan")
    read_hit = float(hit[~w].mean()) if (~w).any() else float("nan")
    return rewrite, read_hit, hit


def written_before_shares(requests: Requests, page_size: int = 4096) -> tuple[float, float]:
    """(rewrite share of page writes, read-hit-written share of page reads); NaN where the
    trace has no page writes (reads)."""
    return _written_before(expand_to_pages(requests, page_size))[:2]


def _growth(ops, n: int, order: np.ndarray | None = None) -> np.ndarray:
    """:func:`footprint_growth` of the page ops of a trace of ``n`` requests."""
    if len(ops) == 0:
        return np.zeros(n, dtype=np.int64)
    order = page_order(ops.lpn) if order is None else order
    new = np.ones(len(order), dtype=np.bool_)
    new[1:] = ops.lpn[order[1:]] != ops.lpn[order[:-1]]
    first_request = ops.request[order][new]  # the request that first touches each page
    return np.cumsum(np.bincount(first_request, minlength=n))


def first_touches(ops, order: np.ndarray | None = None) -> tuple[int, int]:
    """(distinct pages, of which first accessed by a read) of the page ops of a trace."""
    if len(ops) == 0:
        return 0, 0
    order = page_order(ops.lpn) if order is None else order
    first = np.ones(len(order), dtype=np.bool_)
    first[1:] = ops.lpn[order[1:]] != ops.lpn[order[:-1]]
    return int(first.sum()), int(np.count_nonzero(~ops.is_write[order][first]))


def footprint_growth(requests: Requests, page_size: int = 4096) -> np.ndarray:
    """Distinct pages touched by the first k+1 requests, for k = 0..n-1 (int64)."""
    return _growth(expand_to_pages(requests, page_size), len(requests))


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov distance: the largest gap between the empirical CDFs."""
    a, b = np.sort(np.asarray(a)), np.sort(np.asarray(b))
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    x = np.concatenate([a, b])
    fa = np.searchsorted(a, x, side="right") / len(a)
    fb = np.searchsorted(b, x, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def curve_distance(a: np.ndarray, b: np.ndarray, points: int = 1000) -> float:
    """KS-style distance of two growth curves, each scaled to end at 1 and read at the same
    ``points`` fractions of its length: max |difference|."""
    if len(a) == 0 or len(b) == 0 or a[-1] == 0 or b[-1] == 0:
        return float("nan")
    q = np.linspace(0.0, 1.0, points)

    def at(c: np.ndarray) -> np.ndarray:
        return c[np.minimum((q * (len(c) - 1)).round().astype(np.int64), len(c) - 1)] / c[-1]

    return float(np.abs(at(a) - at(b)).max())


REUSE_LEVELS = (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0)  # reuse-distance quantiles
# inter-arrival gap quantiles: dense in the upper tail, where a block trace's idle periods
# (a handful of gaps holding most of the time) set the gaps' CV and mean
GAP_LEVELS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995,
              0.9999, 0.99995, 0.99999, 1.0)  # fmt: skip
GROWTH_POINTS = 101  # footprint after each 1 % of the requests
TOP_SIZES = 32  # commonest request sizes kept per type
TAIL_BINS = 8  # the other sizes, in this many bins of equal count
_ALIGNMENTS = (4096, 2048, 1024, 512)


def _size_histogram(sizes: np.ndarray) -> tuple[list[int], list[float]]:
    """The TOP_SIZES commonest sizes (ascending) and their shares, and the rest of the sizes
    in up to TAIL_BINS bins of equal count, each at its mean (rounded to the sizes' grid):
    the few rare large requests that carry much of a block trace's mean size are kept, so
    the histogram's mean is the sizes' mean up to that rounding."""
    if len(sizes) == 0:
        return [], []
    values, counts = np.unique(sizes, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    keep, rest = order[:TOP_SIZES], order[TOP_SIZES:]
    weight = dict(zip(values[keep].tolist(), counts[keep].tolist(), strict=True))
    if len(rest):
        # the bins' sizes on the sizes' own grid (a 4 KiB multiple where they all are one:
        # a size off it would make a run share a page with the next)
        grid = next((a for a in _ALIGNMENTS if np.mean(sizes % a == 0) >= 0.99), 1)
        tail = np.repeat(values[rest], counts[rest])
        tail.sort()
        for part in np.array_split(tail, min(TAIL_BINS, len(tail))):
            v = max(int(np.rint(part.mean() / grid)), 1) * grid
            weight[v] = weight.get(v, 0) + len(part)
    out = sorted(weight)
    total = float(sum(weight.values()))
    return out, [weight[v] / total for v in out]


def _pair_shares(requests: Requests, prev: np.ndarray, seq: np.ndarray) -> dict[str, float]:
    """Of the non-sequential reads (writes), the share whose start page was last a start
    page of a read / of a write."""
    w = requests.is_write
    prev_w = np.where(prev >= 0, w[np.maximum(prev, 0)], False)
    out = {}
    for key_r, key_w, mine in (
        ("reread_share", "read_after_write_share", ~w & ~seq),
        ("write_after_read_share", "rewrite_start_share", w & ~seq),
    ):
        m = max(int(mine.sum()), 1)
        out[key_r] = float(np.count_nonzero(mine & (prev >= 0) & ~prev_w) / m)
        out[key_w] = float(np.count_nonzero(mine & (prev >= 0) & prev_w) / m)
    return out


def single_runs(is_write: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """Per request: it starts a run of one request (it is not sequential, and the next
    request of its type, if any, is not sequential either)."""
    out = np.zeros(len(seq), dtype=np.bool_)
    for t in (False, True):
        idx = np.flatnonzero(is_write == t)
        s = seq[idx]
        nxt = np.zeros(len(idx), dtype=np.bool_)
        nxt[:-1] = s[1:]
        out[idx] = ~s & ~nxt
    return out


def _repeats(requests: Requests) -> np.ndarray:
    """Per request: it is identical to the one just before it (type, offset and size)."""
    same = np.zeros(len(requests), dtype=np.bool_)
    same[1:] = requests.is_write[1:] == requests.is_write[:-1]
    same[1:] &= requests.offset_bytes[1:] == requests.offset_bytes[:-1]
    same[1:] &= requests.size_bytes[1:] == requests.size_bytes[:-1]
    return same


def _overlap_reads(requests: Requests, touches: np.ndarray, new_single: np.ndarray) -> dict:
    """Of the reads that start a run of one at a new start page: the share that touch a page
    written before (``touches``: they overlap an earlier write from another start page), and
    the sizes of those that do."""
    heads = new_single & ~requests.is_write
    sizes, probs = _size_histogram(requests.size_bytes[heads & touches])
    return {
        "overlap_read_share": float(touches[heads].mean()) if heads.any() else float("nan"),
        "overlap_read_sizes": sizes,
        "overlap_read_size_probs": probs,
    }


PHASE_SLICES = 20  # time slices of the phase measures
# Where the slices end: each holds an equal share of PHASE_GROWTH_SHARE times the trace's new
# pages plus (1 - PHASE_GROWTH_SHARE) times its requests. A burst that brings much of the
# footprint in few requests (a game loading a level) then gets slices of its own instead of
# being spread over a slice of 5 % of the requests, and a trace whose footprint grows evenly
# keeps equal slices.
PHASE_GROWTH_SHARE = 0.5
# A slice's share of some event is its own only where the slice expects this many events at
# the trace's share (else the trace's share, ratio 1): the relative standard error of a count
# of 30 is about 18 %, and a share from fewer is mostly noise.
PHASE_MIN_EVENTS = 30


def slice_starts(n: int, k: int, edges: Sequence[float] = ()) -> np.ndarray:
    """The first request of each of ``k`` time slices of an ``n``-request trace, then n: at
    the fractions ``edges`` of the trace (k + 1 of them, from 0 to 1: a profile's
    ``phase_edges``), or without them equal slices (request i in slice i * k // n). One
    slice is the whole trace whatever the edges: a spec field without slices stands as one
    value, e.g. ``(1.0,)``."""
    if k == 1:
        return np.array([0, n], dtype=np.int64)
    if len(edges) and len(edges) != k + 1:
        raise ConfigError(f"phase_edges: {len(edges)} edges for {k} time slices, want {k + 1}")
    if len(edges):
        return np.rint(np.asarray(edges, dtype=np.float64) * n).astype(np.int64)
    return -(-np.arange(k + 1, dtype=np.int64) * n // k)


def time_slice(positions: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The time slice of each trace position, for slices that begin at ``starts``
    (:func:`slice_starts`; an empty slice holds no position)."""
    return np.searchsorted(starts, positions, side="right") - 1


def growth_edges(new_pages: np.ndarray) -> list[float]:
    """``phase_edges``: PHASE_SLICES + 1 fractions of the trace where its time slices begin
    (then 1), each slice holding an equal share of requests and new pages mixed as
    PHASE_GROWTH_SHARE says (``new_pages``: per request, the pages it touches first)."""
    n = len(new_pages)
    total = float(new_pages.sum())
    if total <= 0:
        return (np.arange(PHASE_SLICES + 1) / PHASE_SLICES).tolist()
    before = np.cumsum(new_pages) - new_pages  # new pages before each request
    mix = (1.0 - PHASE_GROWTH_SHARE) * np.arange(n) / n + PHASE_GROWTH_SHARE * before / total
    slice_of = np.minimum((mix * PHASE_SLICES).astype(np.int64), PHASE_SLICES - 1)
    return (np.searchsorted(slice_of, np.arange(PHASE_SLICES + 1)) / n).tolist()


def _repeat_ratios(slice_of: np.ndarray, repeat: np.ndarray, w: np.ndarray) -> dict:
    """Per time slice and type, the immediate repeats of that type per request that is not
    a repeat, over the trace's (a repeat has its original's type and slice)."""
    drawn = ~repeat
    following = np.bincount(np.cumsum(drawn) - 1, weights=repeat, minlength=int(drawn.sum()))
    out = {}
    for kind, typed in (("read", ~w), ("write", w)):
        per_request = np.zeros(len(repeat))
        per_request[drawn & typed] = following[w[drawn] == (kind == "write")]
        out[f"phase_repeat_{kind}_ratios"] = _slice_ratios(slice_of, drawn, per_request)
    return out


def _time_slices(
    new_pages: np.ndarray, repeat: np.ndarray, phase_edges: Sequence[float] | None
) -> tuple[list[float], np.ndarray, list[float]]:
    """(``phase_edges``, the time slice of each request, ``phase_footprint_shares``: the
    share of the footprint each slice touches first). The slices count the requests that
    are not immediate repeats (``repeat``), and a repeat is in its original's slice: the
    generator draws those requests, then inserts the repeats after theirs, so its slices
    are the trace's wherever the repeats fall. Edges from :func:`growth_edges`, or as given;
    given empty (an older profile's equal slices), equal slices of all requests."""
    n = len(new_pages)
    if phase_edges is not None and not len(phase_edges):
        starts = slice_starts(n, PHASE_SLICES)
        slice_of, edges, drawn = time_slice(np.arange(n), starts), [], new_pages
    else:
        drawn = new_pages[~repeat]
        edges = growth_edges(drawn) if phase_edges is None else list(phase_edges)
        starts = slice_starts(len(drawn), PHASE_SLICES, edges)
        slice_of = time_slice(np.cumsum(~repeat) - 1, starts)
    growth = np.r_[0, np.cumsum(drawn)]
    shares = np.diff(growth[starts]) / max(growth[-1], 1)
    return edges, slice_of, shares.tolist()


def _slice_ratios(
    slice_of: np.ndarray, among: np.ndarray, values: np.ndarray, min_events: float = 0.0
) -> list[float]:
    """Per time slice (``slice_of`` per request, PHASE_SLICES of them), the mean of
    ``values`` over the requests ``among`` in the slice, over their mean in the whole trace
    (for a share, ``values`` are 0 or 1). 1 in a slice without such requests or expecting
    fewer than ``min_events`` events at the trace's mean (PHASE_MIN_EVENTS for the shares of
    rare events), and everywhere when the mean is not positive."""
    values = np.asarray(values, dtype=np.float64)
    mean = float(values[among].mean()) if among.any() else 0.0
    if mean <= 0:
        return [1.0] * PHASE_SLICES
    m = np.bincount(slice_of[among], minlength=PHASE_SLICES)
    total = np.bincount(slice_of[among], weights=values[among], minlength=PHASE_SLICES)
    own = (m > 0) & (m * mean >= min_events)
    return np.where(own, total / np.maximum(m, 1) / mean, 1.0).tolist()


def _phases(requests: Requests, k: np.ndarray) -> dict[str, list[float]]:
    """Per time slice of the trace (``k`` per request): the read share, and each type's mean
    size over that type's mean in the whole trace (a slice without any: the overall values)."""
    w = requests.is_write
    count = np.bincount(k, minlength=PHASE_SLICES)
    reads = np.bincount(k, weights=~w, minlength=PHASE_SLICES)
    out = {"phase_read_fractions": np.where(count > 0, reads / np.maximum(count, 1),
                                            float(np.mean(~w))).tolist()}  # fmt: skip
    for kind, mine in (("read", ~w), ("write", w)):
        out[f"phase_{kind}_size_ratios"] = _slice_ratios(k, mine, requests.size_bytes)
    return out


def _fresh_phases(
    requests: Requests, k: np.ndarray, head: np.ndarray, follow: np.ndarray, new: np.ndarray
):
    """Per time slice of the trace (``k`` per request), what sets how fast its footprint grows:
    the mean size of each type's run heads at a new start page (``head``) and of its
    sequential continuations (``follow``), each over that class's mean in the whole trace,
    the share of each type's requests that are sequential continuations over that share in
    the whole trace (an app loading reads long sequential runs, then runs on a small hot
    set), and the share of the run heads that are not repeats that start at a new page over
    that share in the whole trace (a slice without any: 1)."""
    w = requests.is_write
    sizes = requests.size_bytes.astype(np.float64)
    out = {"phase_new_head_ratios": _slice_ratios(k, new[0], new[1])}
    for label, mine in (("head", head), ("follow", follow)):
        for kind, typed in (("read", ~w), ("write", w)):
            out[f"phase_{label}_{kind}_size_ratios"] = _slice_ratios(k, mine & typed, sizes)
    for kind, typed in (("read", ~w), ("write", w)):
        out[f"phase_seq_{kind}_ratios"] = _slice_ratios(k, typed, follow)
    return out


def run_heads(is_write: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """Per request, the position of the head of its run (the latest request of its type that
    is not sequential, at or before it)."""
    out = np.arange(len(seq), dtype=np.int64)
    for t in (False, True):
        idx = np.flatnonzero(is_write == t)
        if len(idx):
            out[idx] = idx[~seq[idx]][np.cumsum(~seq[idx]) - 1]
    return out


def _touch(
    slice_of: np.ndarray,
    w: np.ndarray,
    seq: np.ndarray,
    single: np.ndarray,
    new_head: np.ndarray,
    copied: np.ndarray,
    old: np.ndarray,
    pages: np.ndarray,
    touches: np.ndarray,
) -> dict:
    """How runs go over pages touched before. Of the runs whose head is at a new start page
    (``new_head``), per type: the share whose requests touch such pages (``old`` per
    request), that share per time slice (``slice_of``) over the whole trace's (early there is
    little to touch), of those runs the share that touch a written one (``touches``) and the
    share of one request (``single``), also per slice over the whole trace's (a part of a
    file read again is one request, a file read again whole a long run, later in a trace);
    over both types, the pages of those runs touched before (a histogram). Of the runs headed
    by a reuse (``copied``; and per type) that go on sequentially, of the runs at a new start
    page that touch such pages and go on, and of all the runs of a type at a new start page:
    the share of the pages of their continuations touched before (a run that reads a file
    again, against one that appends to it)."""
    nan = float("nan")
    head = run_heads(w, seq)
    n = len(w)
    run_old = np.bincount(head, weights=old, minlength=n)
    touched = run_old > 0  # per run head: its run touches a page touched before
    run_written = np.bincount(head, weights=touches, minlength=n) > 0
    out = {}
    for kind, typed in (("read", ~w), ("write", w)):
        mine = new_head & typed
        over = mine & touched
        out[f"touch_{kind}_share"] = float(over.sum() / mine.sum()) if mine.any() else nan
        out[f"touch_{kind}_written_share"] = float(run_written[over].mean()) if over.any() else nan
        out[f"touch_{kind}_single_run_share"] = float(single[over].mean()) if over.any() else nan
        out[f"phase_touch_{kind}_ratios"] = _slice_ratios(slice_of, mine, touched, PHASE_MIN_EVENTS)
        out[f"phase_touch_{kind}_single_ratios"] = _slice_ratios(
            slice_of, over, single, PHASE_MIN_EVENTS
        )
    touching = new_head & touched
    out["touch_pages"], out["touch_page_probs"] = _size_histogram(
        np.rint(run_old[touching]).astype(np.int64)
    )
    for key, headed in (
        ("copy_run_old_share", copied),
        ("copy_read_run_old_share", copied & ~w),
        ("copy_write_run_old_share", copied & w),
        ("touch_run_old_share", touching),
        ("new_read_run_old_share", new_head & ~w),
        ("new_write_run_old_share", new_head & w),
    ):
        follows = seq & headed[head]
        total = float(pages[follows].sum())
        out[key] = float(old[follows].sum() / total) if total > 0 else nan
    length = np.bincount(head, minlength=n)
    long_copies = copied & (length > 1)
    out["copy_run_requests"] = float(length[long_copies].mean()) if long_copies.any() else nan
    return out


def _touch_distances(new_head: np.ndarray, latest: np.ndarray) -> dict:
    """Quantiles (at REUSE_LEVELS) of how far back (requests) a run whose head is at a new
    start page finds the pages it touches again: from its head to the latest earlier request
    that touched one of them (``latest`` per run head, -1: none; at least 1)."""
    runs = new_head & (latest >= 0)
    d = np.maximum(np.flatnonzero(runs) - latest[runs], 1)
    return {
        "touch_distance_levels": list(REUSE_LEVELS) if len(d) else [],
        "touch_distance_quantiles": np.quantile(d, REUSE_LEVELS).tolist() if len(d) else [],
    }


@dataclass(frozen=True)
class _PageMeasures:
    """What :func:`~skftl.traces.locality_kernel.page_passes` finds (see there)."""

    hit: np.ndarray  # per page op: its page was written by an earlier one
    new_pages: np.ndarray  # per request: the pages it touches first
    old: np.ndarray  # per request: the pages it touches that an earlier request touched
    latest: np.ndarray  # per run head: the latest earlier request touching its run's pages
    distinct: int
    read_first: int  # distinct pages first touched by a read


def _page_measures(ops, order: np.ndarray, head: np.ndarray, n: int) -> _PageMeasures:
    """The page measures of page ops ``ops`` (``order``: :func:`page_order` of them; ``head``
    per request: the head of its run) of a trace of ``n`` requests, in one pass."""
    from skftl.traces.locality_kernel import page_passes  # Numba: loaded when measured

    hit = np.empty(len(ops), dtype=np.bool_)
    new_pages, old, latest = (np.empty(n, dtype=np.int64) for _ in range(3))
    distinct, read_first = page_passes(
        ops.lpn, ops.request, ops.is_write, order, head, n, hit, new_pages, old, latest
    )
    return _PageMeasures(hit, new_pages, old, latest, int(distinct), int(read_first))


def _sd_kb(sizes: np.ndarray) -> float:
    return float(sizes.std() / 1024) if len(sizes) else float("nan")


def _mean_kb(sizes: np.ndarray) -> float:
    return float(sizes.mean() / 1024) if len(sizes) else float("nan")


def _gap_stats(requests: Requests) -> tuple[float, float, list[float]]:
    """(coefficient of variation, median / mean, quantiles at GAP_LEVELS as multiples of
    the mean) of the inter-arrival gaps."""
    gaps = np.diff(requests.monotonic_time_ns()).astype(np.float64)
    mean = gaps.mean() if len(gaps) else 0.0
    if mean <= 0:
        return float("nan"), float("nan"), []
    quantiles = (np.quantile(gaps, GAP_LEVELS) / mean).tolist()
    return float(gaps.std() / mean), float(np.median(gaps) / mean), quantiles


def _top_decile_share(lpn: np.ndarray, order: np.ndarray) -> float:
    """Share of page accesses that go to the hottest 10 % of touched pages (``order``:
    :func:`page_order` of ``lpn``)."""
    key = lpn[order]
    start = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    counts = np.diff(np.append(start, len(key)))
    top = np.sort(counts)[::-1][: max(int(np.ceil(0.1 * len(counts))), 1)]
    return float(top.sum() / counts.sum())


@dataclass(frozen=True)
class Measured:
    """A trace's :func:`profile` with the two curves :func:`compare` also needs, measured in
    one pass (a round trip would otherwise measure each trace three or four times)."""

    profile: dict
    reuse: np.ndarray  # reuse distances of the requests that have one
    growth: np.ndarray  # footprint_growth


def profile(
    requests: Requests, page_size: int = 4096, phase_edges: Sequence[float] | None = None
) -> dict:
    """Everything the generator can target (see :func:`measured`)."""
    return measured(requests, page_size, phase_edges).profile


def measured(
    requests: Requests, page_size: int = 4096, phase_edges: Sequence[float] | None = None
) -> Measured:
    """Everything the generator can target, measured: the Table III aggregates, size
    histograms, footprint and its growth, popularity skew, temporal reuse (shares,
    quantiles of the reuse distance, per source type), page rewrite / read-hit shares and
    arrival burstiness. A flat dict of python scalars and lists (YAML/JSON-ready); the
    module docstring's definitions apply. The per-slice measures (``phase_*``) are taken on
    the slices :func:`growth_edges` finds, or on ``phase_edges`` where given (a draw
    measured against the profile it was drawn from; empty: equal slices). Raises
    ConfigError naming the trace when it has fewer than two requests."""
    from skftl.traces.stats import characterise, sequential_mask

    n = len(requests)
    if n < 2:
        raise ConfigError(f"trace {requests.meta.name!r}: {n} request(s); locality needs >= 2")
    table = characterise(requests, page_size)
    w = requests.is_write
    seq = sequential_mask(requests)
    prev = _previous_same_start(requests, page_size)
    dist = (np.arange(n) - prev)[prev >= 0]
    ops = expand_to_pages(requests, page_size)
    order = page_order(ops.lpn)
    page = _page_measures(ops, order, run_heads(w, seq), n)
    hit = page.hit
    rewrite_share = float(hit[ops.is_write].mean()) if ops.is_write.any() else float("nan")
    reads = ~ops.is_write
    read_hit_written_share = float(hit[reads].mean()) if reads.any() else float("nan")
    growth = np.cumsum(page.new_pages)
    at = np.rint(np.linspace(0.0, 1.0, GROWTH_POINTS) * (n - 1)).astype(np.int64)
    read_sizes, read_probs = _size_histogram(requests.size_bytes[~w])
    write_sizes, write_probs = _size_histogram(requests.size_bytes[w])
    again = (prev >= 0) & ~seq  # non-sequential requests at a reused start page
    single = single_runs(w, seq)
    reuse_read_sizes, reuse_read_probs = _size_histogram(requests.size_bytes[again & ~w])
    reuse_write_sizes, reuse_write_probs = _size_histogram(requests.size_bytes[again & w])
    repeat = _repeats(requests)
    edges, slice_of, footprint_shares = _time_slices(page.new_pages, repeat, phase_edges)
    copied = again & ~repeat  # reuses other than immediate repeats, and what they reuse
    source = prev[copied]
    repeat_read_sizes, repeat_read_probs = _size_histogram(requests.size_bytes[repeat & ~w])
    repeat_write_sizes, repeat_write_probs = _size_histogram(requests.size_bytes[repeat & w])
    offsets = requests.offset_bytes
    alignment = next((a for a in _ALIGNMENTS if np.mean(offsets % a == 0) >= 0.99), 512)
    gap_cv, gap_median_ratio, gap_quantiles = _gap_stats(requests)
    nan = float("nan")
    touches = np.bincount(ops.request[hit], minlength=n) > 0  # touch a page written before
    # the sizes of each class of request the generator draws apart: run heads at a new
    # start page, the sequential requests that continue a run, the reuses that copy an
    # earlier request
    new_head = (prev < 0) & ~seq
    classes = {"head": new_head, "follow": seq, "copy": copied}
    old = page.old
    touch = _touch(
        slice_of,
        w,
        seq,
        single,
        new_head,
        copied,
        old,
        np.bincount(ops.request, minlength=n),
        touches,
    )
    touch.update(_touch_distances(new_head, page.latest))
    types = (("read", ~w), ("write", w))
    groups = [
        (f"{label}_{kind}", mine & typed)
        for label, mine in classes.items()
        for kind, typed in types
    ]
    # the reuses by the type of the request whose start they reuse (a read of a file written
    # is read back whole, a re-read is small): "copy_read_of_write" etc.
    source_write = w[np.maximum(prev, 0)]
    source_types = (("read", ~source_write), ("write", source_write))
    groups += [
        (f"copy_{kind}_of_{of}", copied & typed & from_type)
        for kind, typed in types
        for of, from_type in source_types
    ]
    class_sizes = {}
    for label, mine in groups:
        sizes, probs = _size_histogram(requests.size_bytes[mine])
        class_sizes[f"{label}_sizes"] = sizes
        class_sizes[f"{label}_size_probs"] = probs
        class_sizes[f"mean_{label}_size_kb"] = _mean_kb(requests.size_bytes[mine])
    grid = max(page_size // alignment, 1)  # alignment units per page
    into = offsets[(prev < 0) & ~seq] % page_size // alignment if grid > 1 else np.zeros(1)
    page_offsets = np.bincount(into.astype(np.int64), minlength=grid)[:grid]
    flat = {
        "name": requests.meta.name,
        "n_requests": n,
        "page_size": page_size,
        "read_fraction": table["read_pct"] / 100,
        "seq_read_fraction": table["seq_read_pct"] / 100,
        "seq_write_fraction": table["seq_write_pct"] / 100,
        "mean_size_kb": float(table["mean_size_kb"]),
        "mean_read_size_kb": float(table["mean_read_size_kb"]),
        "mean_write_size_kb": float(table["mean_write_size_kb"]),
        "read_sizes": read_sizes,
        "read_size_probs": read_probs,
        "write_sizes": write_sizes,
        "write_size_probs": write_probs,
        "reuse_read_sizes": reuse_read_sizes,
        "reuse_read_size_probs": reuse_read_probs,
        "reuse_write_sizes": reuse_write_sizes,
        "reuse_write_size_probs": reuse_write_probs,
        **class_sizes,
        "repeat_share": float(np.count_nonzero(repeat) / n),
        "repeat_write_share": float(w[repeat].mean()) if repeat.any() else nan,
        "repeat_read_sizes": repeat_read_sizes,
        "repeat_read_size_probs": repeat_read_probs,
        "repeat_write_sizes": repeat_write_sizes,
        "repeat_write_size_probs": repeat_write_probs,
        "single_run_share": float(single[~seq].mean()),
        "reuse_single_run_share": float(single[again].mean()) if again.any() else nan,
        # the same three of the reuses that are not immediate repeats (the generator makes
        # repeats apart from them)
        "copy_single_run_share": float(single[copied].mean()) if len(source) else nan,
        **{
            f"copy_{kind}_single_run_share": float(single[copied & typed].mean())
            if (copied & typed).any()
            else nan
            for kind, typed in (("read", ~w), ("write", w))
        },
        "reuse_source_single_share": float(single[source].mean()) if len(source) else nan,
        "reuse_same_size_share": float(
            np.mean(requests.size_bytes[source] == requests.size_bytes[copied])
        )
        if len(source)
        else nan,
        "read_size_sd_kb": _sd_kb(requests.size_bytes[~w]),
        "write_size_sd_kb": _sd_kb(requests.size_bytes[w]),
        "mean_reuse_read_size_kb": _mean_kb(requests.size_bytes[again & ~w]),
        "mean_reuse_write_size_kb": _mean_kb(requests.size_bytes[again & w]),
        "alignment_bytes": int(alignment),
        # where in a page the requests at a new start page start (alignment units; page
        # and alignment as here): how many pages a request touches follows from it
        "head_page_offset_probs": (page_offsets / max(page_offsets.sum(), 1)).tolist(),
        "address_span_bytes": int((offsets + requests.size_bytes).max()),
        "iops": float(table["iops"]),
        "footprint_pages": int(growth[-1]),
        "footprint_read_pages": page.read_first,
        "footprint_half_share": float(growth[n // 2 - 1] / growth[-1]) if growth[-1] else nan,
        "footprint_growth": (growth[at] / max(growth[-1], 1)).tolist(),
        "phase_edges": edges,
        "phase_footprint_shares": footprint_shares,
        **(_repeat_ratios(slice_of, repeat, w) if edges else {}),
        **_phases(requests, slice_of),
        **_fresh_phases(requests, slice_of, new_head, seq, (~seq & ~repeat, prev < 0)),
        "top_decile_access_share": _top_decile_share(ops.lpn, order) if len(ops) else nan,
        "reuse_share": float(len(dist) / n),
        "median_reuse_distance": float(np.median(dist)) if len(dist) else nan,
        "reuse_distance_levels": list(REUSE_LEVELS),
        "reuse_distance_quantiles": np.quantile(dist, REUSE_LEVELS).tolist() if len(dist) else [],
        **_pair_shares(requests, prev, seq),
        **_overlap_reads(requests, touches, (prev < 0) & single),
        **touch,
        "page_reads": int(np.count_nonzero(~ops.is_write)),  # the trials of the page shares
        "page_writes": int(np.count_nonzero(ops.is_write)),
        "rewrite_share": rewrite_share,
        "read_hit_written_share": read_hit_written_share,
        "gap_cv": gap_cv,
        "gap_median_ratio": gap_median_ratio,
        "gap_levels": list(GAP_LEVELS) if gap_quantiles else [],
        "gap_quantiles": gap_quantiles,
    }
    return Measured(flat, dist, growth)


LOCALITY_KEYS = (
    "reuse_share",
    "median_reuse_distance",
    "rewrite_share",
    "read_hit_written_share",
    "footprint_pages",
    "footprint_half_share",
)
# The scalars the round trip (profile -> synthesise -> profile) is checked on.
SCALARS = (
    "read_fraction",
    "mean_read_size_kb",
    "mean_write_size_kb",
    "seq_read_fraction",
    "seq_write_fraction",
    *LOCALITY_KEYS,
    "top_decile_access_share",
    "gap_cv",
    "gap_median_ratio",
)


def locality(requests: Requests, page_size: int = 4096) -> dict[str, float]:
    """The locality scalars of a trace (a subset of :func:`profile`). Raises ConfigError
    naming the trace when it has fewer than two requests: no locality is defined then."""
    p = profile(requests, page_size)
    return {key: p[key] for key in LOCALITY_KEYS}


SCALAR_TOLERANCE = 0.10  # relative, per scalar: the validation target
CURVE_TOLERANCE = 0.10  # KS distance, reuse-distance CDF and footprint-growth curve
# Sampling rule for the event shares: a share of k events in m trials carries a sampling
# error sqrt(p (1 - p) / m); for a rare event (a few reuses in a short trace) that error is
# far above 10 % of the share, and a relative miss says nothing. Such a row also holds when
# the two shares differ by at most SAMPLING_SE standard errors of the difference (each
# share's error from its own trace's trials). The row then says so in ``rule``; its
# ``distance`` stays the relative difference.
SAMPLING_SE = 2.0
SHARE_TRIALS = {  # event share -> the profile key counting its trials
    "reuse_share": "n_requests",
    "rewrite_share": "page_writes",
    "read_hit_written_share": "page_reads",
}
RELATIVE_RULE = "10 % relative"
SAMPLING_RULE = f"within {SAMPLING_SE:g} sampling SE (rare events, few requests)"
# The same for the statistics of the reuse distances, whose sample is the trace's reuses
# (3 in wsrch-small, 29 in tpcc-small): the median also holds inside the real sample's
# 95 % confidence interval of the median (order statistics n/2 -+ 1.96 sqrt(n)/2); the
# reuse-distance CDF also holds below the two-sample KS critical value at 5 %,
# 1.36 sqrt((n + m) / (n m)). Rows held so say so in ``rule``.
MEDIAN_RULE = "inside the real median's 95 % CI (few reuses)"
KS_RULE = "below the 5 % two-sample KS critical value (few reuses)"
KS_CRITICAL = 1.36


SAMPLING_RULES = (SAMPLING_RULE, MEDIAN_RULE, KS_RULE)


def _median_ci(x: np.ndarray) -> tuple[float, float]:
    """95 % confidence interval of the median of the sample ``x`` (order statistics)."""
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    s = np.sort(x)
    half = 1.96 * np.sqrt(n) / 2
    lo, hi = int(np.floor(n / 2 - half)), int(np.ceil(n / 2 + half))
    return float(s[max(lo, 0)]), float(s[min(hi, n - 1)])


def _ks_critical(n: int, m: int) -> float:
    return KS_CRITICAL * np.sqrt((n + m) / (n * m)) if n and m else float("nan")


# ... and for the mean request sizes, sample means whose error is sd / sqrt(count): a few
# thousand requests of a heavy-tailed size mix (a 10 k-request excerpt's reads) leave it
# above 5 %.
MEAN_SIZE_SD = {  # mean size -> its standard deviation's key, and 1 for reads, 0 for writes
    "mean_read_size_kb": ("read_size_sd_kb", 1.0),
    "mean_write_size_kb": ("write_size_sd_kb", 0.0),
}


def _sampling_se(p: dict, key: str) -> float:
    """Standard error of the share or mean size ``key`` of profile ``p`` (NaN if its
    trials or spread are unknown)."""
    if key in MEAN_SIZE_SD:
        sd_key, reads = MEAN_SIZE_SD[key]
        share = float(p["read_fraction"]) if reads else 1.0 - float(p["read_fraction"])
        count = share * float(p["n_requests"])
        sd = float(p.get(sd_key, float("nan")))
        return sd / np.sqrt(count) if count > 0 else float("nan")
    m, share = p.get(SHARE_TRIALS[key]), float(p[key])
    if not m or not np.isfinite(share):
        return float("nan")
    return float(np.sqrt(share * (1.0 - share) / m))


def compare(real: Requests, synthetic: Requests, page_size: int = 4096) -> list[dict]:
    """Side-by-side profile of a real trace and a synthetic one: one row per scalar of
    :data:`SCALARS` and per curve, with both values, the distance (relative; KS for a
    curve), whether it holds and by which ``rule``: scalars within 10 % relative, curves
    KS <= 0.1; where the real sample is too small for those to mean anything, the sampling
    rules (SAMPLING_SE, MEDIAN_RULE, KS_RULE; see there)."""
    return compare_measured(measured(real, page_size), measured(synthetic, page_size))


def compare_measured(real: Measured, synthetic: Measured) -> list[dict]:
    """:func:`compare` of two traces already measured."""
    a, b = real.profile, synthetic.profile
    rows = []
    for key in SCALARS:
        ref, got = float(a[key]), float(b[key])
        if np.isnan(ref) and np.isnan(got):
            rel = 0.0  # undefined in both (e.g. write sizes of two read-only traces)
        elif ref:
            rel = abs(got - ref) / abs(ref)
        else:
            rel = 0.0 if got == 0 else float("inf")
        holds, rule = bool(rel <= SCALAR_TOLERANCE), RELATIVE_RULE
        if not holds and (key in SHARE_TRIALS or key in MEAN_SIZE_SD):
            se = np.hypot(_sampling_se(a, key), _sampling_se(b, key))
            if abs(got - ref) <= SAMPLING_SE * se:  # NaN (unknown trials) never holds
                holds, rule = True, SAMPLING_RULE
        if not holds and key == "median_reuse_distance":
            lo, hi = _median_ci(real.reuse)
            if lo <= got <= hi:
                holds, rule = True, MEDIAN_RULE
        rows.append({"measure": key, "real": ref, "synthetic": got, "distance": rel,
                     "holds": holds, "rule": rule})  # fmt: skip
    curves = {
        "reuse_distance_cdf_ks": ks_distance(real.reuse, synthetic.reuse),
        "footprint_growth_ks": curve_distance(real.growth, synthetic.growth),
    }
    for key, d in curves.items():
        holds, rule = bool(d <= CURVE_TOLERANCE), "KS <= 0.1"
        if not holds and key == "reuse_distance_cdf_ks":
            if d <= _ks_critical(len(real.reuse), len(synthetic.reuse)):
                holds, rule = True, KS_RULE
        rows.append({"measure": key, "real": 0.0, "synthetic": d, "distance": d,
                     "holds": holds, "rule": rule})  # fmt: skip
    return rows
