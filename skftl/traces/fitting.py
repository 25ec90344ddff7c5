"""A synthetic workload like a measured one: from a :func:`skftl.traces.locality.profile` to
the :class:`~skftl.traces.synthetic.SyntheticSpec` that reproduces it.

The Table III aggregates, size histograms and sequential shares map one to one onto spec
fields (the generator makes them exact). The locality fields do not: what is measured (the
*latest* earlier request with the same start page, at page level) differs from what is
drawn (a copy of *some* earlier request's start), because copies overlap and multi-page
requests spread. So the starting values are refined by a **calibration**: a few fixed-point
iterations, each drawing a short seeded trace, measuring it and scaling every locality
parameter by target / measured. The result says it is calibrated (``notes``), and its
``targets`` are the measured profile's scalars.

Arrival burstiness is fitted in closed form: the generator's gaps are a two-exponential
mixture (a share ``b`` of short gaps of mean ``g``), chosen to match the coefficient of
variation and the median / mean ratio of the measured gaps (a CV below 1 cannot be made by
this mixture: Poisson arrivals are used then).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from skftl.errors import ConfigError
from skftl.traces import locality
from skftl.traces.requests import SECTOR
from skftl.traces.synthetic import SizeDist, SyntheticSpec, generate

CALIBRATION_REQUESTS = 200_000  # longest draw a calibration step measures
WEIGHT_SLICES = 20  # time slices of the new-address weights
_PAIRS = {  # spec field -> profile key of its start-page share (its starting value)
    "reread_fraction": "reread_share",
    "read_after_write_fraction": "read_after_write_share",
    "write_after_read_fraction": "write_after_read_share",
    "rewrite_fraction": "rewrite_start_share",
}
FRESH_ROOM = 2.0  # address space of a fit, at least this times the bytes of its requests
STEP_GAIN = 1.0  # exponent of the multiplicative step (above 1 overshoots)
COPY_SIZE_GAIN = 3.0  # copy_size_share's step: its ratio to this power
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


def _slice_increments(growth: list | np.ndarray) -> np.ndarray:
    """New-footprint share gained in each of WEIGHT_SLICES equal time slices."""
    g = np.asarray(growth, dtype=float)
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


def _initial_spec(p: Mapping[str, Any], n: int, name: str) -> SyntheticSpec:
    read, reuse_read = _type_sizes(p, "read")
    write, reuse_write = _type_sizes(p, "write")
    read, write = read or write, write or read
    if read is None:
        raise ConfigError(f"profile {name!r}: read_sizes and write_sizes are both empty")
    al = int(p["alignment_bytes"])
    rf = _num(p["read_fraction"], 0.0)
    # fresh new runs must fit side by side: room for every request of n at a new address
    # (for the longer of the trace and the calibration draws, at the larger type's mean:
    # the calibration moves the sizes on the way)
    drawn = max(n, min(int(p["n_requests"]), CALIBRATION_REQUESTS))
    room = FRESH_ROOM * drawn * max(read.mean_bytes, write.mean_bytes)
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
    inc = _slice_increments(p["footprint_growth"])
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
        **{field: _num(p[key], 0.0) for field, key in _PAIRS.items()},
        reuse_distance_levels=tuple(levels),
        reuse_distance_quantiles=tuple(quantiles),
        new_address_weights=tuple((inc / inc.mean()).tolist()) if inc.sum() > 0 else (),
        reuse_read_sizes=reuse_read,
        reuse_write_sizes=reuse_write,
        reuse_single_run_share=_share_or_none(
            p.get("copy_single_run_share", p.get("reuse_single_run_share"))
        ),
        reuse_source_single_share=_share_or_none(p.get("reuse_source_single_share")),
        single_run_share=_share_or_none(p.get("single_run_share")),
        overlap_read_fraction=_num(p.get("overlap_read_share", 0.0), 0.0),
        overlap_read_sizes=_sizes(
            p.get("overlap_read_sizes", []), p.get("overlap_read_size_probs", [])
        ),
        phase_read_fractions=tuple(p.get("phase_read_fractions") or ()),
        phase_read_size_factors=tuple(p.get("phase_read_size_ratios") or ()),
        phase_write_size_factors=tuple(p.get("phase_write_size_ratios") or ()),
        copy_size_share=_num(p.get("reuse_same_size_share", 0.5), 0.5),
        fresh_new_addresses=True,
        n_requests=n,
        source=f"spec_like({p['name']})",
    )


def _carry(repeats: float, share: float) -> float:
    """Factor on a type's sequential share when ``repeats`` of all requests are repeats of
    that type and ``share`` of all requests are of that type."""
    return share / (share - repeats) if share > repeats else 1.0


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
            _slice_increments(p["footprint_growth"]),
            _slice_increments(got["footprint_growth"]),
        )
        w = np.asarray(spec.new_address_weights) * [
            _ratio(t, g) if t > 0 else 0.0 for t, g in zip(inc_t, inc_g, strict=True)
        ]
        if w.sum() > 0:
            changes["new_address_weights"] = tuple((w / w.mean()).tolist())
    for kind in ("read", "write"):  # each slice's mean size, measured over all its requests
        field, key = f"phase_{kind}_size_factors", f"phase_{kind}_size_ratios"
        if getattr(spec, field):
            f = np.asarray(getattr(spec, field)) * [
                _ratio(t, g) for t, g in zip(p[key], got[key], strict=True)
            ]
            changes[field] = tuple(f.tolist())
    if spec.overlap_read_fraction > 0:  # on the page share the overlaps are there for
        step = _ratio(p["read_hit_written_share"], got["read_hit_written_share"])
        changes["overlap_read_fraction"] = float(np.clip(spec.overlap_read_fraction * step, 0, 1))
    # page rewrites follow how often a rewrite takes its source's size (the share moves
    # little with it: a larger step, COPY_SIZE_GAIN); the fresh sizes are re-tilted so
    # each type's mean size holds. The address space stays: _initial_spec lays new runs
    # out side by side (fresh_new_addresses), so it only spaces them.
    step = _ratio(p["rewrite_share"], got["rewrite_share"]) ** COPY_SIZE_GAIN
    changes["copy_size_share"] = float(np.clip(spec.copy_size_share * step, 0, 1))
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
    CALIBRATION_REQUESTS); 0 gives the raw measured values."""
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
    for _ in range(calibrate):
        spec = _calibration_step(spec, profile, locality.profile(generate(spec, m, seed), page))
    if calibrate:  # the last step's other changes move the mean sizes: correct them last
        got = locality.profile(generate(spec, m, seed), page)
        spec = dataclasses.replace(spec, **_size_changes(spec, profile, got))
    note = (
        f"calibrated: {calibrate} fixed-point iteration(s) of the locality parameters and "
        f"one of the mean sizes, on a draw of {m} requests (seed {seed})"
        if calibrate
        else "uncalibrated: the measured values as they are"
    )
    targets = {key: profile[key] for key in locality.SCALARS if key in profile}
    return dataclasses.replace(spec, notes=note, targets=targets)
