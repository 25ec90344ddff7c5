"""Locality of a block trace, measured (vectorised numpy, O(n log n)).

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

import numpy as np

from skftl.errors import ConfigError
from skftl.traces.pages import expand_to_pages, page_span
from skftl.traces.requests import Requests


def reuse_distances(requests: Requests, page_size: int = 4096) -> np.ndarray:
    """Per request, the reuse distance in requests (see the module docstring); -1 where the
    start page has not been a start page before."""
    first, _ = page_span(requests, page_size)
    order = np.lexsort((np.arange(len(first)), first))  # by page, then trace order
    dist = np.full(len(first), -1, dtype=np.int64)
    if len(first) > 1:
        same = first[order[1:]] == first[order[:-1]]
        dist[order[1:][same]] = order[1:][same] - order[:-1][same]
    return dist


def _seen_before(lpn: np.ndarray, flag: np.ndarray) -> np.ndarray:
    """Per row (rows in trace order): an earlier row with the same lpn has ``flag`` set."""
    order = np.lexsort((np.arange(len(lpn)), lpn))
    key, f = lpn[order], flag[order].astype(np.int64)
    csum = np.cumsum(f) - f  # flagged rows before this one, over the sorted order
    group_start = np.ones(len(key), dtype=np.bool_)
    group_start[1:] = key[1:] != key[:-1]
    base = np.maximum.accumulate(np.where(group_start, csum, 0))
    out = np.empty(len(lpn), dtype=np.bool_)
    out[order] = csum - base > 0
    return out


def written_before_shares(requests: Requests, page_size: int = 4096) -> tuple[float, float]:
    """(rewrite share of page writes, read-hit-written share of page reads); NaN where the
    trace has no page writes (reads)."""
    ops = expand_to_pages(requests, page_size)
    hit = _seen_before(ops.lpn, ops.is_write)
    w = ops.is_write
    rewrite = float(hit[w].mean()) if w.any() else float("nan")
    read_hit = float(hit[~w].mean()) if (~w).any() else float("nan")
    return rewrite, read_hit


def footprint_growth(requests: Requests, page_size: int = 4096) -> np.ndarray:
    """Distinct pages touched by the first k+1 requests, for k = 0..n-1 (int64)."""
    ops = expand_to_pages(requests, page_size)
    if len(ops) == 0:
        return np.zeros(len(requests), dtype=np.int64)
    order = np.lexsort((ops.request, ops.lpn))
    new = np.ones(len(order), dtype=np.bool_)
    new[1:] = ops.lpn[order[1:]] != ops.lpn[order[:-1]]
    first_request = ops.request[order][new]  # the request that first touches each page
    return np.cumsum(np.bincount(first_request, minlength=len(requests)))


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


def locality(requests: Requests, page_size: int = 4096) -> dict[str, float]:
    """Locality scalars of a trace (see the module docstring). Raises ConfigError naming the
    trace when it has fewer than two requests: no locality is defined then."""
    n = len(requests)
    if n < 2:
        raise ConfigError(f"trace {requests.meta.name!r}: {n} request(s); locality needs >= 2")
    dist = reuse_distances(requests, page_size)
    reused = dist >= 0
    rewrite, read_hit = written_before_shares(requests, page_size)
    growth = footprint_growth(requests, page_size)
    half = growth[n // 2 - 1] / growth[-1] if growth[-1] else float("nan")
    return {
        "reuse_share": float(reused.mean()),
        "median_reuse_distance": float(np.median(dist[reused])) if reused.any() else np.nan,
        "rewrite_share": rewrite,
        "read_hit_written_share": read_hit,
        "footprint_pages": int(growth[-1]),
        "footprint_half_share": float(half),
    }


SCALAR_TOLERANCE = 0.10  # relative, per scalar (issue #19's validation target)
CURVE_TOLERANCE = 0.10  # KS distance, reuse-distance CDF and footprint-growth curve


def compare(real: Requests, synthetic: Requests, page_size: int = 4096) -> list[dict]:
    """Side-by-side locality of a real trace and a synthetic one: one row per measure with
    both values and whether it holds (scalars within 10 % relative, curves KS <= 0.1)."""
    a, b = locality(real, page_size), locality(synthetic, page_size)
    rows = []
    for key in a:
        ref, got = float(a[key]), float(b[key])
        rel = abs(got - ref) / abs(ref) if ref else (0.0 if got == 0 else float("inf"))
        rows.append({"measure": key, "real": ref, "synthetic": got, "distance": rel,
                     "holds": bool(rel <= SCALAR_TOLERANCE)})  # fmt: skip
    da, db = reuse_distances(real, page_size), reuse_distances(synthetic, page_size)
    curves = {
        "reuse_distance_cdf_ks": ks_distance(da[da >= 0], db[db >= 0]),
        "footprint_growth_ks": curve_distance(
            footprint_growth(real, page_size), footprint_growth(synthetic, page_size)
        ),
    }
    for key, d in curves.items():
        rows.append({"measure": key, "real": 0.0, "synthetic": d, "distance": d,
                     "holds": bool(d <= CURVE_TOLERANCE)})  # fmt: skip
    return rows
