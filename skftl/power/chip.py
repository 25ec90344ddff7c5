"""What happens to a chip whatever the scheme: it begins waiting for its next atomic
operation, asks for its channel, starts an atomic operation (booking the channel when the
operation is on it) and, where no decision is needed, runs a chain of atomic operations in one
event. The schemes (``hooks``) call these; every start is logged for the current accounting.
"""

from __future__ import annotations

from skftl.power.state import (
    A_CHAN,
    A_DUR,
    A_PPZ,
    A_SA_OFF,
    CHANNEL_RANK,
    CHIP_ATOMIC,
    CHIP_CHANNEL,
    CHIP_LOG_NEXT,
    CHIP_NEED,
    CHIP_OP,
    CHIP_REQUEST_RANK,
    CHIP_REQUEST_READY,
    CHIP_REQUEST_SEQ,
    CHIP_STATE,
    CHIP_STEP,
    CHIP_SUBATOMIC,
    CHIP_TYPE,
    CHIP_WAIT_SINCE,
    INF,
    OPER,
    PARAM_ARBITRATED,
    PARAM_CHIPS,
    PARAM_SUBATOMIC_STEPS,
    SA_DUR,
    SA_RT,
    STAT_ATOMIC_STARTS,
    STAT_CHANNEL_REQUESTS,
    TMPL_ATOM,
    TMPL_LEN,
    TMPL_LOOP,
    TMPL_OFF,
    WAIT,
    helper,
    inline,
    lookup,
    n_types,
)


@helper
def log_start(S, c, a, ts):
    """Chip ``c`` starts atomic operation ``a`` at ``ts`` (or, as a change-point id after the
    atomic ones, a whole chain): append it to the chip's log of atomic starts."""
    i = S.chip[c, CHIP_LOG_NEXT]
    S.atomic_log[i, 0] = ts
    S.atomic_log[i, 1] = a
    S.chip[c, CHIP_LOG_NEXT] = i + 1


@helper
def request_channel(S, c, kind, ready):
    """Chip ``c`` waits for its channel from ``ready`` on (request ``kind``: its operation's
    type for the command transfer, ``n_types`` for a channel atomic operation): the channel's
    next arbitration is due once it is free and the request ready, unless one is due
    earlier."""
    S.chip[c, CHIP_REQUEST_RANK] = lookup(S, CHANNEL_RANK, kind)
    S.chip[c, CHIP_REQUEST_READY] = ready
    S.chip[c, CHIP_REQUEST_SEQ] = S.stats[STAT_CHANNEL_REQUESTS]
    S.stats[STAT_CHANNEL_REQUESTS] += 1
    k = S.chip[c, CHIP_CHANNEL]
    i = 2 * S.prm[PARAM_CHIPS] + k
    when = max(ready, S.channel_free[k])
    if when < S.event_time[i]:
        S.event_time[i] = when


@helper
def begin_wait(S, c, t):
    """Chip ``c`` waits from ``t`` for the scheme to let its next atomic operation start."""
    a = lookup(S, TMPL_ATOM, lookup(S, TMPL_OFF, S.chip[c, CHIP_TYPE]) + S.chip[c, CHIP_STEP])
    S.chip[c, CHIP_ATOMIC] = a
    S.chip[c, CHIP_STATE] = WAIT
    S.event_time[c] = INF
    S.chip[c, CHIP_WAIT_SINCE] = t
    S.chip[c, CHIP_NEED] = lookup(S, SA_RT, lookup(S, A_SA_OFF, a))


@helper
def begin_atomic(S, c, a, ts):
    """Chip ``c``'s atomic operation ``a`` runs from ``ts``: its next event is its first
    sub-atomic boundary when the scheme returns tokens there, else its end."""
    if S.chip[c, CHIP_STEP] == 0:
        S.op_start[S.chip[c, CHIP_OP]] = ts
    log_start(S, c, a, ts)
    S.stats[STAT_ATOMIC_STARTS] += 1
    if S.prm[PARAM_SUBATOMIC_STEPS] != 0:
        S.event_time[c] = ts + lookup(S, SA_DUR, lookup(S, A_SA_OFF, a))
    else:
        S.event_time[c] = ts + lookup(S, A_DUR, a)


@inline
def start_atomic(S, c, decided, delay, channel_booked):
    """The scheme lets chip ``c``'s waiting atomic operation start: decided at ``decided``,
    it starts ``delay`` later. One on the channel also waits for the channel, unless the
    scheme has booked it already (``channel_booked``): FIFO, behind everything booked; an
    arbitrated channel, when granted (``kernel.arbitrate``)."""
    a = S.chip[c, CHIP_ATOMIC]
    ts = decided + delay
    S.wait_ns[a] += decided - S.chip[c, CHIP_WAIT_SINCE]
    S.wait_count[a] += 1
    S.chip[c, CHIP_STATE] = OPER
    S.chip[c, CHIP_SUBATOMIC] = 0
    if lookup(S, A_CHAN, a) != 0 and not channel_booked:
        if S.prm[PARAM_ARBITRATED] == 0:
            k = S.chip[c, CHIP_CHANNEL]
            ts = max(ts, S.channel_free[k])
            S.channel_free[k] = ts + lookup(S, A_DUR, a)
        else:
            S.event_time[c] = INF
            request_channel(S, c, n_types(S), ts)
            return
    begin_atomic(S, c, a, ts)


@inline
def chain(S, c, delay, stop_at_precharge):
    """Start, right away, the atomic operations after the one chip ``c`` just started that
    need no decision: each starts when its predecessor ends (plus ``delay``, a decision time)
    whatever the other chips do, and touches nothing they see. One event then covers the
    chain instead of one per atomic operation; results are unchanged.

    The scheme says how far a chain goes: the whole operation (``delay`` 0), up to the next
    pre-charge (``stop_at_precharge``), or, with a decision time, while the next atomic
    operation needs exactly the tokens the chip holds. Never into a channel atomic operation,
    nor from one still waiting for its channel: when it starts depends on the other chips' use
    of the channel."""
    if S.chip[c, CHIP_REQUEST_RANK] >= 0:
        return
    ty = S.chip[c, CHIP_TYPE]
    o = lookup(S, TMPL_OFF, ty) + 1
    n_at = lookup(S, TMPL_LEN, ty)
    step0 = S.chip[c, CHIP_STEP]
    step = step0
    a = S.chip[c, CHIP_ATOMIC]
    t_end = S.event_time[c]
    need = S.chip[c, CHIP_NEED]
    while step + 1 < n_at:
        nxt = lookup(S, TMPL_ATOM, o + step)
        if lookup(S, A_CHAN, nxt) != 0:
            break
        if stop_at_precharge:
            if lookup(S, A_PPZ, nxt) != 0:
                break
        elif delay > 0 and lookup(S, SA_RT, lookup(S, A_SA_OFF, nxt)) != need:
            break
        ts = t_end + delay
        step += 1
        a = nxt
        S.wait_count[a] += 1
        log_start(S, c, a, ts)
        S.stats[STAT_ATOMIC_STARTS] += 1
        t_end = ts + lookup(S, A_DUR, a)
    if delay == 0 and step > step0:
        _log_chain_as_one(S, c, ty, o, step0, step, n_at)
    S.chip[c, CHIP_STEP] = step
    S.chip[c, CHIP_ATOMIC] = a
    S.event_time[c] = t_end


@inline
def _log_chain_as_one(S, c, ty, o, step0, step, n_at):
    """A back-to-back chain that is the whole operation or one program loop: one log entry
    (the first atomic operation's, rewritten) with its precomputed change points."""
    n_atomics = S.table_start[A_DUR + 1] - S.table_start[A_DUR]
    loop = lookup(S, TMPL_LOOP, ty)
    pid = -1
    if step0 == 0 and step == n_at - 1:
        pid = n_atomics + ty
    elif step - step0 + 1 == loop:
        pid = n_atomics + n_types(S) + ty
        for k in range(loop):
            if lookup(S, TMPL_ATOM, o - 1 + step0 + k) != lookup(S, TMPL_ATOM, o - 1 + k):
                pid = -1
    if pid >= 0:
        i0 = S.chip[c, CHIP_LOG_NEXT] - (step - step0) - 1
        S.atomic_log[i0, 1] = pid
        S.chip[c, CHIP_LOG_NEXT] = i0 + 1
