"""Where host operations landed: the page position (within its block) of every host read
and write of a replay, rebuilt from the mapping-update log, so that the array latency a
placement policy buys can be measured apart from queueing (``Ftl.replay`` reports only
request completion times, which include waiting behind other operations and GC).

The log must carry each entry's host page op (``Ftl.replay(..., log_ops=True)``): with a
write cache a host write logs nothing (a hit, or a free slot) or the page it evicted, so
entries cannot be paired with host writes by order alone."""

from __future__ import annotations

import numba
import numpy as np

from skftl.nand.core import LOG_GC, LOG_HOST, LOG_MIGRATE, LOG_TRIM, OP_READ, OP_WRITE


@numba.njit(cache=True)
def host_page_positions(l2p, cached, lpn, op, log_lpn, log_new, log_kind, log_op, pages_per_block):
    """Page position of each host page op: reads -> the page holding the LPN at that time
    (-1 if unmapped or served from the write cache), writes -> the page programmed for it
    (its own, or with a write cache the evicted page's; -1 when it programmed nothing);
    trims -> -1. ``l2p`` is the map before the replay and ``cached`` (empty: no write cache)
    says which LPNs the write cache held then (both copied). The log holds the replay's
    updates in order with ``log_op`` their host page op (GC copies precede the host write
    that triggered them; a migration, ``LOG_MIGRATE``, and the GC before it follow their
    host read). Raises if log and ops disagree."""
    m = l2p.copy()
    has_cache = len(cached) > 0
    c = cached.copy()
    out = np.full(len(lpn), -1, np.int32)
    n = len(log_lpn)
    k = 0
    for i in range(len(lpn)):
        o = op[i]
        lp = lpn[i]
        if o == OP_READ:
            if not (has_cache and c[lp]):
                p = m[lp]
                if p >= 0:
                    out[i] = p % pages_per_block
            # a policy's migration of the page just read, after any GC it triggered
            while k < n and log_op[k] == i:
                if log_kind[k] != LOG_GC and log_kind[k] != LOG_MIGRATE:
                    raise ValueError("mapping log out of step at a read")
                m[log_lpn[k]] = log_new[k]
                k += 1
        elif o == OP_WRITE:
            flushed = False
            while k < n and log_op[k] == i:
                kind = log_kind[k]
                if kind == LOG_HOST:
                    flp = log_lpn[k]
                    if flushed or (flp == lp) == has_cache or (has_cache and not c[flp]):
                        raise ValueError("mapping log out of step with the page ops")
                    if has_cache:
                        c[flp] = False
                    out[i] = log_new[k] % pages_per_block
                    flushed = True
                elif kind != LOG_GC:
                    raise ValueError("mapping log out of step with the page ops")
                m[log_lpn[k]] = log_new[k]
                k += 1
            if has_cache:
                c[lp] = True
            elif not flushed:
                raise ValueError("mapping log lacks a host write")
        else:
            if has_cache:
                c[lp] = False
            if m[lp] >= 0:
                if k >= n or log_op[k] != i or log_kind[k] != LOG_TRIM:
                    raise ValueError("mapping log out of step at a trim")
                m[lp] = -1
                k += 1
        if k < n and log_op[k] <= i:
            raise ValueError("mapping log out of step with the page ops")
    if k != n:
        raise ValueError("mapping log has entries past the last page op")
    return out
