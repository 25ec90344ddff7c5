"""PPB with the SK-aware allocator (policy ``ppb_sk``): kernel vs the pure-Python
reference, PPB's life-cycle rules, FTL invariants, and that SK-awareness acts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry
from skftl.nand import policies_ppb as pp
from skftl.nand import policies_ppb_sk as pk
from skftl.nand.core import P_NLISTS
from skftl.nand.invariants import check_invariants
from tests.nand.ppb_reference import RefPpbSk, kernel_matches_reference, popcount
from tests.nand.test_policies_ppb import TIMING, _open_blocks_per_area, ppb_ftl, scenarios


def sk_ftl(**kw) -> Ftl:
    return ppb_ftl("ppb_sk", **kw)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(policies=("ppb_sk",), n_vbs=(2, 2, 4), max_open=4))
def test_kernel_matches_reference(sc):
    kernel_matches_reference(sk_ftl, RefPpbSk, sc)


def _churn(ftl, seed, rounds=6):
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        n = 3 * ftl.n_lpn
        lpn = (rng.zipf(1.3, n) % ftl.n_lpn).astype(np.int32)
        op = rng.choice(2, n, p=[0.4, 0.6]).astype(np.int8)
        hot = (rng.random(n) < 0.3).astype(np.int8)
        yield ftl.run_pages(lpn, op, stream=hot)


@pytest.mark.parametrize("max_open", [1, 2, 4])
def test_ppb_rules_and_invariants_under_gc(max_open):
    """As for PPB: at most ``max_open`` blocks with free space per (chip, area), FTL
    invariants, erased blocks back in their popcount free list, no extra copies."""
    ftl = sk_ftl(max_open=max_open, n_vbs=2)
    S = ftl.state
    n_lists = int(ftl.config.n_free_lists)
    for _ in _churn(ftl, max_open):
        own = pp.open_blocks(S.pstate, ftl.geometry.n_chips)
        for (chip, area), k in _open_blocks_per_area(S).items():
            assert k <= max_open and own[chip, area] == k
        check_invariants(S)
        for chip in range(ftl.geometry.n_chips):
            for lst in range(n_lists):
                b = int(S.free_head[chip * n_lists + lst])
                while b >= 0:
                    assert popcount(b) == lst
                    b = int(S.lnext[b])
    c = ftl.counters()
    assert c["erases"] > 0 and c["gc_copies"] > 0
    assert c["flash_programs"] == c["host_writes"] + c["gc_copies"]


def _log_of(ftl, seed):
    """(old, new) PPN of every relocation (host update or GC copy) of a write churn."""
    ftl_log = []
    rng = np.random.default_rng(seed)
    for _ in range(4):
        n = 3 * ftl.n_lpn
        lpn = (rng.zipf(1.2, n) % ftl.n_lpn).astype(np.int32)
        hot = (rng.random(n) < 0.3).astype(np.int8)
        ftl.run_pages(
            lpn,
            np.ones(n, np.int8),
            stream=hot,
            on_log=lambda *a: ftl_log.extend(zip(*(x.tolist() for x in a), strict=True)),
        )
    return [(old, new) for _, old, new, _ in ftl_log if old >= 0 and new >= 0]


def test_sk_awareness_keeps_more_block_popcounts_than_ppb():
    """Same writes and levels: PPB-SK keeps the old block's popcount on more updates and
    flips fewer bits of the mapping entries than PPB, with the same areas and VB rules."""
    geo = Geometry(2, 1, 1, 64, 16, 4096)
    kw = dict(geo=geo, max_open=3, log=1 << 16, hot_fraction=0.2)
    sk, base = sk_ftl(**kw), ppb_ftl("ppb", **kw)
    res = {}
    for name, f in (("sk", sk), ("ppb", base)):
        upd = _log_of(f, 7)
        same = np.mean([popcount(o // 16) == popcount(n // 16) for o, n in upd])
        flips = np.mean([popcount(o ^ n) for o, n in upd])
        res[name] = (same, flips)
    assert res["sk"][0] > res["ppb"][0] + 0.05
    assert res["sk"][1] < res["ppb"][1]


@pytest.mark.parametrize("policy", ["ppb_sk", "sk-ftl"])
def test_too_few_free_lists_are_raised_to_the_popcount_classes(policy):
    """Popcount free lists need bits + 1 lists (the kernel would write past fewer): the FTL
    gives the policy its ``min_free_lists`` whatever the config asks (40 blocks: 6 bits)."""
    cfg = FtlConfig(
        spare_factor=0.35, gc_low_blocks=5, gc_high_blocks=6, n_streams=4, policy=policy
    )
    ftl = Ftl(Geometry(1, 1, 1, 40, 16, 4096), TIMING, cfg)
    assert int(ftl.state.prm[P_NLISTS]) == 7


def test_attach_needs_policy_ppb_sk():
    with pytest.raises(ConfigError, match="policy ppb_sk"):
        pk.attach(ppb_ftl("ppb"))
