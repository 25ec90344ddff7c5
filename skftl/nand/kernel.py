"""The replay kernel: host page operations -> mapping, garbage collection and timing.

``replay`` walks page operations in trace order. Reads look up the L2P map and occupy the
chip (array read) and its channel (transfer out). Writes pick a chip and a block through
the policy's hooks (``skftl.nand.hooks``; ``skftl.nand.policy.kernels`` binds this module's
functions to a policy's), invalidate the old copy, program the block's next
page and occupy the channel (transfer in) and chip (program). Before a write is placed on
a chip whose free blocks fell below the low watermark, that chip garbage-collects until it
has the high watermark of free blocks: victims (greedy: fewest valid pages, the longest
holder of that count first; or cost-benefit) have their valid pages copied and are erased,
all on the chip's timeline, so the write and everything queued behind it wait. With
per-plane thresholds (``nand.gc_threshold_scope: plane``) every plane of that chip whose
free blocks fell below its own low watermark then collects victims of that plane alone
until it has the plane's high watermark (the chip's watermark stays as the floor that keeps
a free block for GC copies). After a read from flash the policy's ``migrate`` hook may have
the page moved (``migrate_page``: GC as before a write, then one program).
"""

from __future__ import annotations

from pathlib import Path

from skftl.nand import hooks as policy  # the conventional FTL; skftl.nand.policy re-binds it
from skftl.nand.core import (
    C_CACHE_FLUSHES,
    C_CACHE_READ_HITS,
    C_ERASES,
    C_ERROR,
    C_FLOG_N,
    C_GC_COPIES,
    C_GC_VICTIMS,
    C_HOST_READS,
    C_HOST_WRITES,
    C_LOG_N,
    C_MIGRATIONS,
    C_SINK,
    C_TRIMS,
    C_UNMAPPED_READS,
    ERR_DEVICE_FULL,
    ERR_NO_FREE_BLOCK,
    FLASH_ERASE,
    FLASH_PROGRAM,
    FLASH_READ,
    LOG_GC,
    LOG_HOST,
    LOG_MIGRATE,
    LOG_TRIM,
    OP_READ,
    OP_WRITE,
    ORIGIN_GC,
    ORIGIN_HOST,
    ORIGIN_MIGRATE,
    P_BPC,
    P_COPYBACK,
    P_FLOG_CAP,
    P_GC_HIGH,
    P_GC_LOW,
    P_LOG_CAP,
    P_NCHIPS,
    P_NCHIPS_SHIFT,
    P_NP,
    P_PLANE_GC_HIGH,
    P_PLANE_GC_LOW,
    P_PLANES,
    P_UNMAPPED,
    P_WC_CAP,
    UNMAPPED_ARRAY_READ,
    VICTIM,
    bkt_remove,
    block_of,
    chip_busy,
    chip_of,
    copy_via_channel,
    div,
    flash_erase,
    flash_log_reserve_for,
    flash_prog,
    flash_read,
    inline,
    invalidate,
    is_valid,
    log_flash,
    log_reserve_for,
    log_update,
    njit,
    program,
    push_free,
)
from skftl.nand.write_cache import cache_drop, cache_write
from skftl.numba_cache import drop_stale_cache

# the kernel inlines core, write_cache and the hooks of its policy: the conventional FTL's
# (hooks.py) or a built-in policy's (policies_*.py; a policy from elsewhere is told apart by
# the digest of its file, skftl.nand.policy.kernels)
_HERE = Path(__file__).parent
drop_stale_cache(
    __file__,
    _HERE / "core.py",
    _HERE / "hooks.py",
    _HERE / "write_cache.py",
    *sorted(_HERE.glob("policies_*.py")),
)


PREFETCH = 32  # page ops whose mapping state is loaded ahead in one batch


@njit
def log_reserve(S):
    return log_reserve_for(S.prm[P_BPC], S.prm[P_NP])


@njit
def flash_log_reserve(S):
    return flash_log_reserve_for(S.prm[P_BPC], S.prm[P_NP])


@njit
def init_free_lists(S):
    """Put every block in its chip's free FIFO (ascending block number)."""
    for blk in range(S.prm[P_NCHIPS] * S.prm[P_BPC]):
        push_free(S, blk, policy.free_list_of(S, blk))


@inline
def short_of_free(S, chip, plane):
    """Whether GC of ``chip`` (of its ``plane`` when >= 0) must go on: free blocks below
    the high watermark (the chip's, or the plane's)."""
    if plane < 0:
        return S.free_count[chip] < S.prm[P_GC_HIGH]
    return S.free_plane[chip * S.prm[P_PLANES] + plane] < S.prm[P_PLANE_GC_HIGH]


@njit
def collect(S, chip, t, op_index, plane):
    """Reclaim blocks of ``chip`` until it has the high watermark of free blocks; with
    ``plane`` >= 0, blocks of that plane until it has the plane's high watermark
    (``op_index``: the host page op that triggered it, for the mapping log)."""
    np_ = S.prm[P_NP]
    copyback = S.prm[P_COPYBACK]
    while short_of_free(S, chip, plane):
        victim = policy.select_victim(S, chip, plane)
        if victim < 0:
            if S.free_count[chip] == 0:
                S.ctr[C_ERROR] = ERR_DEVICE_FULL
            return
        bkt_remove(S, victim, S.vcount[victim])
        S.blk_state[victim] = VICTIM
        vstream = S.blk_stream[victim]
        base = victim * np_
        # load the victim's L2P entries up front: independent cache misses overlap here
        # instead of stalling the copy loop one by one (branch-free: every page of a
        # sealed block holds an LPN, stale or not)
        sink = 0
        for src in range(base, base + np_):
            lp = S.p2l[src]
            sink += S.l2p[lp] + policy.prefetch(S, lp)
        S.ctr[C_SINK] += sink
        copies = 0
        busy = 0  # copyback time of this victim's copies, run back to back on the chip
        for page in range(np_):
            src = base + page
            if not is_valid(S, src):
                continue
            lpn = S.p2l[src]
            stream = policy.gc_stream(S, lpn, vstream)
            dst_blk = policy.select_block(S, chip, stream, lpn, src, True)
            if dst_blk < 0:
                S.ctr[C_ERROR] = ERR_NO_FREE_BLOCK
                return
            dst = program(S, dst_blk, lpn)
            log_update(S, lpn, src, dst, LOG_GC, op_index)
            log_flash(S, chip, FLASH_READ, page, t, ORIGIN_GC)
            log_flash(S, chip, FLASH_PROGRAM, dst - dst_blk * np_, t, ORIGIN_GC)
            if copyback:
                busy += S.read_ns[page] + S.prog_ns[dst - dst_blk * np_]
            else:
                copy_via_channel(S, chip, victim, page, dst_blk, dst - dst_blk * np_, t)
            copies += 1
        S.ctr[C_GC_COPIES] += copies
        if copyback:
            chip_busy(S, chip, t, busy)
        # the victim's pages become invalid all at once: it is erased next
        for ppn in range(base, base + np_):
            S.p2l[ppn] = -1
        for byte in range(base >> 3, (base + np_) >> 3):
            S.valid[byte] = 0
        S.vcount[victim] = 0
        S.next_page[victim] = 0
        S.erase_count[victim] += 1
        flash_erase(S, chip, victim, t)
        log_flash(S, chip, FLASH_ERASE, -1, t, ORIGIN_GC)
        push_free(S, victim, policy.free_list_of(S, victim))
        S.ctr[C_ERASES] += 1
        S.ctr[C_GC_VICTIMS] += 1


@inline
def collect_if_short(S, chip, t, op_index, gc_low, plane_low):
    """Garbage-collect ``chip`` before a program when it is short of free blocks: below
    ``gc_low`` for the chip, then (``plane_low`` > 0, per-plane thresholds) every plane below
    its own. True when GC failed (``C_ERROR`` set)."""
    if S.free_count[chip] < gc_low:
        collect(S, chip, t, op_index, -1)
        if S.ctr[C_ERROR] != 0:
            return True
    if plane_low > 0:
        planes = S.prm[P_PLANES]
        for pl in range(planes):
            if S.free_plane[chip * planes + pl] < plane_low:
                collect(S, chip, t, op_index, pl)
                if S.ctr[C_ERROR] != 0:
                    return True
    return False


@njit
def migrate_page(S, lpn, ppn, stream, chip, t, ready, op_index):
    """Move the page the host just read (``ppn``, on ``chip``) to a block of ``stream`` on
    the same chip, as the policy's ``migrate`` hook asked: GC first when the chip is short
    of free blocks (as before a host write), then one program of the data the read left in
    the controller (``ready``: the read's transfer done), booked on the chip's timeline
    without delaying the read. A real call, not inlined: migrations are rare and the policy's
    ``select_block`` inlined here once more would lengthen every policy's compile."""
    if collect_if_short(S, chip, t, op_index, S.prm[P_GC_LOW], S.prm[P_PLANE_GC_LOW]):
        return
    if S.l2p[lpn] != ppn:
        # that GC copied the page: the copy went where gc_stream placed it, one move is enough
        return
    blk = policy.select_block(S, chip, stream, lpn, ppn, False)
    if blk < 0:
        S.ctr[C_ERROR] = ERR_NO_FREE_BLOCK
        return
    invalidate(S, ppn)
    dst = program(S, blk, lpn)
    page = dst - blk * S.prm[P_NP]
    log_update(S, lpn, ppn, dst, LOG_MIGRATE, op_index)
    log_flash(S, chip, FLASH_PROGRAM, page, t, ORIGIN_MIGRATE)
    flash_prog(S, chip, blk, page, ready)
    S.ctr[C_MIGRATIONS] += 1


@njit
def replay(S, lpn, op, stream, req, time_ns, done_ns, start, end):
    """Run page operations ``start..end-1``; returns the index reached. It stops early when
    the mapping-update or flash-operation log could overflow (drain them and call again)
    or on an error
    (``ctr[C_ERROR]`` != 0). ``done_ns[req[i]]`` becomes the latest completion time of the
    request's pages (reads of unmapped pages complete at arrival unless ``P_UNMAPPED``
    says they read the array; with a write cache, writes complete once cached and reads of
    cached pages at arrival)."""
    np_ = S.prm[P_NP]
    log_cap = S.prm[P_LOG_CAP]
    # room for one host update plus the largest GC burst it can trigger: the blocks sealed
    # during a burst hold only valid copies, so its victims are distinct blocks that were
    # sealed before it -- at most all blocks of the chip (gc_high victims is not a bound:
    # victims with few invalid pages free little space each)
    reserve = log_reserve(S)
    flog_cap = S.prm[P_FLOG_CAP]
    # a read that migrates issues one operation more than the reserve's host operation (its
    # read, then the program after a GC burst), which the burst leaves room for: a victim
    # has an invalid page, so it copies at most pages per block - 1
    flog_reserve = flash_log_reserve(S)
    gc_low = S.prm[P_GC_LOW]
    plane_low = S.prm[P_PLANE_GC_LOW]
    wc_cap = S.prm[P_WC_CAP]
    for i in range(start, end):
        if (i - start) % PREFETCH == 0:
            # touch the next ops' L2P entries and the old pages' bitmap bytes and valid
            # counts: independent misses overlap here instead of stalling each op in turn
            sink = 0
            for j in range(i, min(i + PREFETCH, end)):
                old = S.l2p[lpn[j]]
                sink += policy.prefetch(S, lpn[j])
                if old >= 0:
                    sink += S.valid[old >> 3] + S.vcount[block_of(S, old)]
            S.ctr[C_SINK] += sink
        if log_cap > 0 and S.ctr[C_LOG_N] + reserve > log_cap:
            return i
        if flog_cap > 0 and S.ctr[C_FLOG_N] + flog_reserve > flog_cap:
            return i
        t = time_ns[i]
        lp = lpn[i]
        o = op[i]
        if o == OP_READ:
            S.ctr[C_HOST_READS] += 1
            if wc_cap > 0 and S.wc_slot[lp] >= 0:
                # served from the write cache; the FTL below it (and its policy) sees nothing
                S.ctr[C_CACHE_READ_HITS] += 1
                done = t
            else:
                ppn = S.l2p[lp]
                policy.on_read(S, lp, ppn)
                if ppn < 0:
                    S.ctr[C_UNMAPPED_READS] += 1
                    done = t
                    if S.prm[P_UNMAPPED] == UNMAPPED_ARRAY_READ:
                        # the flash is read anyway: the first page of a block on the chip
                        # static striping gives the LPN
                        chip = (
                            lp - div(lp, S.prm[P_NCHIPS], S.prm[P_NCHIPS_SHIFT]) * S.prm[P_NCHIPS]
                        )
                        log_flash(S, chip, FLASH_READ, 0, t, ORIGIN_HOST)
                        done = flash_read(S, chip, -1, 0, t)
                else:
                    blk = block_of(S, ppn)
                    chip = chip_of(S, blk)
                    log_flash(S, chip, FLASH_READ, ppn - blk * np_, t, ORIGIN_HOST)
                    done = flash_read(S, chip, blk, ppn - blk * np_, t)
                    # -1 always for a policy that never migrates: the branch compiles away
                    ms = policy.migrate(S, lp, ppn)
                    if ms >= 0:
                        migrate_page(S, lp, ppn, ms, chip, t, done, i)
                        if S.ctr[C_ERROR] != 0:
                            return i
        elif o == OP_WRITE:
            # the page that goes to flash now: the host's, or with a write cache the one
            # evicted to make room for it (none on a hit or while the cache has room)
            flp = lp
            fstream = stream[i]
            if wc_cap > 0:
                flp, fstream = cache_write(S, lp, fstream)
            done = t
            if flp >= 0:
                s = policy.write_stream(S, flp, fstream)
                chip = policy.select_chip(S, flp, s)
                if collect_if_short(S, chip, t, i, gc_low, plane_low):
                    return i
                old = S.l2p[flp]
                blk = policy.select_block(S, chip, s, flp, old, False)
                if blk < 0:
                    S.ctr[C_ERROR] = ERR_NO_FREE_BLOCK
                    return i
                if old >= 0:
                    invalidate(S, old)
                ppn = program(S, blk, flp)
                page = ppn - blk * np_
                log_update(S, flp, old, ppn, LOG_HOST, i)
                log_flash(S, chip, FLASH_PROGRAM, page, t, ORIGIN_HOST)
                done = flash_prog(S, chip, blk, page, t)
                if wc_cap > 0:
                    # the host's page takes the slot once the evicted one has moved into
                    # the chip's page register (before its program)
                    S.ctr[C_CACHE_FLUSHES] += 1
                    done = max(t, done - S.prog_ns[page])
            S.ctr[C_HOST_WRITES] += 1
        else:
            S.ctr[C_TRIMS] += 1
            if wc_cap > 0:
                cache_drop(S, lp)
            old = S.l2p[lp]
            if old >= 0:
                invalidate(S, old)
                S.l2p[lp] = -1
                log_update(S, lp, old, -1, LOG_TRIM, i)
            done = t
        r = req[i]
        if done > done_ns[r]:
            done_ns[r] = done
    return end
