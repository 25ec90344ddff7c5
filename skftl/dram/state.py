"""The LPMT kernel's state: named tuples of arrays, the named indices into its small vectors,
the operation and flag codes, and the set record.

The kernel (:mod:`skftl.dram.kernel`) takes its state as named tuples, as
``skftl.nand``'s kernel takes its ``FtlArrays``:

* :data:`Ops`: the operation stream and, per operation, its outputs;
* :data:`Tables`: the LPMT's sets and block tables, with their free stacks;
* :data:`BankState`: the DRAM banks' timing state that reads change;
* :data:`SetRecords`: the set records as flat arrays, built inside the kernel.

Small int64 vectors hold the rest, one prefix per vector: ``CONFIG_*`` in the table's
configuration, ``FREE_*`` in ``Tables.free_top``, ``CT_*`` in the counters (``layout.LP_*``
in the layout vector, ``timing.TP_*`` in the timing vector, ``timing.SC_*`` in the DRAM's
scalar state).

A function the kernel calls out of line gets only the arrays it uses: one more array passed
to a call that is not inlined slows the kernel's whole loop (docs/dram.md).

The tables (set ids ``g < P`` are primary, ``P <= g < P+S`` secondary):

* ``ent_key[g, w]``, ``ent_pa[g, w]`` (first page of the file), ``ent_flags[g, w]``
  (``F_*``) - Fig. 1's entries;
* ``set_next[g]`` / ``set_prev[g]`` - NSid / PSid, the chain of secondary sets that
  extend a primary set (-1 = none); ``set_count[g]`` - valid entries in the set;
* ``bt_next[p]`` / ``bt_prev[p]`` / ``bt_flags[p]`` (``BT_*``) - the block tables of
  Fig. 2: a file's pages as a doubly linked list; the first page's ``bt_prev`` is its LPMT
  entry's location ``g * assoc + w`` (PPid of a first page);
* free stacks of secondary sets and of physical pages (LIFO: a freed id is reused first;
  the initial order pops the lowest id first).

The per-set arrays are strided views of one record per set (:func:`set_record_dtype`),
which the lookup reads through flat views (:data:`SetRecords`).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from skftl.dram.prefetch import prefetch
from skftl.inlining import inlined

# LLVM inlines an ``inline`` function into every caller (skftl.inlining); an ``out_of_line``
# one is called as a function. The kernels allocate nothing, so they run
# without reference counting (``_nrt=False``): with it, every array passed to a helper in the
# hot loop leaves an atomic incref/decref pair there, a multiple of the loop's own cost.
inline = inlined(_nrt=False)
out_of_line = numba.njit(cache=True, _nrt=False)

OP_READ, OP_WRITE, OP_DELETE, OP_DELETE_PAGE = range(4)

ST_MISS, ST_HIT, ST_INSERTED, ST_FAILED = range(4)  # an operation's status

F_VALID, F_SINGLE = 1, 2  # ent_flags: valid entry, single-page file
BT_VALID, BT_FIRST, BT_LAST = 1, 2, 4  # bt_flags: valid page, first / last of its file

# --- config[CONFIG_*]: the table's configuration (lpmt.Lpmt.config_vector) ----------------
CONFIG_PRIMARY_SETS = 0  # P: sets 0..P-1 are primary, the rest secondary
CONFIG_ASSOC = 1  # ways per set
CONFIG_INSERT_ON_MISS = 2  # 1: a READ of an unknown key maps the file
CONFIG_EARLY_EXIT = 3  # where a set probe stops: EARLY_*
CONFIG_ROW_HITS = 4  # which reads are row hits: ROW_*
# where a set's fields lie in a record (record_index), read by the generic kernel (a
# specialised one has them as constants): the record's length in int64s, the offsets of PA
# in int32s, of the flags in bytes and of the next-set link in int64s
CONFIG_RECORD_INT64S, CONFIG_PA_INT32S, CONFIG_FLAGS_BYTES, CONFIG_NEXT_INT64S = range(5, 9)
CONFIG_RECENCY_COL = 9  # the bank field that orders Fig. 7 (timing.recency_col)
CONFIG_LEN = 10

# config[CONFIG_EARLY_EXIT] (lpmt.EARLY_EXIT, in this order)
EARLY_NONE, EARLY_MATCH, EARLY_MATCH_OR_EMPTY = range(3)
# config[CONFIG_ROW_HITS] (lpmt.ROW_HITS, in this order)
ROW_PER_BANK, ROW_PER_PROBE, ROW_WINDOW = range(3)

# --- free_top[FREE_*]: the heights of the free stacks ------------------------------------
FREE_SETS, FREE_PAGES = range(2)

# --- counters[CT_*] -----------------------------------------------------------------------
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

Ops = namedtuple(
    "Ops",
    [
        # the stream
        "op",  # OP_*
        "key",  # keys < 2**63
        "home",  # home sets
        "arg",  # page counts (READ, WRITE) or a page index (DELETE_PAGE)
        # per operation
        "latency",  # cycles of its lookup reads
        "reads",  # DRAM reads
        "status",  # ST_*
    ],
)

Tables = namedtuple(
    "Tables",
    [
        # the set records' fields: strided views [set, way] or [set]
        "ent_key",
        "ent_pa",
        "ent_flags",
        "set_next",
        "set_prev",
        "set_count",
        "free_sets",  # secondary sets, free_top[FREE_SETS] of them free
        "bt_next",
        "bt_prev",
        "bt_flags",
        "free_pages",  # free_top[FREE_PAGES] of them free
        "free_top",  # FREE_*
    ],
)

# (the DRAM's scalars, timing.SC_*, are apart: the kernels carry them as a tuple of locals,
# timing.S_*)
BankState = namedtuple(
    "BankState",
    [
        "banks",  # per bank, B_STRIDE fields (timing.B_*), flat: bank * B_STRIDE + field
        "acts",  # the last four ACTs (tFAW), a ring
        "cases",  # reads per Table V class (timing.case_labels)
    ],
)

# The set records as the lookup reads them: flat views and where a set's fields lie. In a
# C-contiguous flat view an element's address is the base plus a constant multiple of its
# index; in the strided field views each index also multiplies by strides held at run time,
# so many more live values to spill in the hot loop. The table's changes use the field
# views.
SetRecords = namedtuple(
    "SetRecords",
    [
        "bytes",
        "int64",
        "int32",
        "stride",  # a record's length in int64s
        "pa_offset",  # where PA begins in a record, in int32s
        "flags_offset",  # ... the flags, in bytes
        "next_offset",  # ... the next-set link, in int64s (the keys come first)
    ],
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
    """Where a set's fields lie in flat views of the records (:data:`SetRecords`): the
    record's length in int64s, and the offsets of PA in int32s, of the flags in bytes and
    of the next-set link in int64s (the keys are first)."""
    dt = set_record_dtype(assoc)
    return (dt.itemsize // 8, dt.fields["pa"][1] // 4, dt.fields["flags"][1],
            dt.fields["next"][1] // 8)  # fmt: skip


@inline
def set_records(records, index):
    """The :data:`SetRecords` of the flat bytes ``records``; ``index``: record_index."""
    return SetRecords(
        records, records.view(np.int64), records.view(np.int32), index[0], index[1], index[2],
        index[3],
    )  # fmt: skip


@inline
def key_at(sets, g, w):
    """Key of way ``w`` of set ``g``."""
    return sets.int64[g * sets.stride + w]


@inline
def flags_at(sets, g, w):
    return sets.bytes[g * sets.stride * 8 + sets.flags_offset + w]


@inline
def pa_at(sets, g, w):
    return sets.int32[g * sets.stride * 2 + sets.pa_offset + w]


@inline
def next_at(sets, g):
    return sets.int64[g * sets.stride + sets.next_offset]


@inline
def prefetch_set(sets, g):
    """Start loading every cache line of set ``g``'s record (two with 8 ways)."""
    for line in range(0, sets.stride, 8):
        prefetch(sets.int64, g * sets.stride + line)
