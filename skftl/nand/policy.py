"""Allocation-policy hooks: the one place a new FTL policy plugs into the replay kernel.

The kernel never decides placement itself; it calls these ``@njit`` functions, which
dispatch on the policy id ``S.prm[P_POLICY]``. A policy keeps whatever state it needs in
``S.pstate`` (an int64 array sized by the caller; lay it out with offsets in the policy's
own module) and may use the core primitives (``pop_free``, ``write_point_block``, the block
arrays). To add a policy: give it an id below, add one branch to each hook that it changes
(the others fall through to the conventional behaviour), and pass ``policy=<id>`` plus its
``pstate`` to ``skftl.nand.ftl.Ftl``. Numba compiles the branches away at no cost to the
others' speed beyond an integer compare per call.

Hooks (``S`` is the ``FtlArrays`` state):

* ``write_stream(S, lpn, given)`` -> stream of a host write. ``given`` is the caller's
  precomputed stream id for this page op (e.g. hotness by request size from Python);
  an in-kernel hotness identifier (PPB's two-level LRU) overrides it here.
* ``gc_stream(S, lpn, victim_stream)`` -> stream a GC copy is written to (PPB reclassifies
  data when GC moves it; the default keeps the victim block's stream).
* ``on_read(S, lpn, ppn)`` observes every host read (PPB promotes re-read data).
* ``select_chip(S, lpn, stream)`` -> chip of a host write: static striping
  ``lpn % n_chips`` or dynamic least-busy chip (``chip_alloc``). GC copies stay on the
  victim's chip.
* ``select_block(S, chip, stream, lpn, old_ppn, is_gc)`` -> a block of ``chip`` that has a
  free page; the kernel then programs that block's *next* page, so NAND's in-order rule
  holds whatever the policy does. ``old_ppn`` is the LPN's current location (-1 if
  unmapped): SK-FTL picks a block whose number has the same popcount as the old one and
  rotates "horizontally" over several open blocks of that class so the page number stays
  equal; PPB picks the hot- or cold-area block whose next page lies in the slow or fast
  virtual block wanted by the stream; PPB-SK makes PPB's free-block and open-block choices
  SK-aware.
* ``free_list_of(S, blk)`` -> which of the ``n_free_lists`` free FIFOs of its chip an
  erased block joins (SK-FTL: popcount of the block number; the conventional policy with
  multi-plane write points: the block's plane; default: 0).
* ``prefetch(S, lpn)`` -> a value loaded from the policy's per-LPN state, added to a sink:
  the kernel calls it in its batched prefetch loops (the next host ops, a GC victim's
  pages) so that the policy's cache misses overlap there instead of stalling each op
  (PPB: the LPN's level word; default: nothing).

While GC copies a victim (state VICTIM), the victim's valid bits and count are cleared only
when it is erased, after its last copy: hooks called during GC must not read them.

Mapping updates (host write, GC copy, TRIM) can be observed through the optional
mapping-update log (``log_capacity`` > 0 in ``Ftl``): (lpn, old_ppn, new_ppn, kind).
"""

from __future__ import annotations

from skftl.nand.core import (
    CHIP_DYNAMIC,
    P_CHIP_ALLOC,
    P_MULTI_PLANE,
    P_NCHIPS,
    P_NCHIPS_SHIFT,
    P_PLANES,
    P_POLICY,
    block_of,
    div,
    inline,
    plane_of,
    plane_write_point,
    write_point_block,
)
from skftl.nand.policies_ppb import (  # PPB and the naive split (skftl/nand/policies_ppb.py)
    level_stream,
    ppb_on_read,
    ppb_prefetch,
    ppb_select_block,
    ppb_write_stream,
    split_select_block,
    split_write_stream,
)
from skftl.nand.policies_ppb_sk import ppb_sk_select_block
from skftl.nand.policies_skftl import skftl_free_list, skftl_select_block

POLICY_PAGE = 0  # conventional page-mapped FTL: one write point per (chip, stream)
POLICY_SKFTL = 2  # SK-FTL's SK-aware allocator (skftl/nand/policies_skftl.py)
POLICY_PPB = 20  # PPB: hot/cold areas, four levels, virtual blocks
POLICY_PPB_SPLIT = 21  # PPB's Fig. 3 baseline: hot -> fast, cold -> slow pages of the same blocks
POLICY_PPB_SK = 22  # PPB with SK-FTL's free lists and block choice (policies_ppb_sk.py)
POLICIES = {
    "page": POLICY_PAGE,
    "sk-ftl": POLICY_SKFTL,
    "ppb": POLICY_PPB,
    "ppb_split": POLICY_PPB_SPLIT,
    "ppb_sk": POLICY_PPB_SK,
}
POPCOUNT_LIST_POLICIES = ("sk-ftl", "ppb_sk")  # free_list_of = popcount of the block number


@inline
def write_stream(S, lpn, given):
    if S.prm[P_POLICY] == POLICY_PPB or S.prm[P_POLICY] == POLICY_PPB_SK:
        return ppb_write_stream(S, lpn, given)
    if S.prm[P_POLICY] == POLICY_PPB_SPLIT:
        return split_write_stream(S, lpn, given)
    return given


@inline
def gc_stream(S, lpn, victim_stream):
    if (
        S.prm[P_POLICY] == POLICY_PPB
        or S.prm[P_POLICY] == POLICY_PPB_SPLIT
        or S.prm[P_POLICY] == POLICY_PPB_SK
    ):
        return level_stream(S, lpn)
    return victim_stream


@inline
def on_read(S, lpn, ppn):
    if S.prm[P_POLICY] == POLICY_PPB or S.prm[P_POLICY] == POLICY_PPB_SK:
        ppb_on_read(S, lpn)


@inline
def select_chip(S, lpn, stream):
    n = S.prm[P_NCHIPS]
    if S.prm[P_CHIP_ALLOC] == CHIP_DYNAMIC:
        # least busy chip; the lowest id among equals
        best = 0
        t = S.chip_free[0]
        for c in range(1, n):
            if S.chip_free[c] < t:
                t = S.chip_free[c]
                best = c
        return best
    return lpn - div(lpn, n, S.prm[P_NCHIPS_SHIFT]) * n


@inline
def select_block(S, chip, stream, lpn, old_ppn, is_gc):
    if S.prm[P_POLICY] == POLICY_PAGE:
        if S.prm[P_MULTI_PLANE]:
            return plane_write_point(S, chip, stream, write_plane(S, lpn, old_ppn, is_gc))
        return write_point_block(S, chip, stream, 0)
    if S.prm[P_POLICY] == POLICY_SKFTL:
        return skftl_select_block(S, chip, old_ppn)
    if S.prm[P_POLICY] == POLICY_PPB:
        return ppb_select_block(S, chip, stream)
    if S.prm[P_POLICY] == POLICY_PPB_SPLIT:
        return split_select_block(S, chip, stream)
    if S.prm[P_POLICY] == POLICY_PPB_SK:
        return ppb_sk_select_block(S, chip, stream, old_ppn)
    return -1


@inline
def write_plane(S, lpn, old_ppn, is_gc):
    """Plane of a write with multi-plane write points (conventional policy): a GC copy stays
    in its victim's plane; host writes stripe LPNs over the planes after the chips
    (``lpn // chips % planes``), so the pages of one request that land on one chip go to
    consecutive planes (aligned pages while the planes' write points are level)."""
    if is_gc:
        return plane_of(S, block_of(S, old_ppn))
    return div(lpn, S.prm[P_NCHIPS], S.prm[P_NCHIPS_SHIFT]) % S.prm[P_PLANES]


@inline
def prefetch(S, lpn):
    if (
        S.prm[P_POLICY] == POLICY_PPB
        or S.prm[P_POLICY] == POLICY_PPB_SPLIT
        or S.prm[P_POLICY] == POLICY_PPB_SK
    ):
        return ppb_prefetch(S, lpn)
    return 0


@inline
def free_list_of(S, blk):
    if S.prm[P_POLICY] == POLICY_SKFTL or S.prm[P_POLICY] == POLICY_PPB_SK:
        return skftl_free_list(S, blk)
    if S.prm[P_POLICY] == POLICY_PAGE and S.prm[P_MULTI_PLANE]:
        return plane_of(S, blk)  # one free list per plane (plane_write_point)
    return 0
