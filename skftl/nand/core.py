"""FTL state layout (structure of arrays) and the primitive operations every allocation
policy and the replay kernel share: free-block FIFOs, greedy buckets, page program and
invalidation, and the chip/channel timelines.

All state lives in one ``FtlArrays`` namedtuple of numpy arrays so that ``@njit``
functions take a single argument; scalars live in ``prm`` (int64) at the ``P_*`` indices,
counters in ``ctr`` (int64) at the ``C_*`` indices. Block lists are intrusive linked lists
over ``lnext``/``lprev`` (a block is in at most one list at a time: a free FIFO or a
greedy bucket).
"""

from __future__ import annotations

import mmap
from collections import namedtuple

import numba
import numpy as np

from skftl.inlining import inlined

# --- scalar parameters: prm[P_*] -------------------------------------------------------
P_NP = 0  # pages per block
P_NCHIPS = 1
P_NCHAN = 2
P_BPC = 3  # blocks per chip
P_NSTREAMS = 4
P_NLISTS = 5  # free lists per chip (policy-defined classes of free blocks)
P_GC_LOW = 6  # GC starts on a chip when its free blocks drop below this
P_GC_HIGH = 7  # ... and runs until the chip has this many free blocks
P_GC_POLICY = 8  # GC_GREEDY or GC_COST_BENEFIT
P_CHIP_ALLOC = 9  # CHIP_STATIC or CHIP_DYNAMIC
# 10: unused (was the policy id: a kernel is now built per policy, skftl.nand.policy)
P_COPYBACK = 11  # 1: GC copies stay in the chip; 0: read out and write back over the channel
P_XFER = 12  # channel transfer time of one page, ns
P_ERASE = 13  # block erase time, ns
P_LOG_CAP = 14  # capacity of the mapping-update log (0 = disabled)
P_NLPN = 15  # logical pages
# log2 of P_NP, P_BPC, P_NCHAN, P_NCHIPS when a power of two, else -1: divisions by them
# are the kernel's most expensive arithmetic, so they become shifts when they can
P_NP_SHIFT = 16
P_BPC_SHIFT = 17
P_NCHAN_SHIFT = 18
P_NCHIPS_SHIFT = 19
P_FLOG_CAP = 20  # capacity of the flash-operation log (0 = disabled)
# device semantics (skftl.nand.timing.Timing); 0 everywhere = the independent-die model
P_DIES = 21  # 0: every chip (die) runs its own commands; d > 0: d dies share a chip (package)
P_UNMAPPED = 22  # reads of unmapped pages: UNMAPPED_AT_ARRIVAL / UNMAPPED_ARRAY_READ
P_WC_CAP = 23  # write cache capacity in pages (0 = no cache)
P_WC_POLICY = 24  # WC_LRU or WC_FIFO
P_PLANES = 25  # planes per chip
P_BPP = 26  # blocks per plane
P_MULTI_PLANE = 27  # 1: a die runs one command on several planes when the page indices match
P_PLANE_GC_LOW = 28  # > 0: GC also starts on a plane when its free blocks drop below this
P_PLANE_GC_HIGH = 29  # ... and runs (victims from that plane) until it has this many
N_PRM = 30

# --- counters: ctr[C_*] -----------------------------------------------------------------
C_HOST_READS = 0  # host page reads (incl. unmapped)
C_HOST_WRITES = 1  # host page writes
C_TRIMS = 2  # trimmed pages (whether mapped or not)
C_UNMAPPED_READS = 3  # host reads of never-written/trimmed LPNs (no flash access)
C_GC_COPIES = 4  # valid pages copied by GC (one flash read + one program each)
C_ERASES = 5
C_GC_VICTIMS = 6  # blocks reclaimed by GC
C_CLOCK = 7  # flash programs so far: the logical clock of block ages (cost-benefit)
C_LOG_N = 8  # entries in the mapping-update log
C_ERROR = 9  # 0 ok; ERR_* otherwise (the kernel stops)
C_SINK = 10  # sink of the prefetching loads (keeps the compiler from dropping them)
C_FLOG_N = 11  # entries in the flash-operation log (may exceed its capacity: overflow)
C_CACHE_READ_HITS = 12  # host reads served from the write cache
C_CACHE_WRITE_HITS = 13  # host writes that overwrote a page still in the write cache
C_CACHE_FLUSHES = 14  # pages written from the write cache to flash
C_PREMAPPED = 15  # pages written before a replay because it reads them unwritten (premapped)
C_MIGRATIONS = 16  # pages a policy's migrate hook moved after a host read (one program each)
N_CTR = 17
# flash reads and programs are not counted in the hot loop: every mapped host read and
# every GC copy reads one page, and the clock counts programs (see Ftl.counters)
COUNTER_NAMES = (
    "host_reads",
    "host_writes",
    "trims",
    "unmapped_reads",
    "gc_copies",
    "erases",
    "gc_victims",
    "clock",
    "log_entries",
    "error",
    "prefetch_sink",
    "flash_log_entries",
    "cache_read_hits",
    "cache_write_hits",
    "cache_flushes",
    "premapped",
    "migrations",
)

ERR_DEVICE_FULL = 1  # GC found nothing to reclaim on a chip with no free block
ERR_NO_FREE_BLOCK = 2  # an allocation found no free block
ERR_LOG_FULL = 3  # the mapping-update log overflowed within one GC burst (raise its capacity)

GC_GREEDY = 0
GC_COST_BENEFIT = 1
CHIP_STATIC = 0
CHIP_DYNAMIC = 1

FREE = 0
OPEN = 1
SEALED = 2
VICTIM = 3

OP_READ = 0
OP_WRITE = 1
OP_TRIM = 2

# A channel remembers its last CHAN_SLOTS transfer start times, so a transfer booked for
# later (behind a busy chip) does not block earlier transfers of other chips on the same
# channel: each transfer takes the first gap at or after the time it is ready.
CHAN_SLOTS = 16
NO_TIME = -(1 << 62)

LOG_HOST = 0
LOG_GC = 1
LOG_TRIM = 2
LOG_MIGRATE = 3  # a page moved after a host read (the policy's migrate hook), no host write

# flash-operation log: kind and origin of each operation issued to a chip
FLASH_READ = 0
FLASH_PROGRAM = 1
FLASH_ERASE = 2
ORIGIN_HOST = 0
ORIGIN_GC = 1
# the program of a migration (the policy's migrate hook): its data is the host read's, so it
# has no read of its own
ORIGIN_MIGRATE = 2

# reads of never-written (or trimmed) pages; "premapped" is done before the kernel runs
UNMAPPED_AT_ARRIVAL = 0
UNMAPPED_ARRAY_READ = 1
WC_LRU = 0
WC_FIFO = 1
# command kinds of the shared-chip model: dies of a chip join a running command of the same
# kind (a multi-die command); a GC copyback run never joins
CMD_READ = 0
CMD_PROGRAM = 1
CMD_ERASE = 2
CMD_COPYBACK = -2

FtlArrays = namedtuple(
    "FtlArrays",
    [
        "prm",
        "ctr",
        "l2p",
        "p2l",
        "valid",
        "vcount",
        "next_page",
        "erase_count",
        "blk_state",
        "blk_stream",
        "blk_time",
        "lnext",
        "lprev",
        "free_head",
        "free_tail",
        "free_len",
        "free_count",
        "bkt_head",
        "bkt_tail",
        "wp",
        "chip_free",
        "chan_res",
        "chan_head",
        "read_ns",
        "prog_ns",
        "pstate",
        "log_lpn",
        "log_old",
        "log_new",
        "log_kind",
        "log_op",
        "flog_chip",
        "flog_kind",
        "flog_page",
        "flog_time",
        "flog_origin",
        "pkg_free",
        "pkg_start",
        "pkg_kind",
        "pkg_mask",
        "wc_slot",
        "wc_lpn",
        "wc_stream",
        "wc_next",
        "wc_prev",
        "wc_meta",
        "free_plane",
        "die_start",
        "die_kind",
        "die_page",
        "die_mask",
    ],
)


def none_array(n: int) -> np.ndarray:
    """``np.full(n, -1, np.int32)`` (the "none" of the mapping arrays), pre-faulted in one
    system call (``MAP_POPULATE``) and without numpy's huge-page advice: on a busy machine
    the kernel's direct compaction for huge pages made the per-page arrays of a 512 GiB
    device take seconds to fill (benchmarks/bench_ftl.py --mode whole, allocate phase)."""
    if n == 0 or not hasattr(mmap, "MAP_POPULATE"):
        return np.full(n, -1, np.int32)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE
    a = np.frombuffer(mmap.mmap(-1, 4 * n, flags=flags), np.int32)
    a.fill(-1)
    return a


def allocate(
    n_lpn: int,
    n_chips: int,
    n_channels: int,
    blocks_per_chip: int,
    pages_per_block: int,
    n_streams: int = 1,
    n_lists: int = 1,
    log_capacity: int = 0,
    pstate_size: int = 1,
    flash_log_capacity: int = 0,
    n_packages: int = 0,
    cache_pages: int = 0,
    planes: int = 1,
    multi_plane: bool = False,
) -> FtlArrays:
    """Empty (all blocks free, nothing mapped) state; compact dtypes so that a 1 TB device
    of 4 KB pages needs about 9 bytes per physical page. ``n_packages`` > 0: chips shared
    by several dies; ``cache_pages`` > 0: a write cache (4 bytes per logical page more);
    ``planes``: planes per chip (free blocks are counted per plane); ``multi_plane``: one
    write point per (chip, stream, plane) and a record of each die's latest command."""
    n_blocks = n_chips * blocks_per_chip
    n_pages = n_blocks * pages_per_block
    i32 = np.int32
    return FtlArrays(
        prm=np.zeros(N_PRM, np.int64),
        ctr=np.zeros(N_CTR, np.int64),
        l2p=none_array(n_lpn),
        p2l=none_array(n_pages),
        valid=np.zeros(n_pages // 8, np.uint8),
        vcount=np.zeros(n_blocks, i32),
        next_page=np.zeros(n_blocks, i32),
        erase_count=np.zeros(n_blocks, i32),
        blk_state=np.zeros(n_blocks, np.int8),
        blk_stream=np.zeros(n_blocks, np.int8),
        blk_time=np.zeros(n_blocks, np.int64),
        lnext=np.full(n_blocks, -1, i32),
        lprev=np.full(n_blocks, -1, i32),
        free_head=np.full(n_chips * n_lists, -1, i32),
        free_tail=np.full(n_chips * n_lists, -1, i32),
        free_len=np.zeros(n_chips * n_lists, i32),
        free_count=np.zeros(n_chips, i32),
        bkt_head=np.full(n_chips * (pages_per_block + 1), -1, i32),
        bkt_tail=np.full(n_chips * (pages_per_block + 1), -1, i32),
        wp=np.full(n_chips * n_streams * (planes if multi_plane else 1), -1, i32),
        chip_free=np.zeros(n_chips, np.int64),
        chan_res=np.full(n_channels * CHAN_SLOTS, NO_TIME, np.int64),
        chan_head=np.zeros(n_channels, np.int64),
        read_ns=np.zeros(pages_per_block, np.int64),
        prog_ns=np.zeros(pages_per_block, np.int64),
        pstate=np.zeros(pstate_size, np.int64),
        log_lpn=np.zeros(log_capacity, i32),
        log_old=np.zeros(log_capacity, i32),
        log_new=np.zeros(log_capacity, i32),
        log_kind=np.zeros(log_capacity, np.int8),
        log_op=np.zeros(log_capacity, np.int64),
        flog_chip=np.zeros(flash_log_capacity, i32),
        flog_kind=np.zeros(flash_log_capacity, np.int8),
        flog_page=np.zeros(flash_log_capacity, i32),
        flog_time=np.zeros(flash_log_capacity, np.int64),
        flog_origin=np.zeros(flash_log_capacity, np.int8),
        pkg_free=np.zeros(n_packages, np.int64),
        pkg_start=np.full(n_packages, NO_TIME, np.int64),
        pkg_kind=np.full(n_packages, -1, np.int64),
        pkg_mask=np.zeros(n_packages, np.int64),
        wc_slot=none_array(n_lpn if cache_pages else 0),
        wc_lpn=np.full(cache_pages, -1, i32),
        wc_stream=np.zeros(cache_pages, np.int8),
        wc_next=np.full(cache_pages, -1, i32),
        wc_prev=np.full(cache_pages, -1, i32),
        # head, tail, pages held, slots used, free-slot chain (skftl/nand/write_cache.py)
        wc_meta=np.array([-1, -1, 0, 0, -1], np.int64),
        free_plane=np.zeros(n_chips * planes, i32),
        die_start=np.full(n_chips if multi_plane else 0, NO_TIME, np.int64),
        die_kind=np.full(n_chips if multi_plane else 0, -1, np.int64),
        die_page=np.full(n_chips if multi_plane else 0, -1, np.int64),
        die_mask=np.zeros(n_chips if multi_plane else 0, np.int64),
    )


# The kernel allocates nothing, so it runs without Numba's reference counting: otherwise
# every call that passes the state tuple (and is not inlined by LLVM) increfs and decrefs
# each of its arrays, which costs more than the FTL work itself.
njit = numba.njit(cache=True, _nrt=False)
# Helpers are inlined by LLVM into every caller (skftl.inlining): a real call would copy the
# whole state tuple (a struct of ~30 array descriptors) per page operation.
inline = inlined(_nrt=False)


@njit
def log_reserve_for(blocks_per_chip, pages_per_block):
    """Mapping-log entries one host page op can produce at most: itself plus a GC burst
    over every block of its chip. The one formula behind the kernel's stop-early check, the
    Ftl's capacity check and every caller that sizes a log."""
    return 1 + blocks_per_chip * pages_per_block


@njit
def flash_log_reserve_for(blocks_per_chip, pages_per_block):
    """Flash-log entries one host page op can produce at most: itself plus a GC burst of up
    to every block of the chip, each copy a read and a program, each victim an erase."""
    return 1 + blocks_per_chip * (2 * pages_per_block + 1)


# --- address arithmetic ----------------------------------------------------------------
@inline
def div(x, d, shift):
    """``x // d`` for x >= 0, a shift when ``d`` is a power of two (``shift`` >= 0)."""
    if shift >= 0:
        return x >> shift
    return x // d


@inline
def block_of(S, ppn):
    return div(ppn, S.prm[P_NP], S.prm[P_NP_SHIFT])


@inline
def chip_of(S, blk):
    return div(blk, S.prm[P_BPC], S.prm[P_BPC_SHIFT])


@inline
def channel_of(S, chip):
    n = S.prm[P_NCHAN]
    return chip - div(chip, n, S.prm[P_NCHAN_SHIFT]) * n


@inline
def plane_of(S, blk):
    """Plane of a block within its chip (block_in_chip = plane * blocks_per_plane + ...)."""
    return (blk - chip_of(S, blk) * S.prm[P_BPC]) // S.prm[P_BPP]


# --- free-block FIFOs, one per (chip, list) ------------------------------------------
@inline
def push_free(S, blk, lst):
    """Append an erased block to free list ``lst`` of its chip."""
    chip = chip_of(S, blk)
    k = chip * S.prm[P_NLISTS] + lst
    S.lnext[blk] = -1
    if S.free_tail[k] < 0:
        S.free_head[k] = blk
    else:
        S.lnext[S.free_tail[k]] = blk
    S.free_tail[k] = blk
    S.free_len[k] += 1
    S.free_count[chip] += 1
    if S.prm[P_PLANE_GC_LOW] > 0:
        S.free_plane[chip * S.prm[P_PLANES] + plane_of(S, blk)] += 1
    S.blk_state[blk] = FREE


@inline
def pop_free(S, chip, lst, stream):
    """Open the oldest block of free list ``lst`` of ``chip`` for ``stream``; -1 if empty."""
    k = chip * S.prm[P_NLISTS] + lst
    blk = S.free_head[k]
    if blk < 0:
        return -1
    nxt = S.lnext[blk]
    S.free_head[k] = nxt
    if nxt < 0:
        S.free_tail[k] = -1
    S.lnext[blk] = -1
    S.free_len[k] -= 1
    S.free_count[chip] -= 1
    if S.prm[P_PLANE_GC_LOW] > 0:
        S.free_plane[chip * S.prm[P_PLANES] + plane_of(S, blk)] -= 1
    S.blk_state[blk] = OPEN
    S.blk_stream[blk] = stream
    return blk


# --- doubly linked lists over index arrays (greedy buckets, the write cache) -----------
@inline
def list_append(prev, nxt, heads, h, tails, t, s):
    """Append ``s`` to the list whose ends are ``heads[h]`` and ``tails[t]`` (-1: empty)."""
    tail = tails[t]
    prev[s] = tail
    nxt[s] = -1
    if tail < 0:
        heads[h] = s
    else:
        nxt[tail] = s
    tails[t] = s


@inline
def list_unlink(prev, nxt, heads, h, tails, t, s):
    """Take ``s`` out of the list whose ends are ``heads[h]`` and ``tails[t]``."""
    p = prev[s]
    n = nxt[s]
    if p < 0:
        heads[h] = n
    else:
        nxt[p] = n
    if n < 0:
        tails[t] = p
    else:
        prev[n] = p


# --- greedy buckets: sealed blocks of a chip by valid count, FIFO within a count ---------
@inline
def bkt_insert(S, blk, v):
    k = chip_of(S, blk) * (S.prm[P_NP] + 1) + v
    list_append(S.lprev, S.lnext, S.bkt_head, k, S.bkt_tail, k, blk)


@inline
def bkt_remove(S, blk, v):
    k = chip_of(S, blk) * (S.prm[P_NP] + 1) + v
    list_unlink(S.lprev, S.lnext, S.bkt_head, k, S.bkt_tail, k, blk)
    S.lnext[blk] = -1
    S.lprev[blk] = -1


# --- page state ----------------------------------------------------------------------
@inline
def is_valid(S, ppn):
    return (S.valid[ppn >> 3] >> (ppn & 7)) & 1


@inline
def program(S, blk, lpn):
    """Program the next free page of ``blk`` (in-order by construction) with ``lpn`` and map
    it; seal the block when it is full. Returns the new PPN."""
    np_ = S.prm[P_NP]
    page = S.next_page[blk]
    ppn = blk * np_ + page
    S.next_page[blk] = page + 1
    S.valid[ppn >> 3] |= np.uint8(1 << (ppn & 7))
    S.vcount[blk] += 1
    S.p2l[ppn] = lpn
    S.l2p[lpn] = ppn
    S.blk_time[blk] = S.ctr[C_CLOCK]
    S.ctr[C_CLOCK] += 1
    if page + 1 == np_:
        S.blk_state[blk] = SEALED
        bkt_insert(S, blk, S.vcount[blk])
    return ppn


@inline
def invalidate(S, ppn):
    """Mark a physical page invalid (its P2L entry is left as a stale record)."""
    blk = block_of(S, ppn)
    S.valid[ppn >> 3] &= np.uint8(~(1 << (ppn & 7)) & 0xFF)
    v = S.vcount[blk]
    S.vcount[blk] = v - 1
    if S.blk_state[blk] == SEALED:
        bkt_remove(S, blk, v)
        bkt_insert(S, blk, v - 1)


@inline
def log_update(S, lpn, old, new, kind, op_index):
    """Record one mapping update when the log is enabled (capacity > 0); ``op_index``: the
    host page op it belongs to (a GC copy: the write that triggered the burst; with a write
    cache a host write's entry is the page it evicted, not its own)."""
    if S.prm[P_LOG_CAP] > 0:
        n = S.ctr[C_LOG_N]
        if n >= S.prm[P_LOG_CAP]:
            # a GC burst can copy more than the replay's reserve (victims with few invalid
            # pages free little space each): never write past the arrays
            S.ctr[C_ERROR] = ERR_LOG_FULL
            return
        S.log_lpn[n] = lpn
        S.log_old[n] = old
        S.log_new[n] = new
        S.log_kind[n] = kind
        S.log_op[n] = op_index
        S.ctr[C_LOG_N] = n + 1


@inline
def log_flash(S, chip, kind, page, t, origin):
    """Record one flash operation issued to ``chip`` at ``t`` (``page``: index in its block,
    -1 for an erase) when the flash-operation log is enabled (capacity > 0). Entries past
    the capacity are counted, not written: the caller sees the overflow."""
    cap = S.prm[P_FLOG_CAP]
    if cap > 0:
        n = S.ctr[C_FLOG_N]
        if n < cap:
            S.flog_chip[n] = chip
            S.flog_kind[n] = kind
            S.flog_page[n] = page
            S.flog_time[n] = t
            S.flog_origin[n] = origin
        S.ctr[C_FLOG_N] = n + 1


# --- timelines: each chip is busy until a time (ns); channels book page transfers -------
@inline
def book_channel(S, ch, ready):
    """Start time of a one-page transfer on channel ``ch``: the earliest time >= ``ready``
    that overlaps none of the remembered transfers; it replaces the oldest of them. The
    slots form a ring sorted from ``chan_head`` (oldest) on, so one pass finds the gap and
    the common case (a transfer after all others) is O(1)."""
    x = S.prm[P_XFER]
    base = ch * CHAN_SLOTS
    h = S.chan_head[ch]
    if ready >= S.chan_res[base + (h + CHAN_SLOTS - 1) % CHAN_SLOTS] + x:
        S.chan_res[base + h] = ready
        S.chan_head[ch] = (h + 1) % CHAN_SLOTS
        return ready
    start = ready
    for m in range(CHAN_SLOTS):
        s = S.chan_res[base + (h + m) % CHAN_SLOTS]
        if s < start + x and start < s + x:
            start = s + x
    # drop the oldest slot and insert ``start`` in order
    m = 0
    while m + 1 < CHAN_SLOTS:
        nxt = S.chan_res[base + (h + m + 1) % CHAN_SLOTS]
        if nxt >= start:
            break
        S.chan_res[base + (h + m) % CHAN_SLOTS] = nxt
        m += 1
    S.chan_res[base + (h + m) % CHAN_SLOTS] = start
    return start


@inline
def package_of(S, chip):
    """(package, die bit) of a die: the dies of a package are consecutive ways of one
    channel (chip = way * channels + channel)."""
    nch = S.prm[P_NCHAN]
    ch = channel_of(S, chip)
    way = div(chip, nch, S.prm[P_NCHAN_SHIFT])
    d = S.prm[P_DIES]
    group = way // d
    return group * nch + ch, 1 << (way - group * d)


@inline
def joins(starts, kinds, masks, i, kind, ready, bit):
    """Whether an operation of ``kind`` ready at ``ready`` joins unit ``i``'s latest command
    (a package's for multi-die, a die's for multi-plane): same kind, not started before
    ``ready``, and ``bit`` (the die / plane) not held yet; if so, it now holds ``bit``."""
    if kind >= 0 and kinds[i] == kind and starts[i] >= ready and not (masks[i] & bit):
        masks[i] |= bit
        return True
    return False


@inline
def start_on_chip(S, chip, ready, kind):
    """When an operation of ``kind`` ready at ``ready`` starts on die ``chip``. Independent
    dies (``P_DIES`` 0): at ``ready``. Shared chip: one command per package at a time; a die
    joins the package's latest command when it is of the same kind, has not started before
    ``ready`` and does not yet hold this die (a multi-die command), else it starts once the
    package is free and becomes the latest command."""
    if S.prm[P_DIES] == 0:
        return ready
    p, bit = package_of(S, chip)
    if joins(S.pkg_start, S.pkg_kind, S.pkg_mask, p, kind, ready, bit):
        return S.pkg_start[p]
    start = max(ready, S.pkg_free[p])
    S.pkg_start[p], S.pkg_kind[p], S.pkg_mask[p] = start, kind, bit
    return start


@inline
def start_op(S, chip, blk, page, t, kind):
    """When an operation of ``kind`` on page ``page`` of block ``blk`` (-1: none), issued at
    ``t``, starts on die ``chip``. With multi-plane commands (``P_MULTI_PLANE``) it joins the
    die's latest command when that is of the same kind on the same page index, has not
    started before ``t`` and holds no page of this plane yet (MQSim: one command on several
    planes when their page addresses match); otherwise it starts once the die (and its chip,
    ``start_on_chip``) is free and becomes the die's latest command."""
    if S.prm[P_MULTI_PLANE] == 0:
        return start_on_chip(S, chip, max(t, S.chip_free[chip]), kind)
    bit = 1 << plane_of(S, blk) if blk >= 0 else 1
    if S.die_page[chip] == page and joins(S.die_start, S.die_kind, S.die_mask, chip, kind, t, bit):
        return S.die_start[chip]
    start = start_on_chip(S, chip, max(t, S.chip_free[chip]), kind)
    S.die_start[chip], S.die_kind[chip], S.die_mask[chip] = start, kind, bit
    S.die_page[chip] = page
    return start


@inline
def hold_chip(S, chip, done):
    """Die ``chip`` is busy until ``done`` (and so is its package when dies share one); a
    page joining a multi-plane command may finish before the command's first page."""
    S.chip_free[chip] = max(S.chip_free[chip], done)
    if S.prm[P_DIES] != 0:
        p, _ = package_of(S, chip)
        S.pkg_free[p] = max(S.pkg_free[p], done)


@inline
def flash_read(S, chip, blk, page, t):
    """Array read, then transfer out; the chip holds the data until it is transferred."""
    ready = start_op(S, chip, blk, page, t, CMD_READ) + S.read_ns[page]
    done = book_channel(S, channel_of(S, chip), ready) + S.prm[P_XFER]
    hold_chip(S, chip, done)
    return done


@inline
def flash_prog(S, chip, blk, page, t):
    """Transfer in (into the chip's page register, so the chip must be idle), then program.
    (A page joining a multi-plane program completes after its own transfer and the program;
    the command's earlier pages keep their completion: optimistic by the later transfers.)"""
    start = start_op(S, chip, blk, page, t, CMD_PROGRAM)
    xs = book_channel(S, channel_of(S, chip), start)
    done = xs + S.prm[P_XFER] + S.prog_ns[page]
    hold_chip(S, chip, done)
    return done


@inline
def copy_via_channel(S, chip, src_blk, src_page, dst_blk, dst_page, t):
    """GC copy of one page without copyback: read out to the controller, write back.
    (Copyback copies only occupy the chip; the GC loop adds their time up.)"""
    return flash_prog(S, chip, dst_blk, dst_page, flash_read(S, chip, src_blk, src_page, t))


@inline
def flash_erase(S, chip, blk, t):
    done = start_op(S, chip, blk, -1, t, CMD_ERASE) + S.prm[P_ERASE]
    hold_chip(S, chip, done)
    return done


@inline
def chip_busy(S, chip, t, busy):
    """A run of ``busy`` ns of copyback copies on the chip (back to back, one command)."""
    done = start_op(S, chip, -1, -1, t, CMD_COPYBACK) + busy
    hold_chip(S, chip, done)
    return done


@inline
def write_point_block(S, chip, stream, lst):
    """The open block of (chip, stream), opening one from free list ``lst`` when it is full
    or absent; -1 when no free block is left. The conventional write point."""
    return open_write_point(S, chip * S.prm[P_NSTREAMS] + stream, chip, stream, lst)


@inline
def plane_write_point(S, chip, stream, plane):
    """Multi-plane write points: the open block of (chip, stream, ``plane``), opened from
    the plane's free list (list = plane); another plane's when that plane has none left."""
    planes = S.prm[P_PLANES]
    for d in range(planes):
        p = plane + d
        if p >= planes:
            p -= planes
        blk = open_write_point(S, (chip * S.prm[P_NSTREAMS] + stream) * planes + p, chip, stream, p)
        if blk >= 0:
            return blk
    return -1


@inline
def open_write_point(S, k, chip, stream, lst):
    """The open block of write point ``k``, opening one from free list ``lst`` of ``chip``
    when it is full or absent; -1 when that list is empty."""
    blk = S.wp[k]
    # a full write point stays recorded until replaced, and may meanwhile have been
    # reclaimed by GC (and even reopened for another stream): trust it only while open
    # for this stream
    if (
        blk >= 0
        and S.blk_state[blk] == OPEN
        and S.blk_stream[blk] == stream
        and S.next_page[blk] < S.prm[P_NP]
    ):
        return blk
    blk = pop_free(S, chip, lst, stream)
    S.wp[k] = blk
    return blk
