"""PPB's explicit migration (``migrate = "cold"``): a few page operations whose placement,
programs, counters, logs and timing are worked out by hand, and the option's checks.

The device of the hand-worked cases: one chip of 40 blocks of 16 pages, two virtual blocks
per block (VB 0 = pages 0-7, slow; VB 1 = pages 8-15, fast), uniform page times (read
40 us, program 500 us, erase 3 ms) and a channel moving a 4 KiB page in 10 us, so every
time below is a sum of these.
"""

from __future__ import annotations

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing, core
from skftl.nand import policies_ppb as pp
from skftl.nand.invariants import check_invariants
from skftl.nand.placement import host_page_positions

READ, PROG, XFER = 40_000, 500_000, 10_000
TIMING = Timing(READ, PROG, 3_000_000, 409.6)  # 4096 B / 409.6 MB/s = 10 us
MS = 1_000_000


def migrating_ftl(max_open: int = 2, migrate: str = "cold") -> Ftl:
    cfg = FtlConfig(spare_factor=0.35, gc_low_blocks=5, gc_high_blocks=6, n_streams=4, policy="ppb")
    ftl = Ftl(
        Geometry(1, 1, 1, 40, 16, 4096), TIMING, cfg, log_capacity=4096, flash_log_capacity=4096
    )
    pp.attach(ftl, max_open=max_open, cold_reads=2, migrate=migrate)
    return ftl


def run(ftl: Ftl, lpn: list[int], op: list[int], time_ns: list[int], stream=None):
    """Replay page ops (each its own request); completion times, mapping log rows
    (lpn, old, new, kind, op index) and flash log rows (chip, kind, page, time, origin)."""
    log, flash = [], []
    done = ftl.run_pages(
        np.array(lpn, np.int32),
        np.array(op, np.int8),
        stream=None if stream is None else np.array(stream, np.int8),
        time_ns=np.array(time_ns, np.int64),
        on_log=lambda *a: log.extend(zip(*(x.tolist() for x in a), strict=True)),
        log_ops=True,
        on_flash=lambda *a: flash.extend(zip(*(x.tolist() for x in a), strict=True)),
    )
    return done.tolist(), log, flash


def test_read_that_makes_data_cold_moves_it_to_the_fast_vb():
    """Eight icy-cold writes fill block 0's slow VB (pages 0-7), so block 0's fast VB (page
    8 on) is the cold area's writable fast block. LPN 1's second read reaches ``cold_reads``
    = 2: the data becomes cold and is programmed into page 8 right after that read, one
    program more than the host wrote, logged as a migration; the read itself completes as
    without it, the next operation on the chip waits for the program. A third read of LPN 1
    moves nothing (no level change), and LPN 2's second read moves it to page 9."""
    ftl = migrating_ftl()
    S = ftl.state
    W, T1, T2, T3, T4, T5 = 0, 10 * MS, 20 * MS, 30 * MS, 40 * MS, 50 * MS
    lpn = [0, 1, 2, 3, 4, 5, 6, 7, 1, 1, 3, 1, 2, 2, 1]
    op = [1] * 8 + [0] * 7
    t = [W] * 8 + [T1, T2, T2 + 1, T3, T4, T5, T5 + 20 * MS]
    done, log, flash = run(ftl, lpn, op, t, stream=[0] * 15)

    # placement: block 0 (the chip's first free block), slow VB, then the two migrations
    # into its fast VB; pages 1 and 2 are invalid copies now
    assert [int(S.l2p[x]) for x in range(8)] == [0, 8, 9, 3, 4, 5, 6, 7]
    assert int(S.vcount[0]) == 8 and int(S.next_page[0]) == 10
    assert [int(core.is_valid.py_func(S, p)) for p in range(10)] == [1, 0, 0, 1, 1, 1, 1, 1, 1, 1]
    assert pp.levels(S.pstate)[:8].tolist() == [0, 1, 1, 0, 0, 0, 0, 0]

    # counters: 8 host programs + 2 migration programs, no GC, no extra reads
    c = ftl.counters()
    assert (c["host_writes"], c["host_reads"], c["migrations"]) == (8, 7, 2)
    assert (c["flash_programs"], c["flash_reads"], c["gc_copies"], c["erases"]) == (10, 7, 0, 0)
    st = pp.stats(S.pstate)
    assert (st["cold_promotions"], st["want_fast"], st["got_fast"], st["diverted"]) == (2, 2, 2, 0)

    # the mapping log: the host writes, then each migration under its read's op index
    assert log == [(x, -1, x, core.LOG_HOST, x) for x in range(8)] + [
        (1, 1, 8, core.LOG_MIGRATE, 9),
        (2, 2, 9, core.LOG_MIGRATE, 13),
    ]
    # the flash log: every read, and each migration's program right after its read
    H, M = core.ORIGIN_HOST, core.ORIGIN_MIGRATE
    R, P = core.FLASH_READ, core.FLASH_PROGRAM
    assert flash[8:] == [
        (0, R, 1, T1, H),
        (0, R, 1, T2, H),
        (0, P, 8, T2, M),
        (0, R, 3, T2 + 1, H),
        (0, R, 8, T3, H),
        (0, R, 2, T4, H),
        (0, R, 2, T5, H),
        (0, P, 9, T5, M),
        (0, R, 8, T5 + 20 * MS, H),
    ]

    # timing: the writes queue on the chip (transfer + program each, 4.08 ms in all); every
    # read starts on an idle chip except LPN 3's, issued while LPN 1's migration programs
    assert done[:8] == [(k + 1) * (XFER + PROG) for k in range(8)]
    read = READ + XFER
    assert done[8:10] == [T1 + read, T2 + read]  # the migrating read is not delayed
    programmed = T2 + read + XFER + PROG  # the migration: transfer in, then program
    assert done[10] == programmed + read  # LPN 3's read waits for it
    assert done[11:] == [T3 + read, T4 + read, T5 + read, T5 + 20 * MS + read]
    assert int(S.chip_free[0]) == T5 + 20 * MS + read
    check_invariants(S)

    # where each host read found its page, rebuilt from the log: before the move at the
    # migrating read, after it later
    ops_lpn, ops_op = np.array(lpn, np.int32), np.array(op, np.int8)
    rows = np.array([r[:4] for r in log], np.int64).T
    pos = host_page_positions(
        np.full(ftl.n_lpn, -1, np.int32),
        np.zeros(0, bool),
        ops_lpn,
        ops_op,
        rows[0].astype(np.int32),
        rows[2].astype(np.int32),
        rows[3].astype(np.int8),
        np.array([r[4] for r in log], np.int64),
        16,
    )
    assert pos[8:].tolist() == [1, 1, 3, 8, 2, 2, 8]


def test_no_migration_when_off_or_already_fast():
    """The same reads with ``migrate = "none"`` move nothing (the data stays in the slow
    VB until rewritten or collected). With ``max_open = 1`` an icy-cold write finding the
    slow VB list full is diverted into the fast VB (rule 3); when a read then makes it
    cold it already lies where cold data belongs, so nothing moves either."""
    ftl = migrating_ftl(migrate="none")
    lpn = [*range(8), 1, 1]
    run(ftl, lpn, [1] * 8 + [0, 0], [0] * 8 + [10 * MS, 20 * MS], stream=[0] * 10)
    assert int(ftl.state.l2p[1]) == 1 and pp.levels(ftl.state.pstate)[1] == pp.COLD
    assert ftl.counters()["migrations"] == 0 and ftl.counters()["flash_programs"] == 8

    ftl = migrating_ftl(max_open=1)
    lpn = [*range(9), 8, 8]
    _, log, _ = run(ftl, lpn, [1] * 9 + [0, 0], [0] * 9 + [10 * MS, 20 * MS], stream=[0] * 11)
    assert int(ftl.state.l2p[8]) == 8  # diverted into block 0's fast VB by its write
    assert pp.levels(ftl.state.pstate)[8] == pp.COLD
    assert ftl.counters()["migrations"] == 0
    assert [r[3] for r in log] == [core.LOG_HOST] * 9


def test_hot_area_promotion_stays_progressive():
    """A read that promotes hot data to iron-hot moves nothing even with migration on:
    Sec. 3.4's hot area moves data only on update or GC."""
    ftl = migrating_ftl()
    run(ftl, [0, 0], [1, 0], [0, 10 * MS], stream=[1, 0])
    assert pp.levels(ftl.state.pstate)[0] == pp.IRON_HOT
    assert ftl.counters()["migrations"] == 0 and int(ftl.state.l2p[0]) == 0


def test_migration_under_gc_keeps_the_invariants():
    """Heavy overwrites with re-reads: migrations happen, GC runs before some of them, and
    programs = host writes + GC copies + migrations."""
    ftl = migrating_ftl()
    rng = np.random.default_rng(3)
    for _ in range(4):
        n = 3 * ftl.n_lpn
        lpn = (rng.zipf(1.3, n) % ftl.n_lpn).astype(np.int32)
        op = rng.choice(2, n, p=[0.6, 0.4]).astype(np.int8)
        hot = (rng.random(n) < 0.2).astype(np.int8)
        ftl.run_pages(lpn, op, stream=hot)
        check_invariants(ftl.state)
    c = ftl.counters()
    assert c["migrations"] > 0 and c["erases"] > 0
    assert c["flash_programs"] == c["host_writes"] + c["gc_copies"] + c["migrations"]


def test_bad_migrate_setting_is_rejected():
    with pytest.raises(ConfigError, match="migrate"):
        migrating_ftl(migrate="hot")
