"""The passes of the locality generator (:mod:`skftl.traces.synthetic`) as Numba kernels:
the run structure, each head's reuse type, the size groups and inverse-CDF picks, finding
sources among the requests of a group and claiming them so that each request is copied at
most once (over one record of what is taken, so several calls never share a source), the
overlaps, the layout of new runs, resolving offsets in trace order, and the arrivals.

The random draws stay numpy's (the same streams as the vectorised generator had, so a spec
and seed give the same trace): the kernels do what follows from the draws, in one pass over
the trace where numpy needed several, and write into arrays the caller allocates and
reuses. Floating-point steps keep numpy's operations in numpy's order (or call numpy, as
for ``exp``), so every value is the same to the last bit."""

from __future__ import annotations

import math

import numba
import numpy as np

from skftl.inlining import inlined


@numba.njit(cache=True)
def _grouped(group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(start of each group, then the end; the positions of the requests of each group, in
    trace order) of ``group`` per request (-1: in none), by counting."""
    count = np.zeros(n_groups + 1, dtype=np.int64)
    for r in range(len(group)):
        if group[r] >= 0:
            count[group[r] + 1] += 1
    start = np.cumsum(count)
    fill = start[:-1].copy()
    positions = np.empty(start[-1], dtype=np.int64)
    for r in range(len(group)):
        if group[r] >= 0:
            positions[fill[group[r]]] = r
            fill[group[r]] += 1
    return start, positions


@inlined()
def _search_start(
    start: np.ndarray,
    positions: np.ndarray,
    blocks: np.ndarray,
    g: int,
    t: int,
    head_pos: int,
    nearest: bool,
) -> int:
    """Where a search of group ``g`` for the request nearest trace position ``t`` starts: the
    index in ``positions`` of the group's last request at or before ``t`` (below
    ``start[g]``: none), or with ``nearest`` the first one after ``t`` when it lies closer to
    ``t`` and still before ``head_pos``. The claims step back from there."""
    lo, hi = start[g], start[g + 1]
    a = _first_above(positions, lo, blocks, g, t)
    k = a - 1
    if nearest and a < hi:
        above = positions[a]
        closer = k < lo or above - t < t - positions[k]
        if above < head_pos and closer:
            k = a
    return k


@inlined()
def _claim_head(
    start: np.ndarray,
    positions: np.ndarray,
    blocks: np.ndarray,
    g: int,
    t: int,
    head_pos: int,
    nearest: bool,
    unique: bool,
    taken: np.ndarray,
    max_steps: int,
) -> int:
    """One head's source among the requests of group ``g`` (see :func:`claim_in_groups`), or
    -1 (``blocks``: :func:`_block_starts` of the groups)."""
    lo = start[g]
    k = _search_start(start, positions, blocks, g, t, head_pos, nearest)
    if unique:
        steps = 0
        while k >= lo and taken[positions[k]] and steps < max_steps:
            k -= 1
            steps += 1
        if k >= lo and not taken[positions[k]]:
            taken[positions[k]] = True
            return positions[k]
        return -1
    return positions[k] if k >= lo else -1


@numba.njit(cache=True)
def _claim(
    start: np.ndarray,
    positions: np.ndarray,
    start2: np.ndarray,
    positions2: np.ndarray,
    head_group: np.ndarray,
    head_fallback: np.ndarray,
    target: np.ndarray,
    head_pos: np.ndarray,
    nearest: bool,
    unique: bool,
    taken: np.ndarray,
    max_steps: int,
) -> np.ndarray:
    """:func:`claim_in_groups` over groups already sorted (:func:`_grouped`; the fallback
    grouping's ``start2`` empty: none)."""
    out = np.full(len(head_group), -1, dtype=np.int64)
    span = 1 + max(
        positions.max() if len(positions) else 0, positions2.max() if len(positions2) else 0
    )
    blocks = _block_starts(start, positions, span)
    blocks2 = _block_starts(start2, positions2, span) if len(start2) else blocks
    for h in range(len(head_group)):
        g = head_group[h]
        if start[g + 1] == start[g] and len(start2) and head_fallback[h] >= 0:
            out[h] = _claim_head(
                start2, positions2, blocks2, head_fallback[h], target[h], head_pos[h],
                nearest, unique, taken, max_steps,
            )  # fmt: skip
        else:
            out[h] = _claim_head(
                start, positions, blocks, g, target[h], head_pos[h], nearest, unique, taken,
                max_steps,
            )  # fmt: skip
    return out


@numba.njit(cache=True)
def claim_in_groups(
    group: np.ndarray,
    head_group: np.ndarray,
    target: np.ndarray,
    head_pos: np.ndarray,
    nearest: bool,
    unique: bool,
    taken: np.ndarray,
    max_steps: int,
    n_groups: int,
    fallback: np.ndarray,
    head_fallback: np.ndarray,
) -> np.ndarray:
    """For each copying head, in trace order, a source among the requests of its group
    (``group`` per request, -1: none may be copied; ``head_group`` per head): the latest at
    or before its ``target`` position (``nearest``: or the next one, when that is nearer the
    target and still before the head at ``head_pos``). With ``unique``, step back over
    requests another head already copies (at most ``max_steps``) and claim the first free
    one, recorded in ``taken`` (updated in place, so heads claimed in several calls never
    share a source). Where a head's group has no request, it searches its group
    ``head_fallback[h]`` of the grouping ``fallback`` (per request; empty: none) instead.
    Returns the trace position per head, -1 where none was found (that head takes a new
    address). The candidates are sorted into their groups by counting, so the cost is a
    pass over the requests per grouping and a binary search per head."""
    start, positions = _grouped(group, n_groups)
    start2, positions2 = _grouped(fallback, n_groups)
    if len(fallback) == 0:
        start2 = start2[:0]
    return _claim(
        start,
        positions,
        start2,
        positions2,
        head_group,
        head_fallback,
        target,
        head_pos,
        nearest,
        unique,
        taken,
        max_steps,
    )


SIZE_CLASSES = 128  # power-of-two classes of sizes in sectors (< 2**64), writes 64 on


@inlined()
def size_class(size: int, write: bool) -> int:
    """Power-of-two class of a size in 512 B sectors (at least 1): the exponent of the sectors
    rounded to float32 (as ``np.frexp`` of a float32 array gives it), writes 64 on."""
    sectors = max(size >> 9, 1)
    exponent = math.frexp(np.float64(np.float32(sectors)))[1]
    return exponent - 1 + (64 if write else 0)


@numba.njit(cache=True)
def pick_into(
    cdf: np.ndarray, u: np.ndarray, values: np.ndarray, out: np.ndarray, at: np.ndarray
) -> None:
    """``out[at[i]] = values[min(searchsorted(cdf, u[i], "right"), len(values) - 1)]``: the
    value each inverse-CDF draw ``u`` picks, written where it goes (``at`` empty: ``out[i]``;
    ``values`` empty: the index itself)."""
    last = len(cdf) - 1 if len(values) == 0 else len(values) - 1
    scatter = len(at) > 0
    for i in range(len(u)):
        a, b = 0, len(cdf)  # the first index whose cdf exceeds u
        x = u[i]
        while a < b:
            mid = (a + b) // 2
            if cdf[mid] <= x:
                a = mid + 1
            else:
                b = mid
        k = min(a, last)
        v = k if len(values) == 0 else values[k]
        if scatter:
            out[at[i]] = v
        else:
            out[i] = v


@numba.njit(cache=True)
def overlap_sources(
    runs: np.ndarray,
    run_bytes: np.ndarray,
    is_write: np.ndarray,
    pages: np.ndarray,
    u: np.ndarray,
    written: np.ndarray,
    distance: np.ndarray,
    heads: np.ndarray,
    page: int,
    by_class: np.ndarray,
    by_type: np.ndarray,
    taken: np.ndarray,
    max_steps: int,
    out: np.ndarray,
) -> None:
    """The run each overlapping head continues (a trace position into ``out``, -1: none):
    among the ``runs`` at a new address of the head's drawn type (a write where its uniform
    draw ``u`` is below ``written`` of its own type) and of the size class of ``pages`` + 1
    pages, the one nearest its drawn ``distance`` back, before the head; where that class
    has none free, any run of the type. Each run is continued by one head of each type at
    most (a write appended to it, a read of part of it; the nearest free one, stepping back
    at most ``max_steps`` runs; ``taken``: uint8 per request, in place;
    :func:`_claim_room`): heads piled on one run would each share one more of its
    pages than the one before (:func:`lift_shared_pages`), far more than the trace's heads
    share, and those past its pages would start on others' start pages (reuses at short
    distance, not overlaps: reuse concentrated on few pages). ``by_class`` and ``by_type``
    (int64) are work space of one element per run."""
    count = np.zeros(SIZE_CLASSES + 1, dtype=np.int64)
    count2 = np.zeros(3, dtype=np.int64)
    for i in range(len(runs)):
        r = runs[i]
        count[size_class(run_bytes[r], is_write[r]) + 1] += 1
        count2[(1 if is_write[r] else 0) + 1] += 1
    start, start2 = np.cumsum(count), np.cumsum(count2)
    fill, fill2 = start[:-1].copy(), start2[:-1].copy()
    for i in range(len(runs)):  # the runs of each class (type), in trace order
        r = runs[i]
        g = size_class(run_bytes[r], is_write[r])
        by_class[fill[g]] = r
        fill[g] += 1
        t = 1 if is_write[r] else 0
        by_type[fill2[t]] = r
        fill2[t] += 1
    blocks = _block_starts(start, by_class, len(is_write))
    blocks2 = _block_starts(start2, by_type, len(is_write))
    for h in range(len(heads)):
        over_w = u[h] < written[1 if is_write[heads[h]] else 0]
        mine = 2 if is_write[heads[h]] else 1
        g = size_class((pages[h] + 1) * page, over_w)
        t = heads[h] - distance[h]
        out[h] = -1
        if start[g + 1] > start[g]:
            out[h] = _claim_room(
                start, by_class, blocks, g, t, heads[h], pages[h], run_bytes, page, taken,
                mine, max_steps,
            )  # fmt: skip
        if out[h] < 0:
            out[h] = _claim_room(
                start2, by_type, blocks2, 1 if over_w else 0, t, heads[h], pages[h], run_bytes,
                page, taken, mine, max_steps,
            )  # fmt: skip


@inlined()
def _claim_room(
    start: np.ndarray,
    positions: np.ndarray,
    blocks: np.ndarray,
    g: int,
    t: int,
    head_pos: int,
    pages: int,
    run_bytes: np.ndarray,
    page: int,
    taken: np.ndarray,
    mine: int,
    max_steps: int,
) -> int:
    """The run of group ``g`` nearest ``t`` (before ``head_pos``) that no other head of this
    one's type continues (``taken``: per request, bit ``mine`` of the head's type set, in
    place) and that can share ``pages`` of its pages from another start page (it has two
    pages at least), stepping back at most ``max_steps`` runs; -1: none."""
    lo = start[g]
    k = _search_start(start, positions, blocks, g, t, head_pos, True)
    steps = 0
    while k >= lo and steps <= max_steps:
        r = positions[k]
        if pages >= 1 and not (taken[r] & mine) and run_bytes[r] > page:
            taken[r] |= mine
            return r
        k -= 1
        steps += 1
    return -1


@numba.njit(cache=True)
def found_overlaps(
    heads: np.ndarray,
    src: np.ndarray,
    pages: np.ndarray,
    run_bytes: np.ndarray,
    page: int,
    most: np.ndarray,
) -> tuple[int, int]:
    """The overlapping heads that found a run (``src`` >= 0), moved to the front of
    ``heads``, ``src`` and ``pages`` in order (in place), with the most pages each can share
    from another start page (its run's pages less one, at least 0; into ``most``) and its
    ``pages`` capped to that. Returns (how many, the most pages any of them shares)."""
    k = 0
    top = 0
    for i in range(len(src)):
        if src[i] < 0:
            continue
        heads[k], src[k] = heads[i], src[i]
        most[k] = max(-(-run_bytes[src[k]] // page), 1) - 1
        pages[k] = min(pages[i], most[k])
        top = max(top, pages[k])
        k += 1
    return k, top


@numba.njit(cache=True)
def packed_keys(src: np.ndarray, pages: np.ndarray, top: int, out: np.ndarray) -> None:
    """``(src * top + pages) * len + index`` per element, into ``out``: sorted, and taken
    modulo len, the stable order by (src, pages)."""
    m = len(src)
    for i in range(m):
        out[i] = (src[i] * top + pages[i]) * m + i


@numba.njit(cache=True)
def keep_overlaps(
    heads: np.ndarray,
    src: np.ndarray,
    pages: np.ndarray,
    most: np.ndarray,
    u: np.ndarray,
    is_write: np.ndarray,
    kept: np.ndarray,
    source: np.ndarray,
    share: np.ndarray,
) -> None:
    """Each head's overlap, into ``source`` and ``share`` (in place), unless it shares no
    page or more than its run can share from another start page (``most``) and its uniform
    draw ``u`` is at or above ``kept`` of its type (it then keeps its new address)."""
    for i in range(len(heads)):
        clash = pages[i] > most[i] and u[i] >= kept[1 if is_write[heads[i]] else 0]
        if pages[i] >= 1 and not clash:
            source[heads[i]] = src[i]
            share[heads[i]] = pages[i]


@numba.njit(cache=True)
def lift_shared_pages(src: np.ndarray, pages: np.ndarray, order: np.ndarray) -> None:
    """Heads continuing one run (``src``) share different numbers of its pages: in ``order``
    (by run, then pages, then head), each head's pages become at least one more than the
    head's before it in the same run (in place)."""
    last_src = -1
    last = 0
    for i in range(len(order)):
        k = order[i]
        value = pages[k]
        if src[k] == last_src and last + 1 > value:
            value = last + 1
        pages[k] = value
        last_src, last = src[k], value


@inlined()
def _over(start: int, end: int, pages: int, page: int, alignment: int) -> int:
    """Start of a request that continues the run at [start, end) from another start page,
    sharing ``pages`` of its last pages (of ``page`` bytes; fewer when the run is shorter).
    -1: the run lies in one page (the request is then placed as a new one)."""
    k = min(pages, (end - 1) // page - start // page)
    if k < 1:
        return -1
    off = end - (k - 1) * page - (page if end % page == 0 else 0)
    return off // alignment * alignment


@numba.njit(cache=True)
def resolve_offsets_into(
    is_write: np.ndarray,
    seq: np.ndarray,
    sizes: np.ndarray,
    source: np.ndarray,
    drawn: np.ndarray,
    run_bytes: np.ndarray,
    footprint: int,
    alignment: int,
    share: np.ndarray,
    page: int,
    out: np.ndarray,
) -> None:
    """:func:`resolve_offsets` into ``out`` (which may be ``drawn`` itself: each request
    reads its own drawn offset before its offset is written)."""
    last_end = np.full(2, -1, dtype=np.int64)
    for r in range(len(sizes)):
        t = 1 if is_write[r] else 0
        if seq[r]:
            off = last_end[t]
        else:
            off = drawn[r]
            q = source[r]
            if q >= 0:
                at = out[q]
                if share[r] > 0:
                    at = _over(out[q], out[q] + run_bytes[q], share[r], page, alignment)
                if at >= 0:
                    limit = (footprint - run_bytes[r]) // alignment * alignment
                    off = max(min(at, limit), 0)
            if off == last_end[t]:
                off = (
                    off + alignment
                    if off + alignment + run_bytes[r] <= footprint
                    else off - alignment
                )
        out[r] = off
        last_end[t] = off + sizes[r]


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
    share: np.ndarray,
    page: int,
) -> np.ndarray:
    """Offsets in one pass in trace order: a sequential request continues its type's
    previous request; a run head copies the offset of its ``source`` (an earlier request,
    so already resolved) or, where ``share`` > 0, continues that source's run (the source is
    a run head; ``run_bytes`` per head) from another start page, sharing that many of its
    last pages of ``page`` bytes (:func:`_over`); moved down if its run would
    pass the footprint's end, up if before its start; else it takes its ``drawn`` new
    offset. A head that would land exactly where its type's previous request ended (and so
    count as sequential) moves by one alignment unit."""
    out = np.empty(len(sizes), dtype=np.int64)
    resolve_offsets_into(
        is_write, seq, sizes, source, drawn, run_bytes, footprint, alignment, share, page, out
    )
    return out


@numba.njit(cache=True)
def copy_sizes(sizes: np.ndarray, at: np.ndarray, source: np.ndarray) -> None:
    """The requests at ``at`` (ascending trace positions) take the sizes of their ``source``
    (earlier requests), in trace order, so a copy of a copy gets the original's (in place)."""
    for i in range(len(at)):
        sizes[at[i]] = sizes[source[i]]


@numba.njit(cache=True)
def run_structure(
    is_write: np.ndarray, seq: np.ndarray, head: np.ndarray, single: np.ndarray, length: np.ndarray
) -> None:
    """Per request (in place): the head of its run (the latest request of its type at or
    before it that is not sequential; before a type's first head, its last, as
    :func:`skftl.traces.locality.run_heads` has it) and whether it starts a run of one; per
    run head (in trace order) its run's requests."""
    last = np.full(2, -1, dtype=np.int64)  # per type: its latest head and that head's index
    index = np.full(2, -1, dtype=np.int64)
    heads = 0
    for r in range(len(seq)):
        if not seq[r]:
            t = 1 if is_write[r] else 0
            last[t], index[t] = r, heads
            heads += 1
    length[:] = 0
    heads = 0
    for r in range(len(seq)):
        t = 1 if is_write[r] else 0
        if not seq[r]:
            last[t], index[t] = r, heads
            heads += 1
        head[r] = last[t]
        length[index[t]] += 1
    heads = 0
    for r in range(len(seq)):
        single[r] = False
        if not seq[r]:
            single[r] = length[heads] == 1
            heads += 1


@numba.njit(cache=True)
def heads_of(
    pos: np.ndarray, is_write: np.ndarray, length: np.ndarray, t: int, runs: int
) -> np.ndarray:
    """The indices of the run heads (trace positions ``pos``, their runs ``length`` requests
    long) of type ``t`` (1: writes) whose runs are of one request (``runs`` 0), of more (2)
    or any (1)."""
    count = 0
    for h in range(len(pos)):
        if (1 if is_write[pos[h]] else 0) == t and (runs == 1 or (length[h] > 1) == (runs == 2)):
            count += 1
    out = np.empty(count, dtype=np.int64)
    count = 0
    for h in range(len(pos)):
        if (1 if is_write[pos[h]] else 0) == t and (runs == 1 or (length[h] > 1) == (runs == 2)):
            out[count] = h
            count += 1
    return out


@numba.njit(cache=True)
def head_counts(
    pos: np.ndarray, is_write: np.ndarray, length: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per type (reads, writes): the run heads (trace positions ``pos``, their runs
    ``length`` requests long), and those of runs of one request."""
    total = np.zeros(2, dtype=np.int64)
    single = np.zeros(2, dtype=np.int64)
    for h in range(len(pos)):
        t = 1 if is_write[pos[h]] else 0
        total[t] += 1
        if length[h] == 1:
            single[t] += 1
    return total, single


@numba.njit(cache=True)
def mark_heads(
    pos: np.ndarray, choice: np.ndarray, is_write: np.ndarray, marks: np.ndarray
) -> None:
    """Bit 1 of ``marks`` at the run heads (``pos``) that reuse an address (``choice`` > 0:
    1 a read's, 2 a write's), and bit 4 where it is the other type's (a read of a write's
    address, a write of a read's)."""
    for h in range(len(pos)):
        if choice[h] > 0:
            marks[pos[h]] |= 1
            if (choice[h] == 2) != is_write[pos[h]]:
                marks[pos[h]] |= 4


@numba.njit(cache=True)
def heads_at_new_address(
    pos: np.ndarray, choice: np.ndarray, is_write: np.ndarray, write: bool
) -> np.ndarray:
    """The run heads (trace positions ``pos``) of the type ``write`` that take a new address
    (``choice`` 0), in trace order."""
    count = 0
    for h in range(len(pos)):
        if choice[h] == 0 and is_write[pos[h]] == write:
            count += 1
    out = np.empty(count, dtype=np.int64)
    count = 0
    for h in range(len(pos)):
        if choice[h] == 0 and is_write[pos[h]] == write:
            out[count] = pos[h]
            count += 1
    return out


@numba.njit(cache=True)
def reuse_cells(
    pos: np.ndarray, is_write: np.ndarray, distance: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per [type, time slice] (flat, reads first; the slices begin at ``starts``, then the
    trace's length): the run heads (trace positions ``pos``) and those whose drawn
    ``distance`` reaches back into the trace (distance <= position)."""
    slices = len(starts) - 1
    heads = np.zeros(2 * slices, dtype=np.int64)
    reached = np.zeros(2 * slices, dtype=np.int64)
    for h in range(len(pos)):
        p = pos[h]
        cell = (slices if is_write[p] else 0) + np.searchsorted(starts, p, side="right") - 1
        heads[cell] += 1
        if distance[h] <= p:
            reached[cell] += 1
    return heads, reached


@numba.njit(cache=True)
def choose_reuse(
    u: np.ndarray,
    pos: np.ndarray,
    is_write: np.ndarray,
    single: np.ndarray,
    distance: np.ndarray,
    starts: np.ndarray,
    reached: np.ndarray,
    factor: np.ndarray,
    scaled: np.ndarray,
    single_factor: np.ndarray,
    other_factor: np.ndarray,
    first: np.ndarray,
    both: np.ndarray,
) -> np.ndarray:
    """Per run head: 0 new address, 1 copy a read, 2 copy a write (int8), from its uniform
    draw ``u`` and the probabilities of its [type, time slice] (slices begin at ``starts``;
    ``first``: copy a read, ``both``: copy either), each times the head's factor:
    ``factor`` (its run length's weight; empty: 1), set to ``single_factor`` for a run of
    one and multiplied by ``other_factor`` otherwise where its type is ``scaled``, then by
    whether its distance reaches back over the share of its [type, slice] that reach
    (``reached``, flat)."""
    slices = first.shape[1]
    weighted = len(factor) > 0
    out = np.zeros(len(u), dtype=np.int8)
    for h in range(len(u)):
        p = pos[h]
        t = 1 if is_write[p] else 0
        k = np.searchsorted(starts, p, side="right") - 1
        f = factor[h] if weighted else 1.0
        if scaled[t]:
            if single[p]:
                f = single_factor[t]
            else:
                f = f * other_factor[t]
        f = f * ((1.0 if distance[h] <= p else 0.0) / max(reached[t * slices + k], 1e-12))
        if u[h] < first[t, k] * f:
            out[h] = 1
        elif u[h] < both[t, k] * f:
            out[h] = 2
    return out


@numba.njit(cache=True)
def claim_sources(
    want: np.ndarray,
    pos: np.ndarray,
    choice: np.ndarray,
    distance: np.ndarray,
    is_write: np.ndarray,
    sizes: np.ndarray,
    seq: np.ndarray,
    single: np.ndarray,
    run_head: np.ndarray,
    over: np.ndarray,
    max_steps: int,
    classes: np.ndarray,
    flags: np.ndarray,
    positions: np.ndarray,
    out: np.ndarray,
) -> None:
    """The request each copying head copies, into ``out`` (``want``: indices into the run
    heads ``pos``, whose ``choice`` says the source's type; -1: none found, the head takes a
    new address),
    each request copied at most once. Every head copies a request of its own size class
    (:func:`size_class`) of the chosen type, the nearest to its drawn ``distance`` back, in
    three passes in trace order: the heads of runs of one among all requests; the heads whose
    run goes on and that go over an earlier run (``over``) among the heads of runs that went
    on; the others among the last requests of runs at a new address (they append to them).
    ``classes`` (int16), ``flags`` (uint8) and ``positions`` (int64) are work space of one
    element per request."""
    n = len(is_write)
    fresh_run, tail, taken = 1, 2, 4  # bits of flags
    for r in range(n):
        classes[r] = size_class(sizes[r], is_write[r])
        flags[r] = 0
    for i in range(len(pos)):
        if choice[i] == 0:
            flags[pos[i]] |= fresh_run
    next_seq = np.zeros(2, dtype=np.bool_)
    for r in range(n - 1, -1, -1):  # the next request of its type is not sequential
        t = 1 if is_write[r] else 0
        if not next_seq[t]:
            flags[r] |= tail
        next_seq[t] = seq[r]
    m = len(want)
    head_class = np.empty(m, dtype=np.int16)
    kind = np.empty(m, dtype=np.int8)  # the pass: 0 a run of one, 1 goes over, 2 appends
    for h in range(m):
        p = pos[want[h]]
        head_class[h] = size_class(sizes[p], choice[want[h]] == 2)
        kind[h] = 0 if single[p] else (1 if over[h] else 2)
    run_class = classes[:0]
    if np.any(kind == 1):  # a run that goes over another is of its length class, not its
        # head's size class: it then ends about where its source's run did, inside the
        # pages that run touched (else its last requests go on past them, onto new pages)
        run_bytes = np.empty(n, dtype=np.int64)
        run_class = np.empty(n, dtype=np.int16)
        run_bytes_into(is_write, seq, sizes, run_head, run_bytes, run_bytes[:0])
        for r in range(n):
            run_class[r] = size_class(run_bytes[r], is_write[r]) if run_bytes[r] else 0
        for h in range(m):
            if kind[h] == 1:
                p = pos[want[h]]
                head_class[h] = size_class(run_bytes[p], choice[want[h]] == 2)
    out[:] = -1
    for which in range(3):
        if not np.any(kind == which):
            continue
        key = run_class if which == 1 else classes
        count = np.zeros(SIZE_CLASSES + 1, dtype=np.int64)
        for r in range(n):  # by size class
            if which == 0 or (  # the requests this pass may copy
                (not seq[r] and not single[r])
                if which == 1
                else ((flags[r] & tail) != 0 and (flags[run_head[r]] & fresh_run) != 0)
            ):
                count[key[r] + 1] += 1
        start = np.cumsum(count)
        fill = start[:-1].copy()
        for r in range(n):
            if which == 0 or (  # the requests this pass may copy
                (not seq[r] and not single[r])
                if which == 1
                else ((flags[r] & tail) != 0 and (flags[run_head[r]] & fresh_run) != 0)
            ):
                positions[fill[key[r]]] = r
                fill[key[r]] += 1
        blocks = _block_starts(start, positions, n)
        for h in range(m):
            if kind[h] != which:
                continue
            p = pos[want[h]]
            out[h] = _claim_flagged(
                start, positions, blocks, head_class[h], p - distance[want[h]], p, flags, taken,
                max_steps,
            )  # fmt: skip


@inlined()
def _claim_flagged(
    start: np.ndarray,
    positions: np.ndarray,
    blocks: np.ndarray,
    g: int,
    t: int,
    head_pos: int,
    flags: np.ndarray,
    taken: int,
    max_steps: int,
) -> int:
    """:func:`_claim_head` (nearest, unique) with what is taken as bit ``taken`` of
    ``flags``."""
    lo = start[g]
    k = _search_start(start, positions, blocks, g, t, head_pos, True)
    steps = 0
    while k >= lo and (flags[positions[k]] & taken) and steps < max_steps:
        k -= 1
        steps += 1
    if k >= lo and not (flags[positions[k]] & taken):
        flags[positions[k]] |= taken
        return positions[k]
    return -1


BLOCK_SHIFT = 12  # the trace in blocks of 4,096 positions for the searches of a group


@numba.njit(cache=True)
def _block_starts(start: np.ndarray, positions: np.ndarray, span: int) -> np.ndarray:
    """Per group (``start``: its first index in ``positions``, ascending trace positions
    below ``span`` per group) and per block of 2 ** BLOCK_SHIFT trace positions, the first
    index of the group at or after the block's start: a search for a position then bisects
    one block's few requests (nearby in memory) instead of the whole group (a cache miss per
    step in a group of millions)."""
    blocks = (span >> BLOCK_SHIFT) + 2
    out = np.empty((len(start) - 1, blocks), dtype=np.int64)
    for g in range(len(start) - 1):
        i, hi = start[g], start[g + 1]
        for b in range(blocks):
            edge = b << BLOCK_SHIFT
            while i < hi and positions[i] < edge:
                i += 1
            out[g, b] = i
    return out


@inlined()
def _first_above(positions: np.ndarray, lo: int, blocks: np.ndarray, g: int, t: int) -> int:
    """The first index of group ``g`` (from ``lo``) whose position is above ``t``: a
    bisection inside t's block (:func:`_block_starts`)."""
    if t < 0:
        return lo
    b = t >> BLOCK_SHIFT
    if b + 1 >= blocks.shape[1]:  # past the span: every position is at most t
        return blocks[g, blocks.shape[1] - 1]
    a, c = blocks[g, b], blocks[g, b + 1]
    while a < c:
        mid = (a + c) // 2
        if positions[mid] <= t:
            a = mid + 1
        else:
            c = mid
    return a


@numba.njit(cache=True)
def interp_into(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> None:
    """``x[:] = np.interp(x, xp, fp)`` for strictly increasing ``xp`` (at least two knots),
    with NumPy's arithmetic (the same values to the last bit), by a binary search per value."""
    last = len(xp) - 1
    slopes = np.empty(last, dtype=np.float64)
    for j in range(last):
        slopes[j] = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    for i in range(len(x)):
        v = x[i]
        if np.isnan(v):
            continue
        if v < xp[0]:
            x[i] = fp[0]
            continue
        if v > xp[last]:
            x[i] = fp[last]
            continue
        a, b = 0, last + 1  # j: the last knot <= v
        while b - a > 1:
            mid = (a + b) // 2
            if xp[mid] <= v:
                a = mid
            else:
                b = mid
        j = a
        if j == last or xp[j] == v:
            x[i] = fp[j]
            continue
        y = slopes[j] * (v - xp[j]) + fp[j]
        if np.isnan(y):
            y = slopes[j] * (v - xp[j + 1]) + fp[j + 1]
            if np.isnan(y) and fp[j] == fp[j + 1]:
                y = fp[j]
        x[i] = y


@numba.njit(cache=True)
def round_at_least_one(x: np.ndarray) -> np.ndarray:
    """``np.maximum(np.rint(x).astype(np.int64), 1)``, in the memory of ``x`` (returned as
    int64; ``x`` is used up)."""
    out = x.view(np.int64)
    for i in range(len(x)):
        out[i] = max(np.int64(np.rint(x[i])), 1)
    return out


@numba.njit(cache=True)
def size_groups(
    is_write: np.ndarray,
    seq: np.ndarray,
    marks: np.ndarray,
    reuse_sizes: np.ndarray,
    follow_sizes: np.ndarray,
    overlap_read_sizes: bool,
    other_sizes: np.ndarray,
    members: np.ndarray,
) -> np.ndarray:
    """Which size distribution each request draws from, as groups of ascending trace
    positions (the group starts returned, the positions into ``members``): per type (reads
    0-3, writes 4-7) the run heads at a new address (and the sequential requests, unless the
    type has ``follow_sizes``: then 1), the reusing heads (``marks`` bit 1) where the type
    has ``reuse_sizes`` (else with the new ones: 2), the overlapping read heads (bit 2)
    where ``overlap_read_sizes`` (3), and the reusing heads of the other type's address (bit
    4: reads 8, writes 9) where the type has ``other_sizes``."""
    label = np.empty(32, dtype=np.int64)  # by type, sequential, and the three marks
    for t in range(2):
        for sq in range(2):
            for mark in range(8):
                if t == 0 and overlap_read_sizes and mark & 2:
                    v = 3
                elif other_sizes[t] and mark & 1 and mark & 4:
                    v = 8 + t
                elif reuse_sizes[t] and mark & 1:
                    v = 4 * t + 2
                elif follow_sizes[t] and sq:
                    v = 4 * t + 1
                else:
                    v = 4 * t
                label[16 * t + 8 * sq + mark] = v
    count = np.zeros(11, dtype=np.int64)
    for r in range(len(is_write)):
        k = label[(16 if is_write[r] else 0) + (8 if seq[r] else 0) + (marks[r] & 7)]
        count[k + 1] += 1
    start = np.cumsum(count)
    fill = start[:-1].copy()
    for r in range(len(is_write)):
        k = label[(16 if is_write[r] else 0) + (8 if seq[r] else 0) + (marks[r] & 7)]
        members[fill[k]] = r
        fill[k] += 1
    return start


@numba.njit(cache=True)
def run_bytes_into(
    is_write: np.ndarray,
    seq: np.ndarray,
    sizes: np.ndarray,
    run_head: np.ndarray,
    run_bytes: np.ndarray,
    into: np.ndarray,
) -> int:
    """Per run head the bytes of its run (0 elsewhere; into ``run_bytes``), per request the
    bytes of its run before it (into ``into``; empty: not wanted); returns the longest run.
    A run is its head and the sequential requests of its type after it (a type's first
    request is a head in a generated trace)."""
    run_bytes[:] = 0
    base = np.zeros(2, dtype=np.int64)  # per type: its bytes before its latest head
    total = np.zeros(2, dtype=np.int64)
    wanted = len(into) > 0
    for r in range(len(sizes)):
        t = 1 if is_write[r] else 0
        if not seq[r]:
            base[t] = total[t]
        if wanted:
            into[r] = total[t] - base[t]
        total[t] += sizes[r]
        run_bytes[run_head[r]] += sizes[r]
    longest = 0
    for r in range(len(sizes)):
        longest = max(longest, run_bytes[r])
    return longest


@numba.njit(cache=True)
def clip_copies(
    copies: np.ndarray,
    src: np.ndarray,
    sizes: np.ndarray,
    run_bytes: np.ndarray,
    run_head: np.ndarray,
    into: np.ndarray,
) -> bool:
    """Each copying head (``copies``, copying ``src``) at most the bytes from its source to
    the end of the source's run (in place); whether any changed."""
    changed = False
    for i in range(len(copies)):
        reach = run_bytes[run_head[src[i]]] - into[src[i]]
        if sizes[copies[i]] > reach:
            sizes[copies[i]] = reach
            changed = True
    return changed


@numba.njit(cache=True)
def copy_spill(
    copies: np.ndarray,
    src: np.ndarray,
    run_bytes: np.ndarray,
    run_head: np.ndarray,
    into: np.ndarray,
    source: np.ndarray,
    spill: np.ndarray,
) -> None:
    """Per request the request it copies (``source``, -1: none) and per copying head the bytes
    of its run past the end of its source's run (``spill``, 0 elsewhere), in place."""
    source[:] = -1
    spill[:] = 0
    for i in range(len(copies)):
        c, s = copies[i], src[i]
        source[c] = s
        spill[c] = max(run_bytes[c] - (run_bytes[run_head[s]] - into[s]), 0)


@numba.njit(cache=True)
def new_runs(
    pos: np.ndarray, source: np.ndarray, share: np.ndarray, shared: bool, out: np.ndarray
) -> None:
    """Per run head (``pos``), into ``out``: it has no source (``shared``: or shares pages
    with one, and so is laid out as a new run first)."""
    for i in range(len(pos)):
        p = pos[i]
        out[i] = source[p] < 0 or (shared and share[p] > 0)


@numba.njit(cache=True)
def continuation_room(
    roots: np.ndarray,
    source: np.ndarray,
    share: np.ndarray,
    run_head: np.ndarray,
    run_bytes: np.ndarray,
    spill: np.ndarray,
    page: int,
    anchor: np.ndarray,
    room: np.ndarray,
    own: np.ndarray,
    kept: np.ndarray,
) -> None:
    """Per new run (``roots``): its bytes (into ``own``) and the bytes of the runs that
    continue it, and a page each (into ``kept``), kept free after it: the runs that overlap
    its end (``share`` > 0: their bytes) and the copies that go on past the end of their
    source's run (their ``spill``), along chains of such runs to the first. ``anchor`` and
    ``room`` are work space of one element per request."""
    n = len(source)
    for r in range(n):
        anchor[r] = r
        room[r] = 0
    for r in range(n):  # a source precedes its copy: its anchor is final when r comes
        over = share[r] > 0
        if over or (source[r] >= 0 and share[r] == 0 and spill[r] > 0):
            root = anchor[run_head[source[r]]]
            anchor[r] = root
            room[root] += (run_bytes[r] if over else spill[r]) + page
    for i in range(len(roots)):
        own[i] = run_bytes[roots[i]]
        kept[i] = room[roots[i]]


@numba.njit(cache=True)
def fresh_units(
    run_bytes: np.ndarray, into: np.ndarray, room: np.ndarray, grid: int, units: np.ndarray
) -> int:
    """Grid units each new run takes (into ``units``): its ``run_bytes`` from ``into`` bytes
    past its first unit (empty: 0), rounded up, and its ``room`` rounded up; returns their
    sum."""
    total = 0
    for i in range(len(run_bytes)):
        start = into[i] if len(into) else 0
        units[i] = -(-(run_bytes[i] + start) // grid) + -(-room[i] // grid)
        total += units[i]
    return total


@numba.njit(cache=True)
def place_fresh(
    roots: np.ndarray,
    order: np.ndarray,
    cuts: np.ndarray,
    units: np.ndarray,
    into: np.ndarray,
    grid: int,
    drawn: np.ndarray,
) -> None:
    """New runs side by side: the ``order``-th run after the free space ``cuts`` (sorted)
    and the units of the runs before it, at ``into`` bytes past its grid unit (empty: 0),
    into ``drawn`` at the runs' positions ``roots`` (in place)."""
    used = 0
    shifted = len(into) > 0
    for i in range(len(order)):
        k = order[i]
        start = cuts[i] + used
        used += units[k]
        drawn[roots[k]] = start * grid + (into[k] if shifted else 0)


@numba.njit(cache=True)
def arrival_times(sorted_gaps: np.ndarray, mean: float, order: np.ndarray, mean_gap: float, out):
    """Arrivals (int64 ns, into ``out``): the first at 0, then the running sum of the gaps
    ``sorted_gaps / mean`` (``mean`` 0: as they are) taken in ``order``, each times
    ``mean_gap``, in float64 as ``np.cumsum`` adds them, truncated."""
    total = 0.0
    if len(out):
        out[0] = 0
    for i in range(len(order)):
        g = sorted_gaps[order[i]]
        if mean > 0:
            g = g / mean
        total = total + g * mean_gap
        out[i + 1] = np.int64(total)


@numba.njit(cache=True)
def dense_order(
    is_write: np.ndarray, sizes: np.ndarray, unit: int, width: int, order: np.ndarray
) -> np.ndarray:
    """The stable order of the requests by (type, size) into ``order``, by counting over the
    keys type * ``width`` + size // ``unit`` (sizes multiples of ``unit``, below
    ``width`` units); returns per key value v in 0..2 * width the requests below v."""
    below = np.zeros(2 * width + 1, dtype=np.int64)
    for i in range(len(sizes)):
        below[(width if is_write[i] else 0) + sizes[i] // unit + 1] += 1
    for v in range(2 * width):
        below[v + 1] += below[v]
    fill = below[:-1].copy()
    for i in range(len(sizes)):
        key = (width if is_write[i] else 0) + sizes[i] // unit
        order[fill[key]] = i
        fill[key] += 1
    return below


@numba.njit(cache=True)
def run_marks(follow: np.ndarray, at: np.ndarray, seq: np.ndarray) -> None:
    """A chain's runs into ``seq`` at the chain's positions ``at`` (in place): each run head
    (not sequential), then its ``follow`` sequential requests."""
    k = 0
    for j in range(len(follow)):
        seq[at[k]] = False
        for f in range(1, follow[j] + 1):
            seq[at[k + f]] = True
        k += 1 + follow[j]
