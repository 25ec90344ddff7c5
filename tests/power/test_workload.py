"""The power study's operation stream taken from the FTL kernel's flash-operation log."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing
from skftl.power.device import OP_ERASE, OP_PROGRAM, OP_READ
from skftl.power.workload import ops_from_ftl
from skftl.traces.requests import Requests, TraceMeta

PAGE = 8192


def _ftl(capacity: int = 4096) -> Ftl:
    geo = Geometry(2, 4, 1, 16, 16, PAGE)  # 2 channels x 4 ways
    timing = Timing(52_000, 770_000, 7_400_000, 200.0, page_speed="lsb_msb")
    return Ftl(geo, timing, FtlConfig(spare_factor=0.3), flash_log_capacity=capacity)


def _requests(ftl: Ftl, n: int, seed: int = 3) -> Requests:
    rng = np.random.default_rng(seed)
    return Requests(
        time_ns=np.arange(n) * 10_000,
        offset_bytes=rng.integers(0, ftl.n_lpn // 2, n) * PAGE,  # a hot half: GC copies
        size_bytes=rng.integers(1, 3, n) * PAGE,
        is_write=rng.random(n) < 0.7,
        meta=TraceMeta("hot", "test"),
    )


def test_stream_holds_every_flash_operation_of_the_ftl():
    ftl = _ftl()
    ftl.fill(seed=1)
    before = ftl.counters()
    req = _requests(ftl, 3000)
    ops, info = ops_from_ftl(req, ftl, n_ops=10**9, time_scale=1.0)
    c = {k: v - before[k] for k, v in ftl.counters().items()}
    assert info.host_requests == len(req)
    assert c["gc_copies"] > 0 and c["erases"] > 0
    assert (ops.kind == OP_READ).sum() == c["flash_reads"] == info.host_reads + info.gc_reads
    assert (ops.kind == OP_PROGRAM).sum() == c["flash_programs"]
    assert info.gc_reads == info.gc_programs == c["gc_copies"]
    assert (ops.kind == OP_ERASE).sum() == info.erases == c["erases"]
    assert 0 < info.gc_fraction < 1
    # chips grouped by channel: FTL chip c (channel c % 2, way c // 2) -> 4 * channel + way
    assert set(np.unique(ops.chip)) == set(range(8))
    assert ops.msb[ops.kind != OP_PROGRAM].sum() == 0 and 0 < ops.msb.sum() < len(ops)
    assert ops.arrival_ns[0] == 0 and (np.diff(ops.arrival_ns) >= 0).all()


def test_stream_is_cut_at_n_ops_and_remaps_chips():
    ftl = _ftl()
    ftl.fill(seed=1)
    seen: list = []
    ref = _ftl()
    ref.fill(seed=1)
    req = _requests(ftl, 500)
    ref.replay(req[:125], wrap=True, on_flash=lambda *a: seen.append(a[0].copy()))
    ops, info = ops_from_ftl(req, ftl, n_ops=50)
    assert len(ops) == 50 and (ops.arrival_ns == 0).all()
    ftl_chip = np.concatenate(seen)[:50]
    assert (ops.chip == (ftl_chip % 2) * 4 + ftl_chip // 2).all()


def test_stream_needs_the_flash_log():
    ftl = _ftl(capacity=0)
    with pytest.raises(ConfigError, match="flash_log_capacity"):
        ops_from_ftl(_requests(ftl, 10), ftl, n_ops=10)
