"""The LPMT + block-table kernel: one pass over an operation stream in which every
probe of a set way and every block-table entry read is a timed DRAM read.

Data structure (set ids ``g < P`` are primary, ``P <= g < P+S`` secondary; the
per-set arrays are strided views of one record per set, see :func:`set_record_dtype`,
which the lookup reads through flat views, see :func:`record_index`):

* ``ent_key[g, w]``, ``ent_pa[g, w]`` (first page of the file), ``ent_flags[g, w]``
  (bit 0 valid, bit 1 single-page file) - Fig. 1's entries;
* ``set_next[g]`` / ``set_prev[g]`` - NSid / PSid, the chain of secondary sets that
  extend a primary set (-1 = none); ``set_count[g]`` - valid entries in the set;
* ``bt_next[p]`` / ``bt_prev[p]`` / ``bt_flags[p]`` (bit 0 valid, 1 first, 2 last) -
  the block tables of Fig. 2: a file's pages as a doubly linked list; the first page's
  ``bt_prev`` is its LPMT entry's location ``g * assoc + w`` (PPid of a first page);
* free stacks of secondary sets and of physical pages (LIFO: a freed id is reused
  first; the initial order pops the lowest id first).

Semantics of one operation (key, home set, argument):

* the lookup probes the chain from the home set: every way of every set read, in the
  placement's read order, then, for a multi-page file, every BT entry of its chain.
  These reads are the operation's latency. An early exit cuts a set's probe short: at
  the read of the matching way (``match``), or also, in a set without the key, at the
  read that completes ways 0..e, e the set's first invalid way (``match_or_empty``:
  inserts fill the first free way, so no later way holds the key). Only the reads are
  cut: which set and way hold the key, and so every hit, miss and insert, is the same
  under every stop rule (the chain walk goes on to the next set as before; after a
  delete a hole may precede the key, which a real probe stopping there would miss).
  Row hits are counted per bank (a bank's open row), with ``per_probe`` row-hit
  accounting as one activation per set probe (the probe's first read meets the bank as
  it is, its other reads find the set's row open: Table V's ~7/8 row hits under every
  placement), or with the ``window`` rule of Fig. 6 / Table V (paper timing model): a
  read is a row hit iff the nearest read of its bank within the last ``window`` reads
  had its row, else "no repeat" when there is none (timing.close_idle);
* READ: a hit is done; a miss inserts the file (``arg`` pages) when ``insert_on_miss``;
* WRITE: a miss inserts; a hit remaps the file out of place to ``arg`` fresh pages;
* DELETE: invalidates the entry, frees its pages, and frees a secondary set that
  became empty (unlinking it from the middle or end of its chain);
* DELETE_PAGE: unlinks page ``arg`` (0-based) of the file's chain, from the front,
  the middle or the end; a file left with no page is deleted.

Inserts fill the first free way, in way order, along the chain; a full chain gets a
new secondary set appended at its end. Writes to the tables are not timed (posted).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from skftl.dram.layout import (
    LP_DYNAMIC,
    LP_INTERLEAVED,
    LP_K,
    LP_NB,
    LP_WPB,
    Layout,
    bt_address,
    chunk_bank,
    chunk_order,
    layout_tuple,
    log2_or_minus1,
    set_address,
    with_shape,
)
from skftl.dram.prefetch import prefetch
from skftl.dram.steady import (
    CLS_FLUSH,
    FIRST_SHIFT,
    M_CLS,
    M_HITS,
    M_LAT,
    M_NEXT,
    N_BANKS,
    after_steady,
    caught_up,
    class_snapshot,
    classes_since,
    flush_classes,
    memo_find,
    memo_put,
    probe_state,
)
from skftl.dram.timing import (
    B_LAST_IDX,
    B_OPEN,
    MODELS,
    S_COUNT,
    S_NEXT_REF,
    S_PREV_RD,
    TP_DL,
    TP_LEN,
    TP_MODEL,
    TP_WINDOW,
    DramTiming,
    advanced,
    bank_at,
    close_idle,
    conflicts,
    flush_tally,
    load_state,
    paper_conflict,
    paper_read_run,
    params_tuple,
    read_run,
    repeat_pass_ok,
    repeat_read,
    store_state,
    strict_read_run,
    strict_read_run_call,
)
from skftl.numba_cache import drop_stale_cache

# the kernel inlines layout, prefetch, steady and timing
_HERE = Path(__file__).parent
drop_stale_cache(__file__, *(_HERE / f"{m}.py" for m in ("layout", "prefetch", "steady", "timing")))

OP_READ, OP_WRITE, OP_DELETE, OP_DELETE_PAGE = 0, 1, 2, 3
OP_NAMES = {"read": OP_READ, "write": OP_WRITE, "delete": OP_DELETE, "delete_page": OP_DELETE_PAGE}

ST_MISS, ST_HIT, ST_INSERTED, ST_FAILED = 0, 1, 2, 3

F_VALID, F_SINGLE = 1, 2
BT_VALID, BT_FIRST, BT_LAST = 1, 2, 4

# config vector; C_REC64..C_NEXT64: the record index (record_index)
C_PRIMARY, C_ASSOC, C_INSERT_ON_MISS, C_EARLY_EXIT, C_ROW_HITS = range(5)
C_REC64, C_PA32, C_FLAGS8, C_NEXT64 = range(5, 9)
C_LEN = 9

# cfg[C_EARLY_EXIT]: where a set probe stops (lpmt.EARLY_EXIT, in this order)
EARLY_NONE, EARLY_MATCH, EARLY_MATCH_OR_EMPTY = range(3)
# cfg[C_ROW_HITS]: which reads are row hits (lpmt.ROW_HITS, in this order)
ROW_PER_BANK, ROW_PER_PROBE, ROW_WINDOW = range(3)

# table scalars
TS_FREE_SETS, TS_FREE_PAGES = range(2)

# operations between the prefetch of a home set and its probe (16 since the strict memo made
# operations faster: +4-14 % lookups/s over 8, both models, paired; 24 no better)
PREFETCH_AHEAD = 16
BT_PREFETCH_AHEAD = 8  # ... and between the prefetch of a file's block table and its read

# counters
(
    CT_READS,
    CT_CYCLES,
    CT_SETS_PROBED,
    CT_BT_READS,
    CT_HITS,
    CT_INSERTS,
    CT_UPDATES,
    CT_DELETES,
    CT_PAGE_DELETES,
    CT_SEC_ALLOC,
    CT_SEC_FREE,
    CT_FAIL_SETS,
    CT_FAIL_PAGES,
) = range(13)
CT_LEN = 13
COUNTER_NAMES = (
    "dram_reads",
    "cycles",
    "sets_probed",
    "bt_reads",
    "hits",
    "inserts",
    "updates",
    "deletes",
    "page_deletes",
    "secondary_allocated",
    "secondary_freed",
    "failed_no_secondary_set",
    "failed_no_free_page",
)


def set_record_dtype(assoc: int) -> np.dtype:
    """One LPMT set as one record: the keys of its ways first, then PA (int32; pages
    < 2**31), flags, next/previous set and count; padded to whole 64-byte lines. With
    8 ways that is two cache lines, keys in one and everything else in the other, so
    a lookup touches two lines where one array per field would touch four or five."""
    names = ["key", "pa", "flags", "next", "prev", "count"]
    formats = [("<i8", (assoc,)), ("<i4", (assoc,)), ("u1", (assoc,)), "<i8", "<i8", "<i8"]
    offsets, pos = [], 0
    for size in (8 * assoc, 4 * assoc, assoc, 8, 8, 8):
        pos = -(-pos // min(size, 8)) * min(size, 8)  # natural alignment of the field
        offsets.append(pos)
        pos += size
    return np.dtype(
        {"names": names, "formats": formats, "offsets": offsets, "itemsize": -(-pos // 64) * 64}
    )


def record_index(assoc: int) -> tuple[int, int, int, int]:
    """Where a set's fields lie in flat views of the records (ops_kernel): the
    record length in int64s, and the offsets of PA in int32s, of the flags in bytes and
    of the next-set link in int64s (the keys are first). In a C-contiguous flat view an
    element's address is the base plus a constant multiple of its index; in the strided
    field views each index also multiplies by strides held at run time."""
    dt = set_record_dtype(assoc)
    return (dt.itemsize // 8, dt.fields["pa"][1] // 4, dt.fields["flags"][1],
            dt.fields["next"][1] // 8)  # fmt: skip


@numba.njit(cache=True, inline="always")
def _key_at(r64, ri, g, w):
    """Key of way ``w`` of set ``g`` in the flat int64 view of the records (``ri``:
    record_index)."""
    return r64[g * ri[0] + w]


@numba.njit(cache=True, inline="always")
def _flags_at(records, ri, g, w):
    return records[g * ri[0] * 8 + ri[2] + w]


@numba.njit(cache=True, inline="always")
def _pa_at(r32, ri, g, w):
    return r32[g * ri[0] * 2 + ri[1] + w]


@numba.njit(cache=True, inline="always")
def _next_at(r64, ri, g):
    return r64[g * ri[0] + ri[3]]


@numba.njit(cache=True, inline="always")
def _prefetch_set(r64, ri, g):
    """Start loading every cache line of set ``g``'s record (two with 8 ways)."""
    for line in range(0, ri[0], 8):
        prefetch(r64, g * ri[0] + line)


@numba.njit(cache=True, inline="always")
def _record(bank, row, m, n, rec):
    """Note ``m`` reads of (bank, row) after the first ``n`` while ``rec`` has room."""
    if n < rec.shape[1]:
        for i in range(min(m, rec.shape[1] - n)):
            rec[0, n + i] = bank
            rec[1, n + i] = row


@numba.njit(cache=True, inline="always")
def _alloc_chain(n, loc, bt_next, bt_prev, bt_flags, free_pages, ts):
    """Pop n pages and link them as one file whose LPMT entry is at ``loc``; -1 if the
    free list is too short."""
    if n < 1 or ts[TS_FREE_PAGES] < n:
        return -1
    prev = -1
    first = -1
    for i in range(n):
        ts[TS_FREE_PAGES] -= 1
        p = free_pages[ts[TS_FREE_PAGES]]
        if i == 0:
            first = p
            bt_prev[p] = loc
            bt_flags[p] = BT_VALID | BT_FIRST
        else:
            bt_prev[p] = prev
            bt_next[prev] = p
            bt_flags[p] = BT_VALID
        prev = p
    bt_next[prev] = -1
    bt_flags[prev] |= BT_LAST
    return first


@numba.njit(cache=True, inline="always")
def _free_page(p, bt_next, bt_prev, bt_flags, free_pages, ts):
    bt_next[p] = -1
    bt_prev[p] = -1
    bt_flags[p] = 0
    free_pages[ts[TS_FREE_PAGES]] = p
    ts[TS_FREE_PAGES] += 1


@numba.njit(cache=True, inline="always")
def _free_chain(first, bt_next, bt_prev, bt_flags, free_pages, ts):
    p = first
    while p >= 0:
        nxt = -1 if bt_flags[p] & BT_LAST else bt_next[p]
        _free_page(p, bt_next, bt_prev, bt_flags, free_pages, ts)
        p = nxt


@numba.njit(cache=True, inline="always")
def _remove_entry(
    g, w, cfg, ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets, ts, ct
):
    """Invalidate way w of set g; free the set if it is a secondary set left empty."""
    ent_flags[g, w] = 0
    ent_key[g, w] = -1
    ent_pa[g, w] = -1
    set_count[g] -= 1
    if g >= cfg[C_PRIMARY] and set_count[g] == 0:
        prev, nxt = set_prev[g], set_next[g]
        set_next[prev] = nxt
        if nxt >= 0:
            set_prev[nxt] = prev
        set_next[g] = -1
        set_prev[g] = -1
        free_sets[ts[TS_FREE_SETS]] = g
        ts[TS_FREE_SETS] += 1
        ct[CT_SEC_FREE] += 1


@numba.njit(cache=True, inline="always")
def _insert(
    key, arg, eg, ew, last,  # the file, the first free way (eg, ew), the chain's end
    cfg, ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets,
    bt_next, bt_prev, bt_flags, free_pages, ts, ct,
):  # fmt: skip
    """Map a file the lookup did not find; returns the status."""
    assoc = cfg[C_ASSOC]
    if ts[TS_FREE_PAGES] < arg:
        ct[CT_FAIL_PAGES] += 1
        status = ST_FAILED
    elif eg < 0 and ts[TS_FREE_SETS] == 0:
        ct[CT_FAIL_SETS] += 1
        status = ST_FAILED
    else:
        if eg < 0:  # chain full: append a secondary set
            ts[TS_FREE_SETS] -= 1
            s = free_sets[ts[TS_FREE_SETS]]
            set_next[last] = s
            set_prev[s] = last
            set_next[s] = -1
            eg, ew = s, 0
            ct[CT_SEC_ALLOC] += 1
        first = _alloc_chain(arg, eg * assoc + ew, bt_next, bt_prev, bt_flags, free_pages, ts)
        ent_key[eg, ew] = key
        ent_pa[eg, ew] = first
        ent_flags[eg, ew] = F_VALID | (F_SINGLE if arg == 1 else 0)
        set_count[eg] += 1
        ct[CT_INSERTS] += 1
        status = ST_INSERTED
    return status


@numba.njit(cache=True, _nrt=False)
def _change_found(
    op, arg, status, fg, fw, npages,  # the operation and where its lookup found the file
    cfg, ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets,
    bt_next, bt_prev, bt_flags, free_pages, ts, ct,
):  # fmt: skip
    """The untimed change of a WRITE, DELETE or DELETE_PAGE whose file the lookup
    found at (fg, fw); returns the final status. Out of line: the lookup loop then
    keeps fewer live values (its machine code spills less)."""
    assoc = cfg[C_ASSOC]
    if op == OP_WRITE:
        new = _alloc_chain(arg, fg * assoc + fw, bt_next, bt_prev, bt_flags, free_pages, ts)
        if new < 0:
            ct[CT_FAIL_PAGES] += 1
            status = ST_FAILED
        else:
            _free_chain(ent_pa[fg, fw], bt_next, bt_prev, bt_flags, free_pages, ts)
            ent_pa[fg, fw] = new
            ent_flags[fg, fw] = F_VALID | (F_SINGLE if arg == 1 else 0)
            ct[CT_UPDATES] += 1
    elif op == OP_DELETE:
        _free_chain(ent_pa[fg, fw], bt_next, bt_prev, bt_flags, free_pages, ts)
        _remove_entry(fg, fw, cfg, ent_key, ent_pa, ent_flags, set_next, set_prev,
                      set_count, free_sets, ts, ct)  # fmt: skip
        ct[CT_DELETES] += 1
    elif op == OP_DELETE_PAGE and 0 <= arg < npages:
        p = ent_pa[fg, fw]
        for _ in range(arg):
            p = bt_next[p]
        prev, nxt = bt_prev[p], bt_next[p]
        is_first = bt_flags[p] & BT_FIRST != 0
        is_last = bt_flags[p] & BT_LAST != 0
        if is_first and is_last:
            _free_page(p, bt_next, bt_prev, bt_flags, free_pages, ts)
            _remove_entry(fg, fw, cfg, ent_key, ent_pa, ent_flags, set_next, set_prev,
                          set_count, free_sets, ts, ct)  # fmt: skip
            ct[CT_DELETES] += 1
        else:
            if is_first:
                bt_flags[nxt] |= BT_FIRST
                bt_prev[nxt] = prev  # the LPMT location moves to the new first page
                ent_pa[fg, fw] = nxt
            elif is_last:
                bt_flags[prev] |= BT_LAST
                bt_next[prev] = -1
            else:
                bt_next[prev] = nxt
                bt_prev[nxt] = prev
            _free_page(p, bt_next, bt_prev, bt_flags, free_pages, ts)
            if npages - 1 == 1:
                ent_flags[fg, fw] |= F_SINGLE
        ct[CT_PAGE_DELETES] += 1
    return status


@numba.njit(cache=True, _nrt=False)
def _read_block_table(
    p, rec_offset, lp, tp, window_rule, bt_next, bt_flags, banks, acts, cases, dst, tally, rec
):
    """The timed reads of a multi-page file's block-table chain from its first page
    ``p``; returns (cycles, pages, state, tally). Out of line: the kernel then inlines
    one copy of the DRAM scheduler (read_run), not two (numba's IR inlining copies
    and retypes a helper at every call site, most of a variant's compile time); 10 %
    of the files in the paper's workloads are multi-page, so the call is rare (no
    measurable change of speed)."""
    lat, npages = 0, 0
    while True:
        bank, row = bt_address(p, lp)
        _record(bank, row, 1, rec_offset + dst[S_COUNT], rec)
        if window_rule:
            close_idle(bank, tp, banks, dst[S_COUNT])
        dlat, dst, tally = read_run(bank, row, 1, tp, banks, acts, cases, dst, tally)
        lat += dlat
        npages += 1
        if bt_flags[p] & BT_LAST:
            return lat, npages, dst, tally
        p = bt_next[p]


@numba.njit(cache=True, inline="always")
def _probe_bank(jj, base, order, dynamic, bank_order, lp):
    """(chunk, bank) of the jj-th chunk a pass reads: Fig. 7's order (``order`` holds
    banks when ``bank_order``, else chunks) or chunk order."""
    if dynamic and bank_order:
        bank = order[jj]
        return bank - base + (lp[LP_K] if bank < base else 0), bank
    j = order[jj] if dynamic else jj
    return j, chunk_bank(base, j, lp)


@numba.njit(cache=True, _nrt=False)
def _probe_reads(records, ri, g, hw, empty_rule, base, order, dynamic, bank_order, lp):
    """The reads an early exit lets a probe of set ``g`` make, in the placement's read
    order (the passes' chunks as _probe_bank gives them): up to the read that completes
    the stop range, the matching way ``hw`` or, with ``empty_rule`` and no match, ways
    0..e with e the set's first invalid way (inserts fill the first free way, so no
    later way holds the key); every way of the set when there is no stop. Out of line:
    the kernel's hot loop then carries one stream position for it, not the range."""
    k, wpb, inter = lp[LP_K], lp[LP_WPB], lp[LP_INTERLEAVED] != 0
    assoc = k * wpb
    lo, hi = hw, hw
    if hw < 0:
        if not empty_rule:
            return assoc
        for w in range(assoc):
            if _flags_at(records, ri, g, w) & F_VALID == 0:
                lo, hi = 0, w
                break
        if hi < 0:
            return assoc
    n_pass, m_run = (wpb, 1) if inter else (1, wpb)
    need, reads = hi - lo + 1, 0
    for p in range(n_pass):
        for jj in range(k):
            j = _probe_bank(jj, base, order, dynamic, bank_order, lp)[0]
            first = p * k + j if inter else j * wpb  # the run's ways: first..first+m_run-1
            a, b = max(first, lo), min(first + m_run - 1, hi)
            if a <= b:
                need -= b - a + 1
                if need == 0:
                    return reads + b - first + 1
            reads += m_run
    return reads


@numba.njit(cache=True, _nrt=False)
def _close_idle_pass(count, stop_end, base, order, dynamic, bank_order, m_run, lp, tp, banks):
    """The window rule (timing.close_idle) for the reads of one pass of a set probe,
    before the pass, out of the kernel's hot loop: the pass's chunks are runs of ``m_run``
    reads in distinct banks from stream position ``count``, so chunk ``jj``'s first read
    comes at ``count + jj * m_run``, before the position ``stop_end`` where an early exit
    ends the probe. Only the banks the pass reads: a later read of another bank (a block
    table, the next probe) may come before its turn here."""
    for jj in range(lp[LP_K]):
        at = count + jj * m_run
        if at >= stop_end:
            return
        close_idle(_probe_bank(jj, base, order, dynamic, bank_order, lp)[1], tp, banks, at)


# (assoc, chunks per set, ways per chunk, interleaved, banks, Fig. 7 order) of the
# paper's table under each placement (layout.PLACEMENTS, in that order): 8 ways in one
# bank of one or of 4 banks, 4 banks x 2 consecutive ways (spread) or 4 banks x 2 ways
# dealt out one per bank (interleaved), each read in fixed or in Fig. 7's order; see
# kernel_for
PAPER_SHAPES = (
    (8, 1, 8, 0, 1, 0),
    (8, 1, 8, 0, 4, 0),
    (8, 4, 2, 1, 4, 1),
    (8, 4, 2, 1, 4, 0),
    (8, 4, 2, 0, 4, 0),
    (8, 4, 2, 0, 4, 1),
)


def kernel_for(tp: np.ndarray, assoc: int, layout: Layout) -> Callable[..., None]:
    """The compiled kernel for a table of ``assoc`` ways with timing vector ``tp``
    (DramTiming.params) and ``layout``: for the paper's placements (PAPER_SHAPES), one
    with the shape, the layout's bank count and the timing model as constants and, for
    the strict model with the datasheet's timing (the defaults), every timing parameter
    and the read order (fixed or Fig. 7's) too (~25 % more lookups/s for the timing:
    the scheduler's chains of ``max`` no longer wait for parameters spilled to the
    stack; 0-11 % for the order); else the generic kernel. The paper rule's variants
    keep the read order at run time: its closed-form probe of the fixed interleaved
    order ran 12 % slower with the order constant (alternating A/B runs). Each variant
    costs 5-10 s of compilation on a cold cache (cached on disk), hence not one per
    timing."""
    shape = (assoc, layout.banks_per_set, layout.ways_per_bank, int(layout.interleaved),
             layout.n_banks, int(layout.dynamic))  # fmt: skip
    if shape not in PAPER_SHAPES:
        return ops_kernel(None)
    model = int(tp[TP_MODEL])
    if model == MODELS["paper"]:
        return ops_kernel((model, None, *shape[:-1], -1))
    if np.array_equal(tp, DramTiming(model="ddr4").params()):
        return ops_kernel((model, tuple(int(v) for v in tp), *shape))
    return ops_kernel(None)


@functools.cache
def ops_kernel(
    spec: tuple[int, tuple[int, ...] | None, int, int, int, int, int, int] | None,
) -> Callable[..., None]:
    """The kernel with ``spec`` = (timing model, timing vector or None, *shape) as
    constants (shape: an entry of PAPER_SHAPES; its read order -1: at run time), or None
    for one that reads them from the timing, config and layout vectors. As constants,
    the other model's code drops out of the hot loop, the loops over a set's ways and
    chunks unroll and the chunk-to-bank map is a few instructions without branches on
    the placement: fewer live values to spill (lookups/s +8-19 % with the bank count and,
    strict, the order constant; alternating A/B runs on the full table).

    The closure captures plain numbers and tuples only: numba keys a cached closure on
    the pickle of its captured values, and a captured dispatcher pickles differently in
    every process, so a kernel that captured one was compiled anew on every run."""
    const_model, const_tp, const_assoc, const_k, const_wpb, const_inter, const_nb, const_dyn = (
        spec or (-1, None, 0, 0, 0, 0, 0, 0)
    )
    const_nb_shift = log2_or_minus1(const_nb)
    const_ri = record_index(const_assoc) if const_assoc else (0, 0, 0, 0)
    const_timing = const_tp is not None
    const_tp = const_tp or (0,) * TP_LEN
    paper_only = const_model == MODELS["paper"]
    strict_only = const_model == MODELS["ddr4"]

    # No reference counting (``_nrt=False``): the hot loop passes arrays to inlined
    # helpers, and numba's refcount pruning leaves an atomic incref/decref pair per
    # call that cost ~5x in throughput. The kernel allocates nothing (``order`` is
    # scratch).
    @numba.njit(cache=True, _nrt=False)
    def run_ops_kernel(
        ops, keys, homes, args,  # operation stream
        cfg, lp_arr, tp_arr, recency_col,  # config, layout, timing vectors, Fig. 7 recency column
        ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets,
        bt_next, bt_prev, bt_flags, free_pages, ts,  # table state
        banks, acts, sc, cases,  # DRAM state
        rec, ct,  # recorded (bank, row) stream (may have 0 columns), counters
        out_lat, out_nacc, out_status, order,  # outputs; scratch of >= k entries
        records, memo,  # the set records as flat bytes; strict steady-probe memo (steady)
    ):  # fmt: skip
        # Flat views of the records: the lookup reads keys, flags, PA and links through
        # them (record_index; constants in a specialised kernel) rather than the strided
        # field views, whose run-time strides are so many more live values to spill in the
        # hot loop (strict DDR4 lookups/s +6-16 %, paired A/B); the table's changes use
        # the field views
        r64, r32 = records.view(np.int64), records.view(np.int32)
        lp = layout_tuple(lp_arr)
        if const_assoc:
            ri = const_ri
            dyn = const_dyn if const_dyn >= 0 else lp[LP_DYNAMIC]
            lp = with_shape(lp, const_nb, const_nb_shift, const_k, const_wpb, dyn, const_inter)
            tp = const_tp if const_timing else params_tuple(tp_arr, const_model)
            assoc, k, wpb, inter = const_assoc, const_k, const_wpb, const_inter != 0
        else:
            ri = (cfg[C_REC64], cfg[C_PA32], cfg[C_FLAGS8], cfg[C_NEXT64])
            tp = params_tuple(tp_arr, tp_arr[TP_MODEL])
            assoc, k, wpb = cfg[C_ASSOC], lp[LP_K], lp[LP_WPB]
            inter = lp[LP_INTERLEAVED] != 0
        # a chunk's ways: one run of wpb reads (spread), or one read per pass (interleaved)
        n_pass, m_run = (wpb, 1) if inter else (1, wpb)
        early = cfg[C_EARLY_EXIT] != EARLY_NONE
        early_empty = cfg[C_EARLY_EXIT] == EARLY_MATCH_OR_EMPTY
        paper_model = tp[TP_MODEL] == 0  # MODELS["paper"]
        no_record = rec.shape[1] == 0
        row_rule = cfg[C_ROW_HITS]
        per_probe = row_rule == ROW_PER_PROBE
        window_rule = row_rule == ROW_WINDOW  # paper model only (Lpmt checks)
        dynamic = lp[LP_DYNAMIC] != 0
        dst = load_state(sc)
        tally = 0
        lean = no_record and row_rule == ROW_PER_BANK
        window = tp[TP_WINDOW]
        # Under the window rule a later pass of an interleaved probe re-reads each bank k
        # reads after the pass before: beyond the window those reads are not row hits
        # (timing.close_idle), which the closed forms below (steady probe, fused passes,
        # repeat_read) do not classify; such probes take the read-by-read path
        far_passes = window_rule and n_pass > 1 and k > window
        # the later passes of a full interleaved probe in one step (see ``fused``)
        fuse_ok = n_pass > 1 and paper_model and no_record and not far_passes
        # reads so far (stream position) and bank conflicts before this call: the
        # counts of reads per operation and the row hits follow from them, so the hot
        # loop carries fewer running sums (see flush_tally)
        count0, reads0, conflicts0 = dst[S_COUNT], ct[CT_READS], conflicts(tp, cases)
        # Fig. 7 order: after a set's chunks are read in that order, their banks' stamps
        # rise in it, so the next set with the same chunk banks (same ``base``) has the
        # same order unless another read touched them: ``sorted_base`` is the base whose
        # order ``order`` still holds (-1: none). Not with reorder_on_act, where a row
        # hit leaves its bank's stamp.
        keep_order = recency_col == B_LAST_IDX
        sorted_base = -1
        # a set over every bank (interleaved or spread): a probe reads all banks, so the
        # Fig. 7 order is one order of the banks whatever set is read; ``order`` then
        # holds banks (sorted with base 0) and stays valid from one set to the next (no
        # sort per lookup)
        bank_order = k == lp[LP_NB]
        # The paper rule's closed-form probe (see its use below): ``steady_row`` is the
        # row that the last full probe left open in every bank, the last reads of the
        # stream being that probe's (-1: not so, e.g. after block-table reads or an early
        # exit); ``steady_base`` its chunk-0 bank. Only for sets over every bank (k =
        # n_banks, so that probe's reads of each bank are the latest), without a recorded
        # stream and with Fig. 7's order kept between probes (not reorder_on_act).
        steady_ok = (
            paper_only and k > 1 and bank_order and no_record and keep_order and not far_passes
        )
        steady_row, steady_base = -1, 0
        # The strict model's steady probes (skftl.dram.steady): ``skey`` is the probe
        # state the last reads left (-1: none), every bank holding row ``srow``; while
        # ``svirt``, the bank state lags behind it (steady probes advance only the count,
        # the last READ and the ACT count; materialize catches up before any other read).
        # Only with the datasheet's timing (a window of 4), sets over all 4 banks and the
        # lean path; ``cls_acc`` sums the memoised probes' packed classes.
        strict_steady = (
            strict_only and const_timing and k == N_BANKS and bank_order and lean
            and not early and keep_order and tp[TP_WINDOW] == N_BANKS
        )  # fmt: skip
        skey, srow, svirt, cls_acc, steady_hits = -1, -1, False, 0, 0
        # hot counters live in locals (see timing.load_state) and are stored at the end
        cycles, sets_probed, bt_reads, hits = (
            ct[CT_CYCLES],
            ct[CT_SETS_PROBED],
            ct[CT_BT_READS],
            ct[CT_HITS],
        )
        for i in range(ops.shape[0]):
            if i + PREFETCH_AHEAD < ops.shape[0]:
                # Start loading the home set of a later operation now: its DRAM misses then
                # overlap the work on the operations before it, where inside its own probe
                # each would stall (a set record is two cache lines with 8 ways, see
                # set_record_dtype).
                _prefetch_set(r64, ri, homes[i + PREFETCH_AHEAD])
            if i + BT_PREFETCH_AHEAD < ops.shape[0]:
                # A later operation's file, found in its home set (prefetched PREFETCH_AHEAD
                # - BT_PREFETCH_AHEAD operations ago) without a branch per way: start loading
                # its first block-table entry if it is a multi-page file. That entry is
                # otherwise a dependent miss after the probe (strict DDR4 +2-12 % lookups/s,
                # paper rule +-2 %).
                h = homes[i + BT_PREFETCH_AHEAD]
                ahead_key, way = keys[i + BT_PREFETCH_AHEAD], -1
                for w in range(assoc):
                    way = w if _key_at(r64, ri, h, w) == ahead_key else way
                if way >= 0:
                    if _flags_at(records, ri, h, way) & F_SINGLE == 0:
                        pa = _pa_at(r32, ri, h, way)
                        prefetch(bt_flags, pa)
                        prefetch(bt_next, pa)
                else:
                    # not in its home set (an insert, or a file that overflowed): the
                    # probe goes on to the first secondary set, else a dependent miss
                    ahead_next = _next_at(r64, ri, h)
                    if ahead_next >= 0:
                        _prefetch_set(r64, ri, ahead_next)
            key, op, arg = keys[i], ops[i], args[i]
            lat = 0
            count_op = dst[S_COUNT]
            # ---- lookup: the home set, then its secondary chain
            fg, fw, eg, ew = -1, -1, -1, -1
            last = homes[i]
            g = homes[i]
            while g >= 0:
                sets_probed += 1
                base, row = set_address(g, lp)
                # the matching way, searched in way order: valid keys are unique in a chain,
                # so the chunks' read order cannot change which way matches
                hw = -1
                for w in range(assoc):
                    if _key_at(r64, ri, g, w) == key and _flags_at(records, ri, g, w) & F_VALID:
                        hw = w
                        break
                key_base = 0 if bank_order else base
                if dynamic and key_base != sorted_base:
                    chunk_order(key_base, lp, banks, recency_col, order)
                    sorted_base = key_base if keep_order else -1
                # An early exit ends the probe after the read that completes its stop range
                # (_probe_reads): the matching way, or (match_or_empty, no match in this
                # set) ways 0..e up to the first invalid way e. A delete's hole may come
                # before the key: the chain walk below stays functional, only reads are cut.
                full, stop_end = True, 0
                if early:
                    n_reads = _probe_reads(
                        records, ri, g, hw, early_empty, base, order, dynamic, bank_order, lp
                    )
                    full = n_reads == assoc  # a stop at the last read cuts nothing
                    stop_end = dst[S_COUNT] + n_reads  # where the probe ends when cut
                ck, found = -1, -1
                if strict_steady and skey >= 0 and row != srow:
                    bank0 = _probe_bank(0, base, order, dynamic, bank_order, lp)[1]
                    ck = skey | bank0 << FIRST_SHIFT
                    found = memo_find(memo, ck)
                    if found >= 0 and dst[S_PREV_RD] + memo[found + M_LAT] >= dst[S_NEXT_REF]:
                        ck, found = -1, -1  # a refresh may fall: the scheduler takes it
                if found >= 0:
                    # a steady probe (see skey): its cycles, classes and next state from the
                    # memo; the count, last READ and ACT count advance, the rest lags
                    plat = memo[found + M_LAT]
                    lat += plat
                    dst = after_steady(dst, assoc, plat, k)
                    cls_acc += memo[found + M_CLS]
                    steady_hits += 1
                    if steady_hits & (CLS_FLUSH - 1) == 0:
                        tally = flush_classes(cls_acc, cases, tally)
                        cls_acc = 0
                    skey, srow, svirt = memo[found + M_NEXT], row, True
                elif steady_ok and steady_row >= 0 and full:
                    # The previous operation's last reads were a full probe of the same
                    # banks (see ``steady_row``), so what the paper rule gives every read
                    # follows from the read positions alone: chunk jj's first read comes
                    # ``n`` reads after its bank's last read in that probe, every bank
                    # holds ``steady_row`` open, and each later read of a chunk is a row
                    # hit (DL). Same cycles, classes and bank state as the passes below,
                    # with no per-read loads or branches on the bank state.
                    c = dst[S_COUNT]
                    d = base - steady_base  # fixed order: how far the banks rotated
                    d = d + k if d < 0 else d
                    same = row == steady_row
                    lat += assoc * tp[TP_DL]  # every read's DL; conflicts add below
                    for jj in range(k):
                        bank = _probe_bank(jj, base, order, dynamic, bank_order, lp)[1]
                        jp = jj if dynamic else (jj + d) % k  # its slot in the previous probe
                        n = (k + jj - jp - 1) * m_run + 1
                        # a row hit: the bank's row, and under the window rule read in the
                        # window
                        hit = same and not (window_rule and n > window)
                        if not (hit or (per_probe and jj > 0)):
                            if n > window:
                                tally += 1  # no bank repeat in the window: DL
                            else:
                                cases[n - 1] += 1
                                lat += paper_conflict(n, tp) - tp[TP_DL]
                        at = bank_at(bank)
                        banks[at + B_OPEN] = row
                        banks[at + B_LAST_IDX] = c + (n_pass - 1) * k + jj * m_run + m_run - 1
                    dst = advanced(dst, assoc)
                else:
                    stop = False
                    next_ref0 = dst[S_NEXT_REF]
                    seq, all_miss, t0, snap = 0, True, 0, (0, 0, 0, 0, 0)
                    if strict_steady:
                        dst = caught_up(svirt, skey, srow, m_run, dst, tp, banks, acts)
                        svirt = False
                        # what a steady probe needs to know of this one: whether it misses
                        # every bank, and its cycles and classes (memoised below)
                        for jj in range(k):
                            bank = _probe_bank(jj, base, order, dynamic, bank_order, lp)[1]
                            seq |= bank << (2 * jj)
                            all_miss = all_miss and banks[bank_at(bank) + B_OPEN] != row
                        t0, snap = dst[S_PREV_RD], class_snapshot(cases, tally)
                    # A full probe of an interleaved set under the paper model: each chunk's
                    # read in the first pass also settles its reads in the later passes: row
                    # hits, DL each (a pass's chunks are in distinct banks, so no other read
                    # of the bank comes between), in the same slot of every pass. So the
                    # later passes cost one addition, not k timed reads each. Not while
                    # recording the stream (those reads would go unrecorded; repeat_read
                    # records them).
                    fused = fuse_ok and full
                    for p in range(n_pass):
                        if fused and p == 1:
                            later = (n_pass - 1) * k
                            lat += later * tp[TP_DL]
                            dst = advanced(dst, later)
                            break
                        if (
                            p == 1
                            and not far_passes
                            and repeat_pass_ok(tp, dst, next_ref0, (n_pass - 1) * k)
                        ):
                            # The later passes of an interleaved probe re-read, chunk for
                            # chunk in the same order, rows the first pass opened, with no
                            # other read in between: all row hits, timed in closed form
                            # (repeat_read), not classified and scheduled read by read.
                            if lean and not early:
                                for _ in range(1, n_pass):
                                    for jj in range(k):
                                        bank = _probe_bank(
                                            jj, base, order, dynamic, bank_order, lp
                                        )[1]
                                        dlat, dst = repeat_read(bank, tp, banks, dst)
                                        lat += dlat
                                break
                            for _ in range(1, n_pass):
                                for jj in range(k):
                                    bank = _probe_bank(jj, base, order, dynamic, bank_order, lp)[1]
                                    _record(bank, row, 1, reads0 + dst[S_COUNT] - count0, rec)
                                    dlat, dst = repeat_read(bank, tp, banks, dst)
                                    lat += dlat
                                    stop = not full and dst[S_COUNT] >= stop_end
                                    if stop:
                                        sorted_base = -1  # the reads after it were not made
                                        break
                                if stop:
                                    break
                            break
                        if strict_only and p == 0 and lean and not early:
                            # the common case, without the checks below (no early exit, no
                            # recorded stream, per-bank row hits): ~25 % fewer instructions
                            for jj in range(k):
                                bank = _probe_bank(jj, base, order, dynamic, bank_order, lp)[1]
                                dlat, dst, tally = strict_read_run(
                                    bank, row, m_run, tp, banks, acts, cases, dst, tally
                                )
                                lat += dlat
                            continue
                        if window_rule:  # out of line: the common path stays as lean
                            end = dst[S_COUNT] + assoc if full else stop_end
                            _close_idle_pass(
                                dst[S_COUNT], end, base, order, dynamic, bank_order, m_run, lp,
                                tp, banks,
                            )  # fmt: skip
                        for jj in range(k):
                            bank = _probe_bank(jj, base, order, dynamic, bank_order, lp)[1]
                            m = m_run  # a spread chunk's ways are consecutive reads of one row
                            if not full and stop_end - dst[S_COUNT] <= m_run:
                                m, stop = stop_end - dst[S_COUNT], True  # the probe's last run
                            if per_probe and (p > 0 or jj > 0):
                                banks[bank_at(bank) + B_OPEN] = row  # the probe's ACT opened it
                            _record(bank, row, m, reads0 + dst[S_COUNT] - count0, rec)
                            if paper_only:
                                dlat, dst, tally = paper_read_run(
                                    bank, row, m, tp, banks, acts, cases, dst, tally
                                )
                            elif strict_only:
                                dlat, dst, tally = strict_read_run_call(
                                    bank, row, m, tp, banks, acts, cases, dst, tally
                                )
                            else:
                                dlat, dst, tally = read_run(
                                    bank, row, m, tp, banks, acts, cases, dst, tally
                                )
                            lat += dlat
                            if fused:  # its last read is in the last pass, in the same slot
                                banks[bank_at(bank) + B_LAST_IDX] += (n_pass - 1) * k
                            if stop:
                                sorted_base = -1  # the reads after it were not made
                                break
                        if stop:
                            break
                    if strict_steady:
                        skey, srow = -1, row
                        if all_miss and dst[S_NEXT_REF] == next_ref0:
                            skey = probe_state(seq, dst[S_PREV_RD], banks)
                            if ck >= 0 and skey >= 0:
                                memo_put(memo, found, ck, skey, dst[S_PREV_RD] - t0,
                                         classes_since(snap, cases, tally))  # fmt: skip
                steady_row = row if steady_ok and full else -1
                steady_base = base
                if hw >= 0:
                    fg, fw = g, hw
                    break
                if eg < 0:
                    for w in range(assoc):
                        if _flags_at(records, ri, g, w) & F_VALID == 0:
                            eg, ew = g, w
                            break
                last = g
                g = _next_at(r64, ri, g)
            npages = 0
            if fg >= 0:
                hits += 1
                if _flags_at(records, ri, fg, fw) & F_SINGLE == 0:
                    dst = caught_up(svirt, skey, srow, m_run, dst, tp, banks, acts)
                    svirt = False
                    skey = -1
                    dlat, npages, dst, tally = _read_block_table(
                        _pa_at(r32, ri, fg, fw), reads0 - count0, lp, tp, window_rule,
                        bt_next, bt_flags, banks, acts, cases, dst, tally, rec,
                    )  # fmt: skip
                    lat += dlat
                    bt_reads += npages
                    sorted_base = -1
                    steady_row = -1
                else:
                    npages = 1
            status = ST_HIT if fg >= 0 else ST_MISS
            # ---- modification (untimed; a read hit changes nothing)
            if fg < 0:
                if op == OP_WRITE or (op == OP_READ and cfg[C_INSERT_ON_MISS] != 0):
                    status = _insert(
                        key, arg, eg, ew, last,
                        cfg, ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets,
                        bt_next, bt_prev, bt_flags, free_pages, ts, ct,
                    )  # fmt: skip
            elif op != OP_READ:
                status = _change_found(
                    op, arg, status, fg, fw, npages,
                    cfg, ent_key, ent_pa, ent_flags, set_next, set_prev, set_count, free_sets,
                    bt_next, bt_prev, bt_flags, free_pages, ts, ct,
                )  # fmt: skip
            cycles += lat
            out_lat[i] = lat
            out_nacc[i] = dst[S_COUNT] - count_op
            out_status[i] = status
        dst = caught_up(svirt, skey, srow, m_run, dst, tp, banks, acts)
        tally = flush_classes(cls_acc, cases, tally)
        memo[M_HITS] += steady_hits
        store_state(sc, dst, tp)
        n_reads = dst[S_COUNT] - count0
        flush_tally(tp, cases, tally, n_reads, conflicts0)
        ct[CT_READS], ct[CT_CYCLES], ct[CT_SETS_PROBED], ct[CT_BT_READS], ct[CT_HITS] = (
            reads0 + n_reads,
            cycles,
            sets_probed,
            bt_reads,
            hits,
        )

    return run_ops_kernel
