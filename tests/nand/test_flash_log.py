"""The FTL kernel's optional flash-operation log: every read, program and erase it issues."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing, core


def _ftl(copyback: bool, capacity: int) -> Ftl:
    geo = Geometry(2, 2, 1, 16, 16, 4096)
    timing = Timing(40_000, 500_000, 3_000_000, 400.0, page_speed="lsb_msb", copyback=copyback)
    return Ftl(geo, timing, FtlConfig(spare_factor=0.3), flash_log_capacity=capacity)


def _collect(parts: list):
    def sink(*cols):
        parts.append([c.copy() for c in cols])

    return sink


@pytest.mark.parametrize("copyback", [True, False])
def test_flash_log_counts_equal_the_counters(copyback):
    ftl = _ftl(copyback, capacity=1100)  # small: the kernel stops and drains many times
    ftl.fill(seed=1)
    before = ftl.counters()
    rng = np.random.default_rng(5)
    n = 6 * ftl.n_lpn
    lpn = rng.integers(0, ftl.n_lpn, n).astype(np.int32)
    op = rng.choice(3, n, p=[0.35, 0.6, 0.05]).astype(np.int8)
    time_ns = np.cumsum(rng.integers(0, 50_000, n))
    parts: list = []
    ftl.run_pages(lpn, op, time_ns=time_ns, on_flash=_collect(parts))
    chip, kind, page, t, origin = (np.concatenate(x) for x in zip(*parts, strict=True))
    c = {k: v - before[k] for k, v in ftl.counters().items()}
    assert c["gc_copies"] > 0 and c["erases"] > 0  # GC ran
    host, gc = origin == core.ORIGIN_HOST, origin == core.ORIGIN_GC
    assert (host | gc).all()
    assert (host & (kind == core.FLASH_READ)).sum() == c["host_reads"] - c["unmapped_reads"]
    assert (host & (kind == core.FLASH_PROGRAM)).sum() == c["host_writes"]
    assert not (host & (kind == core.FLASH_ERASE)).any()
    assert (gc & (kind == core.FLASH_READ)).sum() == c["gc_copies"]
    assert (gc & (kind == core.FLASH_PROGRAM)).sum() == c["gc_copies"]
    assert (kind == core.FLASH_ERASE).sum() == c["erases"]
    assert (kind == core.FLASH_READ).sum() == c["flash_reads"]
    assert (kind == core.FLASH_PROGRAM).sum() == c["flash_programs"]
    # issue order is time order; pages lie in a block; erases carry page -1
    assert (np.diff(t) >= 0).all()
    assert ((chip >= 0) & (chip < ftl.geometry.n_chips)).all()
    erase = kind == core.FLASH_ERASE
    assert (page[erase] == -1).all()
    assert ((page[~erase] >= 0) & (page[~erase] < ftl.geometry.pages_per_block)).all()


def test_flash_log_off_by_default():
    ftl = _ftl(True, capacity=0)
    called = []
    lpn = np.arange(ftl.n_lpn, dtype=np.int32)
    ftl.run_pages(lpn, np.ones(len(lpn), np.int8), on_flash=lambda *a: called.append(a))
    assert called == [] and len(ftl.state.flog_chip) == 0
    assert ftl.counters()["flash_log_entries"] == 0


def test_flash_log_capacity_too_small_is_a_clear_error():
    with pytest.raises(ConfigError, match="flash_log_capacity"):
        _ftl(True, capacity=10)
