"""MTPM synthetic NAND-operation traces against a pure-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.errors import ConfigError
from skftl.traces.nand_ops import (
    ERASE,
    LSB,
    MSB,
    MTPM_TRACES,
    NO_PAGE,
    PROGRAM,
    READ,
    mtpm_ops,
    mtpm_trace,
)


def reference(kinds: list[int], erase_every: int, n_chips: int, burst: int, gap: int):
    """Insert erases, assign chips round-robin, alternate LSB/MSB per chip, one loop."""
    seq, programs = [], 0
    for k in kinds:
        seq.append(k)
        if k == PROGRAM:
            programs += 1
            if programs % erase_every == 0:
                seq.append(ERASE)
    chip, page, arrival, per_chip = [], [], [], [0] * n_chips
    for i, k in enumerate(seq):
        c = i % n_chips
        chip.append(c)
        if k == PROGRAM:
            page.append(LSB if per_chip[c] % 2 == 0 else MSB)
            per_chip[c] += 1
        else:
            page.append(NO_PAGE)
        arrival.append((i // burst) * gap)
    return seq, chip, page, arrival


@pytest.mark.parametrize("name", list(MTPM_TRACES))
def test_paper_traces(name):
    ops = mtpm_trace(name)
    pct = MTPM_TRACES[name]
    assert ops.name == name
    assert ops.count(READ) == 50 * pct  # of 5000 reads + programs
    assert ops.count(READ) + ops.count(PROGRAM) == 5000
    assert ops.count(ERASE) == ops.count(PROGRAM) // 500
    assert np.bincount(ops.chip, minlength=8).max() - np.bincount(ops.chip).min() <= 1
    progs = ops.kind == PROGRAM
    assert set(np.unique(ops.page_type[progs])) <= {LSB, MSB}
    assert np.all(ops.page_type[~progs] == NO_PAGE)
    assert np.all(ops.arrival_ns == 0)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 100),
    st.integers(0, 400),
    st.integers(1, 50),
    st.integers(1, 9),
    st.integers(1, 10),
    st.integers(0, 10_000),
    st.integers(0, 1000),
)
def test_matches_reference(read_pct, n_ops, erase_every, n_chips, burst, gap, seed):
    ops = mtpm_ops(read_pct, n_ops, erase_every, n_chips, seed, burst, gap)
    # the reference inserts erases into the same read/program order
    base = [int(k) for k in ops.kind if k != ERASE]
    seq, chip, page, arrival = reference(base, erase_every, n_chips, burst, gap)
    assert ops.kind.tolist() == seq
    assert ops.chip.tolist() == chip
    assert ops.page_type.tolist() == page
    assert ops.arrival_ns.tolist() == arrival
    assert base.count(READ) == round(n_ops * read_pct / 100)


def test_deterministic_and_seeded():
    a, b, c = mtpm_ops(50, seed=1), mtpm_ops(50, seed=1), mtpm_ops(50, seed=2)
    assert np.array_equal(a.kind, b.kind) and not np.array_equal(a.kind, c.kind)


def test_bad_arguments():
    with pytest.raises(ConfigError):
        mtpm_ops(101)
    with pytest.raises(ConfigError):
        mtpm_ops(50, erase_every=0)
    with pytest.raises(ConfigError):
        mtpm_trace("R30")
