"""The study's set-ups on a small device: the warm table maps the stated share of logical
pages before the trace without GC and without counting it, conservation of skyrmions
stays exact from that state, multi-pass replay counts every pass, and a precondition
trace is state only."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.skrm import PAPER_SCHEMES, CostModel, Layout
from skftl.studies.skrm import simulate
from skftl.traces.requests import Requests, TraceMeta
from tests.nand.test_policies_skftl import NAND


def section() -> dict:
    sec = copy.deepcopy(load_config()["skrm"])
    sec["nand"] = NAND
    sec["ftl"] = {"spare_factor": 0.3, "gc_low_blocks": 2, "gc_high_blocks": 3}
    sec["prefill_reads"] = True
    return sec


def trace(n: int = 400, seed: int = 0, pages: int = 800) -> Requests:
    rng = np.random.default_rng(seed)
    return Requests(
        time_ns=np.arange(n) * 10_000,
        offset_bytes=rng.integers(0, pages, n) * 4096,
        size_bytes=np.full(n, 4096),
        is_write=rng.random(n) < 0.7,
        meta=TraceMeta(name="t", format="test", synthetic=True),
    )


@pytest.mark.parametrize("sk", [False, True])
def test_warm_table_maps_the_share_first_without_gc_and_conserves(sk):
    sec = section()
    fill = 0.5
    r = simulate.replay(sec, trace(), sk, seed=3, **simulate.setup_options(sec, "warm"))
    pre_lpn = r["pre"][0]
    # the stated share of the logical space is mapped before the trace (plus pages it reads)
    assert len(np.unique(pre_lpn)) >= int(fill * r["n_lpn"])
    assert r["gc_copies_pre"] == 0 and r["counters"]["gc_copies"] == 0
    layout = Layout(entry_bits=32, entries_per_track=4)
    for scheme in PAPER_SCHEMES:
        before = CostModel(layout, scheme, r["n_lpn"])
        before.update(*r["pre"])
        m = simulate.cost(r, layout, scheme)
        c = m.counters()
        # the preconditioning is state, not counted ...
        assert c["updates"] + c["trims"] == len(r["log"][0])
        # ... and skyrmions are conserved exactly from that state on
        assert c["inject"] - c["remove"] == m.stored() - before.stored()
        # the warm table turns most of the trace's first writes into updates
        if scheme.write == "pw":
            cold = simulate.cost(simulate.replay(sec, trace(), sk, seed=3), layout, scheme)
            assert c["successive"] > cold.counters()["successive"]


def test_multi_pass_counts_every_pass_and_precondition_is_state_only():
    sec = section()
    one = simulate.replay(sec, trace(), True, seed=1)
    three = simulate.replay(sec, trace(), True, seed=1, passes=3)
    assert three["counters"]["host_writes"] == 3 * one["counters"]["host_writes"]
    assert len(three["log"][0]) > 2 * len(one["log"][0])
    pre = trace(seed=9)
    with_pre = simulate.replay(sec, trace(), True, seed=1, precondition=pre)
    # the install trace's writes are in the state, not in the counted log
    assert len(with_pre["pre"][0]) > len(one["pre"][0])
    assert with_pre["counters"]["host_writes"] == one["counters"]["host_writes"]


@pytest.mark.parametrize(
    ("key", "value"), [("rows", "diagonal"), ("first_write", "first"), ("open_per_class", 0)]
)
def test_bad_allocator_values_name_the_key(key, value):
    sec = section()
    simulate.check_allocator(sec)  # the defaults pass
    sec[key] = value
    with pytest.raises(ConfigError, match=f"skrm.{key}.*{value!r}"):
        simulate.check_allocator(sec)


def test_bad_setup_values_name_the_key():
    sec = section()
    sec["setups"] = {"warm_fraction": 1.5, "passes": 1}
    with pytest.raises(ConfigError, match="skrm.setups.warm_fraction"):
        simulate.setup_options(sec, "warm")
    with pytest.raises(ConfigError, match="skrm.setups.passes"):
        simulate.setup_options(sec, "multi-pass")


def test_class_kept_counts_updates_that_keep_the_block_popcount():
    ppb = 16
    old = np.array([-1, 3 * ppb + 1, 5 * ppb, 1 * ppb, 7 * ppb])
    new = np.array([2 * ppb, 5 * ppb + 2, 4 * ppb, -1, 11 * ppb])
    # updates of mapped entries: 3 -> 5 (kept), 5 -> 4 (not), 7 -> 11 (kept); a first write
    # and a trim do not count
    assert simulate.class_kept((new, old, new), ppb) == pytest.approx(2 / 3)
