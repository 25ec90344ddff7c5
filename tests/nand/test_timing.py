"""Latency sanity: datasheet sums, overlap across chips, serialisation on one chip/channel,
per-page speed models, GC visible in latency."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.nand import Ftl, FtlConfig, Geometry, Timing, resolve_nand
from skftl.nand.geometry import GIB

T_R, T_P, T_E = 49_000, 600_000, 4_000_000
TIMING = Timing(T_R, T_P, T_E, channel_mb_s=533.0)
PAGE = 16384
XFER = TIMING.transfer_ns(PAGE)


def device(channels=4, chips_per_channel=1, timing=TIMING, **cfg) -> Ftl:
    geo = Geometry(channels, chips_per_channel, 1, 16, 64, PAGE)
    return Ftl(geo, timing, FtlConfig(spare_factor=0.3, **cfg))


def writes(ftl, lpns, t=0):
    n = len(lpns)
    return ftl.run_pages(
        np.asarray(lpns, np.int32), np.ones(n, np.int8), time_ns=np.full(n, t, np.int64)
    )


def test_transfer_time_is_page_over_rate():
    assert XFER == round(PAGE / 533e6 * 1e9)  # 30.7 us


def test_single_write_and_read_equal_datasheet_sums():
    ftl = device()
    assert writes(ftl, [5]).tolist() == [XFER + T_P]
    t0 = 10_000_000
    done = ftl.run_pages(np.array([5], np.int32), np.zeros(1, np.int8), time_ns=np.array([t0]))
    assert done.tolist() == [t0 + T_R + XFER]
    erase_free = ftl.counters()
    assert erase_free["erases"] == 0


def test_independent_requests_on_idle_chips_overlap():
    ftl = device(channels=4)  # static striping: LPN k -> chip k -> channel k
    assert writes(ftl, [0, 1, 2, 3]).tolist() == [XFER + T_P] * 4


def test_chips_sharing_a_channel_serialise_only_the_transfers():
    ftl = device(channels=1, chips_per_channel=4)
    assert writes(ftl, [0, 1, 2, 3]).tolist() == [(k + 1) * XFER + T_P for k in range(4)]


def test_requests_on_one_chip_serialise():
    ftl = device(channels=4)
    assert writes(ftl, [0, 4, 8, 12]).tolist() == [(k + 1) * (XFER + T_P) for k in range(4)]


def test_dynamic_allocation_spreads_over_idle_chips():
    ftl = device(channels=4, chip_alloc="dynamic")
    assert writes(ftl, [0, 4, 8, 12]).tolist() == [XFER + T_P] * 4


def test_multi_page_request_completes_with_its_last_page():
    ftl = device(channels=2)
    n = 4  # pages 0..3 -> chips 0,1,0,1
    done = ftl.run_pages(
        np.arange(n, dtype=np.int32),
        np.ones(n, np.int8),
        request=np.zeros(n, np.int64),
        time_ns=np.zeros(n, np.int64),
    )
    assert done.tolist() == [2 * (XFER + T_P)]


def test_charge_trap_page_speed_profile():
    t = Timing(T_R, T_P, T_E, 533.0, page_speed="charge_trap_3d", speed_ratio=4.0)
    read, prog = t.page_tables(384)
    assert prog[0] == T_P and prog[-1] == T_P // 4 and read[-1] == round(T_R / 4)
    assert (np.diff(prog) <= 0).all()
    first = Timing(
        T_R, T_P, T_E, 533.0, page_speed="charge_trap_3d", speed_ratio=4.0, fast_end="first"
    )
    assert (first.page_tables(384)[1] == prog[::-1]).all()


def test_lsb_msb_pages_alternate_and_show_in_latency():
    mtpm = resolve_nand({"preset": "mtpm"})
    t = Timing.from_config(mtpm)
    _, prog = t.page_tables(8)
    assert prog.tolist() == [770_000, 1_022_000] * 4
    ftl = device(channels=1, timing=t)
    # LPNs 0 and 1 land on chip 0 pages 0 (LSB) and 1 (MSB)
    assert writes(ftl, [0]).tolist() == [t.transfer_ns(PAGE) + 770_000]
    ftl2 = device(channels=1, timing=t)
    done = writes(ftl2, [0, 1])
    assert done[1] - done[0] == t.transfer_ns(PAGE) + 1_022_000


def test_presets_resolve_to_paper_geometry():
    ppb = resolve_nand({"preset": "ppb"})
    g = Geometry.from_config(ppb)
    block_row = g.n_chips * 384 * 16384
    assert 64 * GIB - block_row < g.capacity_bytes <= 64 * GIB and g.pages_per_block == 384
    assert resolve_nand({"preset": "sk-ftl", "pages_per_block": 128})["pages_per_block"] == 128
    assert Geometry.from_config(resolve_nand({"preset": "mtpm"})).n_chips == 8


def test_garbage_collection_shows_in_latency():
    geo = Geometry(1, 1, 1, 32, 8, PAGE)
    ftl = Ftl(geo, TIMING, FtlConfig(spare_factor=0.3))
    ftl.fill()
    rng = np.random.default_rng(0)
    n = 2000
    t = np.arange(n, dtype=np.int64) * 10 * (XFER + T_P)  # far apart: no queueing
    done = ftl.run_pages(
        rng.integers(0, ftl.n_lpn, n, dtype=np.int32), np.ones(n, np.int8), time_ns=t
    )
    lat = done - t
    assert ftl.counters()["erases"] > 0
    assert lat.min() == XFER + T_P
    assert lat.max() >= XFER + T_P + T_E  # some write waited for a victim's erase


@pytest.mark.parametrize("copyback", [True, False])
def test_gc_copy_cost(copyback):
    t = Timing(T_R, T_P, T_E, 533.0, copyback=copyback)
    geo = Geometry(1, 1, 1, 32, 8, PAGE)
    ftl = Ftl(geo, t, FtlConfig(spare_factor=0.3))
    ftl.fill()
    busy_before = int(ftl.state.chip_free[0])
    c0 = ftl.counters()
    rng = np.random.default_rng(1)
    writes(ftl, rng.integers(0, ftl.n_lpn, 500))
    c = {k: v - c0[k] for k, v in ftl.counters().items()}
    per_copy = T_R + T_P + (0 if copyback else 2 * XFER)
    expect = c["host_writes"] * (XFER + T_P) + c["gc_copies"] * per_copy + c["erases"] * T_E
    assert int(ftl.state.chip_free[0]) - busy_before == expect
