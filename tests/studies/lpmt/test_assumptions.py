"""The `lpmt` study's declared assumptions reach the run: each value changes what the claims
it names rest on, and the sweep's trim (the beyond-the-paper work left out at a point)
leaves every claim's value at the default reading as it is."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import load_config
from skftl.dram.lpmt import EARLY_EXIT
from skftl.studies import lpmt
from skftl.studies.assumptions import READING, check_defaults
from skftl.studies.claims import evaluate
from skftl.studies.lpmt import ASSUMPTIONS, CLAIMS, READINGS
from skftl.studies.lpmt.assumptions import TRIM
from skftl.studies.lpmt.claims import model_of
from skftl.studies.robustness import point_config
from tests.studies.lpmt.test_simulate import tiny_config

BY_KEY = {a.key: a for a in ASSUMPTIONS}


@pytest.fixture(scope="module")
def cfg():
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SKFTL_TRACE_DIRS", raising=False)
        hashes = ["shifting", "folding", "folding_decimal", "radix", "division", "xxhash"]
        yield tiny_config(workloads=["Financial1", "WebSearch2"], n_requests=2000, hashes=hashes)


def _point(cfg, key, value):
    c = point_config(cfg, "lpmt", key, value)
    return lpmt.run(c, progress=False)


def test_declared():
    check_defaults("lpmt", ASSUMPTIONS, load_config())
    # the paper's readings, and the unstated parameters the issues name that have a key
    assert {READING, "early_exit", "timing.tck_ns"} <= set(BY_KEY)
    # every stop rule of a set probe and every row-hit rule is a value of the sweep
    assert set(BY_KEY["early_exit"].values) == set(EARLY_EXIT)
    rules = {model_of(r) for r in BY_KEY[READING].values}
    assert {"paper", "paper_per_probe", "paper_window", "ddr4"} <= rules
    assert set(BY_KEY[READING].values) == set(READINGS.options)
    # a point of the sweep scores the default reading: the trim keeps what it reads
    assert {"single", "set_per_bank", "interleaved"} == set(TRIM["placements"])
    assert {"shifting", "folding", "radix", "division"} == set(TRIM["hashes"])


def test_trim_keeps_every_claim(cfg):
    full = evaluate(CLAIMS, lpmt.run(cfg, progress=False), READINGS.default)
    trimmed = evaluate(CLAIMS, _point(cfg, "early_exit", "none"), READINGS.default)
    assert full["ours"].astype(str).tolist() == trimmed["ours"].astype(str).tolist()
    assert full["verdict"].tolist() == trimmed["verdict"].tolist()


def test_each_value_reaches_the_run(cfg):
    base = _point(cfg, "early_exit", "none")
    lat = base.latency.sel(model="paper")
    # the clock scales every latency of Fig. 6's rule, and nothing else
    slow = _point(cfg, "timing.tck_ns", 1.875)
    assert np.allclose(slow.latency.sel(model="paper"), lat * 1.875 / 1.5)
    assert (slow.cases.sel(model="paper") == base.cases.sel(model="paper")).all()
    # stopping at the matching way reads fewer ways in a plain (one-bank) probe, and also
    # stopping at a set's first invalid way fewer still; the same files land in the same
    # sets (only reads are cut)
    single = {"placement": "single", "model": "paper"}
    reads = base.reads_per_lookup.sel(**single)
    for stop in ("match", "match_or_empty"):
        early = _point(cfg, "early_exit", stop)
        assert (early.reads_per_lookup.sel(**single) < reads).all()
        reads = early.reads_per_lookup.sel(**single)
        assert np.array_equal(early.set_occupancy, base.set_occupancy)
        assert np.array_equal(early.secondary_sets, base.secondary_sets)
        # the default run's rows of every stop rule are what a run under that rule gives
        for name in ("reads_per_lookup", "latency", "cases"):
            ours = early[name].sel(model=lpmt.EARLY_EXIT_MODEL)
            row = base[f"early_exit_{name.removesuffix('_per_lookup')}"].sel(early_exit=stop)
            assert np.array_equal(ours.values, row.values), name
    # page-sized keys merge requests that start in one page into one file, and drop the
    # sector alignment that leaves division's sets empty (WebSearch2: 4 KiB-aligned)
    pages = _point(cfg, "la_unit", 4096)
    assert (pages.files <= base.files).all() and (pages.files < base.files).any()
    div = {"workload": "WebSearch2", "hash": "division"}
    assert float(pages.set_occupancy.sel(**div)) > 2 * float(base.set_occupancy.sel(**div))
    # without inserts on reads the read-only WebSearch table stays nearly empty
    writes = _point(cfg, "insert_on_read", False)
    occ = {"workload": "WebSearch2", "hash": "shifting"}
    assert float(writes.set_occupancy.sel(**occ)) < float(base.set_occupancy.sel(**occ)) / 2
    # bigger pages: fewer multi-page files, so fewer block-table reads
    big = _point(cfg, "page_size", 16384)
    assert (big.multi_page_pct <= base.multi_page_pct).all()
    assert (big.multi_page_pct < base.multi_page_pct).any()
    # Fig. 7's order kept on activations only changes the dynamic order alone
    act = _point(cfg, "timing.reorder_on_act", True)
    for pl in ("single", "set_per_bank"):
        assert np.array_equal(act.latency.sel(placement=pl), base.latency.sel(placement=pl))
    assert not np.array_equal(
        act.cases.sel(placement="interleaved"), base.cases.sel(placement="interleaved")
    )
