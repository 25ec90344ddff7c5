"""PPB (Chen et al., DAC'17) as an allocation policy of the NAND kernel (hooks
``write_stream``, ``gc_stream``, ``on_read``, ``select_block``, ``prefetch``, ``migrate``;
the contract: ``skftl.nand.hooks``), and the virtual-block machinery the naive fast/slow
split of its Fig. 3 (``policies_ppb_split``) and PPB-SK (``policies_ppb_sk``) share.

Virtual blocks (Sec. 3.3). A physical block of ``np`` pages is split into ``K`` virtual
blocks (VBs) of ``np / K`` consecutive pages, VB ``k`` = pages ``[k np/K, (k+1) np/K)``.
Pages are programmed in order, so a block's VB 0 (the pages programmed first, the slow ones
on 3D charge-trap flash) fills before VB 1 etc.; with ``K = 2`` these are the paper's slow
VB ``2n`` and fast VB ``2n+1``. A block is in *phase* ``k`` while its next page lies in VB
``k``.

Levels and streams. Every write carries a level, used as the kernel's stream id:
0 icy-cold, 1 cold (cold area), 2 hot, 3 iron-hot (hot area). Area = level >> 1; odd levels
want the fastest VB class (``K - 1``), even levels the slowest (0). A block serves one area
for its whole life (``blk_stream`` = area), so hot and cold data never share a block.

First stage (Sec. 3.2): the caller's identifier (request size by default, see
``skftl.studies.ppb``) gives each host write ``given`` = 1 (hot) or 0 (cold); the write
goes to that area. Hot area (Sec. 3.4, Algorithm 1): a two-level LRU over LPNs; a write puts
the LPN at the head of the hot list (or of the iron-hot list if it is already there); a read
of a hot entry promotes it to the iron-hot head; when the iron-hot list exceeds its capacity
its LRU entry is demoted to the hot head (so is it when an iron-hot program finds no free
space in the iron-hot VB list), when the hot list does its LRU entry leaves for the cold
area. Cold area: an access-frequency table (reads per LPN while in the cold area); an
entry with at least ``cold_reads`` reads is *cold* (fast VB), else *icy-cold* (slow VB).
The paper sorts the table; a threshold is the cheap online equivalent of "the frequently
read part of the table". By default level changes move nothing: the data lands on its
level's VB class only when it is next written by the host or copied by GC (``gc_stream`` =
current level), as Sec. 4.2 says ("only moves data to its new location during update or
garbage collection operations"). With ``migrate = "cold"`` the cold area moves data
explicitly, Sec. 3.4's "finally moves the data to its new location" taken literally: the
read that makes icy-cold data cold (``on_read`` marks its LPN pending) has it programmed
into the cold area's fast VB class right away (hook ``migrate``; the kernel's
``migrate_page``), unless it already lies there. The hot area's promotions stay progressive
(Sec. 3.4: "not immediately moved ... when updating or conducting garbage operations"), and
the table only ever raises a level (counts never decay), so cold -> icy-cold never occurs.

VB lists (Sec. 3.3.2, Figs. 8-11). Per (chip, area) each VB class ``k`` has one writable
block (``wp``: the area's list of class ``k`` "has free space") and a FIFO of blocks waiting
for that phase (their VB ``k - 1`` is full while another block is still writing its VB
``k``). A write wanting class ``c``:

1. goes to the writable block of class ``c`` if there is one;
2. else, if ``c`` is the slowest class and the area has fewer than ``max_open`` blocks with
   free space, opens a new block from the free list (its VB 0 joins the slow list);
3. else is diverted to the writable block of the nearest other class (Fig. 10 (b) I/II,
   "if one of the lists is full while the other still has some free space");
4. else (no list of the area has free space, Fig. 10 (b) III) opens a new block.

``max_open = 1`` is the literal reading "new virtual blocks only when both lists are full":
the area then has one open block at a time and fills it in order whatever the levels want, so
placement cannot follow hotness at all. ``max_open = 2`` (default) lets the slow and the fast
list each hold one block with free space, the least that makes the design work; it bounds a
block's half-written time as the paper requires (a block's fast VB waiting in the FIFO is
drained by diversion once the area has ``max_open`` blocks open). Algorithm 1 line 23 ("insert
to Iron-hot list" in the hot branch) is read as the hot list (Fig. 10 (a)).

The naive split (Fig. 3) uses the same VB machinery with one area: hot writes (first stage)
want the fast class, cold the slow class, in the same blocks.

State lives in ``S.pstate`` (int64), laid out by ``layout``; per-LPN words pack the level
and read count (``meta``) and the LRU links (``link``) to keep 16 bytes per logical page.
"""

from __future__ import annotations

import numpy as np

from skftl.errors import ConfigError
from skftl.nand.core import P_NP, block_of, inline, pop_free
from skftl.nand.policies_skftl import pop_free_nearest

# --- header words of pstate -----------------------------------------------------------
H_K = 0  # virtual blocks per physical block
H_MAX_OPEN = 1  # blocks with free space per (chip, area) before diverting (see docstring)
H_NLPN = 2
H_HOT_CAP = 3  # hot-list capacity (LPNs)
H_IRON_CAP = 4  # iron-hot-list capacity (LPNs)
H_COLD_READS = 5  # reads that make cold-area data "cold" (fast VB)
H_HOT_LEN = 6
H_IRON_LEN = 7
H_HOT_HEAD = 8
H_HOT_TAIL = 9
H_IRON_HEAD = 10
H_IRON_TAIL = 11
H_OFF_META = 12  # offsets of the arrays below
H_OFF_LINK = 13
H_OFF_WP = 14
H_OFF_QH = 15
H_OFF_QT = 16
H_OFF_OPEN = 17
H_OFF_QN = 18
# statistics
H_PROMOTIONS = 19  # hot -> iron-hot on a read
H_DEMOTE_IRON = 20  # iron-hot -> hot (iron-hot list full)
H_DEMOTE_HOT = 21  # hot -> cold area (hot list full)
H_DIVERTED = 22  # writes placed in another class than wanted (rule 3)
H_OPENED = 23  # blocks opened
H_WANT_FAST = 24  # programs (host + GC) that wanted the fastest class
H_GOT_FAST = 25  # ... and got it
H_GOT_FAST_UNWANTED = 26  # programs wanting a slow class that landed in the fastest class
H_COLD_PROMOTIONS = 27  # icy-cold -> cold on reaching cold_reads
H_MIGRATE = 28  # MIGRATE value: 1 = the cold area moves data when a read makes it cold
H_PENDING = 29  # LPN the read being served made cold, to migrate (-1: none)
H_VB_PAGES = 30  # pages per virtual block (pages per block / K): VB bounds without a division
HDR = 32

#: ``migrate`` settings (``attach``): none = levels change placement only on update or GC;
#: cold = the cold area also moves data a read makes cold (module docstring)
MIGRATE = {"none": 0, "cold": 1}

ICY_COLD, COLD, HOT, IRON_HOT = 0, 1, 2, 3
LEVEL_NAMES = ("icy_cold", "cold", "hot", "iron_hot")
STAT_NAMES = {
    "promotions": H_PROMOTIONS,
    "iron_demotions": H_DEMOTE_IRON,
    "hot_demotions": H_DEMOTE_HOT,
    "diverted": H_DIVERTED,
    "blocks_opened": H_OPENED,
    "want_fast": H_WANT_FAST,
    "got_fast": H_GOT_FAST,
    "got_fast_unwanted": H_GOT_FAST_UNWANTED,
    "cold_promotions": H_COLD_PROMOTIONS,
}
N_AREAS = 2
_NONE = -1
NAME = "ppb"
_LO32 = (1 << 32) - 1


def layout(
    *,
    n_lpn: int,
    n_chips: int,
    n_blocks: int,
    n_vbs: int = 2,
    max_open: int = 2,
    hot_capacity: int = 1,
    iron_capacity: int = 1,
    cold_reads: int = 2,
    migrate: int = 0,
    pages_per_block: int,
) -> np.ndarray:
    """An initial ``pstate`` for the PPB / naive-split policies (``migrate``: a ``MIGRATE``
    value)."""
    n_slots = n_chips * N_AREAS * n_vbs
    off_meta = HDR
    off_link = off_meta + n_lpn
    off_wp = off_link + n_lpn
    off_qh = off_wp + n_slots
    off_qt = off_qh + n_slots
    off_open = off_qt + n_slots
    off_qn = off_open + n_chips * N_AREAS
    ps = np.zeros(off_qn + n_blocks, np.int64)
    ps[H_K], ps[H_MAX_OPEN], ps[H_NLPN] = n_vbs, max_open, n_lpn
    ps[H_HOT_CAP], ps[H_IRON_CAP], ps[H_COLD_READS] = hot_capacity, iron_capacity, cold_reads
    ps[H_HOT_HEAD] = ps[H_HOT_TAIL] = ps[H_IRON_HEAD] = ps[H_IRON_TAIL] = _NONE
    ps[H_MIGRATE], ps[H_PENDING] = migrate, _NONE
    ps[H_VB_PAGES] = pages_per_block // n_vbs
    ps[H_OFF_META], ps[H_OFF_LINK], ps[H_OFF_WP] = off_meta, off_link, off_wp
    ps[H_OFF_QH], ps[H_OFF_QT], ps[H_OFF_OPEN], ps[H_OFF_QN] = off_qh, off_qt, off_open, off_qn
    ps[off_wp:off_open] = _NONE  # wp, queue heads and tails
    ps[off_qn:] = _NONE
    # link words hold (prev + 1) << 32 | (next + 1): zero = no neighbours
    return ps


def levels(pstate: np.ndarray) -> np.ndarray:
    """Current level per LPN (-1: never written)."""
    off, n = int(pstate[H_OFF_META]), int(pstate[H_NLPN])
    return (pstate[off : off + n] & 7) - 1


def read_counts(pstate: np.ndarray) -> np.ndarray:
    off, n = int(pstate[H_OFF_META]), int(pstate[H_NLPN])
    return pstate[off : off + n] >> 3


def stats(pstate: np.ndarray) -> dict[str, int]:
    return {k: int(pstate[h]) for k, h in STAT_NAMES.items()}


# --- per-LPN words ----------------------------------------------------------------------
@inline
def get_level(S, lpn):
    return (S.pstate[S.pstate[H_OFF_META] + lpn] & 7) - 1


@inline
def set_level(S, lpn, lv):
    k = S.pstate[H_OFF_META] + lpn
    S.pstate[k] = (S.pstate[k] & ~7) | (lv + 1)


@inline
def get_reads(S, lpn):
    return S.pstate[S.pstate[H_OFF_META] + lpn] >> 3


@inline
def set_reads(S, lpn, n):
    k = S.pstate[H_OFF_META] + lpn
    S.pstate[k] = (S.pstate[k] & 7) | (n << 3)


@inline
def _prev(S, lpn):
    return (S.pstate[S.pstate[H_OFF_LINK] + lpn] >> 32) - 1


@inline
def _next(S, lpn):
    return (S.pstate[S.pstate[H_OFF_LINK] + lpn] & _LO32) - 1


@inline
def _set_prev(S, lpn, p):
    k = S.pstate[H_OFF_LINK] + lpn
    S.pstate[k] = (S.pstate[k] & _LO32) | ((p + 1) << 32)


@inline
def _set_next(S, lpn, n):
    k = S.pstate[H_OFF_LINK] + lpn
    S.pstate[k] = (S.pstate[k] & ~_LO32) | (n + 1)


# --- the two LRU lists (lst = H_HOT_HEAD or H_IRON_HEAD; tail = +1; length word) --------
@inline
def _len_word(lst):
    return H_HOT_LEN if lst == H_HOT_HEAD else H_IRON_LEN


@inline
def lru_remove(S, lst, lpn):
    p = _prev(S, lpn)
    n = _next(S, lpn)
    if p < 0:
        S.pstate[lst] = n
    else:
        _set_next(S, p, n)
    if n < 0:
        S.pstate[lst + 1] = p
    else:
        _set_prev(S, n, p)
    S.pstate[S.pstate[H_OFF_LINK] + lpn] = 0
    S.pstate[_len_word(lst)] -= 1


@inline
def lru_touch(S, lst, lpn):
    """Move an entry of ``lst`` to its head (nothing to do when it is there: skips the
    neighbours' cache misses on repeated accesses)."""
    if S.pstate[lst] != lpn:
        lru_remove(S, lst, lpn)
        lru_push_head(S, lst, lpn)


@inline
def lru_push_head(S, lst, lpn):
    h = S.pstate[lst]
    _set_prev(S, lpn, -1)
    _set_next(S, lpn, h)
    if h < 0:
        S.pstate[lst + 1] = lpn
    else:
        _set_prev(S, h, lpn)
    S.pstate[lst] = lpn
    S.pstate[_len_word(lst)] += 1


@inline
def enforce_capacities(S):
    """Demote LRU entries of full lists: iron-hot -> hot head, hot -> cold area."""
    while S.pstate[H_IRON_LEN] > S.pstate[H_IRON_CAP]:
        v = S.pstate[H_IRON_TAIL]
        lru_remove(S, H_IRON_HEAD, v)
        lru_push_head(S, H_HOT_HEAD, v)
        set_level(S, v, HOT)
        S.pstate[H_DEMOTE_IRON] += 1
    while S.pstate[H_HOT_LEN] > S.pstate[H_HOT_CAP]:
        v = S.pstate[H_HOT_TAIL]
        lru_remove(S, H_HOT_HEAD, v)
        set_reads(S, v, 0)
        set_level(S, v, ICY_COLD)
        S.pstate[H_DEMOTE_HOT] += 1


@inline
def demote_iron_lru(S):
    """Sec. 3.4: "when either the iron-hot list is full or when there is no free space left
    in the iron-hot VB list, the least-recently-used entry is demoted to the head of the hot
    list" -- the second case (the first is ``enforce_capacities``)."""
    if S.pstate[H_IRON_LEN] > 0:
        v = S.pstate[H_IRON_TAIL]
        lru_remove(S, H_IRON_HEAD, v)
        lru_push_head(S, H_HOT_HEAD, v)
        set_level(S, v, HOT)
        S.pstate[H_DEMOTE_IRON] += 1
        enforce_capacities(S)


# --- hooks --------------------------------------------------------------------------------
@inline
def write_stream(S, lpn, given):
    """Level of a host write: area from the first-stage identifier, level within the area
    from the two-level LRU (hot) or the access-frequency table (cold)."""
    lv = get_level(S, lpn)
    if given != 0:
        if lv == IRON_HOT:
            lru_touch(S, H_IRON_HEAD, lpn)
            return IRON_HOT
        if lv == HOT:
            lru_touch(S, H_HOT_HEAD, lpn)
            return HOT
        set_reads(S, lpn, 0)
        lru_push_head(S, H_HOT_HEAD, lpn)
        set_level(S, lpn, HOT)
        enforce_capacities(S)
        return get_level(S, lpn)
    if lv == IRON_HOT:
        lru_remove(S, H_IRON_HEAD, lpn)
        set_reads(S, lpn, 0)
    elif lv == HOT:
        lru_remove(S, H_HOT_HEAD, lpn)
        set_reads(S, lpn, 0)
    new = COLD if get_reads(S, lpn) >= S.pstate[H_COLD_READS] else ICY_COLD
    set_level(S, lpn, new)
    return new


@inline
def on_read(S, lpn, ppn):
    lv = get_level(S, lpn)
    if lv == HOT:
        lru_remove(S, H_HOT_HEAD, lpn)
        lru_push_head(S, H_IRON_HEAD, lpn)
        set_level(S, lpn, IRON_HOT)
        S.pstate[H_PROMOTIONS] += 1
        enforce_capacities(S)
    elif lv == IRON_HOT:
        lru_touch(S, H_IRON_HEAD, lpn)
    elif lv >= 0:
        n = get_reads(S, lpn) + 1
        set_reads(S, lpn, n)
        if lv == ICY_COLD and n >= S.pstate[H_COLD_READS]:
            set_level(S, lpn, COLD)
            S.pstate[H_COLD_PROMOTIONS] += 1
            if S.pstate[H_MIGRATE] and ppn >= 0:
                # the kernel calls migrate right after this read (mapped pages only)
                S.pstate[H_PENDING] = lpn


@inline
def migrate(S, lpn, ppn):
    """The stream to move a page to after its read: COLD when this read made it cold
    (``on_read``) and it does not already lie in the cold area's fastest VB class, else -1."""
    if S.pstate[H_PENDING] != lpn:
        return -1
    S.pstate[H_PENDING] = _NONE
    blk = block_of(S, ppn)
    fastest_vb_start = (S.pstate[H_K] - 1) * S.pstate[H_VB_PAGES]
    if S.blk_stream[blk] == COLD >> 1 and ppn - blk * S.prm[P_NP] >= fastest_vb_start:
        return -1
    return COLD


@inline
def prefetch(S, lpn):
    """The LPN's level word (the ``prefetch`` hook: loaded early, its miss overlaps)."""
    return S.pstate[S.pstate[H_OFF_META] + lpn]


@inline
def gc_stream(S, lpn, victim_stream):
    """GC copies go to the data's current level (PPB's progressive move)."""
    return get_level(S, lpn)


# --- virtual-block lists ------------------------------------------------------------------
@inline
def _slot(S, chip, area, k):
    return (chip * N_AREAS + area) * S.pstate[H_K] + k


@inline
def _enter_phase(S, blk, slot):
    """``blk`` starts writing a VB class: writable if the class has no block, else queued."""
    wp = S.pstate[H_OFF_WP] + slot
    if S.pstate[wp] < 0:
        S.pstate[wp] = blk
        return
    qt = S.pstate[H_OFF_QT] + slot
    S.pstate[S.pstate[H_OFF_QN] + blk] = _NONE
    tail = S.pstate[qt]
    if tail < 0:
        S.pstate[S.pstate[H_OFF_QH] + slot] = blk
    else:
        S.pstate[S.pstate[H_OFF_QN] + tail] = blk
    S.pstate[qt] = blk


@inline
def _leave_phase(S, slot):
    """The writable block of a class filled its VB: the next queued block takes over."""
    qh = S.pstate[H_OFF_QH] + slot
    nxt = S.pstate[qh]
    S.pstate[S.pstate[H_OFF_WP] + slot] = nxt
    if nxt >= 0:
        after = S.pstate[S.pstate[H_OFF_QN] + nxt]
        S.pstate[qh] = after
        if after < 0:
            S.pstate[S.pstate[H_OFF_QT] + slot] = _NONE


@inline
def vb_select(S, chip, area, want, cls):
    """A block of (chip, area) for one program wanting VB class ``want`` (rules 1-4 of the
    module docstring); -1 when no free block is left. Books the VB transition the program
    causes, so the lists are always current (the kernel programs the block's next page).
    A new block comes from free list 0 (``cls`` < 0) or from the popcount class nearest
    ``cls`` (PPB with SK-FTL's free lists, ``skftl.nand.policies_ppb_sk``)."""
    K = S.pstate[H_K]
    wp0 = S.pstate[H_OFF_WP] + _slot(S, chip, area, 0)
    open_k = S.pstate[H_OFF_OPEN] + chip * N_AREAS + area
    blk = S.pstate[wp0 + want]
    if blk < 0 and area == HOT >> 1 and want == K - 1:
        demote_iron_lru(S)  # Sec. 3.4: no free space left in the iron-hot VB list
    if blk < 0 and not (want == 0 and S.pstate[open_k] < S.pstate[H_MAX_OPEN]):
        for d in range(1, K):
            if want - d >= 0 and S.pstate[wp0 + want - d] >= 0:
                blk = S.pstate[wp0 + want - d]
                break
            if want + d < K and S.pstate[wp0 + want + d] >= 0:
                blk = S.pstate[wp0 + want + d]
                break
        if blk >= 0:
            S.pstate[H_DIVERTED] += 1
    if blk < 0:
        blk = pop_free(S, chip, 0, area) if cls < 0 else pop_free_nearest(S, chip, cls, area)
        if blk < 0:
            return -1
        S.pstate[open_k] += 1
        S.pstate[H_OPENED] += 1
        _enter_phase(S, blk, _slot(S, chip, area, 0))
    # the VB of the page programmed and the end of that VB, by steps: K is small and a
    # division by a pages-per-block that is no power of two is the slowest instruction here
    page = S.next_page[blk]
    vb_pages = S.pstate[H_VB_PAGES]
    k = 0
    vb_end = vb_pages
    while page >= vb_end:
        k += 1
        vb_end += vb_pages
    if want == K - 1:
        S.pstate[H_WANT_FAST] += 1
        if k == K - 1:
            S.pstate[H_GOT_FAST] += 1
    elif k == K - 1:
        S.pstate[H_GOT_FAST_UNWANTED] += 1
    if page + 1 == vb_end:  # this program fills VB k
        _leave_phase(S, _slot(S, chip, area, k))
        if k + 1 < K:
            _enter_phase(S, blk, _slot(S, chip, area, k + 1))
        else:
            S.pstate[open_k] -= 1
    return blk


@inline
def select_block(S, chip, stream, lpn, old_ppn, is_gc):
    want = S.pstate[H_K] - 1 if stream & 1 else 0
    return vb_select(S, chip, stream >> 1, want, -1)


def open_blocks(pstate: np.ndarray, n_chips: int) -> np.ndarray:
    """Blocks with free space per (chip, area)."""
    off = int(pstate[H_OFF_OPEN])
    return pstate[off : off + n_chips * N_AREAS].reshape(n_chips, N_AREAS)


def attach(
    ftl,
    *,
    n_vbs: int = 2,
    max_open: int = 2,
    hot_fraction: float = 0.05,
    iron_hot_fraction: float = 0.02,
    cold_reads: int = 2,
    migrate: str = "none",
) -> None:
    """Give an ``Ftl`` built with policy ``ppb``, ``ppb_split`` or ``ppb_sk`` its policy state. List
    capacities are fractions of the logical pages (the paper gives none); ``migrate``: a key
    of ``MIGRATE`` (the naive split has no cold-area table: it never migrates)."""
    g, c = ftl.geometry, ftl.config
    if ftl.policy.name not in ("ppb", "ppb_split", "ppb_sk"):
        raise ConfigError(
            f"ppb: attach() needs policy ppb, ppb_split or ppb_sk, got {ftl.policy.name!r}"
        )
    if n_vbs < 2 or g.pages_per_block % n_vbs:
        raise ConfigError(
            f"ppb: n_vbs must be >= 2 and divide pages_per_block ({g.pages_per_block}), got {n_vbs}"
        )
    if max_open < 1:
        raise ConfigError(f"ppb: max_open must be >= 1, got {max_open}")
    areas = 1 if ftl.policy.name == "ppb_split" else N_AREAS
    # a GC pass may open max_open blocks per area before its victim is erased
    if c.gc_low_blocks < areas * max_open + 1 or c.n_streams < 4:
        raise ConfigError(
            f"ppb: needs ftl n_streams >= 4 and gc_low_blocks >= {areas * max_open + 1} "
            f"(areas x max_open + 1), got {c.n_streams} and {c.gc_low_blocks}"
        )
    if cold_reads < 1:
        raise ConfigError(f"ppb: cold_reads must be >= 1, got {cold_reads}")
    if migrate not in MIGRATE:
        raise ConfigError(f"ppb: migrate must be one of {', '.join(MIGRATE)}, got {migrate!r}")
    ps = layout(
        n_lpn=ftl.n_lpn,
        n_chips=g.n_chips,
        n_blocks=g.n_blocks,
        n_vbs=n_vbs,
        max_open=max_open,
        hot_capacity=max(1, int(hot_fraction * ftl.n_lpn)),
        iron_capacity=max(1, int(iron_hot_fraction * ftl.n_lpn)),
        cold_reads=cold_reads,
        migrate=MIGRATE[migrate],
        pages_per_block=g.pages_per_block,
    )
    ftl.state = ftl.state._replace(pstate=ps)
