"""A synthetic workload like a measured one: from a :func:`skftl.traces.locality.profile` to
the :class:`~skftl.traces.synthetic.SyntheticSpec` that reproduces it.

The Table III aggregates and sequential shares map one to one onto spec fields (the
generator makes them exact). Most other parameters are estimated from the profile in closed
form, each class of request the generator draws apart taking what the trace measured for
that class: the sizes of run heads at a new address, of sequential continuations and of
reuses (histograms tilted to each class's mean), where in a page new runs start, the reuse
shares less the immediate repeats (which the generator adds apart), the share of new runs
that go over pages touched before and how many pages, how far back, how long the runs that
reuse an address are and whether they go over their source's pages or append to them, and
the new-address rate and sizes per time slice. What is measured (the *latest* earlier
request with the same start page, at page level) still differs from what is drawn, because
copies and overlaps interact; so a **calibration** follows: a few fixed-point iterations,
each drawing a seeded trace and scaling the reuse shares, the time slices' new-address
weights and size factors, the overlaps' written shares and the mean sizes by target /
measured, with one **bisection** that fits the footprint per request before and after it
(the overlaps of both types scaled by one factor, then the shares of runs that go over their
source's pages, :func:`fit_footprint`; it converges on any trace whose footprint those can
reach, and says by how much it missed on one they cannot), and the mean sizes once more
after it. The result says it is calibrated
(``notes``), and its ``targets`` are the measured profile's scalars.

Arrival burstiness is fitted in closed form: the measured gap quantiles with their tail fitted
to the gaps' coefficient of variation (:func:`gap_table`); a profile without quantiles gets a
two-exponential mixture (a share ``b`` of short gaps of mean ``g``) matching the coefficient
of variation and the median / mean ratio (a CV below 1 cannot be made by this mixture:
Poisson arrivals are used then).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from skftl.errors import ConfigError
from skftl.traces import locality
from skftl.traces.requests import SECTOR, Requests
from skftl.traces.stats import footprint_pages
from skftl.traces.synthetic import SizeDist, SyntheticSpec, generate

CALIBRATION_REQUESTS = 200_000  # longest draw a calibration step measures
# A calibration step (and each step of the footprint fit) measures draws of at least this
# many requests in all, up to CALIBRATION_DRAWS draws of the profile's length, and takes
# their mean: a few thousand requests are one noisy draw, and a step that corrects by one
# draw carries its noise into the spec (the look-alikes of a 2,660-request trace varied by
# 13 % in footprint per request with the seed of the fit, 7 % between draws of one fit).
CALIBRATION_FLOOR = 20_000
CALIBRATION_DRAWS = 8
WEIGHT_SLICES = 20  # equal time slices of the new-address weights of a profile without edges
_PAIRS = {  # spec field -> profile key of its start-page share (its starting value)
    "reread_fraction": "reread_share",
    "read_after_write_fraction": "read_after_write_share",
    "write_after_read_fraction": "write_after_read_share",
    "rewrite_fraction": "rewrite_start_share",
}
FRESH_ROOM = 4.0  # address space of a fit, at least this times the bytes of its requests
STEP_GAIN = 1.0  # exponent of the multiplicative step (above 1 overshoots)
REQUIRED = (
    "name",
    "n_requests",
    "read_fraction",
    "seq_read_fraction",
    "seq_write_fraction",
    "mean_read_size_kb",
    "mean_write_size_kb",
    "read_sizes",
    "read_size_probs",
    "write_sizes",
    "write_size_probs",
    "alignment_bytes",
    "address_span_bytes",
    "iops",
    "footprint_pages",
    "footprint_growth",
    "reuse_distance_levels",
    "reuse_distance_quantiles",
    *_PAIRS.values(),
    "gap_cv",
    "gap_median_ratio",
)


def _num(x: Any, default: float) -> float:
    x = float(x)
    return default if not np.isfinite(x) else x


def _sizes(sizes: list, probs: list, mean_kb: float = float("nan")) -> SizeDist | None:
    """The measured histogram (sizes rounded up to 512 B), tilted to the measured mean
    when one is given."""
    if not sizes:
        return None
    sectors = np.maximum(np.ceil(np.asarray(sizes, dtype=float) / SECTOR), 1).astype(int)
    weights: dict[int, float] = {}
    for s, p in zip(sectors.tolist(), probs, strict=True):
        weights[s] = weights.get(s, 0.0) + float(p)
    dist = SizeDist.discrete(weights)
    mean = mean_kb * 1024
    lo, hi = min(dist.sizes), max(dist.sizes)
    if np.isfinite(mean) and lo < mean < hi and abs(dist.mean_bytes - mean) > 1e-6 * mean:
        dist = dist.tilted_to_mean(mean)
    return dist


def burst_fit(cv: float, median_ratio: float) -> tuple[float, float]:
    """(burst_fraction b, burst gap as a share of the mean gap g) of the two-exponential
    mixture whose gap CV is ``cv`` and whose median / mean is closest to ``median_ratio``
    (grid over b, bisection for g on the branch g < 1). (0, 0) when cv <= 1 or undefined."""
    if not np.isfinite(cv) or cv <= 1.0:
        return 0.0, 0.0
    b = 1.0 - np.logspace(-7.0, -0.001, 700)  # dense near 1: CVs in the hundreds occur
    b = b[(1 + b) / (1 - b) > cv**2]  # reachable CV on the branch g < 1
    if len(b) == 0:
        b = np.array([1.0 - 1e-7])

    def cv2(g: np.ndarray) -> np.ndarray:
        big = (1 - b * g) / (1 - b)
        return 2 * (b * g**2 + (1 - b) * big**2) - 1

    lo, hi = np.zeros_like(b), np.ones_like(b)
    for _ in range(60):  # CV^2 falls as g rises on (0, 1)
        mid = 0.5 * (lo + hi)
        high = cv2(mid) > cv**2
        lo, hi = np.where(high, mid, lo), np.where(high, hi, mid)
    g = 0.5 * (lo + hi)
    big = (1 - b * g) / (1 - b)
    x_lo, x_hi = np.zeros_like(b), np.full_like(b, 50.0) * big
    for _ in range(80):  # median of the mixture
        x = 0.5 * (x_lo + x_hi)
        cdf = b * (1 - np.exp(-x / np.maximum(g, 1e-300))) + (1 - b) * (1 - np.exp(-x / big))
        x_lo, x_hi = np.where(cdf < 0.5, x, x_lo), np.where(cdf < 0.5, x_hi, x)
    median = 0.5 * (x_lo + x_hi)
    target = median_ratio if np.isfinite(median_ratio) else np.log(2)
    best = int(np.argmin(np.abs(np.log(np.maximum(median, 1e-300) / max(target, 1e-300)))))
    return float(b[best]), float(g[best])


GAP_FIT_REQUESTS = 1_000_000  # longest stratified gap sample the tail fit evaluates


GAP_TAIL_LEVEL = 0.99  # the gap table's knots from this level up are the tail fitted


def _bisect(f, lo: float, hi: float, target: float, steps: int = 40) -> float | None:
    """x in [lo, hi] with f(x) = target for an increasing f (None: out of reach)."""
    if not f(lo) <= target <= f(hi):
        return None
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return 0.5 * (lo + hi)


def gap_table(levels: list, quantiles: list, cv: float, n: int) -> tuple[list, list]:
    """The measured gap quantiles (multiples of the mean gap) with their tail refitted so
    that n stratified gaps (:func:`~skftl.traces.synthetic.stratified_gaps`) have the
    measured mean (1) and CV. A block trace's gap mean and CV are set by its few longest
    (idle) gaps, which fall between the top knots, where the table only interpolates; so
    the knots from GAP_TAIL_LEVEL up become c * q_b * (q / q_b) ** a (q_b the knot at that
    level): the shape a (>= 0 keeps them ordered; the CV rises with it) by bisection, and
    for each a the scale c that keeps the mean. The median and the body are the measured
    knots. Unchanged when the CV is undefined or out of reach."""
    from skftl.traces.synthetic import table_quantiles

    lv, q = np.asarray(levels, dtype=float), np.asarray(quantiles, dtype=float)
    m = min(max(n - 1, 2), GAP_FIT_REQUESTS)
    base = int(np.searchsorted(lv, GAP_TAIL_LEVEL))
    if not np.isfinite(cv) or base >= len(q) - 1 or q[base] <= 0 or base < 1:
        return lv.tolist(), q.tolist()
    u = (np.arange(m) + 0.5) / m  # the stratified levels (stratified_gaps)
    fixed = u < lv[base - 1]  # below the segment that leads into the tail: unchanged
    body = table_quantiles(u[fixed], tuple(lv), tuple(q))
    s1, s2, u_tail = body.sum(), np.square(body).sum(), u[~fixed]

    def shaped(a: float, log_c: float) -> np.ndarray:
        out = q.copy()
        out[base:] = np.exp(log_c) * q[base] * (q[base:] / q[base]) ** a
        return np.maximum.accumulate(out)

    def tail(a: float, log_c: float) -> np.ndarray:
        return table_quantiles(u_tail, tuple(lv), tuple(shaped(a, log_c)))

    def scale_for(a: float) -> float:  # the mean of the raw table values is the mean gap
        c = _bisect(lambda x: (s1 + tail(a, x).sum()) / m, -20.0, 20.0, 1.0)
        return 0.0 if c is None else c

    def cv_with(a: float) -> float:
        t = tail(a, scale_for(a))
        mean = (s1 + t.sum()) / m
        return float(np.sqrt(max((s2 + np.square(t).sum()) / m - mean**2, 0.0)) / mean)

    a = _bisect(cv_with, 0.0, 4.0, cv, steps=30)
    if a is None:
        return lv.tolist(), q.tolist()
    return lv.tolist(), shaped(a, scale_for(a)).tolist()


def without_repeats(levels: list, quantiles: list, share: float) -> tuple[list[float], list[float]]:
    """The reuse-distance table of the reuses that are not immediate repeats, when
    ``share`` of all reuses are repeats (all at distance 1, the table's bottom): the CDF
    F becomes (F - share) / (1 - share); knots that fall to 0 merge into one."""
    if share >= 1.0:
        return [], []
    lv = np.clip((np.asarray(levels, dtype=float) - share) / (1.0 - share), 0.0, 1.0)
    first = int(np.flatnonzero(lv == 0.0)[-1])
    keep = np.concatenate([[first], first + 1 + np.flatnonzero(np.diff(lv[first:]) > 0)])
    return lv[keep].tolist(), np.asarray(quantiles, dtype=float)[keep].tolist()


def detruncated_levels(levels: list, quantiles: list, n: int) -> list[float]:
    """The levels of a reuse-distance table whose draws, measured on an n-request trace,
    have the given quantiles. A head at position p can only reuse at distances <= p (else it
    takes a new address), so with heads spread evenly a distance d survives with
    probability 1 - d/n: each segment between two knots gets its mass divided by that
    survival (averaged over the segment, log-uniformly; floored at 1/20 so the last segment
    stays finite). A closed form, so the table is not calibrated."""
    lv, q = np.asarray(levels, dtype=float), np.asarray(quantiles, dtype=float)
    mass = np.diff(lv)
    survive = np.empty(len(mass))
    for k in range(len(mass)):
        d = np.geomspace(q[k], q[k + 1], 50)
        survive[k] = np.mean(1.0 / np.maximum(1.0 - d / max(n, 1), 0.05))
    mass = mass * survive
    out = np.concatenate([[0.0], np.cumsum(mass) / mass.sum()])
    out[-1] = 1.0
    return out.tolist()


def _slice_increments(p: Mapping[str, Any], sliced: bool) -> np.ndarray:
    """New-footprint share gained in each time slice: as measured on the profile's slices
    (``sliced``: it has ``phase_edges``), or (an older profile) read off the growth curve at
    WEIGHT_SLICES equal slices."""
    if sliced:
        return np.asarray(p["phase_footprint_shares"], dtype=float)
    g = np.asarray(p["footprint_growth"], dtype=float)
    at = np.rint(np.linspace(0, len(g) - 1, WEIGHT_SLICES + 1)).astype(int)
    return np.diff(g[at])


def _type_sizes(p: Mapping[str, Any], kind: str) -> tuple[SizeDist | None, SizeDist | None]:
    """(sizes of requests at new addresses, sizes of the non-sequential requests that reuse
    one) for ``kind`` "read" or "write": the reuse histogram tilted to its measured mean,
    the overall histogram tilted so that the mix of the two has the measured mean."""
    again = _sizes(
        p.get(f"reuse_{kind}_sizes", []),
        p.get(f"reuse_{kind}_size_probs", []),
        p.get(f"mean_reuse_{kind}_size_kb", float("nan")),
    )
    mean = float(p[f"mean_{kind}_size_kb"])
    if again is not None:
        first, second = (
            ("reread", "read_after_write")
            if kind == "read"
            else ("write_after_read", "rewrite_start")
        )
        share = (_num(p[f"{first}_share"], 0.0) + _num(p[f"{second}_share"], 0.0)) * (
            1.0 - _num(p[f"seq_{kind}_fraction"], 0.0)
        )
        if share < 1:
            mean = (mean - share * again.mean_bytes / 1024) / (1.0 - share)
    return _sizes(p[f"{kind}_sizes"], p[f"{kind}_size_probs"], mean), again


def _class_sizes(p: Mapping[str, Any], label: str, kind: str) -> SizeDist | None:
    """The measured sizes of one class of request (``label``: head, follow or copy; see
    :func:`skftl.traces.locality.measured`), tilted to the class's measured mean."""
    return _sizes(
        p.get(f"{label}_{kind}_sizes") or [],
        p.get(f"{label}_{kind}_size_probs") or [],
        _num(p.get(f"mean_{label}_{kind}_size_kb", float("nan")), float("nan")),
    )


def _sizes_of(p: Mapping[str, Any], kind: str) -> tuple[SizeDist | None, ...]:
    """(sizes at a new address, of the reuses, of the sequential continuations, of the reuses
    of the other type's addresses: None = the first, the second for the last) of ``kind``;
    where the profile has the last apart (``copy_{kind}_of_{other}``), the second are those
    of the same type's addresses. Each class's own measured sizes where the profile has them
    (a trace's profile; the type's mean then holds as the classes' mix, no tilt needed); else
    (a profile whose sizes were set apart from its locality, e.g. a paper's Table III) the
    type's histogram tilted so that the mix with the reuses has the measured mean."""
    head = _class_sizes(p, "head", kind)
    if head is None:
        return (*_type_sizes(p, kind), None, None)
    other = _class_sizes(p, "copy", f"{kind}_of_{'write' if kind == 'read' else 'read'}")
    copy = _class_sizes(p, "copy", kind)
    if other is not None:
        copy = _class_sizes(p, "copy", f"{kind}_of_{kind}") or copy
    return head, copy, _class_sizes(p, "follow", kind), other


def _initial_spec(p: Mapping[str, Any], n: int, name: str) -> SyntheticSpec:
    read, reuse_read, follow_read, read_of_write = _sizes_of(p, "read")
    write, reuse_write, follow_write, write_of_read = _sizes_of(p, "write")
    read, write = read or write, write or read
    if read is None:
        raise ConfigError(f"profile {name!r}: read_sizes and write_sizes are both empty")
    al = int(p["alignment_bytes"])
    rf = _num(p["read_fraction"], 0.0)
    # fresh new runs must fit side by side: room for every request of n at a new address
    # (for the longer of the trace and the calibration draws, at the larger type's mean:
    # the calibration moves the sizes on the way)
    drawn = max(n, min(int(p["n_requests"]), CALIBRATION_REQUESTS))
    page = int(p.get("page_size", 4096))  # a run laid out on pages takes one at least
    room = FRESH_ROOM * drawn * max(read.mean_bytes, write.mean_bytes, page)
    span = max(int(p["address_span_bytes"]), _space_floor(read, write, al), int(room))
    iops = _num(p["iops"], 100.0)
    gap_levels, gap_quantiles = list(p.get("gap_levels") or []), p.get("gap_quantiles") or []
    if gap_levels:  # the measured gap distribution, its tail fitted to the CV
        gap_levels, gap_quantiles = gap_table(
            gap_levels, gap_quantiles, _num(p["gap_cv"], float("nan")), int(p["n_requests"])
        )
        b, g = 0.0, 0.0
    else:  # a profile without gap quantiles: the two-exponential burst fit
        b, g = burst_fit(_num(p["gap_cv"], 1.0), _num(p["gap_median_ratio"], np.log(2)))
    quantiles = np.maximum.accumulate(
        [max(float(q), 1.0) for q in p["reuse_distance_quantiles"]]
    ).tolist()
    levels = list(p["reuse_distance_levels"])
    repeat = _num(p.get("repeat_share", 0.0), 0.0)
    if quantiles and repeat > 0:  # the repeats are made apart: take them out of the table
        levels, quantiles = without_repeats(levels, quantiles, repeat / p["reuse_share"])
    if quantiles:
        levels = detruncated_levels(levels, quantiles, int(p["n_requests"]))
    edges = tuple(p.get("phase_edges") or ())
    inc = _slice_increments(p, bool(edges))
    rw = _share_or_none(p.get("repeat_write_share")) if repeat > 0 else None
    # repeats are never sequential: the drawn requests of each type carry all its
    # sequential ones (a type's repeats are repeat * its share of the repeats / its share)
    seq_scale = (
        (1.0 / (1.0 - repeat), 1.0 / (1.0 - repeat))
        if rw is None
        else (_carry(repeat * (1.0 - rw), rf), _carry(repeat * rw, 1.0 - rf))
    )
    return SyntheticSpec(
        name=name,
        read_sizes=read,
        write_sizes=write,
        read_fraction=rf,
        seq_read_fraction=min(_num(p["seq_read_fraction"], 0.0) * seq_scale[0], 1.0),
        seq_write_fraction=min(_num(p["seq_write_fraction"], 0.0) * seq_scale[1], 1.0),
        repeat_fraction=min(repeat, 0.99),
        repeat_write_share=rw,
        repeat_read_sizes=_sizes(
            p.get("repeat_read_sizes", []), p.get("repeat_read_size_probs", [])
        )
        if rw is not None
        else None,
        repeat_write_sizes=_sizes(
            p.get("repeat_write_sizes", []), p.get("repeat_write_size_probs", [])
        )
        if rw is not None
        else None,
        footprint_bytes=-(-span // al) * al,
        alignment_bytes=al,
        iops=iops,
        burst_fraction=b,
        burst_gap_ns=g * 1e9 / iops,
        gap_levels=tuple(gap_levels),
        gap_quantiles=tuple(gap_quantiles),
        **_copy_shares(p, repeat, rw),
        reuse_distance_levels=tuple(levels),
        reuse_distance_quantiles=tuple(quantiles),
        new_address_weights=_new_address_weights(p, inc),
        reuse_read_sizes=reuse_read,
        reuse_write_sizes=reuse_write,
        reuse_read_of_write_sizes=read_of_write,
        reuse_write_of_read_sizes=write_of_read,
        follow_read_sizes=follow_read,
        follow_write_sizes=follow_write,
        reuse_single_run_shares=_per_type_shares(
            p,
            "copy_{}_single_run_share",
            "copy_single_run_share",
            p.get("copy_single_run_share", p.get("reuse_single_run_share")),
        ),
        single_run_share=_share_or_none(p.get("single_run_share")),
        copy_run_requests=_at_least_one(p.get("copy_run_requests")),
        copy_run_old_shares=_per_type_shares(
            p, "copy_{}_run_old_share", "copy_run_old_share", p.get("copy_run_old_share")
        ),
        overlap_run_old_shares=_overlap_run_old_shares(p),
        **_overlap(p),
        phase_edges=edges,
        **_repeat_phases(p, rw),
        phase_read_fractions=tuple(p.get("phase_read_fractions") or ()),
        # the reads' sequential share per slice (an app loading reads long runs, then runs
        # on a small hot set: what bends its footprint growth); the writes' is measured too
        # but not fitted: with it the look-alikes of the write-only precondition traces lost
        # their rewrite share and growth (docs/generalisation.md)
        phase_seq_read_factors=tuple(p.get("phase_seq_read_ratios") or ()),
        # per slice, the share of the heads at a new address that overlap earlier runs
        # (little to overlap early) and the share of those that are runs of one
        phase_overlap_read_factors=tuple(p.get("phase_touch_read_ratios") or ()),
        phase_overlap_write_factors=tuple(p.get("phase_touch_write_ratios") or ()),
        overlap_single_run_shares=_per_type_shares(
            p, "touch_{}_single_run_share", "single_run_share"
        ),
        phase_overlap_single_read_factors=tuple(p.get("phase_touch_read_single_ratios") or ()),
        phase_overlap_single_write_factors=tuple(p.get("phase_touch_write_single_ratios") or ()),
        phase_read_size_factors=_phase(p, "read"),
        phase_write_size_factors=_phase(p, "write"),
        phase_follow_read_size_factors=_phase(p, "read", "follow") if follow_read else (),
        phase_follow_write_size_factors=_phase(p, "write", "follow") if follow_write else (),
        copy_size_share=_num(p.get("reuse_same_size_share", 0.5), 0.5),
        fresh_new_addresses=True,
        page_offset_probs=_page_offsets(p, al),
        n_requests=n,
        source=f"spec_like({p['name']})",
    )


def _page_offsets(p: Mapping[str, Any], alignment: int) -> tuple[float, ...]:
    """Where in a page new runs start (alignment units), as measured; () when the profile
    does not say, when every request starts on a page or when the measured alignment is
    not the spec's."""
    probs = [float(x) for x in p.get("head_page_offset_probs") or ()]
    grid = int(p.get("page_size", 4096)) // alignment
    if len(probs) != grid or grid <= 1 or sum(probs) <= 0 or probs[0] >= 1.0:
        return ()
    return tuple(x / sum(probs) for x in probs)


def _copy_shares(p: Mapping[str, Any], repeat: float, rw: float | None) -> dict[str, float]:
    """The spec's four reuse shares (of the non-sequential reads / writes the generator draws)
    from the profile's start-page shares, in closed form. A measured share counts the
    immediate repeats too (a repeat starts where the request before it did), which the
    generator adds apart (``repeat_fraction``; ``rw`` of them writes, None: in the trace's
    mix): they are taken out of the same-type share, and every share is then over the
    non-sequential requests that are not repeats."""
    rf = _num(p["read_fraction"], 0.0)
    out = {field: _num(p[key], 0.0) for field, key in _PAIRS.items()}
    read_repeats = repeat * (rf if rw is None else 1.0 - rw)  # per request of the trace
    for kind, share, own, other, repeats in (
        ("read", rf, "reread_fraction", "read_after_write_fraction", read_repeats),
        ("write", 1.0 - rf, "rewrite_fraction", "write_after_read_fraction",
         repeat - read_repeats),
    ):  # fmt: skip
        runs = share * (1.0 - _num(p[f"seq_{kind}_fraction"], 0.0))  # non-sequential
        drawn = runs - repeats
        if repeats <= 0 or drawn <= 0:
            continue
        out[own] = max(out[own] * runs - repeats, 0.0) / drawn
        out[other] = out[other] * runs / drawn
        total = out[own] + out[other]
        if total > 1.0:
            out[own], out[other] = out[own] / total, out[other] / total
    return {k: float(np.clip(v, 0.0, 1.0)) for k, v in out.items()}


def _overlap(p: Mapping[str, Any]) -> dict[str, Any]:
    """The run heads placed over part of earlier requests, as measured: per type the share of
    the heads at a new start page that touch a page touched before, the share of those that
    touch a written one, and how many such pages (an older profile: only reads over written
    data, with their own sizes)."""
    if "touch_read_share" not in p:
        return {
            "overlap_read_fraction": _num(p.get("overlap_read_share", 0.0), 0.0),
            "overlap_read_sizes": _sizes(
                p.get("overlap_read_sizes", []), p.get("overlap_read_size_probs", [])
            ),
        }
    counts = [int(x) for x in p.get("touch_pages") or []]
    probs = [float(x) for x in p.get("touch_page_probs") or []]
    levels = list(p.get("touch_distance_levels") or [])
    quantiles = np.maximum.accumulate(
        [max(float(q), 1.0) for q in p.get("touch_distance_quantiles") or []]
    ).tolist()
    if quantiles:
        levels = detruncated_levels(levels, quantiles, int(p["n_requests"]))
    return {
        "overlap_distance_levels": tuple(levels) if quantiles else (),
        "overlap_distance_quantiles": tuple(quantiles),
        "overlap_read_fraction": _num(p["touch_read_share"], 0.0),
        "overlap_write_fraction": _num(p.get("touch_write_share", 0.0), 0.0),
        "overlap_written_shares": (
            _num(p.get("touch_read_written_share", 1.0), 1.0),
            _num(p.get("touch_write_written_share", 1.0), 1.0),
        ),
        "overlap_page_counts": tuple(counts) if sum(probs) > 0 else (),
        "overlap_page_probs": tuple(probs) if sum(probs) > 0 else (),
    }


def _phase(p: Mapping[str, Any], kind: str, label: str = "head") -> tuple[float, ...]:
    """Per time slice, the mean size of ``kind``'s run heads at a new address (``label``
    head) or sequential continuations (follow) over its mean, as measured (an older
    profile: the heads take the ratios over all the type's requests)."""
    mine = p.get(f"phase_{label}_{kind}_size_ratios")
    if mine or label != "head":
        return tuple(mine or ())
    return tuple(p.get(f"phase_{kind}_size_ratios") or ())


def _new_address_weights(p: Mapping[str, Any], inc: np.ndarray) -> tuple[float, ...]:
    """Per time slice, the rate of new start pages among the run heads over its mean: the
    measured ratios (an older profile: the footprint's growth per slice over its mean)."""
    ratios = np.asarray(p.get("phase_new_head_ratios") or [], dtype=float)
    if len(ratios) and ratios.sum() > 0:
        return tuple((ratios / ratios.mean()).tolist())
    return tuple((inc / inc.mean()).tolist()) if inc.sum() > 0 else ()


def _repeat_phases(p: Mapping[str, Any], write_share: float | None) -> dict[str, tuple]:
    """The repeats' factors per time slice and type, as measured, where the profile has
    both types' and the repeats' type is set (``write_share``); else none."""
    read, write = (tuple(p.get(f"phase_repeat_{kind}_ratios") or ()) for kind in ("read", "write"))
    if write_share is None or not (read and write):
        return {}
    return {"phase_repeat_read_factors": read, "phase_repeat_write_factors": write}


def _carry(repeats: float, share: float) -> float:
    """Factor on a type's sequential share when ``repeats`` of all requests are repeats of
    that type and ``share`` of all requests are of that type."""
    return share / (share - repeats) if share > repeats else 1.0


def _overlap_run_old_shares(p: Mapping[str, Any]) -> tuple[float, ...]:
    """(read, write): the share of the overlapping heads whose run goes on that go over
    their source's pages, so that the continuations of the runs at a new address touch as
    many pages touched before as the trace's did. The generator picks the overlapping heads
    among all the type's heads at a new address, whatever their run's length, so of the
    continuations of those runs a share ``touch_{kind}_share`` belongs to overlapping heads;
    the measured share of them that are old (``new_{kind}_run_old_share``) over that gives
    the share to go over (at most 1). () when the profile does not say."""
    out = []
    for kind in ("read", "write"):
        old = _share_or_none(p.get(f"new_{kind}_run_old_share"))
        touch = _share_or_none(p.get(f"touch_{kind}_share"))
        out.append(min(old / touch, 1.0) if old is not None and touch else 0.0)
    return tuple(out) if any(f"new_{k}_run_old_share" in p for k in ("read", "write")) else ()


def _per_type_shares(
    p: Mapping[str, Any], key: str, pooled: str, older: Any = None
) -> tuple[float, ...]:
    """(read, write) of the profile's ``key`` per type; a type without its own (no such
    runs, or a profile that does not have it) takes the pooled share, else 1. Where the
    profile has neither type's (an older profile): ``older`` for both where it is a share
    (that profile's pooled value), else ()."""
    own = [_share_or_none(p.get(key.format(kind))) for kind in ("read", "write")]
    if all(x is None for x in own):
        x = _share_or_none(older)
        return () if x is None else (x, x)
    rest = _share_or_none(p.get(pooled))
    return tuple(x if x is not None else (1.0 if rest is None else rest) for x in own)


def _at_least_one(x: Any) -> float | None:
    return float(x) if x is not None and np.isfinite(float(x)) and float(x) >= 1 else None


def _share_or_none(x: Any) -> float | None:
    return float(x) if x is not None and np.isfinite(float(x)) else None


def _ratio(target: float, got: float) -> float:
    """Multiplicative correction (target / got) ** STEP_GAIN, bounded to [1/4, 4]."""
    if not (np.isfinite(target) and np.isfinite(got)) or got <= 0 or target <= 0:
        return 1.0
    return float(np.clip((target / got) ** STEP_GAIN, 0.25, 4.0))


def _calibration_step(spec: SyntheticSpec, p: Mapping[str, Any], got: dict) -> SyntheticSpec:
    """Scale each locality parameter by target / measured (see the module docstring)."""
    shares = {}
    for field, key in _PAIRS.items():
        cur, target = getattr(spec, field), _num(p[key], 0.0)
        shares[field] = cur * _ratio(target, got[key]) if cur > 0 else target
    for a, b in (
        ("reread_fraction", "read_after_write_fraction"),
        ("write_after_read_fraction", "rewrite_fraction"),
    ):
        total = shares[a] + shares[b]
        if total > 1:
            shares[a], shares[b] = shares[a] / total, shares[b] / total
    changes: dict[str, Any] = {k: float(np.clip(v, 0.0, 1.0)) for k, v in shares.items()}
    if spec.new_address_weights:
        inc_t, inc_g = (
            _slice_increments(p, bool(spec.phase_edges)),
            _slice_increments(got, bool(spec.phase_edges)),
        )
        w = np.asarray(spec.new_address_weights) * [
            _ratio(t, g) if t > 0 else 0.0 for t, g in zip(inc_t, inc_g, strict=True)
        ]
        if w.sum() > 0:
            changes["new_address_weights"] = tuple((w / w.mean()).tolist())
    for kind in ("read", "write"):  # each slice's mean size, of the class it is set for
        for field, key in (
            (f"phase_{kind}_size_factors", f"phase_head_{kind}_size_ratios"),
            (f"phase_follow_{kind}_size_factors", f"phase_follow_{kind}_size_ratios"),
        ):
            if not p.get(key) and field.startswith("phase_follow"):
                continue
            if not p.get(key):  # an older profile: the ratios over all the type's requests
                key = f"phase_{kind}_size_ratios"
            if getattr(spec, field) and p.get(key) and got.get(key):
                f = np.asarray(getattr(spec, field)) * [
                    _ratio(t, g) for t, g in zip(p[key], got[key], strict=True)
                ]
                changes[field] = tuple(f.tolist())
    # an older profile's overlaps are reads over written data only, fitted by their share
    older_overlaps = spec.overlap_read_fraction > 0 and not spec.overlap_page_counts
    if older_overlaps:  # on the page share of written data they are there for
        step = _ratio(p["read_hit_written_share"], got["read_hit_written_share"])
        changes["overlap_read_fraction"] = float(np.clip(spec.overlap_read_fraction * step, 0, 1))
    rewrite_step = _ratio(_num(p["rewrite_share"], 0.0), _num(got["rewrite_share"], 0.0))
    if spec.copy_run_old_shares:
        # the write runs that reuse an address and go over their source's pages rewrite
        # them too: they share the rewrite share's step with the overlaps' written share
        # (each half of it, in log terms, so the two together take the whole step)
        rewrite_step = rewrite_step**0.5
        read_old, write_old = spec.copy_run_old_shares
        changes["copy_run_old_shares"] = (
            read_old,
            float(np.clip(write_old * rewrite_step, 0.0, 1.0)),
        )
    if spec.overlap_written_shares and not older_overlaps:
        # which runs the overlapping heads continue, on the page shares of written data that
        # reads and writes hit
        read_step = _ratio(
            _num(p["read_hit_written_share"], 0.0), _num(got["read_hit_written_share"], 0.0)
        )
        changes["overlap_written_shares"] = tuple(
            float(np.clip(share * step, 0.0, 1.0))
            for share, step in zip(
                spec.overlap_written_shares, (read_step, rewrite_step), strict=True
            )
        )
    # the sizes at new addresses are re-tilted so each type's mean size holds. The address
    # space stays: _initial_spec lays new runs out side by side (fresh_new_addresses), so
    # it only spaces them.
    changes.update(_size_changes(spec, p, got))
    return dataclasses.replace(spec, **changes)


def _size_changes(spec: SyntheticSpec, p: Mapping[str, Any], got: dict) -> dict[str, Any]:
    """The fresh size distributions re-tilted by target / measured mean size."""
    changes = {}
    for field, key in (("read_sizes", "mean_read_size_kb"), ("write_sizes", "mean_write_size_kb")):
        dist = getattr(spec, field)
        mean = dist.mean_bytes * _ratio(p[key], got[key])
        if min(dist.sizes) < mean < max(dist.sizes):
            changes[field] = dist.tilted_to_mean(mean)
    return changes


FOOTPRINT_TOLERANCE = 0.02  # the footprint fit stops within this relative distance
FOOTPRINT_STEPS = 7  # at most this many draws


OVERLAP_REACH = 2.0  # the footprint fit's parameter runs over [-OVERLAP_REACH, OVERLAP_REACH]


def _with_overlap(spec: SyntheticSpec, x: float) -> SyntheticSpec:
    """``spec`` with the sharing of earlier pages moved by ``x`` in [-OVERLAP_REACH,
    OVERLAP_REACH], in two stages. First (|x| <= 1) both types' overlap shares scaled by one
    factor, towards 0 (x < 0: the factor 1 + x, more new pages) or up (0 < x <= 1: the factor
    max_share ** -x, the larger share reaching 1 at x = 1; more run heads share pages with
    earlier runs). One factor for both keeps the types' measured proportion: a type whose
    heads rarely overlap (the writes of an app trace) keeps few overlaps, and so its
    rewrites, while the footprint moves. Where neither type overlaps, both move towards 1 by
    x. Then (|x| > 1: the overlaps at 0 or at their most) the shares of the runs that go
    over their source's pages rather than past them (the copies' and the overlaps'), towards
    0 (x < -1) or 1 (x > 1) by |x| - 1. Distinct pages fall as x rises."""
    top = max(spec.overlap_read_fraction, spec.overlap_write_fraction)
    inner = float(np.clip(x, -1.0, 1.0))
    outer = float(np.clip(abs(x) - 1.0, 0.0, 1.0))

    def move(share: float) -> float:
        if inner < 0:
            return share * (1.0 + inner)
        if top <= 0:
            return share + inner * (1.0 - share)
        return min(share * top**-inner, 1.0)

    def over(share: float) -> float:
        return share * (1.0 - outer) if x < 0 else share + outer * (1.0 - share)

    fractions = (spec.overlap_read_fraction, spec.overlap_write_fraction)
    moved = tuple(move(f) for f in fractions)
    changes: dict[str, Any] = {}
    if spec.overlap_written_shares:
        # the heads over written data stay as many (the calibration fitted them to the page
        # shares of written data that reads and writes hit): the overlaps moved are over data
        # only read, so the footprint moves without the rewrites
        changes["overlap_written_shares"] = tuple(
            float(np.clip(w * f / g, 0.0, 1.0)) if g > 0 else w
            for w, f, g in zip(spec.overlap_written_shares, fractions, moved, strict=True)
        )
    if outer > 0:
        changes["copy_run_old_shares"] = tuple(
            over(f) for f in spec.copy_run_old_shares or (1.0, 1.0)
        )
        changes["overlap_run_old_shares"] = tuple(
            over(f) for f in spec.overlap_run_old_shares or (0.0, 0.0)
        )
    return dataclasses.replace(
        spec,
        overlap_read_fraction=moved[0],
        overlap_write_fraction=moved[1],
        **changes,
    )


def _draw_seeds(m: int, seed: int) -> list[int]:
    """The seeds of the draws of ``m`` requests one calibration step measures: ``seed``
    first, then as many more as bring the draws to CALIBRATION_FLOOR requests in all (at
    most CALIBRATION_DRAWS)."""
    draws = min(-(-CALIBRATION_FLOOR // max(m, 1)), CALIBRATION_DRAWS)
    return [seed + 1_000_003 * j for j in range(draws)]


def _mean_of(measures: list[dict]) -> dict:
    """The key-by-key mean of several draws' measures (a number, or a list of numbers of one
    length, element by element; NaN where every draw's is NaN); any other value is the
    first draw's. One draw: its measures as they are."""
    if len(measures) == 1:
        return measures[0]
    out = {}
    for key, first in measures[0].items():
        values = [m[key] for m in measures]
        number = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        lists = all(
            isinstance(v, list)
            and len(v) == len(first)
            and all(isinstance(x, int | float) for x in v)
            for v in values
        )
        if number or (lists and len(first)):
            a = np.asarray(values, dtype=np.float64)
            seen = np.isfinite(a).any(axis=0)
            mean = np.where(
                seen, np.nansum(a, axis=0) / np.maximum(np.isfinite(a).sum(axis=0), 1), np.nan
            )
            out[key] = float(mean) if number else mean.tolist()
        else:
            out[key] = first
    return out


def _drawn_profile(spec: SyntheticSpec, m: int, seed: int, page: int) -> dict:
    """The profile of ``spec``'s draws of ``m`` requests (:func:`_draw_seeds`), measured on
    its time slices, averaged (:func:`_mean_of`)."""
    return _mean_of(
        [
            locality.profile(generate(spec, m, s), page, spec.phase_edges)
            for s in _draw_seeds(m, seed)
        ]
    )


def _mean_sizes(drawn: Requests) -> dict[str, float]:
    """Each type's mean request size of a draw, in KiB (NaN: none of that type)."""
    return {
        f"mean_{kind}_size_kb": float(drawn.size_bytes[mine].mean() / 1024)
        if mine.any()
        else float("nan")
        for kind, mine in (("read", ~drawn.is_write), ("write", drawn.is_write))
    }


def _footprint_target(p: Mapping[str, Any], m: int) -> float:
    """Distinct pages a draw of ``m`` requests should touch: the profiled trace's footprint
    per request, times ``m``. (A shorter draw than the trace still runs through all of the
    spec's time slices, so it stands for the whole trace, not for its first ``m``.)"""
    return float(p["footprint_pages"]) * m / int(p["n_requests"])


def fit_footprint(
    spec: SyntheticSpec, p: Mapping[str, Any], m: int, seed: int
) -> tuple[SyntheticSpec, str]:
    """The spec whose draws of ``m`` requests touch as many distinct pages per request as
    the profiled trace does (:func:`_footprint_target`), and how it was reached. One
    parameter, the sharing of earlier pages (:func:`_with_overlap`), found by bisection
    inside [-OVERLAP_REACH, OVERLAP_REACH]: fewer distinct pages as it rises, so the bracket
    holds the answer whenever one is in reach (bisection converges on any such trace), and
    the search ends at a bound when none is (the overlaps cannot make that footprint)."""
    page = int(p.get("page_size", 4096))
    target = _footprint_target(p, m)
    if not target > 0:
        return spec, "no footprint to fit"

    def error(x: float) -> float:  # log(drawn / target): falls as x rises
        moved = _with_overlap(spec, x)
        pages = [footprint_pages(generate(moved, m, s), page) for s in _draw_seeds(m, seed)]
        return float(np.log(max(float(np.mean(pages)), 1.0) / target))

    x, e, steps = _bisect_decreasing(error, -OVERLAP_REACH, OVERLAP_REACH)
    how = f"overlaps moved by {x:+.3f}, {100 * np.expm1(e):+.1f} % after {steps} draw(s)"
    return _with_overlap(spec, x), how


def _bisect_decreasing(error, lo: float, hi: float) -> tuple[float, float, int]:
    """(x, error(x), evaluations) for a decreasing ``error`` on [lo, hi], from 0: bisection
    of the bracket until |error| <= FOOTPRINT_TOLERANCE or FOOTPRINT_STEPS evaluations, the
    best point seen returned (the error may step: a draw is a discrete thing); the nearer
    bound when the root is outside."""
    x, e = 0.0, error(0.0)
    best, steps = (x, e), 1
    if abs(e) <= FOOTPRINT_TOLERANCE:
        return x, e, steps
    a, b = (x, hi) if e > 0 else (lo, x)
    edge = b if e > 0 else a
    e_edge = error(edge)
    steps += 1
    if abs(e_edge) < abs(best[1]):
        best = (edge, e_edge)
    if (e_edge > 0) == (e > 0):  # out of reach: the bound is the nearest
        return edge, e_edge, steps
    while steps < FOOTPRINT_STEPS and abs(best[1]) > FOOTPRINT_TOLERANCE:
        mid = 0.5 * (a + b)
        e_mid = error(mid)
        steps += 1
        if abs(e_mid) < abs(best[1]):
            best = (mid, e_mid)
        a, b = (mid, b) if e_mid > 0 else (a, mid)
    return best[0], best[1], steps


def _space_floor(read: SizeDist, write: SizeDist, alignment: int) -> int:
    """Smallest address space to draw from: room for long sequential runs."""
    return max(64 * max(max(read.sizes), max(write.sizes)), 2 * alignment)


def spec_like(
    profile: Mapping[str, Any],
    n: int | None = None,
    *,
    name: str | None = None,
    seed: int = 0,
    calibrate: int = 3,
) -> SyntheticSpec:
    """The spec whose traces have ``profile`` (a :func:`skftl.traces.locality.profile`
    dict; unknown keys are ignored, a missing one is a ConfigError naming it), with
    ``n`` requests (default: the profile's). ``calibrate`` fixed-point iterations refine
    the locality parameters on a seeded draw of the profile's length (at most
    CALIBRATION_REQUESTS), then :func:`fit_footprint` fits the footprint on such draws; 0
    gives the closed-form estimates as they are."""
    label = str(profile.get("name", "profile"))
    missing = [key for key in REQUIRED if key not in profile]
    if missing:
        raise ConfigError(f"profile {label!r}: missing field(s) {', '.join(missing)}")
    n = int(profile["n_requests"]) if n is None else int(n)
    if n < 1:
        raise ConfigError(f"profile {label!r}: n_requests must be >= 1, got {n}")
    spec = _initial_spec(profile, n, name or f"like_{label}")
    m = min(int(profile["n_requests"]), CALIBRATION_REQUESTS)
    page = int(profile.get("page_size", 4096))
    if calibrate:  # the overlaps first: the calibration then fits the page shares of
        # written data with the overlaps the footprint needs (the fit after it corrects
        # what the calibration moved)
        spec, _ = fit_footprint(spec, profile, m, seed)
    for _ in range(calibrate):
        spec = _calibration_step(spec, profile, _drawn_profile(spec, m, seed, page))
    if calibrate:  # the last step's other changes move the mean sizes: correct them last
        got = _drawn_profile(spec, m, seed, page)
        spec = dataclasses.replace(spec, **_size_changes(spec, profile, got))
        spec, footprint = fit_footprint(spec, profile, m, seed)
        # the fit moves which copies and runs share their source's pages, and copies are
        # cut to their source's run: the mean sizes once more (two means, no page pass)
        got = _mean_of([_mean_sizes(generate(spec, m, s)) for s in _draw_seeds(m, seed)])
        spec = dataclasses.replace(spec, **_size_changes(spec, profile, got))
    note = (
        f"calibrated: {calibrate} fixed-point iteration(s) of the locality parameters and "
        f"one of the mean sizes, then the footprint ({footprint}), on a draw of {m} requests "
        f"(seed {seed})"
        if calibrate
        else "uncalibrated: the measured values as they are"
    )
    targets = {key: profile[key] for key in locality.SCALARS if key in profile}
    return dataclasses.replace(spec, notes=note, targets=targets)
