"""Device-semantics options of the NAND model against hand-worked timelines: chips shared
by dies (multi-die commands), the DRAM write cache, reads of never-written pages."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing
from skftl.nand.invariants import check_invariants
from skftl.nand.placement import host_page_positions
from tests.nand.test_kernel import make_ops

US = 1000
XFER = 10 * US  # 4096 B at 409.6 MB/s


def device(**semantics) -> Ftl:
    """One channel, two dies (lpn % 2 picks the die), 50 / 500 / 2000 us, 10 us transfers."""
    timing = Timing(50 * US, 500 * US, 2000 * US, 409.6, **semantics)
    return Ftl(Geometry(1, 2, 1, 8, 8, 4096), timing, FtlConfig(spare_factor=0.5))


def run(ftl: Ftl, lpn, op, t=0) -> list[int]:
    n = len(lpn)
    done = ftl.run_pages(
        np.array(lpn, np.int32), np.array(op, np.int8), time_ns=np.full(n, t, np.int64)
    )
    return (done // US).tolist()


def written(**semantics) -> Ftl:
    ftl = device(**semantics)
    run(ftl, [0, 1], [1, 1])
    ftl.reset_timelines()
    return ftl


def test_transfer_time():
    assert device().timing.transfer_ns(4096) == XFER


@pytest.mark.parametrize(
    ("die_model", "expected"),
    [
        # independent: both reads 0-50, transfers 50-60 and 60-70; die 0's second read
        # follows its own transfer: 60-110, 110-120
        ("independent", [60, 70, 120]),
        # shared chip: the two dies' reads form one multi-die read (0-50), data out 50-60,
        # 60-70; die 0's next read cannot join a started command: it waits for the chip
        # (free at 70): 70-120, 120-130
        ("shared_chip", [60, 70, 130]),
    ],
)
def test_shared_chip_joins_same_kind_and_serialises_the_rest(die_model, expected):
    ftl = written(die_model=die_model, dies_per_chip=2)
    assert run(ftl, [0, 1, 0], [0, 0, 0]) == expected


@pytest.mark.parametrize(
    ("die_model", "expected"),
    # a program on die 0 (transfer 0-10, program 10-510) and a read on die 1: independent,
    # the read's array time overlaps (0-50, transfer 50-60); shared chip, a read cannot join
    # a program: it starts when the chip is free (510-560, 560-570)
    [("independent", [510, 60]), ("shared_chip", [510, 570])],
)
def test_shared_chip_runs_one_command_kind_at_a_time(die_model, expected):
    ftl = written(die_model=die_model, dies_per_chip=2)
    assert run(ftl, [0, 1], [1, 0]) == expected


def test_shared_chip_of_one_die_is_the_independent_model():
    runs = []
    for semantics in ({}, {"die_model": "shared_chip", "dies_per_chip": 1}):
        ftl = Ftl(
            Geometry(2, 2, 2, 8, 16, 4096),
            Timing(40_000, 500_000, 3_000_000, 400.0, **semantics),
            FtlConfig(spare_factor=0.3),
        )
        lpn, op, stream, request, time_ns = make_ops(ftl, 3000, 0.3, 5)
        done = ftl.run_pages(lpn, op, request=request, time_ns=time_ns)
        runs.append((done.tolist(), ftl.counters(), ftl.state.chip_free.tolist()))
        check_invariants(ftl.state)
    assert runs[0] == runs[1]


def test_dies_per_chip_must_divide_the_chips_of_a_channel():
    with pytest.raises(ConfigError, match="dies_per_chip 3"):
        device(die_model="shared_chip", dies_per_chip=3)


TWO_PAGES_MIB = 8192 / (1 << 20)


@pytest.mark.parametrize(("policy", "evicted", "kept"), [("lru", 1, 0), ("fifo", 0, 1)])
def test_write_cache_absorbs_writes_and_evicts_by_policy(policy, evicted, kept):
    ftl = device(write_cache_mib=TWO_PAGES_MIB, write_cache_policy=policy)
    # two misses fill the cache, a rewrite of page 0 hits, a read of page 1 hits: all at 0
    assert run(ftl, [0, 1, 0, 1], [1, 1, 1, 0]) == [0, 0, 0, 0]
    c = ftl.counters()
    assert (c["flash_programs"], c["cache_write_hits"], c["cache_read_hits"]) == (0, 1, 1)
    assert c["flash_reads"] == 0 and (ftl.state.l2p < 0).all()
    # page 2 evicts the least recently written (lru: 1) or first inserted (fifo: 0) page:
    # its transfer into die (lpn % 2) takes 0-10 us, then the slot is the host's
    assert run(ftl, [2], [1]) == [10]
    c = ftl.counters()
    assert (c["flash_programs"], c["cache_flushes"], c["host_writes"]) == (1, 1, 4)
    assert ftl.state.l2p[evicted] >= 0 and ftl.state.l2p[kept] < 0
    # the evicted page is read from flash once its die is free (program ends at 510)
    assert run(ftl, [evicted], [0]) == [510 + 50 + 10]
    check_invariants(ftl.state)


def test_write_cache_trim_frees_the_slot():
    ftl = device(write_cache_mib=TWO_PAGES_MIB)
    run(ftl, [0, 1], [1, 1])
    run(ftl, [1, 1], [2, 0])  # trimmed, then read: not in the cache, unmapped: at arrival
    assert ftl.counters()["unmapped_reads"] == 1
    assert run(ftl, [2, 3], [1, 1]) == [0, 10]  # 2 takes the freed slot, 3 evicts 0
    assert ftl.counters()["flash_programs"] == 1


def test_write_cache_smaller_than_a_page_is_rejected():
    with pytest.raises(ConfigError, match="write_cache.capacity_mib"):
        device(write_cache_mib=0.001)


@pytest.mark.parametrize(
    ("mode", "done", "flash_reads"),
    # a read of never-written page 3 at t = 0: at arrival, or an array read on die 3 % 2
    # (0-50) and its transfer (50-60)
    [("complete_at_arrival", 0, 0), ("array_read", 60, 1)],
)
def test_reads_of_unwritten_pages(mode, done, flash_reads):
    ftl = device(unmapped_read=mode)
    assert run(ftl, [3], [0]) == [done]
    c = ftl.counters()
    assert (c["unmapped_reads"], c["flash_reads"]) == (1, flash_reads)


def test_premapped_reads_are_written_first_without_time_or_host_writes():
    ftl = device(unmapped_read="premapped")
    lpn, op = np.array([3, 3, 4, 5], np.int32), np.array([0, 1, 1, 0], np.int8)
    # 3 and 5 are read before any write of them; 4 is written first
    assert ftl.premap(lpn, op) == 2
    S = ftl.state
    assert S.l2p[3] >= 0 and S.l2p[5] >= 0 and S.l2p[4] < 0
    assert not S.chip_free.any()
    c = ftl.counters()
    assert (c["host_writes"], c["premapped"], c["flash_programs"]) == (0, 2, 2)
    assert run(ftl, [3], [0]) == [60]  # now a real read: 0-50, transfer 50-60
    assert ftl.premap(lpn, op) == 0  # nothing left unmapped


def test_bad_semantics_name_their_key():
    for key, kw in (
        ("die_model", {"die_model": "x"}),
        ("unmapped_read", {"unmapped_read": "x"}),
        ("write_cache.policy", {"write_cache": {"capacity_mib": 1, "policy": "x"}}),
        ("write_cache.capacity_mib", {"write_cache": {"capacity_mib": "lots"}}),
    ):
        section = {"t_read_us": 1, "t_prog_us": 1, "t_erase_us": 1, "channel_mb_s": 1, **kw}
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            Timing.from_config(section)


def positions(ftl: Ftl, lpn, op) -> tuple[list[int], list[tuple]]:
    """Replay page ops with the op-indexed mapping log; (host page positions, log rows)."""
    before = ftl.state._make(a.copy() for a in ftl.state)
    lpn, op = np.array(lpn, np.int32), np.array(op, np.int8)
    chunks = []
    ftl.run_pages(lpn, op, on_log=lambda *a: chunks.append([x.copy() for x in a]), log_ops=True)
    log = [np.concatenate(c) for c in zip(*chunks, strict=True)] if chunks else [np.zeros(0)] * 5
    lp, _, new, kind, at = log
    pos = host_page_positions(
        before.l2p, before.wc_slot >= 0, lpn, op, lp.astype(np.int32), new.astype(np.int32),
        kind.astype(np.int8), at.astype(np.int64), ftl.geometry.pages_per_block,
    )  # fmt: skip
    return pos.tolist(), list(zip(*(c.tolist() for c in log), strict=True))


def test_placement_pairs_host_ops_with_the_pages_a_write_cache_flushes():
    ftl = Ftl(
        Geometry(1, 2, 1, 8, 8, 4096),
        Timing(
            50 * US,
            500 * US,
            2000 * US,
            409.6,
            write_cache_mib=TWO_PAGES_MIB,
            write_cache_policy="fifo",
        ),  # fmt: skip
        FtlConfig(spare_factor=0.5),
        log_capacity=4096,
    )
    # 0 and 1 fill the cache (nothing programmed: -1); 2 evicts 0 (page 0 of die 0's block);
    # a read of 0 reads that page; a read of 1 hits the cache (-1); 3 evicts 1 (page 0 of
    # die 1's block); a trim of 2 (cached, never on flash): -1 and no log entry; 4 takes
    # the trimmed slot (-1); 6 evicts 3 (die 1, page 1); a read of 3 reads that page
    lpn = [0, 1, 2, 0, 1, 3, 2, 4, 6, 3]
    op = [1, 1, 1, 0, 0, 1, 2, 1, 1, 0]
    pos, rows = positions(ftl, lpn, op)
    assert pos == [-1, -1, 0, 0, -1, 0, -1, -1, 1, 1]
    # each entry is the evicted page, tagged with the host write that evicted it
    assert [(r[0], r[3], r[4]) for r in rows] == [(0, 0, 2), (1, 0, 5), (3, 0, 8)]


@pytest.mark.parametrize("cache", [0.0, 64 * 4096 / (1 << 20)])
def test_placement_agrees_with_the_counters(cache):
    """Random ops with GC and trims: the positions come out (log and ops stay in step), one
    write position per flash program of a host write, one read position per flash read."""
    ftl = Ftl(
        Geometry(2, 1, 2, 8, 16, 4096),
        Timing(40_000, 500_000, 3_000_000, 400.0, write_cache_mib=cache),
        FtlConfig(spare_factor=0.3),
        log_capacity=1 << 16,
    )
    lpn, op, *_ = make_ops(ftl, 4000, 0.6, 11)
    pos, _ = positions(ftl, lpn, op)
    pos = np.array(pos)
    c = ftl.counters()
    assert c["erases"] > 0
    host_programs = c["flash_programs"] - c["gc_copies"]
    assert int((pos[op == 1] >= 0).sum()) == host_programs
    assert int((pos[op == 0] >= 0).sum()) == c["flash_reads"] - c["gc_copies"]


def two_plane_chip(planes_gc: str = "chip", **semantics) -> Ftl:
    """One chip of two planes x 4 blocks x 8 pages; chip GC watermarks 2 / 2 free blocks;
    a plane scope collects a plane with no free block (share 0.25 of 4 blocks)."""
    timing = Timing(
        50 * US, 500 * US, 2000 * US, 409.6, gc_threshold_scope=planes_gc,
        gc_plane_low_share=0.25, gc_plane_high_share=0.25, **semantics,
    )  # fmt: skip
    cfg = FtlConfig(spare_factor=0.4, gc_low_blocks=2, gc_high_blocks=2)
    return Ftl(Geometry(1, 1, 2, 4, 8, 4096), timing, cfg)


# eight-page runs of LPNs written in turn (all at t = 0); blocks open in free-list order
# (plane 0 = blocks 0-3, plane 1 = 4-7): A -> 0, B -> 1 (block 0 now holds no valid page),
# C -> 2, D -> 3, E -> 4 (block 2 empties), F -> 5 (block 1 empties), G -> 6 (block 4
# empties), H -> 7
RUNS = [0, 0, 8, 16, 8, 0, 8, 24]


@pytest.mark.parametrize(
    ("scope", "op25_done", "erased"),
    [
        # chip scope: every write before D's second is 510 us after the last; the chip's
        # floor (free < 2) fires at G's second write (victim block 0, empty longest) and at
        # H's second (block 2, empty longest now)
        ("chip", 26 * 510, [0, 2]),
        # plane scope: D opened plane 0's last free block; at D's second write (op 25)
        # plane 0 has none: it erases its empty block 0 (12750-14750 us) before the write
        # (transfer and program 14750-15260). At H's second write the chip's floor fires
        # (free: only block 0): victim block 2 (empty longest); then plane 1, with no free
        # block, takes block 4 from its own plane although plane 0's block 1 is emptier
        # for longer
        ("plane", 14750 + 510, [0, 2, 4]),
    ],
)
def test_gc_thresholds_per_plane_take_victims_from_the_plane(scope, op25_done, erased):
    ftl = two_plane_chip(scope)
    lpn = np.concatenate([np.arange(r, r + 8) for r in RUNS])
    done = ftl.run_pages(lpn.astype(np.int32), np.ones(len(lpn), np.int8))
    assert done[25] // US == op25_done
    assert np.flatnonzero(ftl.state.erase_count).tolist() == erased
    check_invariants(ftl.state)


def test_plane_thresholds_are_validated_and_reserved():
    with pytest.raises(ConfigError, match="gc_plane_low_share"):
        Timing(1, 1, 1, 1.0, gc_plane_low_share=0.2, gc_plane_high_share=0.1)
    with pytest.raises(ConfigError, match="gc_threshold_scope"):
        Timing.from_config({"t_read_us": 1, "t_prog_us": 1, "t_erase_us": 1, "channel_mb_s": 1,
                            "gc_threshold_scope": "die"})  # fmt: skip
    # planes x the per-plane high watermark (2 x 2 blocks) + the open block must stay spare
    with pytest.raises(ConfigError, match="GC reserve"):
        Ftl(Geometry(1, 1, 2, 4, 8, 4096),
            Timing(1, 1, 1, 1.0, gc_threshold_scope="plane", gc_plane_low_share=0.5),
            FtlConfig(spare_factor=0.4, gc_low_blocks=2, gc_high_blocks=2))  # fmt: skip


def multi_plane_chip(multi_plane: bool) -> Ftl:
    """One chip, two planes x 8 blocks x 8 pages: with multi-plane write points even LPNs
    go to plane 0 and odd ones to plane 1."""
    timing = Timing(50 * US, 500 * US, 2000 * US, 409.6, multi_plane=multi_plane)
    return Ftl(Geometry(1, 1, 2, 8, 8, 4096), timing, FtlConfig(spare_factor=0.5))


@pytest.mark.parametrize(
    ("multi_plane", "expected"),
    [
        # one plane at a time: program 0 (transfer 0-10, program 10-510), then 1 (510-1020);
        # reads at 2000: 2000-2050 + transfer 2050-2060, then 2060-2110 + 2110-2120; writes
        # 4 and 3 at 4000: 4000-4510, 4510-5020
        (False, [510, 1020, 2060, 2120, 4510, 5020]),
        # multi-plane: page 0 of both planes' first blocks: one program (transfers 0-10 and
        # 10-20, program to 520), one read (2000-2050, transfers 2050-2060 and 2060-2070);
        # after write 2 (plane 0, page 1), write 4 lands on plane 0's page 2 and write 3 on
        # plane 1's page 1: not aligned, one after the other
        (True, [510, 520, 2060, 2070, 4510, 5020]),
    ],
)
def test_multi_plane_commands_join_on_aligned_pages(multi_plane, expected):
    ftl = multi_plane_chip(multi_plane)
    lpn = [0, 1, 0, 1, 2, 4, 3]
    op = [1, 1, 0, 0, 1, 1, 1]
    t = [0, 0, 2000, 2000, 3000, 4000, 4000]
    done = ftl.run_pages(np.array(lpn, np.int32), np.array(op, np.int8),
                         time_ns=np.array(t, np.int64) * US)  # fmt: skip
    assert (np.delete(done, 4) // US).tolist() == expected
    S = ftl.state
    if multi_plane:  # plane 0's first block is 0, plane 1's is 8
        assert [S.l2p[x] // 8 for x in (0, 1, 2, 3, 4)] == [0, 8, 0, 8, 0]
    check_invariants(S)
