"""The current accounting (``current.account_current``: per-chip logs of atomic starts merged
block by block) against the obvious dense sum of every 40 ns sample, on logs long enough to
cross many blocks and with gaps longer than a block."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from skftl.power import state
from skftl.power.current import account_current
from skftl.power.device import Device
from skftl.power.profiles import ATOMICS, LEVEL_UNIT, SAMPLE_NS, Profiles
from skftl.power.sim import build_tables
from skftl.power.tokens import TokenModel


@st.composite
def logs(draw):
    prof = []
    for _ in ATOMICS:
        segs = draw(
            st.lists(st.tuples(st.integers(1, 3000), st.integers(0, 20)), min_size=1, max_size=4)
        )
        prof.append(np.concatenate([np.full(n, v * LEVEL_UNIT // 20, np.int64) for n, v in segs]))
    profiles = Profiles(tuple(prof), "hypothesis")
    n_chips = draw(st.integers(1, 4))
    starts: list[list[tuple[int, int]]] = []
    for _ in range(n_chips):
        t, chip = 0, []
        for _ in range(draw(st.integers(0, 12))):
            a = draw(st.integers(0, len(ATOMICS) - 1))
            t += draw(st.sampled_from([0, 1, 39, 40, 41, 10_000, 400_000]))  # gaps, ns
            chip.append((t, a))
            t += len(prof[a]) * SAMPLE_NS
        starts.append(chip)
    return profiles, starts, draw(st.integers(1, 4)), draw(st.sampled_from([0, 1, 7, 64]))


@settings(max_examples=60, deadline=None)
@given(logs())
def test_account_current_equals_the_dense_sum(case):
    profiles, starts, alpha, rbin = case
    tables = build_tables(profiles, Device(), TokenModel(4, 4))
    tb, to = tables.packed()
    n = len(starts)
    log_off = np.zeros(n + 1, np.int64)
    log_off[1:] = np.cumsum([len(s) for s in starts])
    lg = np.zeros((int(log_off[-1]), 2), np.int64)
    for c, chip in enumerate(starts):
        for i, (ts, a) in enumerate(chip):
            lg[log_off[c] + i] = ts, a
    log_end = log_off[1:].copy()
    end = max((ts + len(profiles.samples[a]) * SAMPLE_NS for s in starts for ts, a in s), default=0)
    dense = np.zeros(end // SAMPLE_NS + 2, np.int64)
    for chip in starts:
        for ts, a in chip:
            k0 = math.ceil(ts / SAMPLE_NS)
            dense[k0 : k0 + len(profiles.samples[a])] += profiles.samples[a]
    pb = alpha * LEVEL_UNIT // 2
    series = np.zeros(len(dense) // rbin + 2 if rbin else 0, np.int64)
    stats = np.zeros(state.N_STATS, np.int64)
    account_current(lg, log_off, log_end, tb, to, pb, rbin, series, stats)
    assert stats[state.STAT_PEAK_CURRENT] == dense.max()
    assert stats[state.STAT_VIOLATION_SAMPLES] == np.count_nonzero(dense > pb)
    assert stats[state.STAT_FINAL_CURRENT] == 0
    if rbin:
        want = np.zeros_like(series)
        np.maximum.at(want, np.arange(len(dense)) // rbin, dense)
        assert np.array_equal(series, want)


@given(st.integers(-(2**63), 2**63 - 1).filter(lambda x: x != 0))
@settings(max_examples=200, deadline=None)
def test_lowest_bit_is_the_index_of_the_lowest_set_bit(x):
    """The sweep (and the ring's live packets) find set bits by ``state.lowest_bit``."""
    assert _lowest_bit_jit(np.int64(x)) == ((x & -x).bit_length() - 1)


@njit(cache=True)
def _lowest_bit_jit(x):
    return state.lowest_bit(x)
