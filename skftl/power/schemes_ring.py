"""The token ring (MTPM, KMTPM atomic and sub-atomic, the no-key variant of Fig. 4a):
``PARAM_CHIPS / PARAM_RING_CHIPS`` rings of M consecutive chips, each with its own
``PARAM_TOKENS`` tokens and one key. Hooks as in ``skftl.power.hooks``.

Key and tokens travel as one serial packet: one hop takes ``PARAM_HOP_NS`` = (1 + token bits)
cycles. The ring is slotted: a packet leaves a chip at the next multiple of the hop, and
packets that meet at the same chip in the same slot merge, so a packet is identified by its
phase (position - slot) mod M (``packet`` row ring * M + phase). A chip that decides to start
spends ``PARAM_DECISION_NS`` (2 cycles) before the atomic operation starts; its tokens are
taken at the decision.

A waiting chip absorbs a packet when it holds the key or the packet carries it (MTPM,
KMTPM), or the packet brings enough tokens (KMTPM), or always (no key, which can deadlock).
MTPM starts only with the key; KMTPM with enough tokens. A starting chip forwards its surplus
tokens and the key; a waiting chip without the key passes on what it cannot use. KMTPM keeps
its tokens across consecutive atomic operations when they suffice; KMTPM sub-atomic returns
surplus tokens at every sub-atomic boundary. MTPM returns everything after each atomic
operation (a keyless chip cannot start on what it holds, so it passes it on).

Only the events that change something are simulated: a packet's next event is its arrival at
the first chip on its way that would absorb it (``_retarget``), kept current as chips begin
and stop waiting (``_announce``, ``_pass_on``) and packets merge (``_forward``).
"""

from __future__ import annotations

import numpy as np

from skftl.power.chip import chain, start_atomic
from skftl.power.state import (
    ATOMIC_END,
    CHIP_HELD_TOKENS,
    CHIP_KEY,
    CHIP_NEED,
    CHIP_STATE,
    CHIP_USED_TOKENS,
    INF,
    KMTPM_A,
    KMTPM_SA,
    MTPM,
    NOKEY,
    PACKET_ALIVE,
    PACKET_KEY,
    PACKET_LAST_SLOT,
    PACKET_SLOT,
    PACKET_TOKENS,
    PARAM_CHIPS,
    PARAM_DECISION_NS,
    PARAM_HOP_NS,
    PARAM_RING_CHIPS,
    PARAM_SCHEME,
    PARAM_TOKENS,
    RING_LIVE_PACKETS,
    RING_WAITING_CHIPS,
    STAT_CONSERVATION_ERRORS,
    STAT_MAX_PACKETS,
    STAT_PACKET_ARRIVALS,
    SUBATOMIC_END,
    WAIT,
    ceil_div,
    helper,
    inline,
    lowest_bit,
    ring_mod,
)


@inline
def init(S):
    """Every ring's tokens and key start at its first chip, leaving at slot 0."""
    m = S.prm[PARAM_RING_CHIPS]
    key = 1 if S.prm[PARAM_SCHEME] != NOKEY else 0
    for r in range(S.prm[PARAM_CHIPS] // m):
        _forward(S, r * m, 0, S.prm[PARAM_TOKENS], key)


@inline
def attempt(S, c, t):
    """Start with enough tokens (and, under MTPM, the key), forwarding the rest; else wait,
    passing on the tokens a keyless chip cannot use, and let the packets on their way stop
    here. A chip waits exactly when its last attempt failed (it begins waiting only right
    before one): the ring's mask of waiting chips is kept here."""
    sch = S.prm[PARAM_SCHEME]
    need = S.chip[c, CHIP_NEED]
    pos = ring_mod(S, c)
    bit = np.int64(1) << pos
    held = S.chip[c, CHIP_HELD_TOKENS]
    starts = held >= need and (sch != MTPM or S.chip[c, CHIP_KEY] == 1)
    if starts:
        S.packet[c - pos, RING_WAITING_CHIPS] &= ~bit
        S.chip[c, CHIP_USED_TOKENS] = need
        tok = held - need
        key = S.chip[c, CHIP_KEY]
        S.chip[c, CHIP_HELD_TOKENS] = 0
        S.chip[c, CHIP_KEY] = 0
        start_atomic(S, c, t, S.prm[PARAM_DECISION_NS], False)
    else:
        S.packet[c - pos, RING_WAITING_CHIPS] |= bit
        # a keyless chip passes on what it holds (held tokens never start it)
        tok = held if S.chip[c, CHIP_KEY] == 0 and sch != NOKEY else 0
        key = 0
        S.chip[c, CHIP_HELD_TOKENS] = held - tok
    _forward(S, c, t, tok, key)  # nothing when there is nothing to hand on
    if not starts:
        _announce(S, c, t)
    elif sch == KMTPM_SA:  # elsewhere 0.1-0.6 such arrivals per operation: left as events
        _pass_on(S, c)
    elif sch == KMTPM_A or sch == NOKEY:  # while the next atomic operation needs the same
        chain(S, c, S.prm[PARAM_DECISION_NS], False)


@inline
def release(S, c, t, tokens, boundary):
    """A sub-atomic surplus goes on at once; at an atomic operation's end the chip keeps what
    it used for its next one (``attempt`` passes on what it cannot use); at the operation's
    end it hands on everything, the key too."""
    if boundary == SUBATOMIC_END:
        tok = tokens
        key = 0
    else:
        S.chip[c, CHIP_HELD_TOKENS] += tokens
        if boundary == ATOMIC_END:
            return
        tok = S.chip[c, CHIP_HELD_TOKENS]
        key = S.chip[c, CHIP_KEY]
        S.chip[c, CHIP_HELD_TOKENS] = 0
        S.chip[c, CHIP_KEY] = 0
    _forward(S, c, t, tok, key)  # one call site: inlined once


@inline
def earliest_packet(S, te, i):
    """The live packets only (a dead one's time is INF)."""
    n = S.prm[PARAM_CHIPS]
    for base in range(0, n, S.prm[PARAM_RING_CHIPS]):
        alive = S.packet[base, RING_LIVE_PACKETS]
        while alive != 0:
            j = n + base + lowest_bit(alive)
            alive &= alive - 1
            if S.event_time[j] < te:
                te = S.event_time[j]
                i = j
    return te, i


@inline
def on_packet(S, p, t):
    """Packet ``p`` reaches its target: absorbed (the chip then attempts), or on its way."""
    c = S.packet_target[p]
    s = S.packet[p, PACKET_SLOT]
    S.packet[p, PACKET_LAST_SLOT] = s
    S.stats[STAT_PACKET_ARRIVALS] += 1
    if not _absorbs(S, c, p):
        _retarget(S, p, s, False)
        return -1
    S.chip[c, CHIP_HELD_TOKENS] += S.packet[p, PACKET_TOKENS]
    if S.packet[p, PACKET_KEY] == 1:
        S.chip[c, CHIP_KEY] = 1
    S.packet[p, PACKET_ALIVE] = 0
    phi = ring_mod(S, p)
    S.packet[p - phi, RING_LIVE_PACKETS] &= ~(np.int64(1) << phi)
    S.packet[p, PACKET_TOKENS] = 0
    S.packet[p, PACKET_KEY] = 0
    S.event_time[S.prm[PARAM_CHIPS] + p] = INF
    S.packet_target[p] = -1
    return c


@inline
def check(S):
    """Per ring: held + in use + in flight = its tokens, one key (none without); and the most
    packets alive at once."""
    n = S.prm[PARAM_CHIPS]
    m = S.prm[PARAM_RING_CHIPS]
    for r in range(n // m):
        tot = 0
        keys = 0
        for c in range(r * m, (r + 1) * m):
            tot += S.chip[c, CHIP_HELD_TOKENS] + S.chip[c, CHIP_USED_TOKENS]
            keys += S.chip[c, CHIP_KEY]
            if S.packet[c, PACKET_ALIVE] == 1:
                tot += S.packet[c, PACKET_TOKENS]
                keys += S.packet[c, PACKET_KEY]
        if tot != S.prm[PARAM_TOKENS] or (S.prm[PARAM_SCHEME] != NOKEY and keys != 1):
            S.stats[STAT_CONSERVATION_ERRORS] += 1
    alive = 0
    for p in range(n):
        alive += S.packet[p, PACKET_ALIVE]
    if alive > S.stats[STAT_MAX_PACKETS]:
        S.stats[STAT_MAX_PACKETS] = alive


@helper
def _absorbs(S, c, p):
    if S.chip[c, CHIP_STATE] != WAIT:
        return False
    sch = S.prm[PARAM_SCHEME]
    if sch == NOKEY:
        return True
    if S.chip[c, CHIP_KEY] == 1 or S.packet[p, PACKET_KEY] == 1:
        return True
    if sch == MTPM:
        return False
    return S.chip[c, CHIP_HELD_TOKENS] + S.packet[p, PACKET_TOKENS] >= S.chip[c, CHIP_NEED]


@helper
def _rotate(w, r, m):
    """Mask ``w`` of an ``m``-bit ring (m <= 64) rotated so that bit ``r`` becomes bit 0."""
    if r == 0:
        return w
    full = ~((np.int64(-1) << (m - 1)) << 1)  # m ones (all 64 for m = 64, no overflow)
    return ((w >> r) & ((np.int64(1) << (m - r)) - 1)) | ((w << (m - r)) & full)


@inline
def _retarget(S, p, s_from, include_current):
    """Point packet ``p`` (at its position of slot ``s_from``) at the first chip on its way
    that would absorb it; no event if none would. Only waiting chips absorb, so only the
    ring's waiting chips are checked, in the order the packet meets them (the ring's mask of
    waiting chips rotated to start at the packet's first stop: its own chip when included,
    else the next one, its own chip then coming last, a lap later)."""
    n = S.prm[PARAM_CHIPS]
    phi = ring_mod(S, p)
    base = p - phi
    k0 = 0 if include_current else 1
    pos0 = ring_mod(S, phi + s_from + k0)  # the first chip it may stop at, k0 hops on
    # bit j: the chip k0 + j hops on waits
    w = _rotate(S.packet[base, RING_WAITING_CHIPS], pos0, S.prm[PARAM_RING_CHIPS])
    while w != 0:
        j = lowest_bit(w)
        w &= w - 1
        c = base + ring_mod(S, pos0 + j)
        if _absorbs(S, c, p):
            S.event_time[n + p] = (s_from + k0 + j) * S.prm[PARAM_HOP_NS]
            S.packet[p, PACKET_SLOT] = s_from + k0 + j
            S.packet_target[p] = c
            return
    S.event_time[n + p] = INF
    S.packet_target[p] = -1


@inline
def _announce(S, c, t):
    """Chip ``c`` may now absorb packets: let every packet that reaches it before its current
    target stop there instead."""
    m = S.prm[PARAM_RING_CHIPS]
    n = S.prm[PARAM_CHIPS]
    hop = S.prm[PARAM_HOP_NS]
    pos = ring_mod(S, c)
    base = c - pos
    s_min = ceil_div(t, hop)
    r0 = ring_mod(S, pos - s_min)  # (pos - phi - s_min) mod m for phi = 0, then one less per phi
    alive = S.packet[base, RING_LIVE_PACKETS]
    while alive != 0:  # the ring's live packets only (usually 1-3 of 8)
        phi = lowest_bit(alive)
        alive &= alive - 1
        p = base + phi
        r = r0 - phi
        if r < 0:
            r += m
        s = s_min + r
        if s <= S.packet[p, PACKET_LAST_SLOT]:
            s += m
        if s * hop < S.event_time[n + p] and _absorbs(S, c, p):
            S.event_time[n + p] = s * hop
            S.packet[p, PACKET_SLOT] = s
            S.packet_target[p] = c


@inline
def _pass_on(S, c):
    """Chip ``c`` stopped waiting: the packets bound for it would reach it, not be absorbed,
    and go on (KMTPM sub-atomic: 28 such events per operation on R0). Re-target them now,
    from their slot at ``c``, instead of an event at that arrival: every later change on
    their way re-targets them as it would have (a chip that starts waiting announces itself,
    a target that stops passes them on, a merge re-targets). The skipped arrival would have
    set PACKET_LAST_SLOT to its slot s; PACKET_LAST_SLOT is read only at the current slot, by
    ``_announce`` and ``_forward`` for the packet's position then, so it could matter only at
    time s * hop, at ``c``, after the skipped arrival in event order: in a later packet's
    event at ``c`` in slot s. No such packet exists (it would have the same phase: the same
    packet)."""
    pos = ring_mod(S, c)
    base = c - pos
    alive = S.packet[base, RING_LIVE_PACKETS]
    while alive != 0:
        phi = lowest_bit(alive)
        alive &= alive - 1
        p = base + phi
        if S.packet_target[p] == c:
            _retarget(S, p, S.packet[p, PACKET_SLOT], False)


@inline
def _forward(S, c, t, tok, key):
    if tok == 0 and key == 0:
        return
    s = ceil_div(t, S.prm[PARAM_HOP_NS])
    pos = ring_mod(S, c)
    p = c - pos + ring_mod(S, pos - s)
    if S.packet[p, PACKET_ALIVE] == 1:
        S.packet[p, PACKET_TOKENS] += tok
        S.packet[p, PACKET_KEY] |= key
        include = S.packet[p, PACKET_LAST_SLOT] < s
    else:
        S.packet[p, PACKET_ALIVE] = 1
        S.packet[c - pos, RING_LIVE_PACKETS] |= np.int64(1) << (p - c + pos)
        S.packet[p, PACKET_TOKENS] = tok
        S.packet[p, PACKET_KEY] = key
        S.packet[p, PACKET_LAST_SLOT] = s
        include = False
    _retarget(S, p, s, include)
