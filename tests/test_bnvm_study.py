"""Smoke test of the bnvm study on a tiny synthetic config."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from skftl.config import load_config
from skftl.studies import bnvm


@pytest.fixture
def tiny_cfg(monkeypatch, tmp_path):
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    cfg = copy.deepcopy(load_config())
    cfg["traces"]["trace_dirs"] = []
    cfg["traces"]["cache_dir"] = str(tmp_path)
    sec = cfg["bnvm"]
    sec.update(traces=["A", "C"], stand_ins={}, synthetic_requests=400, risk_timeouts_ms=[0, 10])
    sec["log"]["log_pages_per_chip"] = 8
    sec["device"]["pages_per_block"] = 8
    sec["sweep"] = {
        "refresh_unit_pages": [4, 8],
        "refresh_ms": [0.01, 100.0],
        "log_units_per_chip": 1,
        "log_pages_per_chip": [8, 16],
    }
    return cfg


def test_run_and_headline(tiny_cfg):
    ds = bnvm.run(tiny_cfg, progress=False)
    assert list(ds["trace"].values) == ["A", "C"]
    assert bool(ds["synthetic"].all())
    assert all("(synthetic)" in str(x) for x in ds["label"].values)
    for name, var in ds.data_vars.items():
        assert var.attrs.get("units") and var.attrs.get("long_name"), name
    assert "bnvm" in ds.attrs["config"] and ds.attrs["skftl_version"]
    # conservation through the study: host page writes = clean + dirty + buffered
    w = ds["host_page_writes"]
    assert np.array_equal(
        w, ds["clean_page_writes"] + ds["dirty_page_writes"] + ds["buffered_page_writes"]
    )
    # refresh time is linear in the refresh latency for a fixed log
    sw = ds["sweep_total_time"]
    assert bool((sw.sel(refresh_ms=100.0) >= sw.sel(refresh_ms=0.01)).all())
    tab = bnvm.headline(ds)
    assert list(tab.columns) == ["metric", "paper", "ours", "rel_diff", "note"]
    assert tab["metric"].str.startswith("C: static parallel clean").any()
    # deterministic: same config, same numbers
    again = bnvm.run(tiny_cfg, progress=False)
    assert again["total_time"].equals(ds["total_time"])


def test_figures_draw(tiny_cfg):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skftl.studies import bnvm_figures as figs

    ds = bnvm.run(tiny_cfg, progress=False)
    for fig in (
        figs.fig_counts(ds, ("static", "dynamic")),
        figs.fig_counts(ds, ("static", "static_full")),
        figs.fig_time_breakdown(ds, ("static", "dynamic", "static_full")),
        figs.fig_wear(ds),
        figs.fig_risk(ds),
        figs.fig_sweep(ds),
    ):
        assert fig.axes
        plt.close(fig)
