"""The strict DDR4 model's steady probes, memoised: a probe of a set over every bank
(4 chunks in 4 banks) timed from a table of earlier probes instead of command by
command.

Why it is exact. After a full probe in which every chunk's first read missed its bank's
open row (so each bank got one ACT) and no refresh fell, everything the scheduler reads
next is set by that probe's own commands: each bank's open row (the set's row), last
READ and last ACT, the last four ACTs (the tFAW window), the previous READ and ACT and
their bank groups, and each bank's last stream position (the Table V class). The
scheduler only takes maxima of those times plus constants, so it is invariant under a
shift of time. Hence the *probe state* - the banks in read order and each one's last
ACT and READ relative to the probe's last READ ``T`` - together with the next probe's
first bank (its read order, see kernel) fixes the next probe's cycles, Table V classes
and probe state, provided the next probe misses every bank too (its row is not the
open one) and no refresh can fall in it (every command of it is at or before its last
READ, so ``T + cycles < next refresh`` suffices). The memo maps (state, first bank) to
(next state, cycles, classes); the first probe of each kind is scheduled command by
command and stored. On the benchmark's streams (benchmarks/bench_lpmt.py) a few hundred
transitions time most probes (docs/dram.md); the rest follow a block-table read, a
refresh or a row already open, and are scheduled command by command.

The memo is a cache of a pure function: whatever it holds, the results are the same
(the tests compare the kernel with the plain-Python reference, which has no memo).

A probe state is a 57-bit key: bits 0-7 the four banks in read order (2 bits each),
then 7 bits per relative time (ACT of slots 0-3, READ of slots 0-2; slot 3's READ is
``T``). A probe whose times do not fit has no key and is never memoised.
"""

from __future__ import annotations

import numpy as np

from skftl.dram.state import inline
from skftl.dram.timing import (
    B_LAST_ACT,
    B_LAST_IDX,
    B_LAST_RD,
    B_OPEN,
    S_ACT_POS,
    S_COUNT,
    S_NEXT_REF,
    S_PREV_RD,
    S_STAMP,
    bank_at,
    bank_group,
)

SLOTS = 1 << 12  # memo entries (a power of two); filled at most half
M_KEY, M_NEXT, M_LAT, M_CLS = range(4)  # fields of an entry
M_STRIDE = 4
M_USED = SLOTS * M_STRIDE  # after the entries: how many are in use,
M_HITS = M_USED + 1  # and how many probes they timed
N_BANKS = 4
REL_BITS = 7
REL_MAX = (1 << REL_BITS) - 1
ACT_SHIFT = 2 * N_BANKS
RD_SHIFT = ACT_SHIFT + N_BANKS * REL_BITS
FIRST_SHIFT = RD_SHIFT + (N_BANKS - 1) * REL_BITS  # the next probe's first bank, in a lookup
CLS_BITS = 12  # a class count's field in a packed tally (classes 0-3, then no-repeat)
CLS_FLUSH = 512  # probes between flushes (a power of two): each adds <= 4 reads to a field


def new_memo() -> np.ndarray:
    return np.zeros(M_HITS + 1, dtype=np.int64)


@inline
def probe_state(seq, t, banks):
    """The key of the probe state whose banks in read order are ``seq`` (2 bits each)
    and whose last READ is at ``t``, read from the bank state; -1 if it has none."""
    key = seq
    for j in range(N_BANKS):
        at = bank_at((seq >> (2 * j)) & 3)
        ra, rr = t - banks[at + B_LAST_ACT], t - banks[at + B_LAST_RD]
        if ra < 0 or ra > REL_MAX or rr < 0 or rr > REL_MAX:
            return -1
        key |= ra << (ACT_SHIFT + REL_BITS * j)
        if j < N_BANKS - 1:
            key |= rr << (RD_SHIFT + REL_BITS * j)
        elif rr != 0:
            return -1
    return key


@inline
def memo_find(memo, ck):
    """Index of the entry for lookup key ``ck``, or ``-1 - i`` with ``i`` the free entry
    where it would go (``-1 - SLOTS`` when the memo is half full: store nothing)."""
    h = (ck ^ (ck >> 15) ^ (ck >> 29) ^ (ck >> 43)) & (SLOTS - 1)
    while True:
        at = h * M_STRIDE
        stored = memo[at + M_KEY]
        if stored == ck + 1:
            return at
        if stored == 0:
            return -1 - at if memo[M_USED] < SLOTS // 2 else -1 - M_USED
        h = (h + 1) & (SLOTS - 1)


@inline
def memo_put(memo, miss, ck, nxt, lat, cls):
    """Store (next state, cycles, classes) for ``ck`` where memo_find's ``miss`` says."""
    at = -1 - miss
    if at < M_USED:
        memo[at + M_KEY] = ck + 1
        memo[at + M_NEXT] = nxt
        memo[at + M_LAT] = lat
        memo[at + M_CLS] = cls
        memo[M_USED] += 1


@inline
def class_snapshot(cases, tally):
    """Reads counted so far in the conflict classes 0-3 (a window of 4) and no-repeat."""
    return (cases[0], cases[1], cases[2], cases[3], tally)


@inline
def classes_since(snap, cases, tally):
    """The reads classified since ``snap`` (class_snapshot), packed CLS_BITS per class:
    a probe's classes, added up over many probes in one register (flush_classes)."""
    return ((cases[0] - snap[0]) + ((cases[1] - snap[1]) << CLS_BITS)
            + ((cases[2] - snap[2]) << (2 * CLS_BITS)) + ((cases[3] - snap[3]) << (3 * CLS_BITS))
            + ((tally - snap[4]) << (4 * CLS_BITS)))  # fmt: skip


@inline
def flush_classes(acc, cases, tally):
    """Add a sum of packed probe classes to ``cases``; returns the new tally."""
    for c in range(N_BANKS):
        cases[c] += (acc >> (CLS_BITS * c)) & ((1 << CLS_BITS) - 1)
    return tally + ((acc >> (CLS_BITS * N_BANKS)) & ((1 << CLS_BITS) - 1))


@inline
def after_steady(s, reads, cycles, acts):
    """The scalar state after a steady probe of ``reads`` reads, ``cycles`` long, with
    ``acts`` ACTs: what the probe advances; the rest lags until materialize."""
    return (s[S_COUNT] + reads, s[S_STAMP], s[S_PREV_RD] + cycles, s[3], s[4], s[5],
            s[S_ACT_POS] + acts, s[S_NEXT_REF])  # fmt: skip


@inline
def materialize(key, row, m_run, s, tp, banks, acts):
    """Write the probe state ``key`` (every bank's row ``row``; ``m_run`` reads per chunk
    run, the last READ at ``s[S_PREV_RD]``, the stream at ``s[S_COUNT]``) into the bank
    state and the ACT window; returns the full scalar state. The steady probes advance
    only the count, the last READ and the ACT count."""
    t, count, act_pos = s[S_PREV_RD], s[S_COUNT], s[S_ACT_POS]
    last_act = t
    for j in range(N_BANKS):
        at = bank_at((key >> (2 * j)) & 3)
        act = t - ((key >> (ACT_SHIFT + REL_BITS * j)) & REL_MAX)
        rr = (key >> (RD_SHIFT + REL_BITS * j)) & REL_MAX if j < N_BANKS - 1 else 0
        banks[at + B_OPEN] = row
        banks[at + B_LAST_ACT] = act
        banks[at + B_LAST_RD] = t - rr
        banks[at + B_LAST_IDX] = count - 1 - (N_BANKS - 1 - j) * m_run
        acts[(act_pos + j) & 3] = act  # the chunks' ACTs were issued in read order
        last_act = act
    group = bank_group((key >> (2 * (N_BANKS - 1))) & 3, tp)
    return (count, s[S_STAMP], t, group, last_act, group, act_pos, s[S_NEXT_REF])


@inline
def caught_up(behind, key, row, m_run, s, tp, banks, acts):
    """The full scalar state, the probe state ``key`` written back first if steady
    probes left the bank state ``behind`` it (see materialize)."""
    return materialize(key, row, m_run, s, tp, banks, acts) if behind else s
