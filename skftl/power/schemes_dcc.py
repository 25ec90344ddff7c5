"""DCC: the controller delays each operation's start until its modelled current (its DCC
envelope: the peak of every atomic or sub-atomic operation, held over it) fits under the
budget together with every operation already scheduled. Each decision costs the controller
``PARAM_DCC_DECISION_NS`` and decisions are taken one at a time. A channel atomic operation
(a read's data-out on the channel) is decided apart, with its own envelope: on a FIFO channel
no earlier than the channel is free, booking it then; on an arbitrated one once the channel is
granted (``grant_channel``), the channel then held until the data-out ends. Hooks as in
``skftl.power.hooks``."""

from __future__ import annotations

import numpy as np
from numba import njit

from skftl.power.chip import chain, request_channel, start_atomic
from skftl.power.state import (
    A_CHAN,
    A_DUR,
    CHIP_ATOMIC,
    CHIP_CHANNEL,
    CHIP_DCC_DECIDED,
    CHIP_DCC_START,
    CHIP_OP,
    CHIP_TYPE,
    ENV_CUM,
    ENV_LEN,
    ENV_LVL,
    ENV_OFF,
    PARAM_ARBITRATED,
    PARAM_BUDGET,
    PARAM_DCC_DECISION_NS,
    PARAM_DCC_HOT,
    STAT_DCC_BASE_LEVEL,
    STAT_DCC_BOUNDARIES,
    STAT_DCC_FREE,
    STAT_DCC_HEAD,
    STAT_DCC_ROW_SET,
    inline,
    lookup,
    n_types,
    unsigned,
)


@inline
def attempt(S, c, t):
    """Decide once per operation (and once more for its channel atomic operation), then
    start when the decided time comes."""
    a = S.chip[c, CHIP_ATOMIC]
    on_channel = lookup(S, A_CHAN, a)
    decision = 2 * S.chip[c, CHIP_OP] + on_channel
    if S.chip[c, CHIP_DCC_DECIDED] != decision and on_channel != 0 and S.prm[PARAM_ARBITRATED] != 0:
        # the controller decides the data-out once it grants the channel to this chip
        request_channel(S, c, n_types(S), t)
        return
    if S.chip[c, CHIP_DCC_DECIDED] != decision:
        k = S.chip[c, CHIP_CHANNEL]
        decided = _decision_time(S, t)
        if on_channel != 0:
            s = _schedule(decided, max(decided, S.channel_free[k]), n_types(S), S.stats, S.prm,
                          S.tables, S.table_start, S.skyline)  # fmt: skip
            S.channel_free[k] = s + lookup(S, A_DUR, a)
        else:
            s = _schedule(decided, decided, S.chip[c, CHIP_TYPE], S.stats, S.prm, S.tables,
                          S.table_start, S.skyline)  # fmt: skip
        S.chip[c, CHIP_DCC_START] = s
        S.chip[c, CHIP_DCC_DECIDED] = decision
    if S.chip[c, CHIP_DCC_START] <= t:
        start_atomic(S, c, t, 0, True)
        chain(S, c, 0, False)  # the rest of the operation follows without a stop
    else:
        S.event_time[c] = S.chip[c, CHIP_DCC_START]


@inline
def grant_channel(S, c, t):
    """The channel is the chip's: decide its data-out now, holding the channel until it
    ends; the waiting chip starts it at the decided time (``attempt``)."""
    k = S.chip[c, CHIP_CHANNEL]
    decided = _decision_time(S, t)
    s = _schedule(decided, decided, n_types(S), S.stats, S.prm, S.tables, S.table_start, S.skyline)
    S.channel_free[k] = s + lookup(S, A_DUR, S.chip[c, CHIP_ATOMIC])
    S.chip[c, CHIP_DCC_START] = s
    S.chip[c, CHIP_DCC_DECIDED] = 2 * S.chip[c, CHIP_OP] + 1
    S.event_time[c] = s


@inline
def _decision_time(S, t):
    """The controller takes a decision asked for at ``t``: when it is free, one at a time."""
    decided = max(t, S.stats[STAT_DCC_FREE]) + S.prm[PARAM_DCC_DECISION_NS]
    S.stats[STAT_DCC_FREE] = decided
    return decided


@inline
def _first_above(a, lo, hi, x):
    """First index in ``lo .. hi - 1`` of the sorted ``a`` whose value exceeds ``x`` (``hi``
    if none), by bisection."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@inline
def _append_boundary(skyline, rb, out, prev, x, d, level):
    """Append boundary (time ``x``, change ``d``, level before ``level``) to row set ``rb``
    of ``skyline`` at ``out``; a time equal to the last one's (``prev``) merges into it.
    Returns the new count and last time."""
    if x == prev:
        skyline[unsigned(rb + 1), unsigned(out - 1)] += d
        return out, prev
    skyline[unsigned(rb), unsigned(out)] = x
    skyline[unsigned(rb + 1), unsigned(out)] = d
    skyline[unsigned(rb + 2), unsigned(out)] = level
    return out + 1, x


@inline
def _merge_env(skyline, ra, i0, n_a, rb, level, start, ty, tables, table_start, hot):
    """Merge the DCC envelope of operation type ``ty`` starting at ``start`` into the sorted
    boundaries ``i0 .. n_a - 1`` of row set ``ra`` of ``skyline`` (rows: time, change of level,
    level before it, next hot boundary), writing row set ``rb`` from 0; equal times merge;
    ``level`` is the level before the first boundary. Row ``rb + 3`` gets, per boundary ``j``,
    the first ``j' >= j`` whose level before exceeds ``hot`` (the count if none), so
    ``_schedule`` jumps over the stretches that no envelope can violate. Returns the
    number of boundaries written."""
    o0 = tables[table_start[ENV_OFF] + ty]
    n_env = tables[table_start[ENV_LEN] + ty]
    c0 = table_start[ENV_CUM] + o0
    l0 = table_start[ENV_LVL] + o0
    # boundaries before the envelope and after it are copied as they are (a plain loop); only
    # those within it are merged
    ia = _first_above(skyline[ra], i0, n_a, start - 1)
    out = 0
    for j in range(i0, ia):
        skyline[unsigned(rb), unsigned(out)] = skyline[unsigned(ra), unsigned(j)]
        skyline[unsigned(rb + 1), unsigned(out)] = skyline[unsigned(ra + 1), unsigned(j)]
        skyline[unsigned(rb + 2), unsigned(out)] = skyline[unsigned(ra + 2), unsigned(j)]
        level += skyline[unsigned(ra + 1), unsigned(j)]
        out += 1
    prev = np.int64(-1)  # time of the last boundary merged (times are >= 0)
    for ib in range(n_env + 1):
        xb = start + tables[unsigned(c0 + ib)]
        db = tables[unsigned(l0 + ib)] if ib < n_env else 0
        if ib > 0:
            db -= tables[unsigned(l0 + ib - 1)]
        # the skyline's boundaries up to this one first (an equal time merges)
        while ia < n_a and skyline[unsigned(ra), unsigned(ia)] <= xb:
            d = skyline[unsigned(ra + 1), unsigned(ia)]
            out, prev = _append_boundary(
                skyline, rb, out, prev, skyline[unsigned(ra), unsigned(ia)], d, level
            )
            ia += 1
            level += d
        out, prev = _append_boundary(skyline, rb, out, prev, xb, db, level)
        level += db
    for j in range(ia, n_a):
        skyline[unsigned(rb), unsigned(out)] = skyline[unsigned(ra), unsigned(j)]
        skyline[unsigned(rb + 1), unsigned(out)] = skyline[unsigned(ra + 1), unsigned(j)]
        skyline[unsigned(rb + 2), unsigned(out)] = skyline[unsigned(ra + 2), unsigned(j)]
        out += 1
    nxt = out
    for j in range(out - 1, -1, -1):
        if skyline[rb + 2, j] > hot:
            nxt = j
        skyline[rb + 3, j] = nxt
    return out


@njit(cache=True, _nrt=False)
def _schedule(t, s0, ty, stats, prm, tables, table_start, skyline):
    """Earliest start >= ``s0`` (>= ``t``) at which envelope ``ty`` (an operation's modelled
    current, piecewise-constant peaks: ENV_* tables) plus the modelled current of every
    operation already scheduled stays within the budget. Compiled apart (a large body called
    from three places, once per decision), it takes only the arrays it reads. A violation
    delays the start until the violating piece of the envelope begins where the skyline has
    come down far enough (the reference delays elementary interval by interval; no start in
    between can fit, so both find the same earliest start). Only the skyline intervals above
    ``PARAM_DCC_HOT`` are checked, each against the envelope pieces it overlaps: a candidate
    start costs the hot intervals in its window, not every piece and boundary. The new
    operation's envelope then joins the skyline.

    The skyline of scheduled envelopes is kept across calls, sorted, in one of two row sets
    of ``skyline`` (rows ``r`` .. ``r + 3``: boundary time, change of level, level before it,
    next hot boundary, see ``_merge_env``; ``r`` = ``STAT_DCC_ROW_SET``), live from
    ``STAT_DCC_HEAD`` to ``STAT_DCC_BOUNDARIES``; boundaries at or before ``t`` (calls come in
    time order) are passed by moving the head, their level kept in ``STAT_DCC_BASE_LEVEL``;
    merging the new envelope writes the other row set. A chip schedules its next operation
    only after the previous one ended, so from ``t`` on the skyline holds the other chips'
    envelopes: exactly those of the operations scheduled and not yet ended (a chip whose next
    operation is still on the channel reserves nothing)."""
    env_off = tables[table_start[ENV_OFF] : table_start[ENV_OFF + 1]]
    env_len = tables[table_start[ENV_LEN] : table_start[ENV_LEN + 1]]
    env_cum = tables[table_start[ENV_CUM] : table_start[ENV_CUM + 1]]
    env_lvl = tables[table_start[ENV_LVL] : table_start[ENV_LVL + 1]]
    pb = prm[PARAM_BUDGET]
    r = stats[STAT_DCC_ROW_SET]
    m = stats[STAT_DCC_BOUNDARIES]
    h = stats[STAT_DCC_HEAD]
    base = stats[STAT_DCC_BASE_LEVEL]
    while h < m and skyline[r, h] <= t:
        base += skyline[r + 1, h]
        h += 1
    stats[STAT_DCC_HEAD] = h
    stats[STAT_DCC_BASE_LEVEL] = base
    o0 = env_off[ty]
    n_env = env_len[ty]
    dur = env_cum[o0 + n_env]
    hot = prm[PARAM_DCC_HOT]
    s = s0
    k0 = h
    while True:
        k0 = _first_above(skyline[r], k0, m, s)
        # check the envelope against the hot skyline intervals in [s, s + dur) only (level
        # above ``hot``: elsewhere no piece can violate). Interval k is [skyline[k - 1], skyline[k])
        # at level skyline[r + 2, k]; after the last boundary the level is 0.
        end = s + dur
        k = skyline[r + 3, k0] if k0 < m else m
        i = 0
        ok = True
        while k < m:
            lo = skyline[r, k - 1] if k > k0 else s
            if lo >= end:
                break
            hi = skyline[r, k]
            other = skyline[r + 2, k]
            # the first piece ending after lo
            i = _first_above(env_cum, o0 + i + 1, o0 + n_env, lo - s) - o0 - 1
            j = i
            while j < n_env and s + env_cum[o0 + j] < hi:
                lvl = env_lvl[o0 + j]
                if lvl + other > pb:
                    # delay until piece j starts where the skyline has come down to
                    # pb - lvl: every start before that overlaps the same run of violations
                    kk = k
                    while kk + 1 < m and skyline[r + 2, kk + 1] > pb - lvl:
                        kk += 1
                    s = skyline[r, kk] - env_cum[o0 + j]
                    ok = False
                    break
                j += 1
            if not ok:
                break
            k = skyline[r + 3, k + 1] if k + 1 < m else m
        if ok:
            break
    # the new envelope joins the kept skyline (in the other row set)
    r2 = 4 - r
    stats[STAT_DCC_BOUNDARIES] = _merge_env(
        skyline, r, h, m, r2, base, s, ty, tables, table_start, hot
    )
    stats[STAT_DCC_ROW_SET] = r2
    stats[STAT_DCC_HEAD] = 0
    return s
