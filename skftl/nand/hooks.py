"""The hooks of an FTL policy, their contract, and the conventional page-mapped FTL's
implementation of each (the defaults).

A **policy** is a Python module (or file) that defines some of the hooks below, as Numba
functions (``skftl.nand.core.inline`` inlines them into the kernel, ``njit`` compiles one out
of line); every hook it leaves out is this module's. ``skftl.nand.policy.load`` turns a
built-in name, a module name or a file path into a policy, and ``skftl.nand.policy.kernels``
builds the replay kernel for that policy alone, its hooks inlined, cached on disk under a
digest of the sources it inlines (a second process loads it without compiling; an edit of the
policy's file compiles it anew). Built in: ``page`` (this module: the conventional FTL),
``sk-ftl`` (``policies_skftl``), ``ppb``, ``ppb_split``, ``ppb_sk`` (``policies_ppb*``).

A policy keeps whatever state it needs in ``S.pstate`` (an int64 array its ``init_state``
sizes; lay it out with offsets in the policy's own module) and may use the core primitives
(``pop_free``, ``write_point_block``, the block arrays of ``skftl.nand.core``).

Hooks (``S`` is the ``FtlArrays`` state):

* ``write_stream(S, lpn, given)`` -> stream of a host write. ``given`` is the caller's
  precomputed stream id for this page op (e.g. hotness by request size from Python); an
  in-kernel hotness identifier (PPB's two-level LRU) overrides it here.
* ``gc_stream(S, lpn, victim_stream)`` -> stream a GC copy is written to (PPB reclassifies
  data when GC moves it; the default keeps the victim block's stream).
* ``on_read(S, lpn, ppn)`` observes every host read that reaches the FTL (PPB promotes
  re-read data).
* ``select_chip(S, lpn, stream)`` -> chip of a host write: static striping ``lpn % n_chips``
  or the least busy chip (``chip_alloc: dynamic``). GC copies stay on the victim's chip.
* ``select_block(S, chip, stream, lpn, old_ppn, is_gc)`` -> a block of ``chip`` that has a
  free page, -1 when none is left; the kernel then programs that block's *next* page, so
  NAND's in-order rule holds whatever the policy does. ``old_ppn`` is the LPN's current
  location (-1 if unmapped).
* ``free_list_of(S, blk)`` -> which of the ``n_free_lists`` free FIFOs of its chip an erased
  block joins (default: 0; the conventional policy with multi-plane write points: the
  block's plane).
* ``select_victim(S, chip, plane)`` -> the block GC reclaims next on ``chip`` (of ``plane``
  when >= 0): a sealed block with at least one invalid page, or -1 (default: greedy, or
  cost-benefit under ``gc_policy: cost_benefit``).
* ``prefetch(S, lpn)`` -> a value loaded from the policy's per-LPN state, added to a sink:
  the kernel calls it in its batched prefetch loops (the next host ops, a GC victim's
  pages) so that the policy's cache misses overlap there instead of stalling each op.
* ``migrate(S, lpn, ppn)`` -> the stream to move a page to right after a host read of it
  from flash (``ppn``, mapped; not called for reads served by the write cache or of
  unmapped pages), or -1 to leave it where it is (default: always -1, and the kernel's
  migration path compiles away). The kernel then programs the page, whose data is in the
  controller after the read, into the block ``select_block(S, chip, stream, lpn, ppn,
  False)`` gives on the page's own chip, garbage-collecting that chip first when it is short
  of free blocks (if that GC moves the page itself, its copy went where ``gc_stream`` placed
  it and no second copy is made), invalidates the old copy, logs the update as
  ``LOG_MIGRATE`` (flash log: a program of origin ``ORIGIN_MIGRATE``) and counts it in
  ``C_MIGRATIONS``. The program is booked on the chip after the read's transfer: the host
  read completes as without it, later operations find the chip busy.

Module attributes a policy may define (Python side, read by ``skftl.nand.ftl.Ftl``):
``NAME`` (default: the module's name), ``min_free_lists(geometry) -> int`` (free FIFOs per
chip it needs, default 1) and ``init_state(ftl) -> np.ndarray`` (its initial ``pstate`` when
the caller passes none).

While GC copies a victim (state VICTIM), the victim's valid bits and count are cleared only
when it is erased, after its last copy: hooks called during GC must not read them.
"""

from __future__ import annotations

from skftl.nand.core import (
    C_CLOCK,
    CHIP_DYNAMIC,
    GC_COST_BENEFIT,
    P_BPC,
    P_BPP,
    P_CHIP_ALLOC,
    P_GC_POLICY,
    P_MULTI_PLANE,
    P_NCHIPS,
    P_NCHIPS_SHIFT,
    P_NP,
    P_PLANES,
    SEALED,
    block_of,
    div,
    inline,
    plane_of,
    plane_write_point,
    write_point_block,
)

NAME = "page"

HOOKS = (
    "write_stream",
    "gc_stream",
    "on_read",
    "select_chip",
    "select_block",
    "free_list_of",
    "select_victim",
    "prefetch",
    "migrate",
)


@inline
def write_stream(S, lpn, given):
    return given


@inline
def gc_stream(S, lpn, victim_stream):
    return victim_stream


@inline
def on_read(S, lpn, ppn):
    pass


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
    """One write point per (chip, stream), or per plane too with multi-plane write points."""
    if S.prm[P_MULTI_PLANE]:
        return plane_write_point(S, chip, stream, write_plane(S, lpn, old_ppn, is_gc))
    return write_point_block(S, chip, stream, 0)


@inline
def write_plane(S, lpn, old_ppn, is_gc):
    """Plane of a write with multi-plane write points: a GC copy stays in its victim's
    plane; host writes stripe LPNs over the planes after the chips (``lpn // chips %
    planes``), so the pages of one request that land on one chip go to consecutive planes
    (aligned pages while the planes' write points are level)."""
    if is_gc:
        return plane_of(S, block_of(S, old_ppn))
    return div(lpn, S.prm[P_NCHIPS], S.prm[P_NCHIPS_SHIFT]) % S.prm[P_PLANES]


@inline
def free_list_of(S, blk):
    if S.prm[P_MULTI_PLANE]:
        return plane_of(S, blk)  # one free list per plane (plane_write_point)
    return 0


@inline
def prefetch(S, lpn):
    return 0


@inline
def migrate(S, lpn, ppn):
    """Never: the conventional FTL moves data only when the host rewrites it or GC copies it."""
    return -1


@inline
def select_victim(S, chip, plane):
    """A sealed block of ``chip`` (of its ``plane`` when >= 0) with at least one invalid
    page, or -1."""
    np_ = S.prm[P_NP]
    first = chip * S.prm[P_BPC]
    n_blocks = S.prm[P_BPC]
    if plane >= 0:
        first += plane * S.prm[P_BPP]
        n_blocks = S.prm[P_BPP]
    if S.prm[P_GC_POLICY] == GC_COST_BENEFIT:
        # Kawaguchi et al. (USENIX'95) cost-benefit: max age * (1 - u) / 2u, age in flash
        # programs since the block was last written; the lowest block number among equals.
        clock = S.ctr[C_CLOCK]
        best = -1
        best_score = -1.0
        for blk in range(first, first + n_blocks):
            if S.blk_state[blk] != SEALED:
                continue
            v = S.vcount[blk]
            if v == 0:
                return blk
            if v == np_:
                continue
            score = (np_ - v) * (clock - S.blk_time[blk]) / (2.0 * v)
            if score > best_score:
                best_score = score
                best = blk
        return best
    base = chip * (np_ + 1)
    for v in range(np_):
        blk = S.bkt_head[base + v]
        if plane < 0:
            if blk >= 0:
                return blk
            continue
        # the chip's bucket in order, the first block of the plane
        while blk >= 0 and plane_of(S, blk) != plane:
            blk = S.lnext[blk]
        if blk >= 0:
            return blk
    return -1
