"""PPB and the naive split as policies of the NAND kernel: kernel vs the pure-Python
reference, the virtual-block life-cycle rules, and the FTL invariants with PPB plugged in."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing
from skftl.nand import policies_ppb as pp
from skftl.nand import policies_ppb_sk as pk
from skftl.nand.core import OPEN
from skftl.nand.invariants import check_invariants
from skftl.nand.policies_skftl import block_bits
from tests.nand.ppb_reference import RefPpb, kernel_matches_reference

TIMING = Timing(49_000, 600_000, 4_000_000, 533.0, page_speed="charge_trap_3d", speed_ratio=3.0)


def ppb_ftl(policy="ppb", *, geo=None, n_vbs=2, max_open=2, spare=0.35, log=0, **kw) -> Ftl:
    """A small FTL with PPB (``ppb``), the naive split (``ppb_split``) or PPB with SK-FTL's
    allocator (``ppb_sk``, with its popcount-class free lists) attached."""
    geo = geo or Geometry(2, 1, 1, 40, 16, 4096)
    low = max((1 if policy == "ppb_split" else 2) * max_open + 1, 5)
    extra = {"n_free_lists": block_bits(geo.n_blocks) + 1} if policy == "ppb_sk" else {}
    cfg = FtlConfig(
        spare_factor=spare,
        gc_low_blocks=low,
        gc_high_blocks=low + 1,
        n_streams=4,
        policy=policy,
        **extra,
    )
    ftl = Ftl(geo, TIMING, cfg, log_capacity=log)
    (pk if policy == "ppb_sk" else pp).attach(ftl, n_vbs=n_vbs, max_open=max_open, **kw)
    return ftl


@st.composite
def scenarios(draw, policies=("ppb", "ppb", "ppb_split"), n_vbs=(2, 2, 4, 8), max_open=3):
    """A random PPB configuration and workload: ``policies``, ``n_vbs`` the choices drawn
    from, ``max_open`` the largest number of open blocks."""
    geo = Geometry(
        channels=draw(st.integers(1, 2)),
        chips_per_channel=1,
        planes_per_chip=1,
        blocks_per_plane=draw(st.integers(24, 40)),
        pages_per_block=draw(st.sampled_from([8, 16])),
        page_size=4096,
    )
    return dict(
        policy=draw(st.sampled_from(policies)),
        geo=geo,
        n_vbs=draw(st.sampled_from(n_vbs)),
        max_open=draw(st.integers(1, max_open)),
        hot_fraction=draw(st.floats(0.0, 0.3)),
        iron_hot_fraction=draw(st.floats(0.0, 0.2)),
        cold_reads=draw(st.integers(1, 3)),
        migrate=draw(st.sampled_from(sorted(pp.MIGRATE))),
        n_ops=draw(st.integers(1, 3000)),
        lpn_frac=draw(st.floats(0.05, 1.0)),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_kernel_matches_reference(sc):
    assume(sc["geo"].pages_per_block % sc["n_vbs"] == 0)
    kernel_matches_reference(ppb_ftl, RefPpb, sc, policy=sc["policy"])


def _open_blocks_per_area(S):
    bpc = int(S.prm[1 + 2])  # P_BPC
    out = {}
    for b in np.flatnonzero(S.blk_state == OPEN):
        key = (int(b) // bpc, int(S.blk_stream[b]))
        out[key] = out.get(key, 0) + 1
    return out


@pytest.mark.parametrize("policy", ["ppb", "ppb_split"])
@pytest.mark.parametrize("max_open", [1, 2, 3])
@pytest.mark.parametrize("n_vbs", [2, 4])
def test_open_blocks_bounded_and_invariants_under_gc(policy, max_open, n_vbs):
    """At most ``max_open`` blocks with free space per (chip, area), as the kernel's own
    count says, through heavy GC; FTL invariants hold; programs = host writes + GC copies
    (levels never cause extra copies)."""
    ftl = ppb_ftl(policy, n_vbs=n_vbs, max_open=max_open)
    rng = np.random.default_rng(max_open * 10 + n_vbs)
    n_chips = ftl.geometry.n_chips
    for _ in range(6):
        n = 3 * ftl.n_lpn
        lpn = (rng.zipf(1.3, n) % ftl.n_lpn).astype(np.int32)
        op = rng.choice(2, n, p=[0.5, 0.5]).astype(np.int8)
        hot = (rng.random(n) < 0.3).astype(np.int8)
        ftl.run_pages(lpn, op, stream=hot)
        counted = _open_blocks_per_area(ftl.state)
        own = pp.open_blocks(ftl.state.pstate, n_chips)
        for (chip, area), k in counted.items():
            assert k <= max_open
            assert own[chip, area] == k
        check_invariants(ftl.state)
    c = ftl.counters()
    assert c["erases"] > 0 and c["gc_copies"] > 0
    assert c["flash_programs"] == c["host_writes"] + c["gc_copies"]


def test_promotion_moves_data_only_on_update():
    """A read promotes hot data to iron-hot without moving it; its next (hot) update lands
    in the fast VB; a new hot write then opens a new block's slow VB (Figs. 8 and 10)."""
    ftl = ppb_ftl("ppb", geo=Geometry(1, 1, 1, 40, 16, 4096), hot_fraction=0.5)
    S = ftl.state
    ones = np.ones(8, np.int8)
    ftl.run_pages(np.arange(8, dtype=np.int32), ones, stream=ones)  # hot: fills slow VB
    blk = int(S.l2p[0]) // 16
    assert [int(S.l2p[i]) % 16 for i in range(8)] == list(range(8))
    before = ftl.counters()
    ftl.run_pages(np.array([0, 0], np.int32), np.zeros(2, np.int8))  # reads
    assert pp.levels(S.pstate)[0] == pp.IRON_HOT
    assert int(S.l2p[0]) == blk * 16  # not moved by the promotion
    assert ftl.counters()["flash_programs"] == before["flash_programs"]
    ftl.run_pages(np.array([0], np.int32), np.ones(1, np.int8), stream=np.ones(1, np.int8))
    assert int(S.l2p[0]) == blk * 16 + 8  # update -> the block's fast VB (VB 2n+1)
    ftl.run_pages(np.array([9], np.int32), np.ones(1, np.int8), stream=np.ones(1, np.int8))
    new = int(S.l2p[9]) // 16
    assert new != blk and int(S.l2p[9]) % 16 == 0  # hot list full -> new block, slow VB
    # a cold write never enters a hot-area block
    ftl.run_pages(np.array([20], np.int32), np.ones(1, np.int8), stream=np.zeros(1, np.int8))
    assert int(S.l2p[20]) // 16 not in (blk, new)
    assert S.blk_stream[int(S.l2p[20]) // 16] == 0 and S.blk_stream[blk] == 1


def test_strict_reading_fills_each_area_in_order():
    """max_open = 1 ("new VBs only when both lists are full"): whatever the levels want,
    each area fills one block at a time in page order."""
    ftl = ppb_ftl("ppb", geo=Geometry(1, 1, 1, 40, 16, 4096), max_open=1, hot_fraction=0.5)
    rng = np.random.default_rng(5)
    lpn = rng.permutation(40).astype(np.int32)
    ops = np.ones(40, np.int8)
    ftl.run_pages(lpn, ops, stream=(lpn % 2).astype(np.int8))
    S = ftl.state
    for area in (0, 1):
        ppns = sorted(int(S.l2p[x]) for x in lpn if x % 2 == area)
        blocks = sorted({p // 16 for p in ppns})
        # one block after the other: a full block, then pages 0..3 of the next
        assert len(blocks) == 2
        expect = [blocks[0] * 16 + i for i in range(16)] + [blocks[1] * 16 + i for i in range(4)]
        assert ppns == expect


def test_bad_policy_parameters_are_rejected():
    with pytest.raises(ConfigError, match="n_vbs"):
        ppb_ftl(n_vbs=3)
    cfg = FtlConfig(spare_factor=0.35, gc_low_blocks=5, gc_high_blocks=6, n_streams=4, policy="ppb")
    ftl = Ftl(Geometry(1, 1, 1, 40, 16, 4096), TIMING, cfg)
    with pytest.raises(ConfigError, match="gc_low_blocks"):
        pp.attach(ftl, max_open=3)
    with pytest.raises(ConfigError, match="policy"):
        pp.attach(Ftl(Geometry(1, 1, 1, 40, 16, 4096), TIMING, FtlConfig(spare_factor=0.35)))
