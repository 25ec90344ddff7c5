"""The controller's DRAM write cache (write-back): host writes are acknowledged once their
page is in the cache; a page reaches flash when it is evicted to make room for another.

Slots hold one logical page each and form a list from the next page to evict (head) to
the last one inserted (tail): ``lru`` moves a page to the tail when it is written again,
``fifo`` keeps insertion order. ``wc_slot[lpn]`` is the slot of a cached page (-1: none);
``wc_meta`` holds head, tail, pages held, slots ever used and the head of the chain of
slots freed by a trim. The kernel calls these helpers only when ``P_WC_CAP`` > 0.
"""

from __future__ import annotations

from skftl.nand.core import (
    C_CACHE_WRITE_HITS,
    P_WC_CAP,
    P_WC_POLICY,
    WC_LRU,
    inline,
    list_append,
    list_unlink,
)

HEAD, TAIL, HELD, USED, FREE = 0, 1, 2, 3, 4  # wc_meta fields
N_META = 5


@inline
def unlink(S, s):
    list_unlink(S.wc_prev, S.wc_next, S.wc_meta, HEAD, S.wc_meta, TAIL, s)


@inline
def append(S, s):
    list_append(S.wc_prev, S.wc_next, S.wc_meta, HEAD, S.wc_meta, TAIL, s)


@inline
def cache_write(S, lpn, stream):
    """Put a host write of ``lpn`` (``stream``: its stream id) into the cache. Returns the
    (lpn, stream) of the page evicted to make room, to be written to flash now; lpn -1 when
    none was (a hit on a cached page, or a free slot)."""
    s = S.wc_slot[lpn]
    if s >= 0:
        S.ctr[C_CACHE_WRITE_HITS] += 1
        S.wc_stream[s] = stream
        if S.prm[P_WC_POLICY] == WC_LRU:
            unlink(S, s)
            append(S, s)
        return -1, stream
    out = -1
    out_stream = stream
    if S.wc_meta[FREE] >= 0:  # a slot a trim freed
        s = S.wc_meta[FREE]
        S.wc_meta[FREE] = S.wc_next[s]
        S.wc_meta[HELD] += 1
    elif S.wc_meta[USED] < S.prm[P_WC_CAP]:
        s = S.wc_meta[USED]
        S.wc_meta[USED] = s + 1
        S.wc_meta[HELD] += 1
    else:
        s = S.wc_meta[HEAD]
        out = S.wc_lpn[s]
        out_stream = S.wc_stream[s]
        unlink(S, s)
        S.wc_slot[out] = -1
    S.wc_lpn[s] = lpn
    S.wc_stream[s] = stream
    S.wc_slot[lpn] = s
    append(S, s)
    return out, out_stream


@inline
def cache_drop(S, lpn):
    """Forget a cached page (trimmed): its slot joins the free chain."""
    s = S.wc_slot[lpn]
    if s >= 0:
        unlink(S, s)
        S.wc_slot[lpn] = -1
        S.wc_lpn[s] = -1
        S.wc_next[s] = S.wc_meta[FREE]
        S.wc_meta[FREE] = s
        S.wc_meta[HELD] -= 1
