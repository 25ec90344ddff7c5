"""The page-level passes of :func:`skftl.traces.locality.measured` as one Numba kernel: every
page measure walks the page operations sorted by page (then trace order), and one walk
gives them all."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def page_passes(
    lpn: np.ndarray,
    request: np.ndarray,
    is_write: np.ndarray,
    order: np.ndarray,
    head: np.ndarray,
    n: int,
    hit: np.ndarray,
    new_pages: np.ndarray,
    old: np.ndarray,
    latest: np.ndarray,
) -> tuple[int, int]:
    """Over the page operations (rows in trace order; ``order`` sorts them by page, then
    trace order), into the arrays given: per row whether its page was written by an earlier
    row (``hit``); per request of ``n`` the pages it touches first (``new_pages``) and the
    pages it touches that an earlier request touched (``old``); per run head (``head`` per
    request) the latest earlier request that touched a page its run touches, -1: none
    (``latest``). Returns (distinct pages, of which first touched by a read)."""
    new_pages[:] = 0
    old[:] = 0
    latest[:] = -1
    distinct = 0
    read_first = 0
    written = False
    for i in range(len(order)):
        row = order[i]
        req = request[row]
        if i == 0 or lpn[row] != lpn[order[i - 1]]:  # the page's first touch
            distinct += 1
            if not is_write[row]:
                read_first += 1
            new_pages[req] += 1
            written = False
        else:
            before = request[order[i - 1]]
            old[req] += 1
            h = head[req]
            if before < h and before > latest[h]:
                latest[h] = before
        hit[row] = written
        if is_write[row]:
            written = True
    return distinct, read_first
