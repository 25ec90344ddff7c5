"""Smoke test of the bnvm study on a tiny synthetic config."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from skftl.config import load_config
from skftl.pcm import GROUPINGS
from skftl.studies import bnvm, scorecard
from skftl.studies.claims import COLUMNS


def tiny_config(cache_dir: str, letters: tuple[str, ...] = ("A", "C")) -> dict:
    """The default config cut to a few synthetic traces of a few hundred requests."""
    cfg = copy.deepcopy(load_config())
    cfg["traces"]["trace_dirs"] = []
    cfg["traces"]["cache_dir"] = cache_dir
    sec = cfg["bnvm"]
    sec.update(traces=list(letters), stand_ins={}, synthetic_requests=400, risk_timeouts_ms=[0, 10])
    sec["log"]["log_pages_per_chip"] = 8
    sec["device"]["pages_per_block"] = 8
    sec["sweep"] = {
        "refresh_unit_pages": [4, 8],
        "refresh_ms": [0.01, 100.0],
        "log_units_per_chip": 1,
        "log_pages_per_chip": [8, 16],
    }
    return cfg


@pytest.fixture
def tiny_cfg(monkeypatch, tmp_path):
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    return tiny_config(str(tmp_path))


def test_run_and_headline(tiny_cfg):
    ds = bnvm.run(tiny_cfg, progress=False)
    assert list(ds["trace"].values) == ["A", "C"]
    assert list(ds["grouping"].values) == list(GROUPINGS)
    assert ds.attrs["grouping"] == tiny_cfg["bnvm"]["grouping"]
    assert bool(ds["synthetic"].all())
    assert all("(synthetic)" in str(x) for x in ds["label"].values)
    for name, var in ds.data_vars.items():
        assert var.attrs.get("units") and var.attrs.get("long_name"), name
    assert "bnvm" in ds.attrs["config"] and ds.attrs["skftl_version"]
    # conservation through the study, under every grouping: host page writes = clean +
    # dirty + buffered
    w = ds["host_page_writes"]
    assert np.array_equal(
        w, ds["clean_page_writes"] + ds["dirty_page_writes"] + ds["buffered_page_writes"]
    )
    # the grouping changes how pages form rounds, never which pages are written
    assert bool((w == w.isel(grouping=0)).all())
    # stream ignores arrival times: it never makes more write rounds than queue
    rounds = ds["parallel_clean_writes"] + ds["parallel_dirty_writes"]
    page = ["static", "dynamic"]
    stream = rounds.sel(grouping="stream", scheme=page)
    assert bool((stream <= rounds.sel(grouping="queue", scheme=page)).all())
    # the worked example: 1 write response time with page mapping, 4 with block mapping
    ex = ds["example_write_time"]
    assert np.allclose(ex.sel(scheme=["static", "dynamic"]), 1.0)
    assert np.allclose(ex.sel(scheme="block"), 4.0)
    # refresh time is linear in the refresh latency for a fixed log
    sw = ds["sweep_total_time"]
    assert bool((sw.sel(refresh_ms=100.0) >= sw.sel(refresh_ms=0.01)).all())
    tab = scorecard.headline("bnvm", ds)
    assert list(tab.columns) == COLUMNS
    rows = tab.set_index("claim")
    # trace C's counts are scored (scale only), on a synthetic stand-in
    assert rows.loc["fig2.count.C.static.clean", "verdict"] != "not evaluated"
    assert rows.loc["fig2.count.C.static.clean", "workload_kind"] == "synthetic stand-in"
    assert float(rows.loc["fig2.count.C.static.clean", "ours"]) == float(
        ds["parallel_clean_writes"].sel(grouping=bnvm.READINGS.default, trace="C", scheme="static")
    )
    # deterministic: same config, same numbers
    again = bnvm.run(tiny_cfg, progress=False)
    assert again["total_time"].equals(ds["total_time"])


def test_figures_draw(tiny_cfg):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skftl.studies.bnvm import figures as figs

    ds = bnvm.run(tiny_cfg, progress=False)
    for fig in (
        figs.fig_counts(ds, ("static", "dynamic")),
        figs.fig_counts(ds, ("static", "static_full"), grouping="stream"),
        figs.fig_time_breakdown(ds, ("static", "dynamic", "static_full")),
        figs.fig_wear(ds),
        figs.fig_risk(ds),
        figs.fig_sweep(ds),
        figs.fig_log_size(ds),
    ):
        assert fig.axes
        plt.close(fig)
    for table in (
        figs.traces_table(ds),
        figs.example_table(ds),
        figs.sensitivity_table(ds),
        figs.fig2_table(ds),
        figs.round_makeup_table(ds),
        figs.fig3_table(ds),
        figs.wear_table(ds),
        figs.risk_table(ds),
        figs.breakeven_table(ds),
        figs.log_breakeven_table(ds),
        scorecard.coverage("bnvm"),
    ):
        assert len(table)
