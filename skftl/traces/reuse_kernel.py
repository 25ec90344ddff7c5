"""The sequential steps of the locality generator (:mod:`skftl.traces.synthetic`) as Numba
kernels: claiming sources so that each request is copied at most once (over one record
of what is taken, so several calls never share a source), resolving offsets in trace
order, choosing a head's reuse type, and copying sizes along sources."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def claim_sources_into(
    start: np.ndarray,
    src_is_write: np.ndarray,
    read_pos: np.ndarray,
    write_pos: np.ndarray,
    taken: np.ndarray,
    max_steps: int,
) -> np.ndarray:
    """For each copying head, in trace order: ``start[h]`` indexes the latest request of its
    source type at or before the drawn distance (in ``read_pos`` / ``write_pos``, trace
    positions; -1: none). Step back over requests another head already copies (at most
    ``max_steps``) and claim the first free one. Returns the claimed trace position per
    head, -1 where none was free (that head takes a new address). The claimed positions
    are kept in ``taken`` (updated in place), so heads claimed in several calls never
    share a source."""
    out = np.full(len(start), -1, dtype=np.int64)
    for h in range(len(start)):
        positions = write_pos if src_is_write[h] else read_pos
        k = start[h]
        steps = 0
        while k >= 0 and taken[positions[k]] and steps < max_steps:
            k -= 1
            steps += 1
        if k >= 0 and not taken[positions[k]]:
            taken[positions[k]] = True
            out[h] = positions[k]
    return out


@numba.njit(cache=True)
def resolve_offsets(
    is_write: np.ndarray,
    seq: np.ndarray,
    sizes: np.ndarray,
    source: np.ndarray,
    drawn: np.ndarray,
    run_bytes: np.ndarray,
    footprint: int,
    alignment: int,
    shift: np.ndarray,
) -> np.ndarray:
    """Offsets in one pass in trace order: a sequential request continues its type's
    previous request; a run head copies the offset of its ``source`` (an earlier request,
    so already resolved; plus its ``shift``, 0 for a copy, else a read that overlaps its
    source from another start page; moved down if its run would pass the footprint's end,
    up if before its start) or takes
    its ``drawn`` new offset. A head that would land exactly where its type's previous
    request ended (and so count as sequential) moves by one alignment unit."""
    n = len(sizes)
    out = np.empty(n, dtype=np.int64)
    last_end = np.full(2, -1, dtype=np.int64)
    for r in range(n):
        t = 1 if is_write[r] else 0
        if seq[r]:
            off = last_end[t]
        else:
            if source[r] >= 0:
                limit = (footprint - run_bytes[r]) // alignment * alignment
                off = max(min(out[source[r]] + shift[r], limit), 0)
            else:
                off = drawn[r]
            if off == last_end[t]:
                off = (
                    off + alignment
                    if off + alignment + run_bytes[r] <= footprint
                    else off - alignment
                )
        out[r] = off
        last_end[t] = off + sizes[r]
    return out


@numba.njit(cache=True)
def reuse_choice(
    u: np.ndarray,
    is_write: np.ndarray,
    slice_of: np.ndarray,
    first: np.ndarray,
    both: np.ndarray,
    factor: np.ndarray,
) -> np.ndarray:
    """Per run head: 0 new address, 1 copy a read, 2 copy a write, from its uniform draw
    ``u`` and the probabilities of its [type, time slice]: ``first`` (copy a read) and
    ``both`` (copy either), each times the head's ``factor``."""
    out = np.zeros(len(u), dtype=np.int64)
    for h in range(len(u)):
        t = 1 if is_write[h] else 0
        if u[h] < first[t, slice_of[h]] * factor[h]:
            out[h] = 1
        elif u[h] < both[t, slice_of[h]] * factor[h]:
            out[h] = 2
    return out


@numba.njit(cache=True)
def copy_sizes(sizes: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``sizes`` with each request that has a ``source`` (an earlier request, -1: none)
    taking that source's size, in trace order (so a copy of a copy gets the original's)."""
    out = sizes.copy()
    for r in range(len(out)):
        if source[r] >= 0:
            out[r] = out[source[r]]
    return out
