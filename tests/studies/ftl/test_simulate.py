"""Smoke test of the `ftl` study on a tiny configuration."""

from __future__ import annotations

import copy

import numpy as np

from skftl.config import load_config
from skftl.studies import ftl as study
from skftl.studies import scorecard


def tiny_config() -> dict:
    cfg = copy.deepcopy(load_config())
    cfg["nand"] = {
        "preset": "ppb",
        "capacity_gib": 1,
        "page_size": 4096,
        "pages_per_block": 64,
        "channels": 2,
        "chips_per_channel": 2,
    }
    s = cfg["ftl"]
    s["waf"] = {
        "spare_factors": [0.1, 0.3],
        "pages_per_block": [64],
        "physical_pages": 32768,
        "warmup_passes": 1,
        "measure_passes": 1,
        "gc_policies": ["greedy", "cost_benefit"],
    }
    s["latency"] = {
        "workload": "msr_web",
        "synthetic_requests": 2000,
        "precondition": "fill",
        "wrap": True,
    }
    # the synthetic stand-in keeps the test independent of the shared traces
    cfg["traces"]["workloads"]["msr_web"] = []
    return cfg


def test_ftl_study_runs_and_reports():
    cfg = tiny_config()
    ds = study.run(cfg, progress=False)
    for name, var in ds.data_vars.items():
        assert "long_name" in var.attrs and "units" in var.attrs, name
    assert ds.attrs["trace_synthetic"] == 1 and "(synthetic)" in ds.attrs["trace_label"]
    assert ds.sizes["request"] == 2000
    meas = ds["waf_measured"]
    assert np.isfinite(meas).all() and (meas >= 1).all()
    # more spare, less amplification; the analytic model is within a few percent
    assert (meas.sel(spare_factor=0.1) > meas.sel(spare_factor=0.3)).all()
    head = scorecard.headline("ftl", ds).set_index("claim")
    assert len(head) == len(study.CLAIMS)  # every claim is a row, evaluated or not
    swept = head.loc[["eq12.np64.sf0.10", "eq12.np64.sf0.30"]]
    assert (swept.verdict == "held").all() and (swept.rel_diff.abs() < 0.1).all()
    # points and orders the tiny sweep lacks say so instead of vanishing
    absent = head.loc[["eq12.np256.sf0.05", "eq12.np64.falls_with_spare"]]
    assert (absent.verdict == "not evaluated").all()
    assert absent.note.str.startswith("missing input").all()
    # same config -> same dataset
    again = study.run(cfg, progress=False)
    assert again["latency"].equals(ds["latency"]) and again["waf_measured"].equals(meas)
