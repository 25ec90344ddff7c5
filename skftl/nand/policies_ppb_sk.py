"""PPB with SK-FTL's SK-aware allocator on the same device (beyond both papers): policy
``ppb_sk`` of the NAND kernel (PPB's hooks with its own ``select_block`` and SK-FTL's
``free_list_of``; the contract: ``skftl.nand.hooks``).

PPB (``skftl.nand.policies_ppb``) decides everything it decides alone: the level and area
of a write, the virtual-block class it wants, the VB lists, diversion and when a block is
opened, and whether a read that makes data cold moves it (its ``migrate`` option); a block
serves one area and its slow VB fills before its fast VB. SK-awareness
(``skftl.nand.policies_skftl``) acts only where PPB leaves a choice:

* *which free block an area opens*: free blocks sit in SK-FTL's popcount-class lists
  (``free_list_of`` = popcount of the block number) and the area takes the oldest block of
  the class of the data's old block (nearest class when empty; an unmapped LPN counts as
  class 0, the fewest 1-bits, SK-FTL's default first-write rule);
* *which of the area's blocks in the wanted VB phase is programmed*: PPB keeps one
  writable block per (chip, area, VB class) and a FIFO of blocks waiting for that phase;
  all of them have their next page in the wanted VB. The one whose next page index equals
  the old page index (no page bit of the mapping entry changes) and, among those or
  failing that, the one whose block number has the old block's popcount is made the
  writable block (it swaps places with the current one in the FIFO); ties keep PPB's FIFO
  order. Diverted writes (rule 3) take the other class's writable block unchanged.

With PPB's default ``max_open = 2`` an area rarely has more than one block in a phase, so
the choice of the opened block does most of the work; larger ``max_open`` gives the
horizontal choice more blocks to pick from.
"""

from __future__ import annotations

from skftl.errors import ConfigError
from skftl.nand import policies_ppb as pp
from skftl.nand.core import P_NP, block_of, inline
from skftl.nand.policies_ppb import H_K, H_OFF_QH, H_OFF_QN, H_OFF_QT, H_OFF_WP, _slot, vb_select
from skftl.nand.policies_ppb import gc_stream as gc_stream  # PPB decides levels and streams
from skftl.nand.policies_ppb import migrate as migrate
from skftl.nand.policies_ppb import on_read as on_read
from skftl.nand.policies_ppb import prefetch as prefetch
from skftl.nand.policies_ppb import write_stream as write_stream
from skftl.nand.policies_skftl import free_list_of as free_list_of  # popcount-class lists
from skftl.nand.policies_skftl import min_free_lists as min_free_lists
from skftl.nand.policies_skftl import popcount

NAME = "ppb_sk"


@inline
def _mismatch(S, blk, old_page, old_cls):
    """0 = same page index and block popcount as the old entry, 1 = same page, 2 = same
    block popcount, 3 = neither."""
    return 2 * (S.next_page[blk] != old_page) + (popcount(blk) != old_cls)


@inline
def _prefer(S, chip, area, want, old_page, old_cls):
    """Make the best block in VB phase ``want`` of (chip, area) the writable one (the old
    entry's page index and block popcount: see ``_mismatch``)."""
    slot = _slot(S, chip, area, want)
    wp = S.pstate[H_OFF_WP] + slot
    cur = S.pstate[wp]
    if cur < 0:
        return
    best = cur
    best_score = _mismatch(S, cur, old_page, old_cls)
    best_prev = -1
    prev = -1
    qn = S.pstate[H_OFF_QN]
    b = S.pstate[S.pstate[H_OFF_QH] + slot]
    while b >= 0 and best_score > 0:
        sc = _mismatch(S, b, old_page, old_cls)
        if sc < best_score:
            best, best_score, best_prev = b, sc, prev
        prev = b
        b = S.pstate[qn + b]
    if best == cur:
        return
    # ``cur`` takes ``best``'s place in the FIFO
    S.pstate[qn + cur] = S.pstate[qn + best]
    S.pstate[qn + best] = -1
    if best_prev < 0:
        S.pstate[S.pstate[H_OFF_QH] + slot] = cur
    else:
        S.pstate[qn + best_prev] = cur
    if S.pstate[S.pstate[H_OFF_QT] + slot] == best:
        S.pstate[S.pstate[H_OFF_QT] + slot] = cur
    S.pstate[wp] = best


@inline
def select_block(S, chip, stream, lpn, old_ppn, is_gc):
    K = S.pstate[H_K]
    want = K - 1 if stream & 1 else 0
    area = stream >> 1
    if old_ppn < 0:  # an unmapped LPN counts as class 0 (SK-FTL's first-write rule)
        return vb_select(S, chip, area, want, 0)
    old_blk = block_of(S, old_ppn)
    old_cls = popcount(old_blk)
    _prefer(S, chip, area, want, old_ppn - old_blk * S.prm[P_NP], old_cls)
    return vb_select(S, chip, area, want, old_cls)


def attach(ftl, **kw) -> None:
    """Give an ``Ftl`` built with policy ``ppb_sk`` its policy state (``Ftl`` itself checks
    that ``n_free_lists`` holds the popcount classes); ``kw`` as ``policies_ppb.attach``."""
    if ftl.policy.name != "ppb_sk":
        raise ConfigError(f"ppb_sk: attach() needs policy ppb_sk, got {ftl.policy.name!r}")
    pp.attach(ftl, **kw)
