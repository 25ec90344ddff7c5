"""Event-driven simulation of NAND chips under a power-management scheme: the event loop.

The loop only orders events and applies what is common to every scheme; what a scheme does is
behind its hooks (the contract: ``skftl.power.hooks``), called through ``skftl.power.schemes``,
which passes each call to the family of the run's scheme. What happens to a chip whatever the
scheme is in ``skftl.power.chip``, the state in ``skftl.power.state``; the current is
accounted afterwards from the log of atomic starts (``skftl.power.current``).

Semantics (the pure-Python reference in tests/ implements the same, naively):

* Each chip executes its operations in arrival order. An operation first occupies its
  channel (command / data transfer, only while the chip is idle), then runs its atomic
  operations back to back; before each atomic operation the scheme may make it wait (key /
  tokens / pre-charge lock / DCC start time). A channel atomic operation (read data-out under
  the channel read model) also waits for its channel once the scheme lets it start (a token
  scheme's chip holds its tokens meanwhile).
* The channel (``PARAM_ARBITRATED``): 0 books each transfer when it is requested, behind every
  transfer booked before it (FIFO); 1 arbitrates when the channel frees, as a controller does:
  among the requests ready then, the lowest rank (``CHANNEL_RANK`` per request kind) and the
  oldest within a rank go first. An arbitration is an event after the chips' events of its
  time (every request of that instant competes: a token packet's absorption asks for the
  channel only after the decision time) and before the packets' (a chip granted a transfer
  that takes no time meets the packets of that instant).
* The schemes: NPM starts at once (``hooks``); PPM's pre-charge lock (``schemes_ppm``); DCC's
  controller schedule (``schemes_dcc``); the token rings MTPM, KMTPM atomic and sub-atomic
  and the no-key ring (``schemes_ring``); CTRL's central token pool (``schemes_controller``).
* Current: no scheme reads it, so the kernel only logs each chip's atomic starts (a chain that
  needs no decisions, ``chip.chain``, as one entry) and ``current.account_current`` sums the
  40 ns samples over chips afterwards. A violation is a sample above the budget.

Chip states follow Figs. 4, 5 and 9: READY (nothing to do), XFER (operation on the channel),
WAIT (waiting state: needs key / tokens / lock / start time), OPER (operating). The operable
state is the decision between WAIT and OPER: tokens are taken at the decision and the atomic
operation starts ``PARAM_DECISION_NS`` later.

Simultaneous events are handled in the order: op arrivals (by index), chip events (by chip),
channel arbitrations (by channel), packet arrivals (by packet index = ring * M + phase).
"""

from __future__ import annotations

from numba import njit

from skftl.power import schemes as scheme
from skftl.power.chip import begin_wait, chain, request_channel, start_atomic
from skftl.power.state import (
    A_SA_LEN,
    A_SA_OFF,
    ATOMIC_END,
    CHIP_ATOMIC,
    CHIP_CHANNEL,
    CHIP_LOG_NEXT,
    CHIP_OP,
    CHIP_QUEUE_END,
    CHIP_QUEUE_NEXT,
    CHIP_REQUEST_RANK,
    CHIP_REQUEST_READY,
    CHIP_REQUEST_SEQ,
    CHIP_STATE,
    CHIP_STEP,
    CHIP_SUBATOMIC,
    CHIP_TYPE,
    CHIP_USED_TOKENS,
    INF,
    OPERATION_END,
    PARAM_ARBITRATED,
    PARAM_CHECK_TOKENS,
    PARAM_CHIPS,
    PARAM_SUBATOMIC_STEPS,
    PARAM_UNDECIDED_TYPES,
    PARAM_WAYS,
    READY,
    SA_DUR,
    SA_RT,
    STAT_COMPLETED_OPS,
    STAT_EVENTS,
    SUBATOMIC_END,
    TMPL_LEN,
    WAIT,
    XFER,
    inline,
    lookup,
)

# what the earliest event is (simultaneous ones in this order, see the module's docstring)
ARRIVAL, CHIP_EVENT, PACKET_EVENT, CHANNEL_EVENT = 0, 1, 2, 3
COMPLETED = -2  # a chip event completed the chip's operation


@njit(cache=True, _nrt=False)
def simulate(S):
    """Run the whole operation stream of ``S`` (``state.allocate``): fills ``op_issue``,
    ``op_start``, ``op_done``, ``wait_ns``, ``wait_count``, the atomic log up to
    ``atomic_log_end`` and ``stats`` (those of the current are ``account_current``'s)."""
    scheme.init(S)
    _event_loop(S)
    for c in range(S.prm[PARAM_CHIPS]):
        S.atomic_log_end[c] = S.chip[c, CHIP_LOG_NEXT]


@njit(cache=True, _nrt=False)
def _event_loop(S):
    """The events in time order, each hook called at one place (each is inlined where it is
    called)."""
    n = S.prm[PARAM_CHIPS]
    n_ops = len(S.op_arrival)
    arbitrated = S.prm[PARAM_ARBITRATED] != 0
    check = S.prm[PARAM_CHECK_TOKENS] != 0
    n_channels = len(S.channel_free)
    next_op = 0
    while True:
        # the earliest chip, channel or packet event, the first in that order among equals
        # (and in index order within each); arrivals go first at equal times
        i_ev = 0
        te = S.event_time[0]
        for i in range(1, n):
            x = S.event_time[i]
            i_ev = i if x < te else i_ev
            te = x if x < te else te
        if arbitrated:  # channel arbitrations: after the chips' events of their time
            for i in range(2 * n, 2 * n + n_channels):
                if S.event_time[i] < te:
                    te = S.event_time[i]
                    i_ev = i
        te, i_ev = scheme.earliest_packet(S, te, i_ev)
        t = S.op_arrival[next_op] if next_op < n_ops else INF
        if t <= te:
            if t == INF:
                break
            kind = ARRIVAL
        else:
            t = te
            kind = CHIP_EVENT if i_ev < n else (PACKET_EVENT if i_ev < 2 * n else CHANNEL_EVENT)
        S.stats[STAT_EVENTS] += 1
        attempting = -1  # the chip that tries to start its next atomic operation after this
        transferring = -1  # a chip whose next operation's transfer was just booked or granted
        if kind == ARRIVAL:
            # every arrival at this time, in index order (they all precede the chip events at
            # the same time, and an arrival only touches its chip): an idle chip takes it
            while next_op < n_ops and S.op_arrival[next_op] == t:
                c = S.op_chip[next_op]
                next_op += 1
                if S.chip[c, CHIP_STATE] == READY:
                    _dispatch(S, c, t)
                    _run_without_decisions(S, c)
        elif kind == CHIP_EVENT:
            attempting = _chip_event(S, i_ev, t)
            if attempting == COMPLETED:
                attempting = -1
                _dispatch(S, i_ev, t)
                transferring = i_ev
        elif kind == CHANNEL_EVENT:
            transferring = _arbitrate(S, i_ev - 2 * n, t)
        else:
            attempting = scheme.on_packet(S, i_ev - n, t)
        if transferring >= 0:
            _run_without_decisions(S, transferring)
        if attempting >= 0:
            scheme.attempt(S, attempting, t)
        if check:
            scheme.check(S)


@inline
def _chip_event(S, c, t):
    """Chip ``c``'s timer: its transfer ended, its retry time came, or its sub-atomic or
    atomic operation ended (the scheme takes back the tokens no longer used). Returns the
    chip if it is to attempt its next atomic operation, COMPLETED if its operation is done
    (it takes its next), else -1."""
    state = S.chip[c, CHIP_STATE]
    S.event_time[c] = INF
    if state == XFER:
        S.op_issue[S.chip[c, CHIP_OP]] = t
        begin_wait(S, c, t)
        return c
    if state == WAIT:
        return c
    a = S.chip[c, CHIP_ATOMIC]
    i = S.chip[c, CHIP_SUBATOMIC]
    if S.prm[PARAM_SUBATOMIC_STEPS] != 0 and i + 1 < lookup(S, A_SA_LEN, a):
        s0 = lookup(S, A_SA_OFF, a) + i
        tokens = lookup(S, SA_RT, s0) - lookup(S, SA_RT, s0 + 1)
        S.chip[c, CHIP_SUBATOMIC] = i + 1
        S.event_time[c] = t + lookup(S, SA_DUR, s0 + 1)
        S.chip[c, CHIP_USED_TOKENS] -= tokens
        boundary = SUBATOMIC_END
    else:
        tokens = S.chip[c, CHIP_USED_TOKENS]
        S.chip[c, CHIP_USED_TOKENS] = 0
        S.chip[c, CHIP_STEP] += 1
        last = S.chip[c, CHIP_STEP] >= lookup(S, TMPL_LEN, S.chip[c, CHIP_TYPE])
        boundary = OPERATION_END if last else ATOMIC_END
    scheme.release(S, c, t, tokens, boundary)
    if boundary == SUBATOMIC_END:
        return -1
    if boundary == ATOMIC_END:
        begin_wait(S, c, t)
        return c
    S.op_done[S.chip[c, CHIP_OP]] = t
    S.stats[STAT_COMPLETED_OPS] += 1
    return COMPLETED


@inline
def _dispatch(S, c, t):
    """Idle chip: move its next arrived operation onto the channel (FIFO), or ask for the
    channel (arbitrated), if it has one."""
    q = S.chip[c, CHIP_QUEUE_NEXT]
    if q >= S.chip[c, CHIP_QUEUE_END] or S.op_arrival[S.chip_queue[q]] > t:
        S.chip[c, CHIP_STATE] = READY
        S.event_time[c] = INF
        S.chip[c, CHIP_OP] = -1
        return
    op = S.chip_queue[q]
    ty = S.op_type[op]
    S.chip[c, CHIP_QUEUE_NEXT] = q + 1
    S.chip[c, CHIP_OP] = op
    S.chip[c, CHIP_TYPE] = ty
    S.chip[c, CHIP_STEP] = 0
    S.chip[c, CHIP_STATE] = XFER
    if S.prm[PARAM_ARBITRATED] == 0:
        k = S.chip[c, CHIP_CHANNEL]
        xs = max(t, S.channel_free[k])
        S.channel_free[k] = xs + S.transfer_ns[ty]
        S.event_time[c] = xs + S.transfer_ns[ty]
    else:
        S.event_time[c] = INF  # until the channel's arbitration grants the transfer
        request_channel(S, c, ty, t)


@inline
def _run_without_decisions(S, c):
    """An operation just put on the channel none of whose atomic operations needs a decision
    (``PARAM_UNDECIDED_TYPES``) runs from the end of its transfer with no further event: issue,
    start and the whole chain are known once the transfer is booked or granted."""
    if S.chip[c, CHIP_STATE] != XFER or S.event_time[c] == INF:
        return
    if (S.prm[PARAM_UNDECIDED_TYPES] >> S.chip[c, CHIP_TYPE]) & 1 == 0:
        return
    t = S.event_time[c]
    S.op_issue[S.chip[c, CHIP_OP]] = t
    begin_wait(S, c, t)
    start_atomic(S, c, t, 0, False)
    chain(S, c, 0, False)


@inline
def _arbitrate(S, k, t):
    """Channel ``k`` is free at ``t`` (arbitrated channel): grant it to the waiting request of
    the lowest rank, the oldest within a rank (then the first made), and schedule the next
    arbitration (when this transfer ends, or when the next request will be ready). A command
    transfer ends the chip's transfer state as a FIFO booking would (returns the chip, -1 if
    none); a channel atomic operation is the scheme's (``grant_channel``)."""
    i_ev = 2 * S.prm[PARAM_CHIPS] + k
    S.event_time[i_ev] = INF
    if S.channel_free[k] > t:  # a controller message took the channel meanwhile (CTRL)
        S.event_time[i_ev] = S.channel_free[k]
        return -1
    ways = S.prm[PARAM_WAYS]
    best = -1
    b_rank = 0
    b_ready = 0
    b_seq = 0
    later = INF  # the earliest request not ready yet
    ready = 0
    for c in range(k * ways, (k + 1) * ways):
        rank = S.chip[c, CHIP_REQUEST_RANK]
        if rank < 0:
            continue
        r = S.chip[c, CHIP_REQUEST_READY]
        if r > t:
            later = min(later, r)
            continue
        ready += 1
        seq = S.chip[c, CHIP_REQUEST_SEQ]
        if (
            best < 0
            or rank < b_rank
            or (rank == b_rank and (r < b_ready or (r == b_ready and seq < b_seq)))
        ):
            best, b_rank, b_ready, b_seq = c, rank, r, seq
    if best < 0:
        S.event_time[i_ev] = later
        return -1
    c = best
    S.chip[c, CHIP_REQUEST_RANK] = -1
    transferring = -1
    if S.chip[c, CHIP_STATE] == XFER:
        d = S.transfer_ns[S.chip[c, CHIP_TYPE]]
        S.channel_free[k] = t + d
        S.event_time[c] = t + d
        transferring = c
    else:
        scheme.grant_channel(S, c, t)
    free = S.channel_free[k]
    S.event_time[i_ev] = free if ready > 1 else max(free, later)
    return transferring
