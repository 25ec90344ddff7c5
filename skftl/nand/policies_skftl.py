"""SK-FTL's SK-aware space allocator (Yang et al., Sec. III-B) as a NAND allocation policy
(hooks ``select_block`` and ``free_list_of``; the contract: ``skftl.nand.hooks``).

Free blocks of a chip are kept in "bits-number-based block lists": free list ``c`` holds
the erased blocks whose (global) block number has popcount ``c`` (``free_list_of``; GC
returns erased blocks to their list the same way). Each (chip, class) has ``H`` open
blocks that are filled *horizontally* (Fig. 6): a write goes to the open block whose next
page is furthest behind, so the blocks of a class advance row by row and successive
allocations share the page number.

Placement of an update of a mapped LPN (host write or GC copy): the class of the old
block's popcount, and within it an open block chosen by the row rule ``rows``. The mapping
entry is the PPN ``block * pages_per_block + page``, i.e. block bits followed by page bits,
so equal block popcount and equal page popcount mean an update that changes no skyrmion
count. The paper asks for the same popcount of the block address and for horizontal
allocation "across blocks in the same bits-number-based block list", which "ensures the
page number is identical"; it does not say across how many blocks.

* ``rows="lockstep"``: the open block whose next page is furthest behind: the ``H`` open
  blocks of a class advance row by row, so successive allocations share the page number
  (the text's horizontal allocation; the larger ``H``, the longer a row lasts).
* ``rows="match"``: among the ``H`` open blocks, the one whose next page has the popcount
  closest to the old page's (ties: the block furthest behind): our reading of "minimize
  the bit difference between the previously-stored PBA and the to-be-allocated PBA"
  applied to the page bits too (not in the text).

``H = 1`` makes both the plain one-block-per-class allocator. When the class has no free
or open block left, the nearest class (by popcount distance, lower first) is used.

``H = list_width(...)`` is the *list-wide* rotation, Sec. III-B read literally: every block
of a chip's list open at once, a row written across the whole list before the next. Holding
every free block open would leave GC none, so a rotation opens a free block only while its
chip keeps more than ``reserve`` free blocks (the FTL's GC high watermark); the reserve is
taken only when no open block of any class has a free page (GC reclaims then).

A first write (unmapped LPN) has no previously-stored PBA, so the paper's objective sets
no class. ``first_write="largest"`` sends it to the class with the most blocks with room on
the chip (free, or open with a free page): classes are consumed in proportion to their size,
so later updates find room in their own class. ``first_write="lowest"`` treats it as an old
address of popcount 0 (the lowest-popcount class with space, the lowest-popcount next page),
which minimises the skyrmions a first write injects but fills the small low classes first.

``pstate`` layout: ``[0] = H``, ``[1] = n_classes``, ``[2] = first-write rule`` (0 lowest,
1 largest), ``[3] = row rule`` (0 match, 1 lockstep), ``[4] = reserve`` (free blocks per
chip a rotation leaves for GC), ``[5] = room`` (offset of the open-block counts), then
``n_chips * n_classes * H`` open block ids (``-1`` = none), indexed ``6 + (chip * n_classes
+ class) * H + slot``, then at ``room`` the number of open blocks with a free page per
(chip, class), indexed ``room + chip * n_classes + class``.
"""

from __future__ import annotations

import numpy as np

from skftl.nand.core import OPEN, P_NLISTS, P_NP, inline, pop_free

PS_WIDTH = 0
PS_CLASSES = 1
PS_FIRST = 2
PS_ROWS = 3
PS_RESERVE = 4
PS_ROOM = 5
PS_SLOTS = 6
FIRST_WRITE = {"lowest": 0, "largest": 1}
ROWS = {"match": 0, "lockstep": 1}


def block_bits(n_blocks: int) -> int:
    """Bits of the largest block number (at least 1)."""
    return max(1, int(n_blocks - 1).bit_length())


def list_width(n_chips: int, n_blocks: int) -> int:
    """Blocks in the longest popcount list of any chip: the ``width`` of a list-wide
    rotation (blocks ``chip * n_blocks / n_chips`` onwards belong to ``chip``)."""
    blk = np.arange(n_blocks, dtype=np.int64)
    chip = blk // (n_blocks // n_chips)
    pop = np.array([bin(int(b)).count("1") for b in blk], np.int64)
    n_classes = block_bits(n_blocks) + 1
    return int(np.bincount(chip * n_classes + pop).max())


def skftl_pstate(
    n_chips: int,
    n_blocks: int,
    width: int,
    first_write: str = "lowest",
    rows: str = "match",
    reserve: int = 0,
) -> np.ndarray:
    """Initial policy state for a device of ``n_blocks`` blocks on ``n_chips`` chips with
    ``width`` open blocks per (chip, popcount class), first-write rule ``first_write``,
    row rule ``rows`` and ``reserve`` free blocks per chip that only a write with no other
    room may open."""
    if width < 1:
        raise ValueError(f"sk-ftl allocator: width must be >= 1, got {width}")
    if reserve < 0:
        raise ValueError(f"sk-ftl allocator: reserve must be >= 0, got {reserve}")
    if first_write not in FIRST_WRITE:
        raise ValueError(
            f"sk-ftl allocator: first_write must be one of {sorted(FIRST_WRITE)}, "
            f"got {first_write!r}"
        )
    if rows not in ROWS:
        raise ValueError(f"sk-ftl allocator: rows must be one of {sorted(ROWS)}, got {rows!r}")
    n_classes = block_bits(n_blocks) + 1
    room = PS_SLOTS + n_chips * n_classes * width
    ps = np.full(room + n_chips * n_classes, -1, np.int64)
    ps[room:] = 0
    ps[PS_ROOM] = room
    ps[PS_WIDTH] = width
    ps[PS_CLASSES] = n_classes
    ps[PS_FIRST] = FIRST_WRITE[first_write]
    ps[PS_ROWS] = ROWS[rows]
    ps[PS_RESERVE] = reserve
    return ps


@inline
def popcount(x):
    """Set bits of a non-negative integer < 2**64 (SWAR)."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


NAME = "sk-ftl"


def min_free_lists(geometry) -> int:  # noqa: ANN001 - a skftl.nand.Geometry
    """One free list per popcount class of the device's block numbers."""
    return block_bits(geometry.n_blocks) + 1


def init_state(ftl) -> np.ndarray:  # noqa: ANN001 - a skftl.nand.Ftl
    """The study's default allocator (``skrm``): a list-wide rotation that leaves the GC high
    watermark's free blocks to GC, lock-step rows, first writes to the roomiest class."""
    g = ftl.geometry
    return skftl_pstate(
        g.n_chips,
        g.n_blocks,
        list_width(g.n_chips, g.n_blocks),
        "largest",
        "lockstep",
        ftl.config.gc_high_blocks,
    )


@inline
def free_list_of(S, blk):
    return popcount(blk)


@inline
def _usable(S, b, np_):
    """Block ``b`` (a slot's entry) is still open with a free page: a slot's block may have
    been sealed (and even reclaimed by GC) since it was opened."""
    return b >= 0 and S.blk_state[b] == OPEN and S.next_page[b] < np_


@inline
def _best_in_class(S, chip, cls, want_page_pop, reserve):
    """The open block of (chip, cls) to program next, opening free blocks of the class
    into empty slots while the chip keeps more than ``reserve`` free blocks; -1 when the
    class has neither. Under lock-step rows empty slots are refilled only once the whole
    row is done, so the open blocks start each row together."""
    width = S.pstate[PS_WIDTH]
    np_ = S.prm[P_NP]
    base = PS_SLOTS + (chip * S.pstate[PS_CLASSES] + cls) * width
    lockstep = S.pstate[PS_ROWS] == 1
    row_open = False
    if lockstep:
        for h in range(width):
            if _usable(S, S.pstate[base + h], np_):
                row_open = True
                break
    room = S.pstate[PS_ROOM] + chip * S.pstate[PS_CLASSES] + cls
    best = -1
    best_score = 1 << 62
    for h in range(width):
        b = S.pstate[base + h]
        if not _usable(S, b, np_):
            if row_open or S.free_count[chip] <= reserve:
                continue
            b = pop_free(S, chip, cls, 0)
            S.pstate[base + h] = b
            if b < 0:
                continue
            S.pstate[room] += 1
        page = S.next_page[b]
        score = page
        if want_page_pop >= 0 and not lockstep:
            score += abs(popcount(page) - want_page_pop) * np_
        if score < best_score:
            best_score = score
            best = b
    if best >= 0 and S.next_page[best] == np_ - 1:
        S.pstate[room] -= 1  # the write about to be programmed fills it
    return best


@inline
def _roomiest_class(S, chip, n_classes):
    """The class of ``chip`` with the most blocks that have a free page: its free blocks and
    its open blocks with room (a list-wide rotation holds a class's blocks open)."""
    k0 = chip * S.prm[P_NLISTS]
    r0 = S.pstate[PS_ROOM] + chip * n_classes
    want = 0
    most = S.free_len[k0] + S.pstate[r0]
    for c in range(1, n_classes):
        n = S.free_len[k0 + c] + S.pstate[r0 + c]
        if n > most:
            most = n
            want = c
    return want


@inline
def wanted_classes(S, old_ppn):
    """(block popcount class, page popcount) an update of ``old_ppn`` should keep; an
    unmapped LPN (``old_ppn`` < 0) as an old address of popcount 0: (0, 0)."""
    if old_ppn < 0:
        return 0, 0  # no previous address and an empty entry: as few 1-bits as possible
    np_ = S.prm[P_NP]
    ob = old_ppn // np_
    return popcount(ob), popcount(old_ppn - ob * np_)


@inline
def nearest(x, k):
    """The ``k``-th value by distance from ``x``, lower first: x, x-1, x+1, x-2, x+2, ...
    (the allocator's class search; SK-RM's search for neighbouring racetracks)."""
    d = (k + 1) >> 1
    return x - d if k & 1 else x + d


@inline
def pop_free_nearest(S, chip, want, stream):
    """Open the oldest free block of the popcount class nearest ``want`` (by distance,
    lower first) for ``stream``; -1 when the chip has no free block."""
    n = S.prm[P_NLISTS]
    for k in range(2 * n - 1):
        c = nearest(want, k)
        if 0 <= c < n:
            b = pop_free(S, chip, c, stream)
            if b >= 0:
                return b
    return -1


@inline
def select_block(S, chip, stream, lpn, old_ppn, is_gc):
    n_classes = S.pstate[PS_CLASSES]
    if old_ppn < 0 and S.pstate[PS_FIRST] == 1:  # first write, rule 'largest'
        want, want_page = _roomiest_class(S, chip, n_classes), -1
    else:
        want, want_page = wanted_classes(S, old_ppn)
    reserve = S.pstate[PS_RESERVE]
    # the reserve is opened only when no class has room without it
    for r in range(2 if reserve > 0 else 1):
        for k in range(2 * n_classes - 1):
            c = nearest(want, k)
            if 0 <= c < n_classes:
                b = _best_in_class(S, chip, c, want_page, reserve if r == 0 else 0)
                if b >= 0:
                    return b
    return -1


def check_geometry(n_chips: int, n_blocks: int, n_free_lists: int, pstate_len: int) -> None:
    """Raise when the FTL's free lists or pstate cannot hold this policy's classes."""
    n_classes = block_bits(n_blocks) + 1
    if n_free_lists < n_classes:
        raise ValueError(
            f"sk-ftl allocator: needs n_free_lists >= {n_classes} (popcount classes of "
            f"{n_blocks} block numbers), got {n_free_lists}"
        )
    if pstate_len < PS_SLOTS + 2 * n_chips * n_classes:
        raise ValueError("sk-ftl allocator: pstate too small; build it with skftl_pstate()")
