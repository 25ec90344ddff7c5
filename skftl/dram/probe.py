"""The kernel's time-probe step: the timed DRAM reads of a set probe and of a file's block
table, and the lookup's start of each set probe (:func:`begin_probe`).

A set's ways are read in the placement's order (:mod:`skftl.dram.layout`): ``k`` chunks
in distinct banks, each chunk a run of ``m_run`` reads of one row (spread), or one read
per pass over the chunks (interleaved: ``n_pass`` passes). A probe is timed one of three
ways, all with the same cycles, Table V classes and bank state:

* from the strict model's memo of earlier probes (:func:`memo_lookup`,
  :func:`memo_probe`; :mod:`skftl.dram.steady`);
* under the paper rule, in closed form after a full probe of the same banks
  (:func:`steady_probe`);
* read by read, pass by pass, through the timing hook (timing.TIMING_HOOKS): the loop is
  kernel.run_ops_kernel's, the steps it calls are here (:func:`chunk_run`; the strict
  model's :func:`strict_before` and :func:`strict_after`), with the later passes of an
  interleaved probe in closed form where they can only be row hits
  (:func:`later_passes`).

:data:`Rules` holds what is fixed for a kernel call, :data:`Carry` what one probe hands the
next; the functions compiled out of line (``out_of_line``) get only the arrays they use
(state module docstring).
"""

from __future__ import annotations

from collections import namedtuple

from skftl.dram.layout import (
    LP_DYNAMIC,
    LP_INTERLEAVED,
    LP_K,
    LP_NB,
    LP_WPB,
    bt_address,
    chunk_bank,
    chunk_order,
    set_address,
)
from skftl.dram.state import (
    BT_LAST,
    CONFIG_EARLY_EXIT,
    CONFIG_RECENCY_COL,
    CONFIG_ROW_HITS,
    EARLY_MATCH_OR_EMPTY,
    EARLY_NONE,
    F_VALID,
    ROW_PER_BANK,
    ROW_PER_PROBE,
    ROW_WINDOW,
    flags_at,
    inline,
    key_at,
    out_of_line,
    set_records,
)
from skftl.dram.steady import (
    CLS_FLUSH,
    FIRST_SHIFT,
    M_CLS,
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
    MODEL_DDR4,
    MODEL_PAPER,
    S_COUNT,
    S_NEXT_REF,
    S_PREV_RD,
    TP_DL,
    TP_MODEL,
    TP_WINDOW,
    advanced,
    bank_at,
    close_idle,
    either_read_run,
    paper_conflict,
    repeat_read,
)

# What a kernel fixes: constants in a specialised kernel (kernel.ops_kernel), else read from
# the configuration, layout and timing vectors: ways per set, chunks per set (each in its own
# bank), ways per chunk, interleaved placement, the layout and timing tuples, and whether the
# timing is the datasheet's (a constant tuple)
Shape = namedtuple("Shape", ["assoc", "k", "wpb", "interleaved", "lp", "tp", "fixed_timing"])

Rules = namedtuple(
    "Rules",
    [
        "assoc",
        "k",
        "n_pass",  # passes over the chunks (interleaved: wpb) ...
        "m_run",  # ... each reading a run of m_run ways per chunk (spread: wpb)
        "lp",  # layout.layout_tuple
        "tp",  # timing.params_tuple
        "early",  # a set probe may stop early (config EARLY_*)
        "early_empty",  # ... also at the first invalid way (match_or_empty)
        "per_probe",  # row hits: one ACT per set probe (ROW_PER_PROBE)
        "window_rule",  # row hits by Fig. 6's window (ROW_WINDOW; paper model only)
        "window",  # tp[TP_WINDOW]
        "dynamic",  # Fig. 7's read order
        "bank_order",  # a set spans every bank: ``order`` holds banks (see rules)
        "keep_order",  # Fig. 7's order may be kept from one probe to the next (see rules)
        "recency_col",  # timing.recency_col
        "lean",  # no recorded stream and per-bank row hits
        "no_record",
        "far_passes",  # see rules
        "fuse_ok",  # the later passes in one step (see fuse_ok below)
        "steady_ok",  # see steady_probe
        "strict_steady",  # the strict model's memo of steady probes (skftl.dram.steady)
        "record_offset",  # the recorded stream's position minus the scalar state's count
    ],
)

# A set probe: its chunk-0 bank and row, the way holding the key (-1: none), and whether it
# reads every way or stops at stream position stop_end
Probe = namedtuple("Probe", ["base", "row", "way", "full", "stop_end"])

# What the strict model notes of a probe before timing it read by read (strict_before), for
# its memo (strict_after): its banks in read order (2 bits each), whether every chunk misses
# its bank's open row, its start and the classes counted so far (steady.class_snapshot)
Passes = namedtuple("Passes", ["banks_in_order", "all_miss", "t0", "classes"])

Carry = namedtuple(
    "Carry",
    [
        "s",  # the scalar DRAM state (timing.S_*)
        "tally",  # reads with no bank repeat, not yet in the classes (timing.flush_tally)
        "sorted_base",  # Fig. 7: the base whose order ``order`` holds (-1: none; see rules)
        "steady_row",  # the paper rule's closed-form probe (steady_probe): the row the last
        "steady_base",  # full probe left open in every bank (-1: none), its chunk-0 bank
        "state_key",  # the strict model's steady probes: the probe state the last reads left
        "state_row",  # (-1: none), every bank holding this row; while ``lagging``, the bank
        "lagging",  # state lags behind it (steady.materialize catches it up)
        "classes",  # the memoised probes' packed classes (steady.classes_since)
        "memo_hits",  # probes timed from the memo
        "sets_probed",
    ],
)


@inline
def rules(model, shape, config, no_record, record_offset):
    """The :data:`Rules` of a kernel call (``model``: its timing model, a constant, or
    timing.ANY_MODEL). The kernel tests a model's own rules after the model itself
    (``model == MODEL_DDR4 and R.strict_steady``): the model is a constant there, so Numba
    drops the other model's code before it inlines any (compile time)."""
    k, wpb, lp, tp = shape.k, shape.wpb, shape.lp, shape.tp
    # a chunk's ways: one run of wpb reads (spread), or one read per pass (interleaved)
    n_pass, m_run = (wpb, 1) if shape.interleaved else (1, wpb)
    early = config[CONFIG_EARLY_EXIT] != EARLY_NONE
    row_rule, recency_col = config[CONFIG_ROW_HITS], config[CONFIG_RECENCY_COL]
    window_rule = row_rule == ROW_WINDOW  # paper model only (Lpmt checks)
    lean = no_record and row_rule == ROW_PER_BANK
    # Under the window rule a later pass of an interleaved probe re-reads each bank k reads
    # after the pass before: beyond the window those reads are not row hits
    # (timing.close_idle), which the closed forms (steady probe, fused passes, repeat_read)
    # do not classify; such probes take the read-by-read path
    far_passes = window_rule and n_pass > 1 and k > tp[TP_WINDOW]
    # Fig. 7 order: after a set's chunks are read in that order, their banks' stamps rise
    # in it, so the next set with the same chunk banks (same ``base``) has the same order
    # unless another read touched them. Not with reorder_on_act, where a row hit leaves its
    # bank's stamp.
    keep_order = recency_col == B_LAST_IDX
    # A set over every bank (interleaved or spread): a probe reads all banks, so the Fig. 7
    # order is one order of the banks whatever set is read; ``order`` then holds banks
    # (sorted with base 0) and stays valid from one set to the next (no sort per lookup)
    bank_order = k == lp[LP_NB]
    # the paper rule's closed-form probe: only for sets over every bank (k = n_banks, so
    # the last probe's reads of each bank are the latest), without a recorded stream and
    # with Fig. 7's order kept between probes
    steady_ok = (
        model == MODEL_PAPER and k > 1 and bank_order and no_record and keep_order
        and not far_passes
    )  # fmt: skip
    # the strict model's steady probes: only with the datasheet's timing (a window of 4),
    # sets over all 4 banks and the lean path
    strict_steady = (
        model == MODEL_DDR4 and shape.fixed_timing and k == N_BANKS and bank_order and lean
        and not early and keep_order and tp[TP_WINDOW] == N_BANKS
    )  # fmt: skip
    # A full probe of an interleaved set under the paper model: each chunk's read in the
    # first pass also settles its reads in the later passes: row hits, DL each (a pass's
    # chunks are in distinct banks, so no other read of the bank comes between), in the
    # same slot of every pass. So the later passes cost one addition, not k timed reads
    # each. Not while recording the stream (those reads would go unrecorded).
    fuse_ok = n_pass > 1 and tp[TP_MODEL] == MODEL_PAPER and no_record and not far_passes
    return Rules(
        assoc=shape.assoc,
        k=k,
        n_pass=n_pass,
        m_run=m_run,
        lp=lp,
        tp=tp,
        early=early,
        early_empty=config[CONFIG_EARLY_EXIT] == EARLY_MATCH_OR_EMPTY,
        per_probe=row_rule == ROW_PER_PROBE,
        window_rule=window_rule,
        window=tp[TP_WINDOW],
        dynamic=lp[LP_DYNAMIC] != 0,
        bank_order=bank_order,
        keep_order=keep_order,
        recency_col=recency_col,
        lean=lean,
        no_record=no_record,
        far_passes=far_passes,
        fuse_ok=fuse_ok,
        steady_ok=steady_ok,
        strict_steady=strict_steady,
        record_offset=record_offset,
    )


@inline
def begin_probe(R, lp, index, sets, g, key, dram, order, c):
    """What the timing of set ``g``'s probe for ``key`` needs, after the probes that left
    :data:`Carry` ``c``: the :data:`Probe`, and the carry with the set counted and the
    Fig. 7 order sorted for it (``lp``, ``index``: the kernel's layout tuple and record
    index, for probe_reads)."""
    base, row = set_address(g, R.lp)
    # the matching way, searched in way order: valid keys are unique in a chain, so the
    # chunks' read order cannot change which way matches
    hw = -1
    for w in range(R.assoc):
        if key_at(sets, g, w) == key and flags_at(sets, g, w) & F_VALID:
            hw = w
            break
    sorted_base = c.sorted_base
    key_base = 0 if R.bank_order else base
    if R.dynamic and key_base != sorted_base:
        chunk_order(key_base, R.lp, dram.banks, R.recency_col, order)
        sorted_base = key_base if R.keep_order else -1
    # An early exit ends the probe after the read that completes its stop range
    # (probe_reads): the matching way, or (match_or_empty, no match in this set) ways 0..e
    # up to the first invalid way e. A delete's hole may come before the key: the chain
    # walk stays functional, only reads are cut.
    full, stop_end = True, 0
    if R.early:
        n_reads = probe_reads(sets.bytes, index, g, hw, R.early_empty, base, order, R.dynamic,
                              R.bank_order, lp)  # fmt: skip
        full = n_reads == R.assoc  # a stop at the last read cuts nothing
        stop_end = c.s[S_COUNT] + n_reads  # where the probe ends when cut
    return Probe(base, row, hw, full, stop_end), Carry(
        c.s, c.tally, sorted_base, c.steady_row, c.steady_base, c.state_key, c.state_row,
        c.lagging, c.classes, c.memo_hits, c.sets_probed + 1,
    )  # fmt: skip


@inline
def memo_lookup(R, probe, order, memo, c):
    """The strict model's memo entry for this probe after the steady probe that left
    ``c.state_key``: (lookup key, slot), the slot >= 0 when the memo has the entry, else
    memo_find's miss (where strict_after stores this probe); (-1, -1) when a refresh may
    fall in the probe (the scheduler must take it)."""
    bank0 = probe_bank(0, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
    key = c.state_key | bank0 << FIRST_SHIFT
    slot = memo_find(memo, key)
    if slot >= 0 and c.s[S_PREV_RD] + memo[slot + M_LAT] >= c.s[S_NEXT_REF]:
        return -1, -1
    return key, slot


@inline
def memo_probe(R, probe, slot, memo, dram, c):
    """A steady probe of the strict model: its cycles, classes and next state from memo
    entry ``slot``; the count, last READ and ACT count advance, the rest of the bank state
    lags. Returns (cycles, carry)."""
    lat = memo[slot + M_LAT]
    classes = c.classes + memo[slot + M_CLS]
    memo_hits = c.memo_hits + 1
    tally = c.tally
    if memo_hits & (CLS_FLUSH - 1) == 0:
        tally = flush_classes(classes, dram.cases, tally)
        classes = 0
    s = after_steady(c.s, R.assoc, lat, R.k)
    return lat, Carry(s, tally, c.sorted_base, c.steady_row, c.steady_base,
                      memo[slot + M_NEXT], probe.row, True, classes, memo_hits,
                      c.sets_probed)  # fmt: skip


@inline
def steady_probe(R, probe, dram, order, c):
    """A full probe under the paper rule after a full probe of the same banks, the last
    reads of the stream (``c.steady_row``, ``c.steady_base``): what the rule gives every
    read follows from the read positions alone. Chunk jj's first read comes ``n`` reads
    after its bank's last read in that probe, every bank holds ``c.steady_row`` open, and
    each later read of a chunk is a row hit (DL). Same cycles, classes and bank state as
    the passes read by read, with no per-read loads or branches on the bank state. Returns
    (cycles, carry)."""
    k, m_run, tp, banks, tally = R.k, R.m_run, R.tp, dram.banks, c.tally
    count = c.s[S_COUNT]
    d = probe.base - c.steady_base  # fixed order: how far the banks rotated
    d = d + k if d < 0 else d
    same = probe.row == c.steady_row
    lat = R.assoc * tp[TP_DL]  # every read's DL; conflicts add below
    for jj in range(k):
        bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
        jp = jj if R.dynamic else (jj + d) % k  # its slot in the previous probe
        n = (k + jj - jp - 1) * m_run + 1
        # a row hit: the bank's row, and under the window rule read in the window
        hit = same and not (R.window_rule and n > R.window)
        if not (hit or (R.per_probe and jj > 0)):
            if n > R.window:
                tally += 1  # no bank repeat in the window: DL
            else:
                dram.cases[n - 1] += 1
                lat += paper_conflict(n, tp) - tp[TP_DL]
        at = bank_at(bank)
        banks[at + B_OPEN] = probe.row
        banks[at + B_LAST_IDX] = count + (R.n_pass - 1) * k + jj * m_run + m_run - 1
    return lat, Carry(advanced(c.s, R.assoc), tally, c.sorted_base, c.steady_row,
                      c.steady_base, c.state_key, c.state_row, c.lagging, c.classes,
                      c.memo_hits, c.sets_probed)  # fmt: skip


@inline
def strict_before(R, probe, order, dram, c):
    """Before the strict model times a probe read by read: the bank state catches up with
    the steady probes, and what a later steady probe needs to know of this one is noted
    (:data:`Passes`; memoised by strict_after). Returns (state, note)."""
    s = caught_up(c.lagging, c.state_key, c.state_row, R.m_run, c.s, R.tp, dram.banks,
                  dram.acts)  # fmt: skip
    banks_in_order, all_miss = 0, True
    for jj in range(R.k):
        bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
        banks_in_order |= bank << (2 * jj)
        all_miss = all_miss and dram.banks[bank_at(bank) + B_OPEN] != probe.row
    return s, Passes(banks_in_order, all_miss, s[S_PREV_RD], class_snapshot(dram.cases, c.tally))


@inline
def strict_after(probe, note, next_ref0, memo_key, slot, s, tally, memo, dram):
    """After the strict model timed a probe read by read (``next_ref0``: the next refresh
    before it): the probe state it left, memoised as a steady probe when it was one (it
    missed every bank and no refresh fell; see skftl.dram.steady). Returns (state key,
    -1: none; the row every bank holds)."""
    state_key = -1
    if note.all_miss and s[S_NEXT_REF] == next_ref0:
        state_key = probe_state(note.banks_in_order, s[S_PREV_RD], dram.banks)
        if memo_key >= 0 and state_key >= 0:
            memo_put(memo, slot, memo_key, state_key, s[S_PREV_RD] - note.t0,
                     classes_since(note.classes, dram.cases, tally))  # fmt: skip
    return state_key, probe.row


@inline
def chunk_run(jj, p, R, probe, order, dram, recorded, s):
    """The jj-th chunk of pass ``p``, read by read: (bank, reads, whether the probe stops
    after them); a per-probe activation opens the row first, and the reads are
    recorded."""
    bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
    m, stop = R.m_run, False  # a spread chunk's ways are consecutive reads of one row
    if not probe.full and probe.stop_end - s[S_COUNT] <= R.m_run:
        m, stop = probe.stop_end - s[S_COUNT], True  # the probe's last run
    if R.per_probe and (p > 0 or jj > 0):
        dram.banks[bank_at(bank) + B_OPEN] = probe.row  # the probe's ACT opened it
    record_reads(recorded, bank, probe.row, m, R.record_offset + s[S_COUNT])
    return bank, m, stop


@inline
def later_passes(R, probe, dram, order, recorded, s):
    """The later passes of an interleaved probe, under timing.repeat_pass_ok: they re-read,
    chunk for chunk in the same order, rows the first pass opened, with no other read in
    between: all row hits, timed in closed form (repeat_read), not classified and scheduled
    read by read. Returns (cycles, state, whether the probe stopped early)."""
    lat = 0
    if R.lean and not R.early:  # nothing to record, no stop: the common case
        for _ in range(1, R.n_pass):
            for jj in range(R.k):
                bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
                dlat, s = repeat_read(bank, R.tp, dram.banks, s)
                lat += dlat
        return lat, s, False
    for _ in range(1, R.n_pass):
        for jj in range(R.k):
            bank = probe_bank(jj, probe.base, order, R.dynamic, R.bank_order, R.lp)[1]
            record_reads(recorded, bank, probe.row, 1, R.record_offset + s[S_COUNT])
            dlat, s = repeat_read(bank, R.tp, dram.banks, s)
            lat += dlat
            if not probe.full and s[S_COUNT] >= probe.stop_end:
                return lat, s, True
    return lat, s, False


@inline
def time_block_table(R, lp, tp, first_page, bt_next, bt_flags, dram, recorded, c):
    """The reads of a multi-page file's block table from its first page, after the
    probes that left ``c``; returns (cycles, pages, carry). They break every closed form:
    the strict model's bank state catches up, and neither the Fig. 7 order nor the
    paper rule's steady probe carries over."""
    s = caught_up(c.lagging, c.state_key, c.state_row, R.m_run, c.s, tp, dram.banks, dram.acts)
    lat, npages, s, tally = read_block_table(first_page, R.record_offset, lp, tp, R.window_rule,
                                             bt_next, bt_flags, dram, s, c.tally,
                                             recorded)  # fmt: skip
    return (
        lat,
        npages,
        Carry(
            s=s,
            tally=tally,
            sorted_base=-1,
            steady_row=-1,
            steady_base=c.steady_base,
            state_key=-1,
            state_row=c.state_row,
            lagging=False,
            classes=c.classes,
            memo_hits=c.memo_hits,
            sets_probed=c.sets_probed,
        ),
    )


@out_of_line
def read_block_table(p, record_offset, lp, tp, window_rule, bt_next, bt_flags, dram, s, tally,
                     recorded):  # fmt: skip
    """The timed reads of a multi-page file's block-table chain from its first page
    ``p``; returns (cycles, pages, state, tally). Out of line: the kernel then inlines one
    copy of the DRAM scheduler, not two (every inlined copy is optimised again by LLVM, and
    the scheduler is most of a kernel variant's compile time); 10 % of the files in the
    paper's workloads are multi-page, so the call is rare."""
    lat, npages = 0, 0
    while True:
        bank, row = bt_address(p, lp)
        record_reads(recorded, bank, row, 1, record_offset + s[S_COUNT])
        if window_rule:
            close_idle(bank, tp, dram.banks, s[S_COUNT])
        dlat, s, tally = either_read_run(bank, row, 1, tp, dram, s, tally)
        lat += dlat
        npages += 1
        if bt_flags[p] & BT_LAST:
            return lat, npages, s, tally
        p = bt_next[p]


@inline
def record_reads(recorded, bank, row, m, n):
    """Note ``m`` reads of (bank, row) after the first ``n`` while ``recorded`` has room."""
    if n < recorded.shape[1]:
        for i in range(min(m, recorded.shape[1] - n)):
            recorded[0, n + i] = bank
            recorded[1, n + i] = row


@inline
def probe_bank(jj, base, order, dynamic, bank_order, lp):
    """(chunk, bank) of the jj-th chunk a pass reads: Fig. 7's order (``order`` holds
    banks when ``bank_order``, else chunks) or chunk order."""
    if dynamic and bank_order:
        bank = order[jj]
        return bank - base + (lp[LP_K] if bank < base else 0), bank
    j = order[jj] if dynamic else jj
    return j, chunk_bank(base, j, lp)


@out_of_line
def probe_reads(records, index, g, hw, empty_rule, base, order, dynamic, bank_order, lp):
    """The reads an early exit lets a probe of set ``g`` make, in the placement's read
    order (the passes' chunks as probe_bank gives them): up to the read that completes
    the stop range, the matching way ``hw`` or, with ``empty_rule`` and no match, ways
    0..e with e the set's first invalid way (inserts fill the first free way, so no
    later way holds the key); every way of the set when there is no stop. Out of line:
    the kernel's hot loop then carries one stream position for it, not the range.
    ``records``, ``index``: the records as flat bytes and state.record_index."""
    sets = set_records(records, index)
    k, wpb, inter = lp[LP_K], lp[LP_WPB], lp[LP_INTERLEAVED] != 0
    assoc = k * wpb
    lo, hi = hw, hw
    if hw < 0:
        if not empty_rule:
            return assoc
        for w in range(assoc):
            if flags_at(sets, g, w) & F_VALID == 0:
                lo, hi = 0, w
                break
        if hi < 0:
            return assoc
    n_pass, m_run = (wpb, 1) if inter else (1, wpb)
    need, reads = hi - lo + 1, 0
    for p in range(n_pass):
        for jj in range(k):
            j = probe_bank(jj, base, order, dynamic, bank_order, lp)[0]
            first = p * k + j if inter else j * wpb  # the run's ways: first..first+m_run-1
            a, b = max(first, lo), min(first + m_run - 1, hi)
            if a <= b:
                need -= b - a + 1
                if need == 0:
                    return reads + b - first + 1
            reads += m_run
    return reads


@out_of_line
def close_idle_pass(count, stop_end, base, order, dynamic, bank_order, m_run, lp, tp, banks):
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
        close_idle(probe_bank(jj, base, order, dynamic, bank_order, lp)[1], tp, banks, at)
