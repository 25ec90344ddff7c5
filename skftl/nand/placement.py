"""Where host operations landed: the page position (within its block) of every host read
and write of a replay, rebuilt from the mapping-update log, so that the array latency a
placement policy buys can be measured apart from queueing (``Ftl.replay`` reports only
request completion times, which include waiting behind other operations and GC)."""

from __future__ import annotations

import numba
import numpy as np

from skftl.nand.core import LOG_HOST, LOG_TRIM, OP_READ, OP_WRITE


@numba.njit(cache=True)
def host_page_positions(l2p, lpn, op, log_lpn, log_new, log_kind, pages_per_block):
    """Page position of each host page op: reads -> the page holding the LPN at that time
    (-1 if unmapped), writes -> the page programmed; trims -> -1. ``l2p`` (copied) is the
    map before the replay; the log holds the replay's updates in order (GC copies precede
    the host write that triggered them). Raises if log and ops disagree."""
    m = l2p.copy()
    out = np.full(len(lpn), -1, np.int32)
    k = 0
    for i in range(len(lpn)):
        o = op[i]
        if o == OP_READ:
            p = m[lpn[i]]
            if p >= 0:
                out[i] = p % pages_per_block
        elif o == OP_WRITE:
            while True:
                if k >= len(log_lpn):
                    raise ValueError("mapping log ends before a host write")
                m[log_lpn[k]] = log_new[k]
                kind = log_kind[k]
                k += 1
                if kind == LOG_HOST:
                    if log_lpn[k - 1] != lpn[i]:
                        raise ValueError("mapping log out of step with the page ops")
                    out[i] = log_new[k - 1] % pages_per_block
                    break
        else:
            if m[lpn[i]] >= 0:
                if k >= len(log_lpn) or log_kind[k] != LOG_TRIM:
                    raise ValueError("mapping log out of step at a trim")
                m[lpn[i]] = -1
                k += 1
    return out
