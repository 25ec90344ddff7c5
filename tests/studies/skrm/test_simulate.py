"""Smoke test of the skrm study on a tiny config: dataset shape, units, scorecard rows."""

from __future__ import annotations

import copy

import numpy as np

from skftl.config import load_config
from skftl.studies import scorecard, skrm
from skftl.studies.claims import COLUMNS, VERDICTS


def tiny_config() -> dict:
    cfg = copy.deepcopy(load_config())
    sec = cfg["skrm"]
    sec["nand"] = {**sec["nand"], "capacity_gib": 2, "channels": 1, "chips_per_channel": 2}
    sec["traces"] = {
        "desktop": {"candidates": [], "preset": "pc_desktop"},
        "absent": {"candidates": [], "preset": None},  # left out, not an error
    }
    sec["synthetic_requests"] = 3000
    sec["setups"] = {"warm_fraction": 0.5, "passes": 2}
    sec["sensitivity"] = {
        "workload": "desktop",
        "entry_bits": [24, 32],
        "entries_per_track": [4, 16],
        "vertical_reach": [0, 1],
        "spare_factor": [0.1],
        "fill_fraction": [0.0, 0.5],
        "open_per_class": [1, 4],
        "first_write": ["largest", "lowest"],
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
    assert list(ds["setup"].values) == ["cold", "warm", "multi-pass"]
    lat = ds["op_latency"].sel(convention="paper")
    assert float(lat.sel(scheme="FTL", op="detect").sum()) == 0.0
    # the warm table turns first writes into updates; multi-pass counts every pass
    succ = ds["successive"].sel(scheme="PW FTL")
    assert (succ.sel(setup="warm") > succ.sel(setup="cold")).all()
    upd = ds["updates"].sel(scheme="PW FTL")
    assert (upd.sel(setup="multi-pass") == 2 * upd.sel(setup="cold")).all()
    assert int(ds["gc_copies"].sel(setup="warm").sum()) == 0
    kept = ds["rows_class_kept"].values
    assert ((kept >= 0) & (kept <= 1)).all()
    # detect counts agree between PW FTL and SK-FTL only when GC copies agree
    assert (lat.sel(op="inject") > 0).all()
    # FTL and PW FTL share the NAND run: identical bit differences (Fig. 13)
    assert (ds["bitdiff"].sel(scheme="FTL") == ds["bitdiff"].sel(scheme="PW FTL")).all()
    assert np.isfinite(ds["sens_fill_fraction_latency"]).all()
    # the set-up the claims check is the run's own: the tiny device, Table II's latencies
    assert float(ds["nand_capacity"]) <= 2.0 and float(ds["page_size"]) == 16.0
    assert float(ds["op_unit_latency"].sel(op="inject")) == 1.0
    head = scorecard.headline("skrm", ds)
    assert list(head.columns) == COLUMNS
    assert len(head) == len(skrm.CLAIMS)
    assert set(head["verdict"]) <= set(VERDICTS)
    rows = head.set_index("claim")
    # the paper's averages are computed on the one trace there is
    for claim in ("fig9.inject.sk_vs_pw.mean", "fig10.remove.sk_vs_pw.mean",
                  "fig13.bitdiff.sk_vs_pw.mean", "fig14.nand_read.difference"):  # fmt: skip
        for setup in ("", ".warm", ".multipass"):
            row = rows.loc[f"{claim}.synthetic{setup}"]
            assert row["verdict"] not in ("not evaluated", "not modelled"), claim
            assert row["workload_kind"] == "synthetic stand-in", claim
            # no real trace in this run: the real mean says so
            assert rows.loc[f"{claim}.real{setup}", "verdict"] == "not evaluated"
    # the tiny device is not the paper's 64 GB
    assert rows.loc["sec4a.capacity", "verdict"] == "missed"
    assert "config" in ds.attrs and "trace_sha256" in ds.attrs
