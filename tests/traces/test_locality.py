"""Locality measures (skftl.traces.locality): hand-checked small traces, a real excerpt."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.traces.locality import (
    curve_distance,
    footprint_growth,
    ks_distance,
    locality,
    reuse_distances,
    written_before_shares,
)
from skftl.traces.requests import Requests, TraceMeta

P = 4096


def trace(pages: list[int], writes: list[bool], sizes: list[int] | None = None) -> Requests:
    n = len(pages)
    return Requests(
        np.arange(n) * 1000,
        np.array(pages) * P,
        np.array(sizes or [P] * n),
        np.array(writes),
        TraceMeta(name="hand", format="test"),
    )


def test_reuse_distance_is_requests_since_the_latest_same_start_page():
    t = trace([5, 7, 5, 9, 7, 5], [True] * 6)
    assert reuse_distances(t).tolist() == [-1, -1, 2, -1, 3, 3]


def test_rewrite_and_read_hit_shares_count_pages():
    # write pages 0-1, read page 1 (hit), read page 3 (miss), write page 1 (rewrite), write 4
    t = trace([0, 1, 3, 1, 4], [True, False, False, True, True], [2 * P, P, P, P, P])
    rewrite, read_hit = written_before_shares(t)
    assert rewrite == pytest.approx(1 / 4)  # 4 page writes, one to a written page
    assert read_hit == pytest.approx(1 / 2)


def test_footprint_growth_and_distances():
    t = trace([0, 0, 1, 2, 1], [True] * 5)
    assert footprint_growth(t).tolist() == [1, 1, 2, 3, 3]
    assert ks_distance(np.array([1, 2, 3]), np.array([1, 2, 3])) == 0.0
    assert ks_distance(np.array([1, 2]), np.array([3, 4])) == 1.0
    assert curve_distance(np.array([1, 2, 3]), np.array([1, 2, 3])) == 0.0


def test_too_short_trace_is_a_clear_error():
    with pytest.raises(ConfigError, match="'hand'.*1 request"):
        locality(trace([0], [True]))


WEB0 = Path(__file__).resolve().parents[3] / "shared" / "traces" / "msr_cambridge" / "web_1.csv.gz"


@pytest.mark.skipif(not WEB0.is_file(), reason="shared web_0 excerpt absent")
def test_web0_excerpt_rewrites_most_written_pages():
    from skftl.traces import load_trace

    loc = locality(load_trace(str(WEB0)))
    # the motivating measurement: most page writes of web_0 update a written page
    assert loc["rewrite_share"] > 0.5 and 0 < loc["reuse_share"] < 1


def test_compare_holds_for_a_trace_against_itself_and_misses_a_different_one():
    from skftl.traces.locality import compare

    a = trace([0, 1, 0, 1, 0, 1, 2, 3], [True, False] * 4)
    assert all(row["holds"] for row in compare(a, a))
    b = trace(list(range(8)), [True, False] * 4)
    missed = {row["measure"] for row in compare(a, b) if not row["holds"]}
    assert {"reuse_share", "footprint_pages"} <= missed


def test_compare_sampling_rule_only_for_rare_events():
    """A share of a handful of events holds within two sampling standard errors (and says
    so, keeping the relative distance); the same relative gap on thousands of events
    misses."""
    from skftl.traces.locality import SAMPLING_RULE, compare_measured, measured

    base = measured(trace(list(range(8)), [True, False] * 4))

    def with_reuse(share: float, n: int):
        p = {**base.profile, "reuse_share": share, "n_requests": n}
        return type(base)(p, base.reuse, base.growth)

    rare = {r["measure"]: r for r in compare_measured(with_reuse(3e-4, 20_000),
                                                        with_reuse(1.5e-4, 20_000))}  # fmt: skip
    assert rare["reuse_share"]["holds"] and rare["reuse_share"]["rule"] == SAMPLING_RULE
    assert rare["reuse_share"]["distance"] == pytest.approx(0.5)
    common = {r["measure"]: r for r in compare_measured(with_reuse(0.2, 20_000),
                                                          with_reuse(0.1, 20_000))}  # fmt: skip
    assert not common["reuse_share"]["holds"]
    assert rare["read_fraction"]["rule"] != SAMPLING_RULE  # only the event shares


def test_compare_median_and_ks_rules_only_for_few_reuses():
    """The reuse-distance median and CDF of a handful of reuses hold inside the sampling
    bounds (and say so); the same gaps on thousands of reuses miss."""
    from skftl.traces.locality import KS_RULE, MEDIAN_RULE, compare_measured, measured

    base = measured(trace(list(range(8)), [True, False] * 4))

    def with_reuse(d: np.ndarray):
        p = {**base.profile, "median_reuse_distance": float(np.median(d))}
        return type(base)(p, d, base.growth)

    rng = np.random.default_rng(0)
    for n, held in ((5, True), (10_000, False)):
        real = rng.integers(1, 100, n)
        rows = {r["measure"]: r for r in compare_measured(with_reuse(real),
                                                            with_reuse(real * 3 // 2))}  # fmt: skip
        med, ks = rows["median_reuse_distance"], rows["reuse_distance_cdf_ks"]
        assert med["holds"] == held and ks["holds"] == held, (n, med, ks)
        if held:
            assert med["rule"] == MEDIAN_RULE and ks["rule"] == KS_RULE
            assert med["distance"] > 0.1 and ks["distance"] > 0.1  # still reported


def test_slice_ratios_are_a_slices_share_over_the_traces_where_it_expects_enough():
    """Per slice, the share of the requests ``among`` that are ``event`` over the trace's
    share; a slice that expects fewer than PHASE_MIN_EVENTS events keeps ratio 1; no event
    at all gives 1 everywhere."""
    from skftl.traces.locality import PHASE_MIN_EVENTS, PHASE_SLICES, _slice_ratios

    per = 400  # requests per slice
    slice_of = np.repeat(np.arange(PHASE_SLICES), per)
    among = np.ones(len(slice_of), dtype=bool)
    among[:per] = False  # slice 0: none of the requests counted
    among[per : per + 20] = True
    among[per + 20 : 2 * per] = False  # slice 1: 20 requests counted, all events
    rate = np.where(np.arange(PHASE_SLICES) < 10, 0.1, 0.3)  # events per request counted
    event = np.zeros(len(slice_of), dtype=bool)
    for s in range(2, PHASE_SLICES):
        event[s * per : s * per + int(rate[s] * per)] = True
    event[per : per + 20] = True
    share = event[among].mean()
    got = np.asarray(_slice_ratios(slice_of, among, event, PHASE_MIN_EVENTS))
    assert got[0] == 1.0 and got[1] == 1.0  # 0 and 20 * share < PHASE_MIN_EVENTS expected
    assert 20 * share < PHASE_MIN_EVENTS <= per * share
    assert got[2:] == pytest.approx(rate[2:] / share)
    assert (
        _slice_ratios(slice_of, among, np.zeros_like(event), PHASE_MIN_EVENTS)
        == [1.0] * PHASE_SLICES
    )


def test_equal_slice_starts_are_the_floor_rule():
    """Without edges, request i is in slice i * k // n, for any n and k."""
    from skftl.traces.locality import slice_starts, time_slice

    for n, k in ((1000, 20), (1003, 20), (7, 3), (20, 20), (19, 20)):
        got = time_slice(np.arange(n), slice_starts(n, k))
        assert got.tolist() == (np.arange(n) * k // n).tolist()
    with pytest.raises(ConfigError, match="phase_edges: 3 edges for 20"):
        slice_starts(100, 20, [0.0, 0.5, 1.0])


def test_growth_edges_give_a_burst_slices_of_its_own():
    """A trace whose footprint grows evenly keeps equal slices; a burst bringing half the
    footprint in 1 % of the requests gets about half the slices (PHASE_GROWTH_SHARE 0.5:
    a quarter of the mix), each a fraction of a percent long."""
    from skftl.traces.locality import PHASE_GROWTH_SHARE, PHASE_SLICES, growth_edges

    n = 10_000
    even = growth_edges(np.ones(n, dtype=np.int64))
    assert even == pytest.approx(np.arange(PHASE_SLICES + 1) / PHASE_SLICES)
    new_pages = np.ones(n, dtype=np.int64)
    new_pages[5000:5100] = 100  # 10,000 of 19,900 pages
    edges = np.asarray(growth_edges(new_pages))
    inside = np.count_nonzero((edges > 0.5) & (edges <= 0.51))
    share = PHASE_GROWTH_SHARE * (10_000 / 19_900) + (1 - PHASE_GROWTH_SHARE) * 0.01
    assert abs(inside - share * PHASE_SLICES) <= 1
    assert edges[0] == 0 and edges[-1] == 1 and np.all(np.diff(edges) > 0)


def test_time_slices_count_requests_that_are_not_repeats():
    """The slices count the requests that are not immediate repeats, a repeat is in its
    original's slice, and each slice's share of the footprint is what its requests touch
    first; given empty edges (an older profile), equal slices of all requests."""
    from skftl.traces.locality import PHASE_SLICES, _time_slices

    n = 4000
    repeat = np.zeros(n, dtype=bool)
    repeat[1:2000:2] = True  # the first half: every other request repeats the one before
    new_pages = np.where(repeat, 0, 1)
    edges = [k / PHASE_SLICES for k in range(PHASE_SLICES + 1)]
    got_edges, slice_of, shares = _time_slices(new_pages, repeat, edges)
    per = (n - repeat.sum()) // PHASE_SLICES  # 150 of the 3,000 that are not repeats
    assert got_edges == edges
    assert np.all(slice_of[repeat] == slice_of[np.flatnonzero(repeat) - 1])
    # the first 1,000 of them (6.7 slices) have a repeat each, the rest none
    assert np.bincount(slice_of)[:6].tolist() == [2 * per] * 6
    assert np.bincount(slice_of)[7:].tolist() == [per] * (PHASE_SLICES - 7)
    assert shares == pytest.approx(np.full(PHASE_SLICES, 1 / PHASE_SLICES))
    _, equal, _ = _time_slices(new_pages, repeat, [])
    assert equal.tolist() == (np.arange(n) * PHASE_SLICES // n).tolist()


def test_profile_cuts_its_slices_on_the_growth_of_the_requests_that_are_not_repeats():
    """Without edges given, the profile's edges are :func:`growth_edges` of the new pages of
    the requests that are not immediate repeats (a burst of large requests, and repeats
    that cluster early, must not move them), and its slices' footprint shares add to 1."""
    from skftl.traces.locality import growth_edges, profile

    rng = np.random.default_rng(5)
    n = 3000
    size = np.where((np.arange(n) >= 1500) & (np.arange(n) < 1530), 40, 1)  # pages
    start = np.r_[0, np.cumsum(size)[:-1]]  # every request on fresh pages
    again = np.arange(n) < 600  # the first 600 are each repeated once
    pages = np.repeat(start, np.where(again, 2, 1))
    sizes = np.repeat(size * P, np.where(again, 2, 1))
    writes = np.repeat(rng.random(n) < 0.3, np.where(again, 2, 1))
    got = profile(trace(pages.tolist(), writes.tolist(), sizes.tolist()))
    assert got["phase_edges"] == pytest.approx(growth_edges(size))
    assert sum(got["phase_footprint_shares"]) == pytest.approx(1.0)
    assert got["phase_repeat_read_ratios"][0] > 1 and got["phase_repeat_read_ratios"][-1] == 0
