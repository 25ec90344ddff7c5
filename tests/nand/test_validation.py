"""Write amplification against Desnoyers' analytic greedy model (SYSTOR 2012, Eq. 12)."""

from __future__ import annotations

import math

import pytest

from skftl.nand.analytic import lambert_w0, waf_greedy, waf_lru
from skftl.nand.validation import uniform_waf


@pytest.mark.parametrize("x", [-1 / math.e, -0.3, -0.05, 0.0, 0.7, 25.0])
def test_lambert_w0_inverts_w_exp_w(x):
    w = lambert_w0(x)
    assert w >= -1.0
    assert w * math.exp(w) == pytest.approx(x, abs=1e-12)


def test_analytic_model_shape():
    # more spare -> less amplification; greedy beats LRU; greedy -> LRU as blocks grow
    assert waf_greedy(0.07, 64) > waf_greedy(0.10, 64) > waf_greedy(0.20, 64) > 1.0
    for sf in (0.07, 0.1, 0.2):
        assert waf_greedy(sf, 64) < waf_greedy(sf, 256) < waf_lru(sf)
        assert waf_greedy(sf, 1 << 20) == pytest.approx(waf_lru(sf), rel=1e-4)


# one chip, ~0.3-0.5 M physical pages: the 3-4 reserved blocks are < 0.2 % of the device
@pytest.mark.parametrize("spare_factor", [0.07, 0.10, 0.20])
@pytest.mark.parametrize(("pages_per_block", "n_blocks"), [(64, 6144), (256, 2048)])
def test_greedy_waf_matches_desnoyers(spare_factor, pages_per_block, n_blocks):
    r = uniform_waf(spare_factor, pages_per_block, n_blocks, seed=12345)
    assert r["measured"] == pytest.approx(r["analytic_greedy"], rel=0.03)


def test_cost_benefit_is_no_better_than_greedy_on_uniform_traffic():
    # greedy is optimal for memoryless traffic (Yang et al., 2015); cost-benefit's age term
    # can only cost copies here
    g = uniform_waf(0.1, 64, 1024, seed=5)["measured"]
    cb = uniform_waf(0.1, 64, 1024, seed=5, gc_policy="cost_benefit")["measured"]
    assert cb >= g * 0.995
