"""Smoke test of the bnvm study on a tiny synthetic config."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.pcm import GROUPINGS
from skftl.studies import bnvm, scorecard
from skftl.studies.bnvm.claims import reading_coords
from skftl.studies.claims import COLUMNS


def tiny_config(cache_dir: str, letters: tuple[str, ...] = ("A", "C")) -> dict:
    """The default config cut to a few synthetic traces of a few hundred requests."""
    cfg = copy.deepcopy(load_config())
    cfg["traces"]["trace_dirs"] = []
    cfg["traces"]["cache_dir"] = cache_dir
    sec = cfg["bnvm"]
    sec.update(traces=list(letters), stand_ins={}, synthetic_requests=400, risk_timeouts_ms=[0, 10])
    sec.setdefault("idle_gap_cap_s", 1.0)
    sec["split"] = {
        "update_shares": [0.0, 0.5],
        "first_writes": 256,
        "streams": 4,
        "first_pages": 2,
        "rewrite_pages": 16,
        "gap_us": 50.0,
    }
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
    default = reading_coords(bnvm.READINGS.default)
    assert float(rows.loc["fig2.count.C.static.clean", "ours"]) == float(
        ds["parallel_clean_writes"].sel(**default, trace="C", scheme="static")
    )
    # synthetic traces have no install trace: the replay variant is the plain run
    tt = ds["total_time"]
    assert np.array_equal(tt.sel(install="replay"), tt.sel(install="none"))
    # a two-round flush adds one clean round per flush to static + full, and only to it
    # (stream: arrival times ignored, so the extra device time moves no round boundary)
    sf = ds.sel(grouping="stream", scheme="static_full")
    extra = sf["parallel_clean_writes"].sel(flush_rounds=2) - sf["parallel_clean_writes"].sel(
        flush_rounds=1
    )
    assert np.array_equal(extra, sf["buffer_flushes"].sel(flush_rounds=1))
    assert int(extra.sum()) > 0
    others = ds["write_time"].sel(scheme=["static", "dynamic", "block"])
    assert np.array_equal(others.sel(flush_rounds=1), others.sel(flush_rounds=2))
    # lifetime over active time: idle gaps capped, never longer than the wall-time span
    assert bool((ds["active_duration"] <= ds["duration"] + 1e-9).all())
    cap = float(tiny_cfg["bnvm"]["idle_gap_cap_s"])
    st = ds.sel(**default, scheme="static")
    want = ds["active_duration"] * 1e6 / st["max_wear"] / (365.25 * 86400)
    assert np.allclose(st["lifetime"], want)
    assert "idle_gap_cap_s" in ds.attrs and float(ds.attrs["idle_gap_cap_s"]) == cap
    # deterministic: same config, same numbers
    again = bnvm.run(tiny_cfg, progress=False)
    assert again["total_time"].equals(ds["total_time"])


def test_active_time_lifetime_and_residency(tiny_cfg):
    """A long idle gap inflates the wall-time lifetime and buffer residency, not the
    active-time ones: the same trace with one gap stretched to a week."""
    from skftl.pcm import LogPolicy, PCMDevice, simulate
    from skftl.pcm.simulate import active_span_s, paged_from_lpns

    dev = PCMDevice(n_chips=4, pages_per_block=4)
    lpns = np.array([0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 3, 3])
    t = np.arange(len(lpns), dtype=np.int64) * 10**6
    week = 7 * 86_400 * 10**9
    t_gap = t + np.where(np.arange(len(lpns)) >= 6, week, 0)
    ones = np.ones(len(lpns), bool)
    for cap in (1.0, 0.01):
        # the 1 ms + one week gap counts as the cap
        assert active_span_s(t_gap, cap) == pytest.approx(active_span_s(t, cap) - 1e-3 + cap)
        assert active_span_s(t, cap) == pytest.approx((len(lpns) - 1) * 1e-3)
    assert active_span_s(t_gap, None) == pytest.approx(active_span_s(t, None) + week * 1e-9)
    log = LogPolicy(log_pages_per_chip=4)
    res = {}
    for name, times in (("plain", t), ("gap", t_gap)):
        pages = paged_from_lpns(lpns, ones, np.arange(len(lpns)), times, dev)
        res[name] = simulate(pages, dev, "static_full", log=log, idle_cap_s=1.0).counters
    # the update of page 0 at 4 ms waits 3 ms of arrivals, one of the gaps 1 ms + a week:
    # on the active clock that gap counts 1 s
    assert res["gap"]["residency_max_ns"] == 10**9 + 2 * 10**6
    assert res["plain"]["residency_max_ns"] == 3 * 10**6
    # the study's lifetime uses the active span: a week of idling adds 1 s, not a week
    cfg = copy.deepcopy(tiny_cfg)
    cfg["bnvm"]["idle_gap_cap_s"] = None
    wall = bnvm.run(cfg, progress=False)
    capped = bnvm.run(tiny_cfg, progress=False)
    assert bool((wall["active_duration"] == wall["duration"]).all())
    assert bool((capped["lifetime"] <= wall["lifetime"] + 1e-12).all())
    with pytest.raises(ConfigError, match="idle_gap_cap_s"):
        cfg["bnvm"]["idle_gap_cap_s"] = 0
        bnvm.run(cfg, progress=False)


def test_split_experiment_crosses_parity(tiny_cfg):
    """Fig. 2's split from one workload family: with few rewrites dynamic is faster (it
    packs concurrent appends), with many static is (dynamic crowded each file's pages onto
    fewer chips, so the rewrites make more dirty rounds) -- under queue and stream; under
    request, static stripes every request optimally and dynamic is never faster here."""
    from skftl.pcm import PCMDevice
    from skftl.studies.bnvm.split import split_experiment

    sec = dict(tiny_cfg["bnvm"]["split"], update_shares=[0.0, 0.75])
    out = split_experiment(PCMDevice(), sec)
    ratio = out["ratio"]  # share x grouping x idle pick
    g = {name: i for i, name in enumerate(("queue", "request", "stream"))}
    for name in ("queue", "stream"):
        assert (ratio[0, g[name]] < 1).all() and (ratio[1, g[name]] > 1).all()
        assert (out["clean_diff"][1, g[name]] < 0).all()
        assert (out["dirty_diff"][1, g[name]] > 0).all()
    assert (ratio[:, g["request"]] >= 1).all()
    with pytest.raises(ConfigError, match="update_shares"):
        split_experiment(PCMDevice(), dict(sec, update_shares=[1.0]))


def test_figures_draw(tiny_cfg):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skftl.studies.bnvm import figures as figs

    ds = bnvm.run(tiny_cfg, progress=False)
    for fig in (
        figs.fig_counts(ds, ("static", "dynamic")),
        figs.fig_counts(ds, ("static", "static_full"), reading="stream+flush1"),
        figs.fig_time_breakdown(ds, ("static", "dynamic", "static_full")),
        figs.fig_wear(ds),
        figs.fig_risk(ds),
        figs.fig_sweep(ds),
        figs.fig_log_size(ds),
        figs.fig_split(ds),
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
        figs.split_table(ds),
        figs.split_sides(ds),
        scorecard.coverage("bnvm"),
    ):
        assert len(table)
