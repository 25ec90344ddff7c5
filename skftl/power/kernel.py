"""Event-driven simulation of NAND chips under a power-management scheme (one Numba kernel).

Semantics (the pure-Python reference in tests/ implements the same, naively):

* Each chip executes its operations in arrival order. An operation first occupies its
  channel (command / data transfer, FIFO per channel, only while the chip is idle), then
  runs its atomic operations back to back; before each atomic operation the scheme may
  make it wait (key / tokens / pre-charge lock / DCC start time).
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
  sub-atomic boundary. MTPM returns everything after each atomic operation.
* NPM starts at once; PPM lets one chip at a time be in the pre-charge zone (first
  sub-atomic operation of program execution); DCC (controller) delays each operation's
  start until its modelled current (peak of every atomic or sub-atomic operation, held
  over it: the DCC envelope) fits
  under the budget together with all operations already scheduled; CTRL is a central token
  pool in the controller (sub-atomic tokens), each grant and return costing a message on the
  chip's channel (multi-channel arrangement 3 of Sec. IV-F2).
* Current: each atomic operation's 40 ns profile, as runs, is added to a difference array
  over a sliding window of 40 ns samples; samples are summed once they can no longer
  change. A violation is a sample above the budget.

Chip states follow Figs. 4, 5 and 9: READY (nothing to do), XFER (operation on the channel),
WAIT (waiting state: needs key / tokens / lock / start time), OPER (operating). The operable
state is the ``comp_ns`` decision between WAIT and OPER: tokens are taken at the decision and
the atomic operation starts ``comp_ns`` later.

Simultaneous events are handled in the order: op arrivals (by index), chip events (by chip),
packet arrivals (by packet index = ring * M + phase).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from skftl.power.profiles import SAMPLE_NS

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

# chip fields
C_STATE, C_TIMER, C_OP, C_TYPE, C_STEP, C_SA, C_HT, C_UT, C_KEY = 0, 1, 2, 3, 4, 5, 6, 7, 8
C_WAITSINCE, C_NEED, C_QPTR, C_QEND, C_DCCS, C_DCCOP, C_ATOM, C_CHAN = 9, 10, 11, 12, 13, 14, 15, 16
N_CFIELDS = 17
# packet fields
P_ALIVE, P_TOK, P_KEY, P_TIME, P_LAST = 0, 1, 2, 3, 4
N_PFIELDS = 5
# globals
G_FLUSHED, G_MAXK1, G_CUR, G_PEAK, G_VIOL, G_PPZ, G_POOL, G_EVENTS = 0, 1, 2, 3, 4, 5, 6, 7
G_CONS_ERR, G_OVERFLOW, G_DONE, G_HOPS, G_QHEAD, G_QLEN, G_STARTS, G_MAXPKT = (
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
)
G_DCC_N, G_DCC_BASE = 16, 17  # DCC skyline: boundaries kept, level before the first of them
N_GLOBALS = 18
# parameters
R_SCHEME, R_N, R_M, R_TT, R_PB, R_HOP, R_COMP, R_S, R_WAYS, R_MSG, R_WMASK, R_BIN, R_CHECK = range(
    13
)
N_PARAMS = 13
# tables, packed into one flat int64 array ``tb`` with start offsets ``to`` (one argument
# instead of sixteen keeps calls between the kernel's functions cheap)
(TMPL_OFF, TMPL_LEN, TMPL_ATOM, TMPL_CUM, A_DUR, A_PEAK, A_SA_OFF, A_SA_LEN, A_PPZ, SA_DUR,
 SA_RT, A_RUN_OFF, A_RUN_LEN, RUN_OFF, RUN_DUR, RUN_LVL, ENV_OFF, ENV_LEN, ENV_CUM,
 ENV_LVL) = range(20)  # fmt: skip
N_TABLES = 20
STAT_NAMES = (
    "flushed_samples", "last_sample", "final_current", "peak_current", "violation_samples",
    "ppm_until", "pool", "events", "conservation_errors", "window_overflow",
    "completed_ops", "packet_arrivals", "ctrl_queue_head", "ctrl_queue_len", "atomic_starts",
    "max_packets", "dcc_boundaries", "dcc_base_level",
)  # fmt: skip


@njit(cache=True, inline="always")
def _ceil_div(a, b):
    return -((-a) // b)


@njit(cache=True, inline="always")
def _t(tb, to, table, i):
    return tb[to[table] + i]


def _debruijn_table() -> np.ndarray:
    table = np.zeros(64, np.int64)
    for i in range(64):
        table[(((1 << i) * _DEBRUIJN) % (1 << 64)) >> 58] = i
    return table


_DEBRUIJN = 0x03F79D71B4CB0A89
_BIT_INDEX = _debruijn_table()


@njit(cache=True, inline="always")
def _lowest_bit(x):
    """Index of the lowest set bit of a non-zero int64 (de Bruijn multiplication)."""
    return _BIT_INDEX[(((x & -x) * _DEBRUIJN) >> 58) & 63]


@njit(cache=True, _nrt=False, inline="always")
def _flush(t, g, prm, diff, series):
    """Sum all 40 ns samples that start before ``t`` (they cannot change any more).

    ``diff`` holds the window's difference array followed by one 64-bit mask per block of 64
    samples marking the samples where the current changes; the sum is constant between marks,
    so a stretch is accounted in one step (per-sample only while recording a series)."""
    s = S_NS
    kmax = _ceil_div(t, s)
    k = g[G_FLUSHED]
    stop = min(kmax, g[G_MAXK1] + 1)  # beyond the last run end every sample is zero
    mask = prm[R_WMASK]
    w = mask + 1
    cur = g[G_CUR]
    peak = g[G_PEAK]
    viol = g[G_VIOL]
    pb = prm[R_PB]
    rbin = prm[R_BIN]
    nrec = len(series)
    while k < stop:
        j = k & mask
        b = w + (j >> 6)
        blk_end = min(stop, (k | 63) + 1)
        bits = diff[b]
        if (j & 63) > 0:
            bits &= ~((np.int64(1) << (j & 63)) - 1)  # changes before k are already done
        pos = k
        while True:
            if bits == 0:
                kk = blk_end
            else:
                kk = (k & ~np.int64(63)) + _lowest_bit(bits)
                if kk >= blk_end:
                    kk = blk_end
            # samples pos .. kk-1 all carry the current ``cur``
            if cur > pb:
                viol += kk - pos
            if rbin > 0:
                for q in range(pos, kk):
                    bi = q // rbin
                    if bi < nrec and cur > series[bi]:
                        series[bi] = cur
            if kk == blk_end:
                break
            jj = kk & mask
            cur += diff[jj]
            diff[jj] = 0
            low = bits & -bits
            bits ^= low
            diff[b] &= ~low
            if cur > peak:
                peak = cur
            pos = kk
        k = blk_end
    if kmax > k:
        k = kmax
    g[G_FLUSHED] = k
    g[G_CUR] = cur
    g[G_PEAK] = peak
    g[G_VIOL] = viol


@njit(cache=True, _nrt=False, inline="always")
def _add_current(a, ts, g, prm, diff, tb, to):
    s = S_NS
    mask = prm[R_WMASK]
    r0 = _t(tb, to, A_RUN_OFF, a)
    for r in range(r0, r0 + _t(tb, to, A_RUN_LEN, a)):
        t0 = ts + _t(tb, to, RUN_OFF, r)
        k0 = _ceil_div(t0, s)
        k1 = _ceil_div(t0 + _t(tb, to, RUN_DUR, r), s)
        if k1 > k0:
            if k1 - g[G_FLUSHED] > mask:
                g[G_OVERFLOW] += 1
            lvl = _t(tb, to, RUN_LVL, r)
            diff[k0 & mask] += lvl
            diff[k1 & mask] -= lvl
            j0 = k0 & mask
            j1 = k1 & mask
            diff[mask + 1 + (j0 >> 6)] |= np.int64(1) << (j0 & 63)
            diff[mask + 1 + (j1 >> 6)] |= np.int64(1) << (j1 & 63)
            if k1 > g[G_MAXK1]:
                g[G_MAXK1] = k1


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


@njit(cache=True, _nrt=False, inline="always")
def _retarget(p, s_from, include_current, ch, pk, prm, pkt_tgt):
    """Point packet ``p`` (at its position of slot ``s_from``) at the first chip on its way
    that would absorb it; no event if none would."""
    m = prm[R_M]
    phi = p % m
    base = p - phi
    k0 = 0 if include_current else 1
    pos = (phi + s_from + k0) % m  # ring position after k0 hops; advanced without divisions
    for k in range(k0, m + 1):
        c = base + pos
        if _absorbs(c, p, ch, pk, prm):
            pk[p, P_TIME] = (s_from + k) * prm[R_HOP]
            pkt_tgt[p] = c
            return
        pos += 1
        if pos == m:
            pos = 0
    pk[p, P_TIME] = INF
    pkt_tgt[p] = -1


@njit(cache=True, _nrt=False, inline="always")
def _announce(c, t, ch, pk, prm, pkt_tgt):
    """Chip ``c`` may now absorb packets: let every packet that reaches it before its current
    target stop there instead."""
    m = prm[R_M]
    hop = prm[R_HOP]
    pos = c % m
    base = c - pos
    s_min = _ceil_div(t, hop)
    r0 = (pos - s_min) % m  # (pos - phi - s_min) mod m for phi = 0, then one less per phi
    for phi in range(m):
        p = base + phi
        if pk[p, P_ALIVE] == 0:
            continue
        r = r0 - phi
        if r < 0:
            r += m
        s = s_min + r
        if s <= pk[p, P_LAST]:
            s += m
        if s * hop < pk[p, P_TIME] and _absorbs(c, p, ch, pk, prm):
            pk[p, P_TIME] = s * hop
            pkt_tgt[p] = c


@njit(cache=True, _nrt=False, inline="always")
def _forward(c, t, tok, key, ch, pk, prm, pkt_tgt, g):
    if tok == 0 and key == 0:
        return
    m = prm[R_M]
    s = _ceil_div(t, prm[R_HOP])
    p = (c // m) * m + (c % m - s) % m
    if pk[p, P_ALIVE] == 1:
        pk[p, P_TOK] += tok
        pk[p, P_KEY] |= key
        include = pk[p, P_LAST] < s
    else:
        pk[p, P_ALIVE] = 1
        pk[p, P_TOK] = tok
        pk[p, P_KEY] = key
        pk[p, P_LAST] = s
        include = False
    _retarget(p, s, include, ch, pk, prm, pkt_tgt)


@njit(cache=True, _nrt=False, inline="always")
def _start_atomic(c, t_dec, comp, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to):
    a = ch[c, C_ATOM]
    ts = t_dec + comp
    wait_ns[a] += t_dec - ch[c, C_WAITSINCE]
    wait_cnt[a] += 1
    ch[c, C_STATE] = OPER
    ch[c, C_SA] = 0
    if ch[c, C_STEP] == 0:
        op_start[ch[c, C_OP]] = ts
    _add_current(a, ts, g, prm, diff, tb, to)
    g[G_STARTS] += 1
    sch = prm[R_SCHEME]
    if sch == KMTPM_SA or sch == CTRL:
        ch[c, C_TIMER] = ts + _t(tb, to, SA_DUR, _t(tb, to, A_SA_OFF, a))
    else:
        ch[c, C_TIMER] = ts + _t(tb, to, A_DUR, a)


@njit(cache=True, _nrt=False, inline="always")
def _begin_wait(c, t, ch, tb, to):
    a = _t(tb, to, TMPL_ATOM, _t(tb, to, TMPL_OFF, ch[c, C_TYPE]) + ch[c, C_STEP])
    ch[c, C_ATOM] = a
    ch[c, C_STATE] = WAIT
    ch[c, C_TIMER] = INF
    ch[c, C_WAITSINCE] = t
    ch[c, C_NEED] = _t(tb, to, SA_RT, _t(tb, to, A_SA_OFF, a))


@njit(cache=True, _nrt=False, inline="always")
def _merge_env(sky, ra, n_a, rb, start, ty, t_min, tb, to):
    """Merge the DCC envelope of operation type ``ty`` starting at ``start`` (its boundaries
    after ``t_min``) into the sorted boundary list in rows ``ra`` (times), ``ra + 1`` (level
    changes) of ``sky``, ``n_a`` long, writing rows ``rb``, ``rb + 1``; equal times merge.
    Returns (length, the envelope's level at ``t_min``)."""
    o0 = tb[to[ENV_OFF] + ty]
    n_env = tb[to[ENV_LEN] + ty]
    c0 = to[ENV_CUM] + o0
    l0 = to[ENV_LVL] + o0
    ib = 0
    at = 0
    while ib <= n_env and start + tb[c0 + ib] <= t_min:  # boundaries already passed
        at = tb[l0 + ib] if ib < n_env else 0
        ib += 1
    out = 0
    ia = 0
    while ia < n_a or ib <= n_env:
        if ib > n_env or (ia < n_a and sky[ra, ia] <= start + tb[c0 + ib]):
            x = sky[ra, ia]
            d = sky[ra + 1, ia]
            ia += 1
        else:
            x = start + tb[c0 + ib]
            d = (tb[l0 + ib] if ib < n_env else 0) - (tb[l0 + ib - 1] if ib > 0 else 0)
            ib += 1
        if out > 0 and sky[rb, out - 1] == x:
            sky[rb + 1, out - 1] += d
        else:
            sky[rb, out] = x
            sky[rb + 1, out] = d
            out += 1
    return out, at


@njit(cache=True, _nrt=False)
def _dcc_schedule(c, t, ch, g, prm, tb, to, sky):
    """Earliest start >= t at which this operation's modelled current (its DCC envelope:
    piecewise-constant peaks, ENV_* tables) plus the modelled current of every operation
    already scheduled stays within the budget. A violation on an elementary interval (between
    consecutive envelope boundaries) delays the start by that interval's length. The new
    operation's envelope then joins the skyline.

    The skyline of scheduled envelopes is kept across calls, sorted: boundary times
    ``sky[0, :G_DCC_N]``, level change at each in ``sky[1]``; boundaries at or before ``t``
    (calls come in time order) are folded into the level ``G_DCC_BASE``. A chip schedules its
    next operation only after the previous one ended, so from ``t`` on the skyline holds the
    other chips' envelopes: exactly those of the operations scheduled and not yet ended (a
    chip whose next operation is still on the channel reserves nothing)."""
    env_off = tb[to[ENV_OFF] : to[ENV_OFF + 1]]
    env_len = tb[to[ENV_LEN] : to[ENV_LEN + 1]]
    env_cum = tb[to[ENV_CUM] : to[ENV_CUM + 1]]
    env_lvl = tb[to[ENV_LVL] : to[ENV_LVL + 1]]
    pb = prm[R_PB]
    # fold passed boundaries into the base level
    n_b = g[G_DCC_N]
    base = g[G_DCC_BASE]
    j = 0
    while j < n_b and sky[0, j] <= t:
        base += sky[1, j]
        j += 1
    m = n_b - j
    for k in range(m):
        sky[0, k] = sky[0, k + j]
        sky[1, k] = sky[1, k + j]
    g[G_DCC_N] = m
    g[G_DCC_BASE] = base
    level = base
    # sky[2, k]: level before boundary k
    for k in range(m):
        sky[2, k] = level
        level += sky[1, k]
    ty = ch[c, C_TYPE]
    o0 = env_off[ty]
    dur = env_cum[o0 + env_len[ty]]
    s = t
    k0 = 0
    while True:
        while k0 < m and sky[0, k0] <= s:
            k0 += 1
        k = k0
        tau = s
        i_new = 0
        ok = True
        while tau < s + dur:
            nb = s + env_cum[o0 + i_new + 1]
            other = 0
            if k < m:
                other = sky[2, k]
                if sky[0, k] < nb:
                    nb = sky[0, k]
            if env_lvl[o0 + i_new] + other > pb:
                s += nb - tau  # delay past the violating interval
                ok = False
                break
            tau = nb
            if tau >= s + env_cum[o0 + i_new + 1]:
                i_new += 1
            if k < m and sky[0, k] <= tau:
                k += 1
        if ok:
            break
    # the new envelope joins the kept skyline
    out, _ = _merge_env(sky, 0, g[G_DCC_N], 3, s, ty, s - 1, tb, to)
    for k in range(out):
        sky[0, k] = sky[3, k]
        sky[1, k] = sky[4, k]
    g[G_DCC_N] = out
    return s


@njit(cache=True, _nrt=False)
def _ctrl_grant(c, t, ch, g, prm, chan_free, diff, wait_ns, wait_cnt, op_start, tb, to):
    """Central pool grants chip ``c`` its tokens; the grant is a message on its channel."""
    g[G_POOL] -= ch[c, C_NEED]
    ch[c, C_UT] = ch[c, C_NEED]
    k = ch[c, C_CHAN]
    ts = max(t, chan_free[k]) + prm[R_MSG]
    chan_free[k] = ts
    _start_atomic(c, ts, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)


@njit(cache=True, _nrt=False)
def _ctrl_release(c, t, tok, ch, g, prm, chan_free, cq, diff, wait_ns, wait_cnt, op_start, tb, to):
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
        _ctrl_grant(h, t, ch, g, prm, chan_free, diff, wait_ns, wait_cnt, op_start, tb, to)


@njit(cache=True, _nrt=False)
def _attempt(c, t, ch, pk, g, prm, pkt_tgt, chan_free, cq, sky, diff, wait_ns, wait_cnt, op_start,
             tb, to):  # fmt: skip
    """A waiting chip tries to start its next atomic operation under the scheme."""
    sch = prm[R_SCHEME]
    a = ch[c, C_ATOM]
    if sch == NPM:
        _start_atomic(c, t, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
    elif sch == PPM:
        ppz = _t(tb, to, A_PPZ, a)
        if ppz == 0:
            _start_atomic(c, t, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
        elif t >= g[G_PPZ]:
            g[G_PPZ] = t + ppz
            _start_atomic(c, t, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
        else:
            ch[c, C_TIMER] = g[G_PPZ]
    elif sch == DCC:
        if ch[c, C_STEP] > 0:
            _start_atomic(c, t, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
            return
        if ch[c, C_DCCOP] != ch[c, C_OP]:
            ch[c, C_DCCS] = _dcc_schedule(c, t, ch, g, prm, tb, to, sky)
            ch[c, C_DCCOP] = ch[c, C_OP]
        if ch[c, C_DCCS] <= t:
            _start_atomic(c, t, 0, ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
        else:
            ch[c, C_TIMER] = ch[c, C_DCCS]
    elif sch == CTRL:
        if g[G_QLEN] == 0 and g[G_POOL] >= ch[c, C_NEED]:
            _ctrl_grant(c, t, ch, g, prm, chan_free, diff, wait_ns, wait_cnt, op_start, tb, to)
        else:
            n = len(cq)
            cq[(g[G_QHEAD] + g[G_QLEN]) % n] = c
            g[G_QLEN] += 1
    else:
        need = ch[c, C_NEED]
        if ch[c, C_HT] >= need and (sch != MTPM or ch[c, C_KEY] == 1):
            ch[c, C_HT] -= need
            ch[c, C_UT] = need
            tok = ch[c, C_HT]
            key = ch[c, C_KEY]
            ch[c, C_HT] = 0
            ch[c, C_KEY] = 0
            _start_atomic(c, t, prm[R_COMP], ch, g, prm, diff, wait_ns, wait_cnt, op_start, tb, to)
            _forward(c, t, tok, key, ch, pk, prm, pkt_tgt, g)
        else:
            if ch[c, C_KEY] == 0 and sch != NOKEY and ch[c, C_HT] > 0:
                tok = ch[c, C_HT]
                ch[c, C_HT] = 0
                _forward(c, t, tok, 0, ch, pk, prm, pkt_tgt, g)
            _announce(c, t, ch, pk, prm, pkt_tgt)


@njit(cache=True, _nrt=False, inline="always")
def _dispatch(c, t, ch, op_type, op_arr, chip_q, chan_free, xfer):
    """Idle chip: move its next arrived operation onto the channel, if any."""
    q = ch[c, C_QPTR]
    if q >= ch[c, C_QEND] or op_arr[chip_q[q]] > t:
        ch[c, C_STATE] = READY
        ch[c, C_TIMER] = INF
        ch[c, C_OP] = -1
        return
    op = chip_q[q]
    ch[c, C_QPTR] = q + 1
    ch[c, C_OP] = op
    ch[c, C_TYPE] = op_type[op]
    ch[c, C_STEP] = 0
    k = ch[c, C_CHAN]
    xs = max(t, chan_free[k])
    chan_free[k] = xs + xfer[op_type[op]]
    ch[c, C_STATE] = XFER
    ch[c, C_TIMER] = xs + xfer[op_type[op]]


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


@njit(cache=True)
def simulate(op_chip, op_type, op_arr, chip_q, chip_q_off, xfer, tb, to, prm,
             op_issue, op_start, op_done, wait_ns, wait_cnt, series, stats):  # fmt: skip
    """Run the whole operation stream. ``op_*`` sorted by arrival; ``chip_q`` holds op
    indices grouped by chip (CSR offsets ``chip_q_off``), each group in arrival order.
    Fills ``op_issue`` (transfer to the chip done), ``op_start`` (first atomic operation
    starts), ``op_done`` (ns, -1 if never), ``wait_*`` per atomic id,
    ``series`` (max current per ``R_BIN`` samples) and ``stats`` (``STAT_NAMES``)."""
    n = prm[R_N]
    m = prm[R_M]
    sch = prm[R_SCHEME]
    n_ops = len(op_arr)
    ch = np.zeros((n, N_CFIELDS), dtype=np.int64)
    pk = np.zeros((n, N_PFIELDS), dtype=np.int64)
    pkt_tgt = np.full(n, -1, dtype=np.int64)
    g = np.zeros(N_GLOBALS, dtype=np.int64)
    diff = np.zeros(prm[R_WMASK] + 1 + (prm[R_WMASK] + 1) // 64, dtype=np.int64)
    n_chan = n // prm[R_WAYS]
    chan_free = np.zeros(n_chan, dtype=np.int64)
    cq = np.zeros(n, dtype=np.int64)
    # DCC skyline (see _dcc_schedule): at most one live envelope per chip
    max_env = 0
    for i in range(to[ENV_LEN], to[ENV_LEN + 1]):
        max_env = max(max_env, tb[i])
    sky = np.zeros((5, n * (max_env + 1) + 2), dtype=np.int64)
    for c in range(n):
        ch[c, C_STATE] = READY
        ch[c, C_TIMER] = INF
        ch[c, C_OP] = -1
        ch[c, C_QPTR] = chip_q_off[c]
        ch[c, C_QEND] = chip_q_off[c + 1]
        ch[c, C_DCCOP] = -1
        ch[c, C_CHAN] = c // prm[R_WAYS]
    for p in range(n):
        pk[p, P_TIME] = INF
        pk[p, P_LAST] = -1
    is_ring = sch == MTPM or sch == KMTPM_A or sch == KMTPM_SA or sch == NOKEY
    if is_ring:
        # all tokens and the key start at the first chip of each ring, leaving at slot 0
        for r in range(n // m):
            _forward(r * m, 0, prm[R_TT], 1 if sch != NOKEY else 0, ch, pk, prm, pkt_tgt, g)
    if sch == CTRL:
        g[G_POOL] = prm[R_TT]
    nxt = 0
    while True:
        t = INF
        kind = -1
        idx = -1
        if nxt < n_ops:
            t = op_arr[nxt]
            kind = 0
        for c in range(n):
            if ch[c, C_TIMER] < t:
                t = ch[c, C_TIMER]
                kind = 1
                idx = c
        if is_ring:
            for p in range(n):
                if pk[p, P_TIME] < t:
                    t = pk[p, P_TIME]
                    kind = 2
                    idx = p
        if kind < 0:
            break
        g[G_EVENTS] += 1
        _flush(t, g, prm, diff, series)
        if kind == 0:
            c = op_chip[nxt]
            nxt += 1
            if ch[c, C_STATE] == READY:
                _dispatch(c, t, ch, op_type, op_arr, chip_q, chan_free, xfer)
        elif kind == 1:
            c = idx
            st = ch[c, C_STATE]
            ch[c, C_TIMER] = INF
            if st == XFER:
                op_issue[ch[c, C_OP]] = t
                _begin_wait(c, t, ch, tb, to)
                _attempt(c, t, ch, pk, g, prm, pkt_tgt, chan_free, cq, sky, diff, wait_ns, wait_cnt,
                         op_start, tb, to)  # fmt: skip
            elif st == WAIT:
                _attempt(c, t, ch, pk, g, prm, pkt_tgt, chan_free, cq, sky, diff, wait_ns, wait_cnt,
                         op_start, tb, to)  # fmt: skip
            else:  # OPER: end of a sub-atomic or atomic operation
                a = ch[c, C_ATOM]
                i = ch[c, C_SA]
                if (sch == KMTPM_SA or sch == CTRL) and i + 1 < _t(tb, to, A_SA_LEN, a):
                    s0 = _t(tb, to, A_SA_OFF, a) + i
                    surplus = _t(tb, to, SA_RT, s0) - _t(tb, to, SA_RT, s0 + 1)
                    ch[c, C_SA] = i + 1
                    ch[c, C_TIMER] = t + _t(tb, to, SA_DUR, s0 + 1)
                    ch[c, C_UT] -= surplus
                    if sch == CTRL:
                        if surplus > 0:
                            _ctrl_release(c, t, surplus, ch, g, prm, chan_free, cq, diff,
                                          wait_ns, wait_cnt, op_start, tb, to)  # fmt: skip
                    else:
                        _forward(c, t, surplus, 0, ch, pk, prm, pkt_tgt, g)
                else:
                    ut = ch[c, C_UT]
                    ch[c, C_UT] = 0
                    ch[c, C_STEP] += 1
                    if sch == CTRL:
                        _ctrl_release(c, t, ut, ch, g, prm, chan_free, cq, diff, wait_ns,
                                      wait_cnt, op_start, tb, to)  # fmt: skip
                    else:
                        ch[c, C_HT] += ut
                    if ch[c, C_STEP] < _t(tb, to, TMPL_LEN, ch[c, C_TYPE]):
                        _begin_wait(c, t, ch, tb, to)
                        _attempt(c, t, ch, pk, g, prm, pkt_tgt, chan_free, cq, sky, diff, wait_ns,
                                 wait_cnt, op_start, tb, to)  # fmt: skip
                    else:
                        op_done[ch[c, C_OP]] = t
                        g[G_DONE] += 1
                        if is_ring:
                            tok = ch[c, C_HT]
                            key = ch[c, C_KEY]
                            ch[c, C_HT] = 0
                            ch[c, C_KEY] = 0
                            _forward(c, t, tok, key, ch, pk, prm, pkt_tgt, g)
                        _dispatch(c, t, ch, op_type, op_arr, chip_q, chan_free, xfer)
        else:
            p = idx
            c = pkt_tgt[p]
            s = t // prm[R_HOP]
            pk[p, P_LAST] = s
            g[G_HOPS] += 1
            if _absorbs(c, p, ch, pk, prm):
                ch[c, C_HT] += pk[p, P_TOK]
                if pk[p, P_KEY] == 1:
                    ch[c, C_KEY] = 1
                pk[p, P_ALIVE] = 0
                pk[p, P_TOK] = 0
                pk[p, P_KEY] = 0
                pk[p, P_TIME] = INF
                pkt_tgt[p] = -1
                _attempt(c, t, ch, pk, g, prm, pkt_tgt, chan_free, cq, sky, diff, wait_ns, wait_cnt,
                         op_start, tb, to)  # fmt: skip
            else:
                _retarget(p, s, False, ch, pk, prm, pkt_tgt)
        if prm[R_CHECK] != 0 and sch != NPM and sch != PPM and sch != DCC:
            _check_tokens(ch, pk, g, prm)
        if is_ring and prm[R_CHECK] != 0:
            alive = 0
            for p in range(n):
                alive += pk[p, P_ALIVE]
            if alive > g[G_MAXPKT]:
                g[G_MAXPKT] = alive
    _flush(g[G_MAXK1] * prm[R_S] + prm[R_S], g, prm, diff, series)
    for i in range(N_GLOBALS):
        stats[i] = g[i]
