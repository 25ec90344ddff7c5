"""The LPMT + block-table kernel: one pass over an operation stream in which every
probe of a set way and every block-table entry read is a timed DRAM read.

The tables and the kernel's state are described in :mod:`skftl.dram.state`.
:func:`run_ops_kernel` takes each operation (key, home set, argument) through three
steps:

* **lookup**: the chain from the home set is probed set by set (probe.begin_probe,
  :func:`next_set`): every way of every set is read, in the placement's read order, then,
  for a multi-page file, every BT entry of its chain. An early exit cuts a set's probe
  short: at the read of the matching way (``match``), or also, in a set without the key,
  at the read that completes ways 0..e, e the set's first invalid way
  (``match_or_empty``: inserts fill the first free way, so no later way holds the key).
  Only the reads are cut: which set and way hold the key, and so every hit, miss and
  insert, is the same under every stop rule (the chain walk goes on to the next set as
  before; after a delete a hole may precede the key, which a real probe stopping there
  would miss);
* **time-probe**: each set probe's reads, and the block table's, are timed
  (:mod:`skftl.dram.probe`): from the strict model's memo of earlier probes, by the paper
  rule's closed form, or read by read through the timing hook (timing.TIMING_HOOKS: the
  paper's rule or the strict DDR4 scheduler). These reads are the operation's latency.
  Row hits are counted per bank (a bank's open row), with ``per_probe`` row-hit
  accounting as one activation per set probe (the probe's first read meets the bank as
  it is, its other reads find the set's row open: Table V's ~7/8 row hits under every
  placement), or with the ``window`` rule of Fig. 6 / Table V (paper timing model): a
  read is a row hit iff the nearest read of its bank within the last ``window`` reads
  had its row, else "no repeat" when there is none (timing.close_idle);
* **apply** (:mod:`skftl.dram.tables`): the untimed change. READ: a hit is done, a miss
  inserts the file (``arg`` pages) when ``insert_on_miss``; WRITE: a miss inserts, a hit
  remaps the file out of place to ``arg`` fresh pages; DELETE: invalidates the entry,
  frees its pages, and frees a secondary set that became empty; DELETE_PAGE: unlinks
  page ``arg`` (0-based) of the file's chain; a file left with no page is deleted.
  Inserts fill the first free way, in way order, along the chain; a full chain gets a
  new secondary set appended at its end. Writes to the tables are not timed (posted).

:func:`ops_kernel` compiles the kernel once per spec, the timing model and the table's
shape as constants; :func:`kernel_for` picks the spec of a table.
"""

from __future__ import annotations

import functools
import hashlib
import types
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from skftl.dram.layout import (
    LP_DYNAMIC,
    LP_INTERLEAVED,
    LP_K,
    LP_WPB,
    Layout,
    layout_tuple,
    log2_or_minus1,
    with_shape,
)
from skftl.dram.prefetch import prefetch
from skftl.dram.probe import (
    Carry,
    Passes,
    Shape,
    begin_probe,
    chunk_run,
    close_idle_pass,
    later_passes,
    memo_lookup,
    memo_probe,
    probe_bank,
    rules,
    steady_probe,
    strict_after,
    strict_before,
    time_block_table,
)
from skftl.dram.state import (
    CONFIG_ASSOC,
    CONFIG_FLAGS_BYTES,
    CONFIG_NEXT_INT64S,
    CONFIG_PA_INT32S,
    CONFIG_RECORD_INT64S,
    CT_BT_READS,
    CT_CYCLES,
    CT_HITS,
    CT_READS,
    CT_SETS_PROBED,
    F_SINGLE,
    F_VALID,
    flags_at,
    inline,
    key_at,
    next_at,
    pa_at,
    prefetch_set,
    record_index,
    set_records,
)
from skftl.dram.steady import M_HITS, caught_up, flush_classes
from skftl.dram.tables import Found, apply
from skftl.dram.timing import (
    ANY_MODEL,
    B_LAST_IDX,
    MODEL_DDR4,
    MODEL_PAPER,
    MODELS,
    S_COUNT,
    S_NEXT_REF,
    TIMING_HOOKS,
    TP_DL,
    TP_LEN,
    TP_MODEL,
    DramTiming,
    advanced,
    bank_at,
    conflicts,
    flush_tally,
    load_state,
    params_tuple,
    repeat_pass_ok,
    store_state,
)
from skftl.numba_cache import VARIANT_KEY, drop_stale_cache

# The kernel inlines these modules' functions, and Numba caches it under this file only: its
# cache entries carry a tag of all of them (skftl.numba_cache)
KERNEL_MODULES = ("state", "tables", "probe", "layout", "prefetch", "steady", "timing")
drop_stale_cache(__file__, *(Path(__file__).with_name(f"{m}.py") for m in KERNEL_MODULES))

# Operations between the prefetch of a home set and its probe, and between the prefetch of
# a file's block table and its read: far enough ahead that the line arrives before the
# probe needs it, near enough that it is still cached (the distances: docs/dram.md)
PREFETCH_AHEAD = 16
BT_PREFETCH_AHEAD = 8

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
GENERIC = (ANY_MODEL, None, 0, 0, 0, 0, 0, 0)  # ops_kernel(None): nothing constant


# --- the spec a kernel variant is compiled for ---------------------------------------------
# ops_kernel compiles run_ops_kernel once per spec, with these names bound to the spec's
# values in its globals: Numba compiles globals in as constants. The values here are the
# generic kernel's (SPEC_ASSOC 0: the shape is read from the vectors).
SPEC_MODEL = ANY_MODEL  # the timing model (timing.MODEL_*; ANY_MODEL: tp[TP_MODEL])
SPEC_FIXED_TIMING = False  # True: the timing tuple is SPEC_TIMING (the datasheet's)
SPEC_TIMING = (0,) * TP_LEN
# the set's shape (an entry of PAPER_SHAPES): ways, chunks, ways per chunk, interleaved,
# banks and their log2 (layout.log2_or_minus1), Fig. 7 order (-1: read at run time), and
# where a set's fields lie in its record (state.record_index)
SPEC_ASSOC = 0
SPEC_K = 0
SPEC_WPB = 0
SPEC_INTERLEAVED = 0
SPEC_N_BANKS = 0
SPEC_N_BANKS_SHIFT = -1
SPEC_DYNAMIC = -1
SPEC_RECORD_INDEX = (0, 0, 0, 0)
SPEC_LATER_PASSES = True  # a set may be read in more than one pass (interleaved)
timing_hook = TIMING_HOOKS[ANY_MODEL]  # the timing model's hook (timing.TIMING_HOOKS)


def run_ops_kernel(ops, tables, records, dram, scalars, config, layout, timing, counters,
                   recorded, memo, order):  # fmt: skip
    """The kernel (its arguments: ops_kernel): the lookup, time-probe and apply steps of
    every operation (module docstring). The loops over the operations, the sets of a
    chain and the passes over a set's chunks, and the timing hook's calls, are written out
    here, the steps they call are small: Numba's inlining copies a function's IR block by
    block, each block with all the function's variables, so inlining a function that
    holds the DRAM scheduler costs compile time quadratic in its size, at every level of
    nesting. A model's own steps are guarded by the model first (``model == MODEL_DDR4
    and ...``): the model is a constant, so Numba drops the other model's steps before it
    inlines them."""
    model = SPEC_MODEL
    # lp, tp and index go as they are to the functions called out of line: Numba types a
    # constant tuple by its values and compiles the callee for them (they fold there too),
    # where a named tuple's fields are typed by kind only
    lp = layout_tuple(layout)
    if SPEC_ASSOC:
        dynamic = SPEC_DYNAMIC if SPEC_DYNAMIC >= 0 else lp[LP_DYNAMIC]
        lp = with_shape(lp, SPEC_N_BANKS, SPEC_N_BANKS_SHIFT, SPEC_K, SPEC_WPB, dynamic,
                        SPEC_INTERLEAVED)  # fmt: skip
        tp = SPEC_TIMING if SPEC_FIXED_TIMING else params_tuple(timing, model)
        index = SPEC_RECORD_INDEX
        shape = Shape(SPEC_ASSOC, SPEC_K, SPEC_WPB, SPEC_INTERLEAVED != 0, lp, tp,
                      SPEC_FIXED_TIMING)  # fmt: skip
    else:
        tp = params_tuple(timing, timing[TP_MODEL])
        index = (config[CONFIG_RECORD_INT64S], config[CONFIG_PA_INT32S],
                 config[CONFIG_FLAGS_BYTES], config[CONFIG_NEXT_INT64S])  # fmt: skip
        shape = Shape(config[CONFIG_ASSOC], lp[LP_K], lp[LP_WPB], lp[LP_INTERLEAVED] != 0, lp,
                      tp, False)  # fmt: skip
    sets = set_records(records, index)
    s = load_state(scalars)
    # reads so far (stream position) and bank conflicts before this call: the counts of
    # reads per operation and the row hits follow from them, so the hot loop carries fewer
    # running sums (see timing.flush_tally)
    count0, reads0, conflicts0 = s[S_COUNT], counters[CT_READS], conflicts(shape.tp, dram.cases)
    R = rules(model, shape, config, recorded.shape[1] == 0, reads0 - count0)
    c = Carry(s, 0, -1, -1, 0, -1, -1, False, 0, 0, counters[CT_SETS_PROBED])
    # hot counters live in locals (see timing.load_state) and are stored at the end
    cycles, bt_reads, hits = counters[CT_CYCLES], counters[CT_BT_READS], counters[CT_HITS]
    for i in range(ops.op.shape[0]):
        prefetch_ahead(i, ops, sets, tables, R.assoc)
        key, count_op, lat = ops.key[i], c.s[S_COUNT], 0
        # ---- lookup: the home set, then its secondary chain, each set probe timed
        found, g = Found(-1, -1, -1, -1, ops.home[i]), ops.home[i]
        while g >= 0:
            probe, c = begin_probe(R, lp, index, sets, g, key, dram, order, c)
            memo_key, slot = -1, -1
            if model == MODEL_DDR4 and R.strict_steady and c.state_key >= 0:
                if probe.row != c.state_row:  # else the probe hits the open rows: not steady
                    memo_key, slot = memo_lookup(R, probe, order, memo, c)
            if model == MODEL_DDR4 and slot >= 0:
                dlat, c = memo_probe(R, probe, slot, memo, dram, c)
            elif model == MODEL_PAPER and R.steady_ok and c.steady_row >= 0 and probe.full:
                dlat, c = steady_probe(R, probe, dram, order, c)
            else:  # read by read, pass by pass, through the timing hook
                s, tally, lagging, dlat, stop = c.s, c.tally, c.lagging, 0, False
                note = Passes(0, True, 0, (0, 0, 0, 0, 0))
                if model == MODEL_DDR4 and R.strict_steady:
                    s, note = strict_before(R, probe, order, dram, c)
                    lagging = False
                next_ref0 = s[S_NEXT_REF]
                fused = R.fuse_ok and probe.full  # the later passes in one step (rules)
                for p in range(R.n_pass):
                    if SPEC_LATER_PASSES and p == 1:
                        if fused:
                            dlat += (R.n_pass - 1) * R.k * R.tp[TP_DL]
                            s = advanced(s, (R.n_pass - 1) * R.k)
                            break
                        if not R.far_passes and repeat_pass_ok(R.tp, s, next_ref0,
                                                               (R.n_pass - 1) * R.k):  # fmt: skip
                            later, s, stop = later_passes(R, probe, dram, order, recorded, s)
                            dlat += later
                            break
                    if model == MODEL_DDR4 and p == 0 and R.lean and not R.early:
                        # the common case (no early exit, no recorded stream, per-bank row
                        # hits) without the checks below: the scheduler inlined here only
                        for jj in range(R.k):
                            bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order,
                                              R.lp)[1]  # fmt: skip
                            run, s, tally = timing_hook.lean_read_run(
                                bank, probe.row, R.m_run, tp, dram, s, tally
                            )
                            dlat += run
                        continue
                    if model != MODEL_DDR4 and R.window_rule:  # Fig. 6's window, out of line
                        end = s[S_COUNT] + R.assoc if probe.full else probe.stop_end
                        close_idle_pass(s[S_COUNT], end, probe.base, order, R.dynamic,
                                        R.bank_order, R.m_run, lp, tp, dram.banks)  # fmt: skip
                    for jj in range(R.k):
                        bank, m, stop = chunk_run(jj, p, R, probe, order, dram, recorded, s)
                        run, s, tally = timing_hook.read_run(bank, probe.row, m, tp, dram, s,
                                                             tally)  # fmt: skip
                        dlat += run
                        if SPEC_LATER_PASSES and fused:  # its last read: the last pass's slot
                            dram.banks[bank_at(bank) + B_LAST_IDX] += (R.n_pass - 1) * R.k
                        if stop:
                            break
                    if stop:
                        break
                state_key, state_row = c.state_key, c.state_row
                if model == MODEL_DDR4 and R.strict_steady:
                    state_key, state_row = strict_after(probe, note, next_ref0, memo_key, slot,
                                                        s, tally, memo, dram)  # fmt: skip
                sorted_base = -1 if stop else c.sorted_base  # the reads after a stop: not made
                c = Carry(s, tally, sorted_base, c.steady_row, c.steady_base, state_key,
                          state_row, lagging, c.classes, c.memo_hits, c.sets_probed)  # fmt: skip
            lat += dlat
            found, g, c = next_set(R, sets, g, probe, found, c)
        npages = 0
        if found.set >= 0:
            hits += 1
            if flags_at(sets, found.set, found.way) & F_SINGLE == 0:
                dlat, npages, c = time_block_table(R, lp, tp, pa_at(sets, found.set, found.way),
                                                   tables.bt_next, tables.bt_flags, dram,
                                                   recorded, c)  # fmt: skip
                lat += dlat
                bt_reads += npages
            else:
                npages = 1
        # ---- apply: the untimed change (a read hit changes nothing)
        status = apply(ops.op[i], key, ops.arg[i], found, npages, config, tables, counters)
        cycles += lat
        ops.latency[i] = lat
        ops.reads[i] = c.s[S_COUNT] - count_op
        ops.status[i] = status
    s = caught_up(c.lagging, c.state_key, c.state_row, R.m_run, c.s, R.tp, dram.banks, dram.acts)
    tally = flush_classes(c.classes, dram.cases, c.tally)
    memo[M_HITS] += c.memo_hits
    store_state(scalars, s, R.tp)
    n_reads = s[S_COUNT] - count0
    flush_tally(R.tp, dram.cases, tally, n_reads, conflicts0)
    counters[CT_READS] = reads0 + n_reads
    counters[CT_CYCLES] = cycles
    counters[CT_SETS_PROBED] = c.sets_probed
    counters[CT_BT_READS] = bt_reads
    counters[CT_HITS] = hits


@inline
def prefetch_ahead(i, ops, sets, tables, assoc):
    """Start loading what later operations will read: their DRAM misses then overlap the
    work on the operations before them, where inside their own probes each would stall."""
    n = ops.op.shape[0]
    if i + PREFETCH_AHEAD < n:
        prefetch_set(sets, ops.home[i + PREFETCH_AHEAD])
    if i + BT_PREFETCH_AHEAD < n:
        # A later operation's file, found in its home set (prefetched PREFETCH_AHEAD -
        # BT_PREFETCH_AHEAD operations ago) without a branch per way: start loading its
        # first block-table entry if it is a multi-page file. That entry is otherwise a
        # dependent miss after the probe.
        h = ops.home[i + BT_PREFETCH_AHEAD]
        ahead_key, way = ops.key[i + BT_PREFETCH_AHEAD], -1
        for w in range(assoc):
            way = w if key_at(sets, h, w) == ahead_key else way
        if way >= 0:
            if flags_at(sets, h, way) & F_SINGLE == 0:
                pa = pa_at(sets, h, way)
                prefetch(tables.bt_flags, pa)
                prefetch(tables.bt_next, pa)
        else:
            # not in its home set (an insert, or a file that overflowed): the probe goes on
            # to the first secondary set, else a dependent miss
            ahead_next = next_at(sets, h)
            if ahead_next >= 0:
                prefetch_set(sets, ahead_next)


@inline
def next_set(R, sets, g, probe, found, c):
    """After the probe of set ``g``: what the lookup has found (tables.Found), the next
    set of the chain to probe (-1: none, the key found or the chain's end) and the carry
    with this probe's row and base for the paper rule's steady probe."""
    steady_row = probe.row if R.steady_ok and probe.full else -1
    c = Carry(c.s, c.tally, c.sorted_base, steady_row, probe.base, c.state_key, c.state_row,
              c.lagging, c.classes, c.memo_hits, c.sets_probed)  # fmt: skip
    if probe.way >= 0:
        return Found(g, probe.way, found.free_set, found.free_way, found.last), -1, c
    free_set, free_way = found.free_set, found.free_way
    if free_set < 0:  # the first free way along the chain, in way order
        for w in range(R.assoc):
            if flags_at(sets, g, w) & F_VALID == 0:
                free_set, free_way = g, w
                break
    return Found(-1, -1, free_set, free_way, g), next_at(sets, g), c


def kernel_for(tp: np.ndarray, assoc: int, layout: Layout) -> Callable[..., None]:
    """The compiled kernel for a table of ``assoc`` ways with timing vector ``tp``
    (DramTiming.params) and ``layout``: for the paper's placements (PAPER_SHAPES), one
    with the shape, the layout's bank count and the timing model as constants and, for
    the strict model with the datasheet's timing (the defaults), every timing parameter
    and the read order (fixed or Fig. 7's) too: the scheduler's chains of ``max`` then do
    not wait for parameters spilled to the stack. Else the generic kernel. The paper rule's
    variants keep the read order at run time: its closed-form probe of the fixed
    interleaved order ran slower with the order constant (docs/dram.md). Each variant
    costs seconds of compilation on a cold cache (then cached on disk), hence not one per
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
    the placement: fewer live values to spill.

    The kernel's arguments: ``(ops, tables, records, dram, scalars, config, layout, timing,
    counters, recorded, memo, order)``: the :data:`~skftl.dram.state.Ops`, the
    :data:`~skftl.dram.state.Tables`, the set records as flat bytes (state.SetRecords),
    the :data:`~skftl.dram.state.BankState` and the DRAM's scalars (``timing.SC_*``), the
    ``CONFIG_*``, layout (``layout.LP_*``) and timing (``timing.TP_*``) vectors, the
    counters (``CT_*``), the recorded (bank, row) stream (2 x n, may be 0 wide), the strict
    model's memo (steady.new_memo) and scratch of at least k entries.

    Numba compiles the constants in because they are globals of the variant's copy of
    :func:`run_ops_kernel` (``SPEC_*``); its cache tells the variants apart by a digest of
    ``spec`` (``numba_cache.VARIANT_KEY``)."""
    model, fixed_tp, assoc, k, wpb, interleaved, n_banks, dynamic = spec or GENERIC
    constants = {
        "SPEC_MODEL": model,
        "SPEC_FIXED_TIMING": fixed_tp is not None,
        "SPEC_TIMING": tuple(fixed_tp or (0,) * TP_LEN),
        "SPEC_ASSOC": assoc,
        "SPEC_K": k,
        "SPEC_WPB": wpb,
        "SPEC_INTERLEAVED": interleaved,
        "SPEC_N_BANKS": n_banks,
        "SPEC_N_BANKS_SHIFT": log2_or_minus1(n_banks),
        "SPEC_DYNAMIC": dynamic,
        "SPEC_RECORD_INDEX": record_index(assoc) if assoc else (0, 0, 0, 0),
        "SPEC_LATER_PASSES": not assoc or bool(interleaved),
    }
    scope = {**globals(), **constants, "timing_hook": TIMING_HOOKS[model]}
    scope[VARIANT_KEY] = "lpmt-" + hashlib.sha256(repr(constants).encode()).hexdigest()[:12]
    f = run_ops_kernel
    variant = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
    variant.__qualname__, variant.__doc__ = f.__qualname__, f.__doc__
    return numba.njit(cache=True, _nrt=False)(variant)
