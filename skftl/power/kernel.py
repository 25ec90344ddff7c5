"""Event-driven simulation of NAND chips under a power-management scheme (one Numba kernel).

Semantics (the pure-Python reference in tests/ implements the same, naively):

* Each chip executes its operations in arrival order. An operation first occupies its
  channel (command / data transfer, only while the chip is idle), then runs its atomic
  operations back to back; before each atomic operation the scheme may make it wait (key /
  tokens / pre-charge lock / DCC start time). A channel atomic operation (read data-out under
  the channel read model) also waits for its channel once the scheme lets it start (a token
  scheme's chip holds its tokens meanwhile).
* The channel (``R_ARB``): 0 books each transfer when it is requested, behind every transfer
  booked before it (FIFO); 1 arbitrates when the channel frees, as a controller does: among
  the requests ready then, the lowest rank (``CH_RANK`` per request kind) and the oldest
  within a rank go first. An arbitration is an event after the chips' events of its time
  (every request of that instant competes: a token packet's absorption asks for the channel
  only after the decision time) and before the packets' (a chip granted a transfer that takes
  no time meets the packets of that instant). DCC then decides a data-out once the channel is
  its chip's (the channel held until the data-out ends).
* Token ring (MTPM, KMTPM, no-key): ``n_rings`` rings of ``M`` consecutive chips, each ring
  with its own tokens. Key and tokens travel as one serial packet: one hop takes
  ``hop_ns`` = (1 + token bits) cycles. The ring is slotted: a packet leaves a chip at the
  next multiple of ``hop_ns``; packets that meet at the same chip in the same slot merge,
  so a packet is identified by its phase (position - slot) mod M. A chip that decides to
  start spends ``comp_ns`` (2 cycles) before the atomic operation starts.
  A waiting chip absorbs a packet when it holds the key or the packet carries it (MTPM,
  KMTPM), or the packet brings enough tokens (KMTPM), or always (no-key variant, which can
  deadlock, Fig. 4a). MTPM starts only with the key; KMTPM with enough tokens. A starting
  chip forwards its surplus tokens and the key. KMTPM keeps its tokens across consecutive
  atomic operations when they suffice; KMTPM sub-atomic returns surplus tokens at every
  sub-atomic boundary (``SA_DUR``: nominal, or later by a guard band, never after the atomic
  operation's end). MTPM returns everything after each atomic operation.
* NPM starts at once; PPM lets one chip at a time be in the pre-charge zone (first
  sub-atomic operation of program execution); DCC (controller) delays each operation's
  start until its modelled current (peak of every atomic or sub-atomic operation, held
  over it: the DCC envelope) fits
  under the budget together with all operations already scheduled; each decision costs the
  controller ``R_DCC_LAT`` and decisions are taken one at a time; a channel atomic operation
  is decided apart (its own envelope; FIFO channel: no earlier than the channel is free,
  booked then; arbitrated: once the channel is granted);
  CTRL is a central token pool in the controller (sub-atomic tokens), each grant and return
  costing a message on the chip's channel (multi-channel arrangement 3 of Sec. IV-F2).
* Current: no scheme reads it, so ``simulate`` only logs each chip's atomic starts (a chain
  that needs no decisions, see ``_chain``, as one entry) and ``account_current`` sums the
  40 ns samples over chips afterwards. A violation is a sample above the budget.

Chip states follow Figs. 4, 5 and 9: READY (nothing to do), XFER (operation on the channel),
WAIT (waiting state: needs key / tokens / lock / start time), OPER (operating). The operable
state is the ``comp_ns`` decision between WAIT and OPER: tokens are taken at the decision and
the atomic operation starts ``comp_ns`` later.

Simultaneous events are handled in the order: op arrivals (by index), chip events (by chip),
channel arbitrations (by channel), packet arrivals (by packet index = ring * M + phase).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from skftl.numba_cache import drop_stale_cache
from skftl.power import profiles
from skftl.power.profiles import SAMPLE_NS

drop_stale_cache(__file__, profiles.__file__)  # SAMPLE_NS is compiled in

# the 40 ns sample period is a compile-time constant: divisions by it become multiplications
S_NS = SAMPLE_NS

NPM, PPM, DCC, MTPM, KMTPM_A, KMTPM_SA, NOKEY, CTRL = 0, 1, 2, 3, 4, 5, 6, 7
SCHEMES = {
    "NPM": NPM,
    "PPM": PPM,
    "DCC": DCC,
    "MTPM": MTPM,
    "KMTPM_A": KMTPM_A,
    "KMTPM_SA": KMTPM_SA,
    "NOKEY": NOKEY,
    "CTRL": CTRL,
}
TOKEN_RING_SCHEMES = (MTPM, KMTPM_A, KMTPM_SA, NOKEY)

READY, XFER, WAIT, OPER = 0, 1, 2, 3
INF = np.int64(2**62)

# chip fields (a chip's next event time is ``tm[c]``, see ``simulate``)
C_STATE, C_OP, C_TYPE, C_STEP, C_SA, C_HT, C_UT, C_KEY = 0, 1, 2, 3, 4, 5, 6, 7
C_WAITSINCE, C_NEED, C_QPTR, C_QEND, C_DCCS, C_DCCOP, C_ATOM, C_CHAN = 8, 9, 10, 11, 12, 13, 14, 15
C_LOG = 16  # next free slot of the chip's log of atomic starts
# the chip's request for its channel (arbitrated channel): its rank (-1: none), the time it is
# ready and its sequence number (the order requests were made, for equal times)
C_RQ, C_RQT, C_RQS = 17, 18, 19
N_CFIELDS = 20
# C_DCCOP holds 2 * op + 1 for the decision on an operation's channel atomic operation (the
# read data-out, decided apart: its start also waits for the channel), 2 * op for the rest
# packet fields (packet ``p`` arrives at ``tm[n + p]``, in slot P_SLOT, at chip ``pkt_tgt[p]``);
# P_LAST: slot of its last arrival (or of its creation); in the row of a ring's first packet
# only: P_RING, bit ``phase`` set while that packet is alive, and P_WAIT, bit ``position`` set
# while that chip waits (see ``_attempt``)
P_ALIVE, P_TOK, P_KEY, P_SLOT, P_LAST, P_RING, P_WAIT = 0, 1, 2, 3, 4, 5, 6
N_PFIELDS = 7
MAX_RING = 64  # chips per ring: P_RING's bits
# globals (the first five are filled by ``account_current``)
G_FLUSHED, G_MAXK1, G_CUR, G_PEAK, G_VIOL, G_PPZ, G_POOL, G_EVENTS = 0, 1, 2, 3, 4, 5, 6, 7
G_CONS_ERR, G_DONE, G_HOPS, G_QHEAD, G_QLEN, G_STARTS, G_MAXPKT = 8, 9, 10, 11, 12, 13, 14
# DCC skyline (see _dcc_schedule): end and head of the live boundaries, level before the
# head, row set in use
G_DCC_N, G_DCC_BASE, G_DCC_HEAD, G_DCC_SET = 15, 16, 17, 18
G_DCC_FREE = 19  # DCC's controller is busy deciding until then (decisions one at a time)
G_RQSEQ = 20  # channel requests made so far (the next one's sequence number)
N_GLOBALS = 21
# parameters
# R_MASK: M - 1 when the ring size M is a power of two (ring arithmetic by masks), else -1;
# R_DCC_HOT: budget minus the highest DCC envelope level (a skyline level up to it fits any
# envelope); R_DCC_LAT: controller time of one DCC scheduling decision; R_ARB: 1 when the
# channel is arbitrated as it frees, 0 when each transfer is booked as requested (FIFO)
(R_SCHEME, R_N, R_M, R_TT, R_PB, R_HOP, R_COMP, R_WAYS, R_MSG, R_CHECK, R_MASK, R_DCC_HOT,
 R_DCC_LAT, R_ARB) = range(14)  # fmt: skip
N_PARAMS = 14
# tables, packed into one flat int64 array ``tb`` with start offsets ``to`` (one argument
# instead of sixteen keeps calls between the kernel's functions cheap). An atomic operation's
# current is given by its change points: sample offset CP_K from its first sample, change of
# level CP_D (the last one returns to zero); so is, under the ids after the atomic ones, each
# operation type's whole sequence and its first loop (TMPL_LOOP atomic operations long, up to
# the second pre-charge), run back to back. A_CHAN: 1 for an atomic operation that occupies
# its chip's channel (read data-out under the channel read model): it starts when both the
# scheme and the channel let it. DCC envelopes: one per operation type, up to its first
# channel atomic operation, then (id = number of types) the channel atomic operation alone.
# SA_DUR: time from one sub-atomic token return to the next (the nominal durations, or those
# of a guard band). CH_RANK: the rank of a channel request per kind (an operation type's
# command transfer, then, as the number of types, a channel atomic operation).
(TMPL_OFF, TMPL_LEN, TMPL_ATOM, TMPL_CUM, A_DUR, A_PEAK, A_SA_OFF, A_SA_LEN, A_PPZ, SA_DUR,
 SA_RT, A_CP_OFF, A_CP_LEN, CP_K, CP_D, ENV_OFF, ENV_LEN, ENV_CUM, ENV_LVL,
 TMPL_LOOP, A_CHAN, CH_RANK) = range(22)  # fmt: skip
N_TABLES = 22
STAT_NAMES = (
    "flushed_samples", "last_sample", "final_current", "peak_current", "violation_samples",
    "ppm_until", "pool", "events", "conservation_errors",
    "completed_ops", "packet_arrivals", "ctrl_queue_head", "ctrl_queue_len", "atomic_starts",
    "max_packets", "dcc_boundaries", "dcc_base_level", "dcc_head", "dcc_row_set", "dcc_free",
    "channel_requests",
)  # fmt: skip


@njit(cache=True, inline="always")
def _ceil_div(a, b):
    return -((-a) // b)


@njit(cache=True, inline="always")
def _ring_mod(x, prm):
    """``x`` mod M (in 0 .. M - 1 for any sign of ``x``): a mask for the usual M = 8 instead
    of the divisions that used to cost a good part of every ring event."""
    mask = prm[R_MASK]
    if mask >= 0:
        return x & mask  # two's complement: equals x % M for negative x too
    return x % prm[R_M]


@njit(cache=True, inline="always")
def _t(tb, to, table, i):
    return tb[to[table] + i]


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zero bits (one ``tzcnt`` / ``bsf`` instruction); undefined
    for 0."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@njit(cache=True, inline="always")
def _lowest_bit(x):
    """Index of the lowest set bit of a non-zero int64 (the accounting's sweep finds every
    changing sample by it; a de Bruijn multiplication and table look-up used to cost a few
    cycles more)."""
    return _cttz(np.int64(x))


@njit(cache=True, inline="always")
def _u(i):
    """A non-negative index as unsigned: Numba then omits the negative-index wrap-around
    (three instructions per access, a third of the accounting's inner loops)."""
    return np.uint64(i)


@njit(cache=True, _nrt=False, inline="always")
def _log_start(c, a, ts, ch, lg):
    """Chip ``c`` starts atomic operation ``a`` at ``ts``: append it to the chip's log (the
    current is accounted afterwards from the logs, see ``account_current``)."""
    i = ch[c, C_LOG]
    lg[i, 0] = ts
    lg[i, 1] = a
    ch[c, C_LOG] = i + 1


@njit(cache=True, inline="always")
def _absorbs(c, p, ch, pk, prm):
    if ch[c, C_STATE] != WAIT:
        return False
    sch = prm[R_SCHEME]
    if sch == NOKEY:
        return True
    if ch[c, C_KEY] == 1 or pk[p, P_KEY] == 1:
        return True
    if sch == MTPM:
        return False
    return ch[c, C_HT] + pk[p, P_TOK] >= ch[c, C_NEED]


@njit(cache=True, inline="always")
def _rotate(w, r, m):
    """Mask ``w`` of an ``m``-bit ring (m <= 64) rotated so that bit ``r`` becomes bit 0."""
    if r == 0:
        return w
    full = ~((np.int64(-1) << (m - 1)) << 1)  # m ones (all 64 for m = 64, no overflow)
    return ((w >> r) & ((np.int64(1) << (m - r)) - 1)) | ((w << (m - r)) & full)


@njit(cache=True, _nrt=False, inline="always")
def _retarget(p, s_from, include_current, ch, tm, pk, prm, pkt_tgt):
    """Point packet ``p`` (at its position of slot ``s_from``) at the first chip on its way
    that would absorb it; no event if none would. Only waiting chips absorb, so only the
    ring's waiting chips are checked, in the order the packet meets them (the ring's mask of
    waiting chips rotated to start at the packet's first stop: its own chip when included,
    else the next one, its own chip then coming last, a lap later)."""
    n = prm[R_N]
    phi = _ring_mod(p, prm)
    base = p - phi
    k0 = 0 if include_current else 1
    pos0 = _ring_mod(phi + s_from + k0, prm)  # the first chip it may stop at, k0 hops on
    w = _rotate(pk[base, P_WAIT], pos0, prm[R_M])  # bit j: the chip k0 + j hops on waits
    while w != 0:
        j = _lowest_bit(w)
        w &= w - 1
        c = base + _ring_mod(pos0 + j, prm)
        if _absorbs(c, p, ch, pk, prm):
            tm[n + p] = (s_from + k0 + j) * prm[R_HOP]
            pk[p, P_SLOT] = s_from + k0 + j
            pkt_tgt[p] = c
            return
    tm[n + p] = INF
    pkt_tgt[p] = -1


@njit(cache=True, _nrt=False, inline="always")
def _announce(c, t, ch, tm, pk, prm, pkt_tgt):
    """Chip ``c`` may now absorb packets: let every packet that reaches it before its current
    target stop there instead."""
    m = prm[R_M]
    n = prm[R_N]
    hop = prm[R_HOP]
    pos = _ring_mod(c, prm)
    base = c - pos
    s_min = _ceil_div(t, hop)
    r0 = _ring_mod(pos - s_min, prm)  # (pos - phi - s_min) mod m for phi = 0, then one less per phi
    alive = pk[base, P_RING]
    while alive != 0:  # the ring's live packets only (usually 1-3 of 8)
        phi = _lowest_bit(alive)
        alive &= alive - 1
        p = base + phi
        r = r0 - phi
        if r < 0:
            r += m
        s = s_min + r
        if s <= pk[p, P_LAST]:
            s += m
        if s * hop < tm[n + p] and _absorbs(c, p, ch, pk, prm):
            tm[n + p] = s * hop
            pk[p, P_SLOT] = s
            pkt_tgt[p] = c


@njit(cache=True, _nrt=False, inline="always")
def _pass_on(c, ch, tm, pk, prm, pkt_tgt):
    """Chip ``c`` stopped waiting: the packets bound for it would reach it, not be absorbed,
    and go on (KMTPM sub-atomic: 28 such events per operation on R0). Re-target them now,
    from their slot at ``c``, instead of an event at that arrival: every later change on
    their way re-targets them as it would have (a chip that starts waiting announces itself,
    a target that stops passes them on, a merge re-targets). The skipped arrival would have
    set P_LAST to its slot s; P_LAST is read only at the current slot, by ``_announce`` and
    ``_forward`` for the packet's position then, so it could matter only at time s * hop, at
    ``c``, after the skipped arrival in event order: in a later packet's event at ``c`` in
    slot s. No such packet exists (it would have the same phase: the same packet)."""
    pos = _ring_mod(c, prm)
    base = c - pos
    alive = pk[base, P_RING]
    while alive != 0:
        phi = _lowest_bit(alive)
        alive &= alive - 1
        p = base + phi
        if pkt_tgt[p] == c:
            _retarget(p, pk[p, P_SLOT], False, ch, tm, pk, prm, pkt_tgt)


@njit(cache=True, _nrt=False, inline="always")
def _forward(c, t, tok, key, ch, tm, pk, prm, pkt_tgt):
    if tok == 0 and key == 0:
        return
    s = _ceil_div(t, prm[R_HOP])
    pos = _ring_mod(c, prm)
    p = c - pos + _ring_mod(pos - s, prm)
    if pk[p, P_ALIVE] == 1:
        pk[p, P_TOK] += tok
        pk[p, P_KEY] |= key
        include = pk[p, P_LAST] < s
    else:
        pk[p, P_ALIVE] = 1
        pk[c - pos, P_RING] |= np.int64(1) << (p - c + pos)
        pk[p, P_TOK] = tok
        pk[p, P_KEY] = key
        pk[p, P_LAST] = s
        include = False
    _retarget(p, s, include, ch, tm, pk, prm, pkt_tgt)


@njit(cache=True, _nrt=False, inline="always")
def _request(c, kind, r, ch, tm, g, prm, chan_free, tb, to):
    """Chip ``c`` waits for its channel from ``r`` on (request ``kind``: its operation's type
    for the command transfer, the number of types for a channel atomic operation): the
    channel's next arbitration is due once it is free and the request ready, unless one is due
    earlier."""
    ch[c, C_RQ] = _t(tb, to, CH_RANK, kind)
    ch[c, C_RQT] = r
    ch[c, C_RQS] = g[G_RQSEQ]
    g[G_RQSEQ] += 1
    k = ch[c, C_CHAN]
    i = 2 * prm[R_N] + k
    when = max(r, chan_free[k])
    if when < tm[i]:
        tm[i] = when


@njit(cache=True, _nrt=False, inline="always")
def _begin_atomic(c, a, ts, ch, tm, g, prm, lg, op_start, tb, to):
    """Chip ``c``'s atomic operation ``a`` runs from ``ts``."""
    if ch[c, C_STEP] == 0:
        op_start[ch[c, C_OP]] = ts
    _log_start(c, a, ts, ch, lg)
    g[G_STARTS] += 1
    sch = prm[R_SCHEME]
    if sch == KMTPM_SA or sch == CTRL:
        tm[c] = ts + _t(tb, to, SA_DUR, _t(tb, to, A_SA_OFF, a))
    else:
        tm[c] = ts + _t(tb, to, A_DUR, a)


@njit(cache=True, _nrt=False, inline="always")
def _start_atomic(c, t_dec, comp, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb,
                  to):  # fmt: skip
    a = ch[c, C_ATOM]
    ts = t_dec + comp
    wait_ns[a] += t_dec - ch[c, C_WAITSINCE]
    wait_cnt[a] += 1
    ch[c, C_STATE] = OPER
    ch[c, C_SA] = 0
    if _t(tb, to, A_CHAN, a) != 0 and prm[R_SCHEME] != DCC:  # DCC books it when deciding
        if prm[R_ARB] == 0:
            k = ch[c, C_CHAN]
            ts = max(ts, chan_free[k])  # FIFO: behind what is already booked
            chan_free[k] = ts + _t(tb, to, A_DUR, a)
        else:  # it runs once the channel's arbitration grants it
            tm[c] = INF
            _request(c, to[TMPL_LEN + 1] - to[TMPL_LEN], ts, ch, tm, g, prm, chan_free, tb, to)
            return
    _begin_atomic(c, a, ts, ch, tm, g, prm, lg, op_start, tb, to)


@njit(cache=True, _nrt=False, inline="always")
def _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to):
    """Start, right away, the atomic operations after the one chip ``c`` just started that
    need no decision: each would start when its predecessor ends (plus the decision time
    under KMTPM) whatever the other chips do, and touches nothing they see. One event then
    covers the chain instead of one per atomic operation; results are unchanged.

    NPM and DCC (which decides once per operation): the whole operation. PPM: up to the next
    pre-charge. KMTPM atomic: while the next atomic operation needs exactly the tokens the
    chip holds (it keeps them, has no key and no surplus to hand on). Never into a channel
    atomic operation, nor from one still waiting for its channel: when it starts depends on
    the other chips' use of the channel."""
    if ch[c, C_RQ] >= 0:
        return
    sch = prm[R_SCHEME]
    if sch == NPM or sch == DCC or sch == PPM:
        delay = 0
    elif sch == KMTPM_A or sch == NOKEY:
        delay = prm[R_COMP]
    else:
        return
    ty = ch[c, C_TYPE]
    o = _t(tb, to, TMPL_OFF, ty) + 1
    n_at = _t(tb, to, TMPL_LEN, ty)
    step0 = ch[c, C_STEP]
    step = step0
    a = ch[c, C_ATOM]
    t_end = tm[c]
    need = ch[c, C_NEED]
    while step + 1 < n_at:
        nxt = _t(tb, to, TMPL_ATOM, o + step)
        if _t(tb, to, A_CHAN, nxt) != 0:
            break
        if sch == PPM:
            if _t(tb, to, A_PPZ, nxt) != 0:
                break
        elif delay > 0 and _t(tb, to, SA_RT, _t(tb, to, A_SA_OFF, nxt)) != need:
            break
        ts = t_end + delay
        step += 1
        a = nxt
        wait_cnt[a] += 1
        _log_start(c, a, ts, ch, lg)
        g[G_STARTS] += 1
        t_end = ts + _t(tb, to, A_DUR, a)
    if delay == 0 and step > step0:
        # a back-to-back chain that is the whole operation or one program loop: one log
        # entry (the first atomic operation's, rewritten) with its precomputed current
        n_atomics = to[A_DUR + 1] - to[A_DUR]
        loop = _t(tb, to, TMPL_LOOP, ty)
        pid = -1
        if step0 == 0 and step == n_at - 1:
            pid = n_atomics + ty
        elif step - step0 + 1 == loop:
            pid = n_atomics + to[TMPL_LEN + 1] - to[TMPL_LEN] + ty
            for k in range(loop):
                if _t(tb, to, TMPL_ATOM, o - 1 + step0 + k) != _t(tb, to, TMPL_ATOM, o - 1 + k):
                    pid = -1
        if pid >= 0:
            i0 = ch[c, C_LOG] - (step - step0) - 1
            lg[i0, 1] = pid
            ch[c, C_LOG] = i0 + 1
    ch[c, C_STEP] = step
    ch[c, C_ATOM] = a
    tm[c] = t_end


@njit(cache=True, _nrt=False, inline="always")
def _begin_wait(c, t, ch, tm, tb, to):
    a = _t(tb, to, TMPL_ATOM, _t(tb, to, TMPL_OFF, ch[c, C_TYPE]) + ch[c, C_STEP])
    ch[c, C_ATOM] = a
    ch[c, C_STATE] = WAIT
    tm[c] = INF
    ch[c, C_WAITSINCE] = t
    ch[c, C_NEED] = _t(tb, to, SA_RT, _t(tb, to, A_SA_OFF, a))


@njit(cache=True, _nrt=False, inline="always")
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


@njit(cache=True, _nrt=False, inline="always")
def _append_boundary(sky, rb, out, prev, x, d, level):
    """Append boundary (time ``x``, change ``d``, level before ``level``) to row set ``rb``
    of ``sky`` at ``out``; a time equal to the last one's (``prev``) merges into it.
    Returns the new count and last time."""
    if x == prev:
        sky[_u(rb + 1), _u(out - 1)] += d
        return out, prev
    sky[_u(rb), _u(out)] = x
    sky[_u(rb + 1), _u(out)] = d
    sky[_u(rb + 2), _u(out)] = level
    return out + 1, x


@njit(cache=True, _nrt=False, inline="always")
def _merge_env(sky, ra, i0, n_a, rb, level, start, ty, tb, to, hot):
    """Merge the DCC envelope of operation type ``ty`` starting at ``start`` into the sorted
    boundaries ``i0 .. n_a - 1`` of row set ``ra`` of ``sky`` (rows: time, change of level,
    level before it, next hot boundary), writing row set ``rb`` from 0; equal times merge;
    ``level`` is the level before the first boundary. Row ``rb + 3`` gets, per boundary ``j``,
    the first ``j' >= j`` whose level before exceeds ``hot`` (the count if none), so
    ``_dcc_schedule`` jumps over the stretches that no envelope can violate. Returns the
    number of boundaries written."""
    o0 = tb[to[ENV_OFF] + ty]
    n_env = tb[to[ENV_LEN] + ty]
    c0 = to[ENV_CUM] + o0
    l0 = to[ENV_LVL] + o0
    # boundaries before the envelope and after it are copied as they are (a plain loop); only
    # those within it are merged
    ia = _first_above(sky[ra], i0, n_a, start - 1)
    out = 0
    for j in range(i0, ia):
        sky[_u(rb), _u(out)] = sky[_u(ra), _u(j)]
        sky[_u(rb + 1), _u(out)] = sky[_u(ra + 1), _u(j)]
        sky[_u(rb + 2), _u(out)] = sky[_u(ra + 2), _u(j)]
        level += sky[_u(ra + 1), _u(j)]
        out += 1
    prev = np.int64(-1)  # time of the last boundary merged (times are >= 0)
    for ib in range(n_env + 1):
        xb = start + tb[_u(c0 + ib)]
        db = tb[_u(l0 + ib)] if ib < n_env else 0
        if ib > 0:
            db -= tb[_u(l0 + ib - 1)]
        # the skyline's boundaries up to this one first (an equal time merges)
        while ia < n_a and sky[_u(ra), _u(ia)] <= xb:
            d = sky[_u(ra + 1), _u(ia)]
            out, prev = _append_boundary(sky, rb, out, prev, sky[_u(ra), _u(ia)], d, level)
            ia += 1
            level += d
        out, prev = _append_boundary(sky, rb, out, prev, xb, db, level)
        level += db
    for j in range(ia, n_a):
        sky[_u(rb), _u(out)] = sky[_u(ra), _u(j)]
        sky[_u(rb + 1), _u(out)] = sky[_u(ra + 1), _u(j)]
        sky[_u(rb + 2), _u(out)] = sky[_u(ra + 2), _u(j)]
        out += 1
    nxt = out
    for j in range(out - 1, -1, -1):
        if sky[rb + 2, j] > hot:
            nxt = j
        sky[rb + 3, j] = nxt
    return out


@njit(cache=True, _nrt=False)
def _dcc_schedule(t, s0, ty, g, prm, tb, to, sky):
    """Earliest start >= ``s0`` (>= ``t``) at which envelope ``ty`` (an operation's modelled
    current: its DCC envelope:
    piecewise-constant peaks, ENV_* tables) plus the modelled current of every operation
    already scheduled stays within the budget. A violation delays the start until the
    violating piece of the envelope begins where the skyline has come down far enough (the
    reference delays elementary interval by interval; no start in between can fit, so both
    find the same earliest start). Only the skyline intervals above ``R_DCC_HOT`` are
    checked, each against the envelope pieces it overlaps: a candidate start costs the hot
    intervals in its window, not every piece and boundary. The new operation's envelope then
    joins the skyline.

    The skyline of scheduled envelopes is kept across calls, sorted, in one of two row sets
    of ``sky`` (rows ``r`` .. ``r + 3``: boundary time, change of level, level before it, next
    hot boundary, see ``_merge_env``; ``r`` = ``G_DCC_SET``), live from ``G_DCC_HEAD`` to
    ``G_DCC_N``; boundaries at or before ``t`` (calls come in time order) are passed by moving
    the head, their level kept in ``G_DCC_BASE``; merging the new envelope writes the other
    row set. A chip schedules its next operation only after the previous one ended, so from
    ``t`` on the skyline holds the other chips' envelopes: exactly those of the operations
    scheduled and not yet ended (a chip whose next operation is still on the channel
    reserves nothing)."""
    env_off = tb[to[ENV_OFF] : to[ENV_OFF + 1]]
    env_len = tb[to[ENV_LEN] : to[ENV_LEN + 1]]
    env_cum = tb[to[ENV_CUM] : to[ENV_CUM + 1]]
    env_lvl = tb[to[ENV_LVL] : to[ENV_LVL + 1]]
    pb = prm[R_PB]
    r = g[G_DCC_SET]
    m = g[G_DCC_N]
    h = g[G_DCC_HEAD]
    base = g[G_DCC_BASE]
    while h < m and sky[r, h] <= t:
        base += sky[r + 1, h]
        h += 1
    g[G_DCC_HEAD] = h
    g[G_DCC_BASE] = base
    o0 = env_off[ty]
    n_env = env_len[ty]
    dur = env_cum[o0 + n_env]
    hot = prm[R_DCC_HOT]
    s = s0
    k0 = h
    while True:
        k0 = _first_above(sky[r], k0, m, s)
        # check the envelope against the hot skyline intervals in [s, s + dur) only (level
        # above ``hot``: elsewhere no piece can violate). Interval k is [sky[k - 1], sky[k])
        # at level sky[r + 2, k]; after the last boundary the level is 0.
        end = s + dur
        k = sky[r + 3, k0] if k0 < m else m
        i = 0
        ok = True
        while k < m:
            lo = sky[r, k - 1] if k > k0 else s
            if lo >= end:
                break
            hi = sky[r, k]
            other = sky[r + 2, k]
            # the first piece ending after lo
            i = _first_above(env_cum, o0 + i + 1, o0 + n_env, lo - s) - o0 - 1
            j = i
            while j < n_env and s + env_cum[o0 + j] < hi:
                lvl = env_lvl[o0 + j]
                if lvl + other > pb:
                    # delay until piece j starts where the skyline has come down to
                    # pb - lvl: every start before that overlaps the same run of violations
                    kk = k
                    while kk + 1 < m and sky[r + 2, kk + 1] > pb - lvl:
                        kk += 1
                    s = sky[r, kk] - env_cum[o0 + j]
                    ok = False
                    break
                j += 1
            if not ok:
                break
            k = sky[r + 3, k + 1] if k + 1 < m else m
        if ok:
            break
    # the new envelope joins the kept skyline (in the other row set)
    r2 = 4 - r
    g[G_DCC_N] = _merge_env(sky, r, h, m, r2, base, s, ty, tb, to, hot)
    g[G_DCC_SET] = r2
    g[G_DCC_HEAD] = 0
    return s


@njit(cache=True, _nrt=False)
def _ctrl_grant(c, t, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to):
    """Central pool grants chip ``c`` its tokens; the grant is a message on its channel."""
    g[G_POOL] -= ch[c, C_NEED]
    ch[c, C_UT] = ch[c, C_NEED]
    k = ch[c, C_CHAN]
    ts = max(t, chan_free[k]) + prm[R_MSG]
    chan_free[k] = ts
    _start_atomic(c, ts, 0, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to)


@njit(cache=True, _nrt=False)
def _ctrl_release(
    c, t, tok, ch, tm, g, prm, chan_free, cq, lg, wait_ns, wait_cnt, op_start, tb, to
):
    k = ch[c, C_CHAN]
    chan_free[k] = max(t, chan_free[k]) + prm[R_MSG]  # return message occupies the channel
    g[G_POOL] += tok
    n = len(cq)
    while g[G_QLEN] > 0:
        h = cq[g[G_QHEAD]]
        if g[G_POOL] < ch[h, C_NEED]:
            break
        g[G_QHEAD] = (g[G_QHEAD] + 1) % n
        g[G_QLEN] -= 1
        _ctrl_grant(h, t, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to)


@njit(cache=True, _nrt=False, inline="always")
def _attempt(c, t, ch, tm, pk, g, prm, pkt_tgt, chan_free, cq, sky, lg, wait_ns, wait_cnt,
             op_start, tb, to):  # fmt: skip
    """A waiting chip tries to start its next atomic operation under the scheme."""
    sch = prm[R_SCHEME]
    a = ch[c, C_ATOM]
    if sch == NPM:
        _start_atomic(c, t, 0, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to)
        _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to)
    elif sch == PPM:
        ppz = _t(tb, to, A_PPZ, a)
        if ppz == 0 or t >= g[G_PPZ]:
            if ppz > 0:
                g[G_PPZ] = t + ppz
            _start_atomic(
                c, t, 0, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to
            )
            _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to)
        else:
            tm[c] = g[G_PPZ]
    elif sch == DCC:
        chan = _t(tb, to, A_CHAN, a)
        if ch[c, C_DCCOP] != 2 * ch[c, C_OP] + chan and chan != 0 and prm[R_ARB] != 0:
            # an arbitrated channel: the controller decides the data-out once it grants the
            # channel to this chip (``_arbitrate``)
            _request(c, to[TMPL_LEN + 1] - to[TMPL_LEN], t, ch, tm, g, prm, chan_free, tb, to)
            return
        if ch[c, C_DCCOP] != 2 * ch[c, C_OP] + chan:
            # DCC decides once per operation (and once more for a channel atomic operation,
            # which is also scheduled on the channel); its controller takes R_DCC_LAT per
            # decision, one decision at a time, so the decision times never decrease
            td = max(t, g[G_DCC_FREE]) + prm[R_DCC_LAT]
            g[G_DCC_FREE] = td
            k = ch[c, C_CHAN]
            if chan != 0:
                s = _dcc_schedule(td, max(td, chan_free[k]), to[TMPL_LEN + 1] - to[TMPL_LEN],
                                  g, prm, tb, to, sky)  # fmt: skip
                chan_free[k] = s + _t(tb, to, A_DUR, a)
            else:
                s = _dcc_schedule(td, td, ch[c, C_TYPE], g, prm, tb, to, sky)
            ch[c, C_DCCS] = s
            ch[c, C_DCCOP] = 2 * ch[c, C_OP] + chan
        if ch[c, C_DCCS] <= t:
            _start_atomic(
                c, t, 0, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to
            )
            _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to)  # the rest follows without a stop
        else:
            tm[c] = ch[c, C_DCCS]
    elif sch == CTRL:
        if g[G_QLEN] == 0 and g[G_POOL] >= ch[c, C_NEED]:
            _ctrl_grant(c, t, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to)
        else:
            n = len(cq)
            cq[(g[G_QHEAD] + g[G_QLEN]) % n] = c
            g[G_QLEN] += 1
    else:
        need = ch[c, C_NEED]
        # a chip of a ring waits exactly when its last attempt failed (it begins waiting only
        # right before one): the ring's mask of waiting chips is kept here
        pos = _ring_mod(c, prm)
        bit = np.int64(1) << pos
        if ch[c, C_HT] >= need and (sch != MTPM or ch[c, C_KEY] == 1):
            pk[c - pos, P_WAIT] &= ~bit
            ch[c, C_HT] -= need
            ch[c, C_UT] = need
            tok = ch[c, C_HT]
            key = ch[c, C_KEY]
            ch[c, C_HT] = 0
            ch[c, C_KEY] = 0
            _start_atomic(
                c,
                t,
                prm[R_COMP],
                ch,
                tm,
                g,
                prm,
                chan_free,
                lg,
                wait_ns,
                wait_cnt,
                op_start,
                tb,
                to,
            )
            _forward(c, t, tok, key, ch, tm, pk, prm, pkt_tgt)
            if sch == KMTPM_SA:  # elsewhere 0.1-0.6 such arrivals per operation: left as events
                _pass_on(c, ch, tm, pk, prm, pkt_tgt)
            _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to)
        else:
            pk[c - pos, P_WAIT] |= bit
            if ch[c, C_KEY] == 0 and sch != NOKEY and ch[c, C_HT] > 0:
                tok = ch[c, C_HT]
                ch[c, C_HT] = 0
                _forward(c, t, tok, 0, ch, tm, pk, prm, pkt_tgt)
            _announce(c, t, ch, tm, pk, prm, pkt_tgt)


@njit(cache=True, _nrt=False, inline="always")
def _dispatch(c, t, ch, tm, g, prm, op_type, op_arr, chip_q, chan_free, xfer, tb, to):
    """Idle chip: move its next arrived operation onto the channel (FIFO), or ask for the
    channel (arbitrated), if it has one."""
    q = ch[c, C_QPTR]
    if q >= ch[c, C_QEND] or op_arr[chip_q[q]] > t:
        ch[c, C_STATE] = READY
        tm[c] = INF
        ch[c, C_OP] = -1
        return
    op = chip_q[q]
    ch[c, C_QPTR] = q + 1
    ch[c, C_OP] = op
    ch[c, C_TYPE] = op_type[op]
    ch[c, C_STEP] = 0
    ch[c, C_STATE] = XFER
    if prm[R_ARB] == 0:
        k = ch[c, C_CHAN]
        xs = max(t, chan_free[k])
        chan_free[k] = xs + xfer[op_type[op]]
        tm[c] = xs + xfer[op_type[op]]
    else:
        tm[c] = INF  # until the channel's arbitration grants the transfer
        _request(c, op_type[op], t, ch, tm, g, prm, chan_free, tb, to)


@njit(cache=True, _nrt=False, inline="always")
def _run_without_decisions(c, ch, tm, g, prm, chan_free, lg, op_issue, op_start, wait_ns, wait_cnt,
                           tb, to):  # fmt: skip
    """An operation just put on the channel none of whose atomic operations needs a decision
    (NPM; a read or erase under PPM) runs from the end of its transfer with no further event:
    issue, start and the whole chain are known now (once the transfer is booked or granted)."""
    if ch[c, C_STATE] != XFER or tm[c] == INF:
        return
    sch = prm[R_SCHEME]
    if sch == PPM:
        ty = ch[c, C_TYPE]
        o = _t(tb, to, TMPL_OFF, ty)
        for i in range(_t(tb, to, TMPL_LEN, ty)):
            if _t(tb, to, A_PPZ, _t(tb, to, TMPL_ATOM, o + i)) > 0:
                return
    elif sch != NPM:
        return
    t = tm[c]
    op_issue[ch[c, C_OP]] = t
    _begin_wait(c, t, ch, tm, tb, to)
    _start_atomic(c, t, 0, ch, tm, g, prm, chan_free, lg, wait_ns, wait_cnt, op_start, tb, to)
    _chain(c, ch, tm, g, prm, lg, wait_cnt, tb, to)


@njit(cache=True, _nrt=False, inline="always")
def _arbitrate(k, t, ch, tm, g, prm, chan_free, sky, lg, op_issue, op_start, wait_ns, wait_cnt,
               xfer, tb, to):  # fmt: skip
    """Channel ``k`` is free at ``t`` (arbitrated channel): grant it to the waiting request of
    the lowest rank, the oldest within a rank (then the first made), and schedule the next
    arbitration (when this transfer ends, or when the next request will be ready). A command
    transfer ends the chip's transfer state as a FIFO booking would; a channel atomic
    operation starts now, except under DCC, whose controller decides it now that the channel is
    the chip's (the channel held until the data-out ends)."""
    n = prm[R_N]
    i_ev = 2 * n + k
    tm[i_ev] = INF
    if chan_free[k] > t:  # a controller message took the channel meanwhile (CTRL)
        tm[i_ev] = chan_free[k]
        return
    ways = prm[R_WAYS]
    best = -1
    b_rank = 0
    b_rdy = 0
    b_seq = 0
    later = INF  # the earliest request not ready yet
    ready = 0
    for c in range(k * ways, (k + 1) * ways):
        rank = ch[c, C_RQ]
        if rank < 0:
            continue
        r = ch[c, C_RQT]
        if r > t:
            later = min(later, r)
            continue
        ready += 1
        seq = ch[c, C_RQS]
        if (
            best < 0
            or rank < b_rank
            or (rank == b_rank and (r < b_rdy or (r == b_rdy and seq < b_seq)))
        ):
            best, b_rank, b_rdy, b_seq = c, rank, r, seq
    if best < 0:
        tm[i_ev] = later
        return
    c = best
    ch[c, C_RQ] = -1
    if ch[c, C_STATE] == XFER:
        d = xfer[ch[c, C_TYPE]]
        chan_free[k] = t + d
        tm[c] = t + d
        _run_without_decisions(c, ch, tm, g, prm, chan_free, lg, op_issue, op_start, wait_ns,
                               wait_cnt, tb, to)  # fmt: skip
    else:
        a = ch[c, C_ATOM]
        if prm[R_SCHEME] == DCC:
            td = max(t, g[G_DCC_FREE]) + prm[R_DCC_LAT]
            g[G_DCC_FREE] = td
            s = _dcc_schedule(td, td, to[TMPL_LEN + 1] - to[TMPL_LEN], g, prm, tb, to, sky)
            chan_free[k] = s + _t(tb, to, A_DUR, a)
            ch[c, C_DCCS] = s
            ch[c, C_DCCOP] = 2 * ch[c, C_OP] + 1
            tm[c] = s  # the waiting chip starts it then (``_attempt``)
        else:
            chan_free[k] = t + _t(tb, to, A_DUR, a)
            _begin_atomic(c, a, t, ch, tm, g, prm, lg, op_start, tb, to)
    tm[i_ev] = chan_free[k] if ready > 1 else max(chan_free[k], later)


@njit(cache=True, _nrt=False)
def _check_tokens(ch, pk, g, prm):
    sch = prm[R_SCHEME]
    n = prm[R_N]
    m = prm[R_M]
    if sch == CTRL:
        tot = g[G_POOL]
        for c in range(n):
            tot += ch[c, C_UT]
        if tot != prm[R_TT]:
            g[G_CONS_ERR] += 1
        return
    for r in range(n // m):
        tot = 0
        keys = 0
        for c in range(r * m, (r + 1) * m):
            tot += ch[c, C_HT] + ch[c, C_UT]
            keys += ch[c, C_KEY]
            if pk[c, P_ALIVE] == 1:
                tot += pk[c, P_TOK]
                keys += pk[c, P_KEY]
        if tot != prm[R_TT] or (sch != NOKEY and keys != 1):
            g[G_CONS_ERR] += 1


@njit(cache=True, _nrt=False)
def _event_loop(op_chip, op_type, op_arr, chip_q, xfer, tb, to, prm, op_issue, op_start, op_done,
                wait_ns, wait_cnt, lg, ch, tm, pk, pkt_tgt, g, chan_free, cq, sky):  # fmt: skip
    """The events of ``simulate`` in time order. Compiled without reference counting
    (``_nrt=False``: it allocates nothing): with it, the arrays handed to every inlined
    helper were counted in and out by atomic instructions, about a third of the run time."""
    n = prm[R_N]
    sch = prm[R_SCHEME]
    n_ops = len(op_arr)
    is_ring = sch == MTPM or sch == KMTPM_A or sch == KMTPM_SA or sch == NOKEY
    m = prm[R_M]
    arb = prm[R_ARB] != 0
    n_chan = n // prm[R_WAYS]
    nxt = 0
    while True:
        # the earliest chip, channel or packet event, the first in that order among equals (and
        # in index order within each); arrivals go first at equal times
        idx = 0
        te = tm[0]
        for i in range(1, n):
            x = tm[i]
            idx = i if x < te else idx
            te = x if x < te else te
        if arb:  # channel arbitrations: after the chips' events of their time
            for i in range(2 * n, 2 * n + n_chan):
                if tm[i] < te:
                    te = tm[i]
                    idx = i
        if is_ring:  # the live packets only (a dead one's time is INF)
            for base in range(0, n, m):
                alive = pk[base, P_RING]
                while alive != 0:
                    i = n + base + _lowest_bit(alive)
                    alive &= alive - 1
                    if tm[i] < te:
                        te = tm[i]
                        idx = i
        t = op_arr[nxt] if nxt < n_ops else INF
        if t <= te:
            if t == INF:
                break
            kind = 0
        else:
            t = te
            kind = 1 if idx < n else (2 if idx < 2 * n else 3)
        g[G_EVENTS] += 1
        att = -1  # the chip that tries to start its next atomic operation after this event
        if kind == 0:
            # every arrival at this time, in index order (they all precede the chip events at
            # the same time, and an arrival only touches its chip)
            while nxt < n_ops and op_arr[nxt] == t:
                c = op_chip[nxt]
                nxt += 1
                if ch[c, C_STATE] == READY:
                    _dispatch(c, t, ch, tm, g, prm, op_type, op_arr, chip_q, chan_free, xfer, tb,
                              to)  # fmt: skip
                    _run_without_decisions(c, ch, tm, g, prm, chan_free, lg, op_issue, op_start,
                                           wait_ns, wait_cnt, tb, to)  # fmt: skip
        elif kind == 1:
            c = idx
            st = ch[c, C_STATE]
            tm[c] = INF
            if st == XFER:
                op_issue[ch[c, C_OP]] = t
                _begin_wait(c, t, ch, tm, tb, to)
                att = c
            elif st == WAIT:
                att = c
            else:  # OPER: end of a sub-atomic or atomic operation
                a = ch[c, C_ATOM]
                i = ch[c, C_SA]
                if (sch == KMTPM_SA or sch == CTRL) and i + 1 < _t(tb, to, A_SA_LEN, a):
                    s0 = _t(tb, to, A_SA_OFF, a) + i
                    surplus = _t(tb, to, SA_RT, s0) - _t(tb, to, SA_RT, s0 + 1)
                    ch[c, C_SA] = i + 1
                    tm[c] = t + _t(tb, to, SA_DUR, s0 + 1)
                    ch[c, C_UT] -= surplus
                    if sch == CTRL:
                        if surplus > 0:
                            _ctrl_release(c, t, surplus, ch, tm, g, prm, chan_free, cq, lg,
                                          wait_ns, wait_cnt, op_start, tb, to)  # fmt: skip
                    else:
                        _forward(c, t, surplus, 0, ch, tm, pk, prm, pkt_tgt)
                else:
                    ut = ch[c, C_UT]
                    ch[c, C_UT] = 0
                    ch[c, C_STEP] += 1
                    if sch == CTRL:
                        _ctrl_release(c, t, ut, ch, tm, g, prm, chan_free, cq, lg, wait_ns,
                                      wait_cnt, op_start, tb, to)  # fmt: skip
                    else:
                        ch[c, C_HT] += ut
                    if ch[c, C_STEP] < _t(tb, to, TMPL_LEN, ch[c, C_TYPE]):
                        _begin_wait(c, t, ch, tm, tb, to)
                        att = c
                    else:
                        op_done[ch[c, C_OP]] = t
                        g[G_DONE] += 1
                        if is_ring:
                            tok = ch[c, C_HT]
                            key = ch[c, C_KEY]
                            ch[c, C_HT] = 0
                            ch[c, C_KEY] = 0
                            _forward(c, t, tok, key, ch, tm, pk, prm, pkt_tgt)
                        _dispatch(c, t, ch, tm, g, prm, op_type, op_arr, chip_q, chan_free, xfer,
                                  tb, to)  # fmt: skip
                        _run_without_decisions(c, ch, tm, g, prm, chan_free, lg, op_issue,
                                               op_start, wait_ns, wait_cnt, tb, to)  # fmt: skip
        elif kind == 3:
            _arbitrate(idx - 2 * n, t, ch, tm, g, prm, chan_free, sky, lg, op_issue, op_start,
                       wait_ns, wait_cnt, xfer, tb, to)  # fmt: skip
        else:
            p = idx - n
            c = pkt_tgt[p]
            s = pk[p, P_SLOT]
            pk[p, P_LAST] = s
            g[G_HOPS] += 1
            if _absorbs(c, p, ch, pk, prm):
                ch[c, C_HT] += pk[p, P_TOK]
                if pk[p, P_KEY] == 1:
                    ch[c, C_KEY] = 1
                pk[p, P_ALIVE] = 0
                phi = _ring_mod(p, prm)
                pk[p - phi, P_RING] &= ~(np.int64(1) << phi)
                pk[p, P_TOK] = 0
                pk[p, P_KEY] = 0
                tm[n + p] = INF
                pkt_tgt[p] = -1
                att = c
            else:
                _retarget(p, s, False, ch, tm, pk, prm, pkt_tgt)
        if att >= 0:  # one call site: the scheme's decision is inlined once
            _attempt(att, t, ch, tm, pk, g, prm, pkt_tgt, chan_free, cq, sky, lg, wait_ns,
                     wait_cnt, op_start, tb, to)  # fmt: skip
        if prm[R_CHECK] != 0 and sch != NPM and sch != PPM and sch != DCC:
            _check_tokens(ch, pk, g, prm)
        if is_ring and prm[R_CHECK] != 0:
            alive = 0
            for p in range(n):
                alive += pk[p, P_ALIVE]
            if alive > g[G_MAXPKT]:
                g[G_MAXPKT] = alive


@njit(cache=True)
def simulate(op_chip, op_type, op_arr, chip_q, chip_q_off, xfer, tb, to, prm,
             op_issue, op_start, op_done, wait_ns, wait_cnt, lg, log_off, log_end,
             stats):  # fmt: skip
    """Run the whole operation stream. ``op_*`` sorted by arrival; ``chip_q`` holds op
    indices grouped by chip (CSR offsets ``chip_q_off``), each group in arrival order.
    Fills ``op_issue`` (transfer to the chip done), ``op_start`` (first atomic operation
    starts), ``op_done`` (ns, -1 if never), ``wait_*`` per atomic id, the atomic starts
    (``lg[:, 0]`` time, ``lg[:, 1]`` change-point id: atomic, operation or loop; chip ``c``
    writes ``log_off[c]`` up to ``log_end[c]``) and ``stats`` (``STAT_NAMES``; those of the
    current are filled by ``account_current``)."""
    n = prm[R_N]
    m = prm[R_M]
    sch = prm[R_SCHEME]
    is_ring = sch == MTPM or sch == KMTPM_A or sch == KMTPM_SA or sch == NOKEY
    ch = np.zeros((n, N_CFIELDS), dtype=np.int64)
    pk = np.zeros((n, N_PFIELDS), dtype=np.int64)
    # next event time of every chip, then of every packet, then of every channel's arbitration
    # (the event loop scans the chips, the live packets and, arbitrated, the channels)
    n_chan = n // prm[R_WAYS]
    tm = np.full(2 * n + n_chan, INF, dtype=np.int64)
    pkt_tgt = np.full(n, -1, dtype=np.int64)
    g = np.zeros(N_GLOBALS, dtype=np.int64)
    chan_free = np.zeros(n_chan, dtype=np.int64)
    cq = np.zeros(n, dtype=np.int64)
    # DCC skyline (see _dcc_schedule): at most one live envelope per chip
    max_env = 0
    for i in range(to[ENV_LEN], to[ENV_LEN + 1]):
        max_env = max(max_env, tb[i])
    sky = np.zeros((8, n * (max_env + 1) + 2), dtype=np.int64)
    for c in range(n):
        ch[c, C_STATE] = READY
        ch[c, C_OP] = -1
        ch[c, C_QPTR] = chip_q_off[c]
        ch[c, C_QEND] = chip_q_off[c + 1]
        ch[c, C_DCCOP] = -1
        ch[c, C_CHAN] = c // prm[R_WAYS]
        ch[c, C_LOG] = log_off[c]
        ch[c, C_RQ] = -1
    for p in range(n):
        pk[p, P_LAST] = -1
    if is_ring:
        # all tokens and the key start at the first chip of each ring, leaving at slot 0
        for r in range(n // m):
            _forward(r * m, 0, prm[R_TT], 1 if sch != NOKEY else 0, ch, tm, pk, prm, pkt_tgt)
    if sch == CTRL:
        g[G_POOL] = prm[R_TT]
    _event_loop(op_chip, op_type, op_arr, chip_q, xfer, tb, to, prm, op_issue, op_start, op_done,
                wait_ns, wait_cnt, lg, ch, tm, pk, pkt_tgt, g, chan_free, cq, sky)  # fmt: skip
    for c in range(n):
        log_end[c] = ch[c, C_LOG]
    for i in range(N_GLOBALS):
        stats[i] = g[i]


@njit(cache=True, _nrt=False, inline="always")
def _stretch(k0, k1, cur, pb, rbin, series):
    """Samples ``k0 .. k1 - 1`` all carry the current ``cur``: raise the recorded bins'
    maxima; returns how many of the samples are above the budget."""
    if rbin > 0 and cur > 0 and k1 > k0:
        for bi in range(k0 // rbin, min((k1 - 1) // rbin + 1, len(series))):
            if cur > series[bi]:
                series[bi] = cur
    return k1 - k0 if cur > pb else 0


CP_BITS = 32  # a prepared log entry packs its first and end change point in one word


@njit(cache=True, _nrt=False)
def _prepare_log(lg, i0, i1, tb, to):
    """Rewrite one chip's log entries ``i0 .. i1 - 1`` in place as the fill reads them: first
    sample (ceil(start / 40 ns)), first change point | end change point << CP_BITS; entries
    whose current never changes are dropped. Returns the new end. The entries are
    independent, so this loop pipelines; the fill's switch to the next entry (30 per
    operation under the ring schemes, one per atomic operation) is then two loads instead of
    a chain of look-ups."""
    cp_off = to[A_CP_OFF]
    cp_len = to[A_CP_LEN]
    w = i0
    for i in range(i0, i1):
        a = lg[_u(i), 1]
        j = tb[_u(cp_off + a)]
        n_cp = tb[_u(cp_len + a)]
        lg[_u(w), 0] = _ceil_div(lg[_u(i), 0], S_NS)
        lg[_u(w), 1] = j | ((j + n_cp) << CP_BITS)
        if n_cp > 0:
            w += 1
    return w


@njit(cache=True, _nrt=False, inline="always")
def _entry(i, i_end, lg):
    """Prepared log entry ``i``: (first sample, first and end change point); first sample
    INF past the end."""
    if i >= i_end:
        return INF, 0, 0
    v = lg[_u(i), 1]
    return lg[_u(i), 0], v & ((np.int64(1) << CP_BITS) - 1), v >> CP_BITS


@njit(cache=True)
def account_current(lg, log_off, log_end, tb, to, pb, rbin, series, stats):
    """The 40 ns current summed over chips, from the logs of atomic starts ``simulate``
    wrote: peak, samples above ``pb``, and (``rbin`` > 0) the maximum of every bin of
    ``rbin`` samples in ``series``. An atomic operation starting at ``ts`` covers the samples
    from ceil(ts / 40 ns) on. Each chip's log is in time order, so its change points come
    sorted; blocks of ``block`` samples are filled from every chip's stream in turn (a tight
    loop over local variables) into a small difference array with one bit per changing
    sample, then swept, a stretch of constant current in one step. Rewrites ``lg``
    (``_prepare_log``)."""
    n = len(log_end)
    block = 8192
    diff = np.zeros(block, np.int64)
    bits = np.zeros(block // 64, np.int64)
    # per chip: log entry, first sample of the atomic, change point and its end, next change
    li = np.empty(n, np.int64)
    le = np.empty(n, np.int64)
    kb = np.empty(n, np.int64)
    j = np.empty(n, np.int64)
    je = np.empty(n, np.int64)
    nk = np.empty(n, np.int64)
    cpk = to[CP_K]
    cpd = to[CP_D]
    k_lo = INF
    for c in range(n):
        li[c] = log_off[c]
        le[c] = _prepare_log(lg, log_off[c], log_end[c], tb, to)
        kb[c], j[c], je[c] = _entry(li[c], le[c], lg)
        nk[c] = kb[c] + tb[cpk + j[c]] if kb[c] < INF else INF
        k_lo = min(k_lo, nk[c])
    viol = 0
    cur = 0
    peak = 0
    pos = 0  # samples before ``pos`` are accounted
    while k_lo < INF:
        viol += _stretch(pos, k_lo, cur, pb, rbin, series)
        pos = k_lo
        k_hi = k_lo + block
        k_next = INF
        for c in range(n):
            nkc = nk[c]
            if nkc >= k_hi:
                k_next = min(k_next, nkc)
                continue
            i, i_end, kbc, jc, jend = li[c], le[c], kb[c], j[c], je[c]
            while nkc < k_hi:
                x = nkc - k_lo
                diff[_u(x)] += tb[_u(cpd + jc)]
                bits[_u(x >> 6)] |= np.int64(1) << (x & 63)
                jc += 1
                if jc == jend:
                    i += 1
                    kbc, jc, jend = _entry(i, i_end, lg)
                    if kbc == INF:
                        nkc = INF
                        break
                nkc = kbc + tb[_u(cpk + jc)]
            li[c], kb[c], j[c], je[c], nk[c] = i, kbc, jc, jend, nkc
            k_next = min(k_next, nkc)
        for w in range(block // 64):
            b = bits[w]
            if b == 0:
                continue
            bits[w] = 0
            while b != 0:
                x = (w << 6) + _lowest_bit(b)
                b &= b - 1
                kk = k_lo + x
                viol += _stretch(pos, kk, cur, pb, rbin, series)
                cur += diff[_u(x)]
                diff[_u(x)] = 0
                if cur > peak:
                    peak = cur
                pos = kk
        k_lo = k_next
    stats[G_FLUSHED] = pos + 1
    stats[G_MAXK1] = pos
    stats[G_CUR] = cur
    stats[G_PEAK] = peak
    stats[G_VIOL] = viol
