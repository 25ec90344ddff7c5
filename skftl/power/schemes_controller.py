"""CTRL: the controller keeps every token in one pool (multi-channel arrangement 3 of
Sec. IV-F2). A waiting chip asks for its atomic operation's tokens; the pool grants them when
it has enough and no chip asked before (first come, first served), else the chip queues. Each
grant and each return is a message on the chip's channel (``PARAM_MESSAGE_NS``). Tokens
return at every sub-atomic boundary (the surplus) and at the atomic operation's end. Hooks as
in ``skftl.power.hooks``."""

from __future__ import annotations

from skftl.power.chip import start_atomic
from skftl.power.state import (
    CHIP_CHANNEL,
    CHIP_NEED,
    CHIP_USED_TOKENS,
    PARAM_CHIPS,
    PARAM_MESSAGE_NS,
    PARAM_TOKENS,
    STAT_CONSERVATION_ERRORS,
    STAT_POOL,
    STAT_POOL_QUEUE_HEAD,
    STAT_POOL_QUEUE_LEN,
    SUBATOMIC_END,
    inline,
)


@inline
def init(S):
    S.stats[STAT_POOL] = S.prm[PARAM_TOKENS]


@inline
def attempt(S, c, t):
    if S.stats[STAT_POOL_QUEUE_LEN] == 0 and S.stats[STAT_POOL] >= S.chip[c, CHIP_NEED]:
        _grant(S, c, t)
    else:
        n = len(S.pool_queue)
        S.pool_queue[(S.stats[STAT_POOL_QUEUE_HEAD] + S.stats[STAT_POOL_QUEUE_LEN]) % n] = c
        S.stats[STAT_POOL_QUEUE_LEN] += 1


@inline
def release(S, c, t, tokens, boundary):
    """Returned tokens go back to the pool (a message on the chip's channel, sent at an atomic
    operation's end even when it returns nothing)."""
    if tokens > 0 or boundary != SUBATOMIC_END:
        _release(S, c, t, tokens)


@inline
def check(S):
    """The pool plus the tokens in use: all of them."""
    total = S.stats[STAT_POOL]
    for c in range(S.prm[PARAM_CHIPS]):
        total += S.chip[c, CHIP_USED_TOKENS]
    if total != S.prm[PARAM_TOKENS]:
        S.stats[STAT_CONSERVATION_ERRORS] += 1


@inline
def _grant(S, c, t):
    """The pool grants chip ``c`` its tokens; the grant is a message on its channel."""
    S.stats[STAT_POOL] -= S.chip[c, CHIP_NEED]
    S.chip[c, CHIP_USED_TOKENS] = S.chip[c, CHIP_NEED]
    k = S.chip[c, CHIP_CHANNEL]
    ts = max(t, S.channel_free[k]) + S.prm[PARAM_MESSAGE_NS]
    S.channel_free[k] = ts
    start_atomic(S, c, ts, 0, False)


@inline
def _release(S, c, t, tokens):
    """Chip ``c`` returns ``tokens`` (a message on its channel); the pool grants the queued
    chips in order while it can."""
    k = S.chip[c, CHIP_CHANNEL]
    S.channel_free[k] = max(t, S.channel_free[k]) + S.prm[PARAM_MESSAGE_NS]
    S.stats[STAT_POOL] += tokens
    n = len(S.pool_queue)
    while S.stats[STAT_POOL_QUEUE_LEN] > 0:
        h = S.pool_queue[S.stats[STAT_POOL_QUEUE_HEAD]]
        if S.stats[STAT_POOL] < S.chip[h, CHIP_NEED]:
            break
        S.stats[STAT_POOL_QUEUE_HEAD] = (S.stats[STAT_POOL_QUEUE_HEAD] + 1) % n
        S.stats[STAT_POOL_QUEUE_LEN] -= 1
        _grant(S, h, t)
