"""Smoke test of the skrm study on a tiny config: dataset shape, units, headline."""

from __future__ import annotations

import copy

import numpy as np

from skftl.config import load_config
from skftl.studies import skrm


def tiny_config() -> dict:
    cfg = copy.deepcopy(load_config())
    sec = cfg["skrm"]
    sec["nand"] = {
        "preset": "sk-ftl",
        "capacity_gib": 2,
        "channels": 1,
        "chips_per_channel": 2,
    }
    sec["traces"] = {
        "desktop": {"candidates": [], "preset": "pc_desktop"},
        "absent": {"candidates": [], "preset": None},  # left out, not an error
    }
    sec["synthetic_requests"] = 3000
    sec["sensitivity"] = {
        "workload": "desktop",
        "entry_bits": [24, 32],
        "entries_per_track": [4, 16],
        "vertical_reach": [0, 1],
        "spare_factor": [0.1],
        "fill_fraction": [0.0, 0.5],
        "open_per_class": [1, 4],
    }
    return cfg


def test_study_runs_on_a_tiny_config():
    ds = skrm.run(tiny_config(), progress=False)
    assert list(ds["scheme"].values) == ["FTL", "PW FTL", "SK-FTL"]
    assert ds.sizes["trace"] == 1 and "synthetic" in str(ds["trace"].values[0])
    for name, var in ds.data_vars.items():
        assert "long_name" in var.attrs, name
        if var.dtype.kind in "fi":
            assert "units" in var.attrs, name
    lat = ds["op_latency"].sel(convention="paper")
    assert float(lat.sel(scheme="FTL", op="detect").sum()) == 0.0
    # detect counts agree between PW FTL and SK-FTL only when GC copies agree
    assert (lat.sel(op="inject") > 0).all()
    # FTL and PW FTL share the NAND run: identical bit differences (Fig. 13)
    assert (ds["bitdiff"].sel(scheme="FTL") == ds["bitdiff"].sel(scheme="PW FTL")).all()
    assert np.isfinite(ds["sens_fill_fraction_latency"]).all()
    head = skrm.headline(ds)
    assert list(head.columns) == ["metric", "paper", "ours", "rel_diff", "note"]
    assert len(head) == len(skrm.PAPER_HEADLINE)
    assert "config" in ds.attrs and "trace_sha256" in ds.attrs
