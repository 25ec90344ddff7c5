"""Smoke test of the `ppb` study on a tiny configuration, and the timing speed anchor."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.nand import Timing
from skftl.studies import ppb as study
from skftl.studies import scorecard
from skftl.studies.claims import COLUMNS, VERDICTS
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests, TraceMeta


def tiny_config() -> dict:
    cfg = copy.deepcopy(load_config())
    s = cfg["ppb"]
    s["device"].update(capacity_gib=0.5, channels=1, chips_per_channel=2, pages_per_block=64)
    s.update(
        page_sizes=[8192, 16384],
        speed_ratios=[2, 4],
        extra_traces=[],
        max_requests=3000,
        synthetic_requests=3000,
        beyond={
            "n_vbs": [4],
            "strict": True,
            "bloom": True,
            "sk_allocator": True,
            "ppb_sk": True,
            "migrate": True,
        },
        preconditioning={
            "setups": ["fill", "none", "footprint", "warmup", "aged"],
            "fill_seeds": 2,
            "aged": {
                "headroom": 1.2,
                "spare_factor": 0.07,
                "passes": 2,
                "channels": 1,
                "chips_per_channel": 2,
            },
        },
    )
    # synthetic stand-ins keep the test independent of the shared traces
    cfg["traces"]["workloads"]["msr_web"] = []
    cfg["traces"]["workloads"]["msr_media"] = []
    return cfg


@pytest.fixture(scope="module")
def full() -> xr.Dataset:
    return study.run(tiny_config(), progress=False)


def test_study_runs_and_headline_has_paper_numbers(full):
    ds = study.at_setup(full)
    assert list(ds.policy.values) == [
        "page",
        "ppb_split",
        "ppb",
        "ppb_vb4",
        "ppb_strict",
        "ppb_bloom",
        "sk_alloc",
        "ppb_sk",
        "ppb_migrate_cold",
    ]
    for name, var in full.data_vars.items():
        assert var.attrs.get("units") and var.attrs.get("long_name"), name
    assert (ds.trace_synthetic == 1).all()
    assert np.isfinite(ds.read_latency).all() and np.isfinite(ds.read_array).all()
    # same placement at every ratio: erase counts do not depend on timing
    assert (ds.erases.diff("speed_ratio") == 0).all()
    # faster pages never make the conventional FTL's reads slower
    conv = ds.read_array.sel(policy="page")
    assert (conv.sel(speed_ratio=4) < conv.sel(speed_ratio=2)).all()
    assert (ds.read_improvement.sel(policy="page") == 0).all()
    # all reads = reads of data the replay wrote + the others: their mean lies between
    lo = np.fmin(ds.read_array_rewritten, ds.read_array_other)
    hi = np.fmax(ds.read_array_rewritten, ds.read_array_other)
    assert ((ds.read_array >= lo - 1e-9) & (ds.read_array <= hi + 1e-9)).all()
    assert np.isfinite(ds.read_array_rewritten.sel(trace="web")).all()
    # the skrm side: SK-aware placement keeps more block popcounts and flips fewer bits
    web = {"trace": "web", "page_size": 16384, "speed_ratio": 2}
    kept = ds.block_pop_kept.sel(**web)
    assert kept.sel(policy="ppb_sk") > kept.sel(policy="ppb")
    assert ds.bit_diff.sel(**web, policy="ppb_sk") < ds.bit_diff.sel(**web, policy="ppb")
    assert (ds.bit_diff <= ds.hamming).all()
    head = scorecard.headline("ppb", ds)
    assert list(head.columns) == COLUMNS
    assert {"18.56 %", "10 %", "<= 0.0001 %"} <= set(head.paper)
    assert set(head.verdict) <= set(VERDICTS)
    assert "config" in ds.attrs and "skftl_version" in ds.attrs


def test_migration_variant(full):
    """Only the migrating variant moves pages after reads, every program is a host write, a
    GC copy or a migration, and the notebook's migration table and text come from the run."""
    from skftl.studies.ppb import figures

    ds = study.at_setup(full)
    moved = ds.migrations.sel(trace="web", page_size=16384, speed_ratio=2)
    assert moved.sel(policy="ppb_migrate_cold") > 0
    assert (ds.migrations.drop_sel(policy="ppb_migrate_cold") == 0).all()
    extra = ds.flash_programs - (ds.host_writes + ds.gc_copies + ds.migrations)
    assert np.isfinite(extra.sel(trace="web")).all() and (extra.fillna(0) == 0).all()
    table = figures.migration_table(full)
    assert set(table.index.get_level_values("policy")) == {"ppb", "ppb_migrate_cold"}
    assert (table.programs_per_host_write >= 1).all()
    text = figures.migration_text(full)
    assert "ppb_migrate_cold" in text and "migrate: cold" in text


def test_setups_side_by_side(full):
    paper = {"policy": list(study.SETUP_POLICIES)}
    at = full.sel(**paper)
    # every set-up ran the paper's policies on the paper traces at every ratio
    assert np.isfinite(at.write_array).all() and np.isfinite(at.erases).all()
    # a fresh drive has nothing but the trace's own data to read
    assert at.read_array_other.sel(setup="none").isnull().all()
    assert (at.timed_reads.sel(setup="none") <= at.timed_reads.sel(setup="footprint")).all()
    # the aged drive runs GC under every policy; the fill seeds' first is the main run
    assert (at.erases.sel(setup="aged") > 0).all()
    # ... and so does every warm-up pass, which the dataset keeps pass by pass
    assert full.sizes["aged_pass"] == tiny_config()["ppb"]["preconditioning"]["aged"]["passes"]
    assert (full.erases_by_pass.sel(**paper) > 0).all()
    assert (full.read_array_improvement_by_pass.sel(policy="page") == 0).all()
    main = full.read_latency.sel(setup="fill", **paper)
    assert (full.read_latency_by_seed.sel(**paper).isel(fill_seed=0) == main).all()
    assert full.sizes["fill_seed"] == 2
    # no GC, no GC-stalled reads; shares are shares
    no_gc = at.erases == 0
    assert (at.read_gc_stalled.where(no_gc).fillna(0) == 0).all()
    for name in ("read_gc_stalled", "read_gc_latency_share"):
        assert ((at[name] >= 0) & (at[name] <= 1)).all(), name
    assert (at.read_latency_median <= at.read_latency_p90).all()
    # the read shares add up and the ceiling grows with the speed ratio
    assert np.allclose(full.first_read_share + full.reread_share, 1.0)
    assert (full.reads_of_rewritten <= full.reread_share).all()
    assert (full.read_ceiling_reread.diff("speed_ratio") >= 0).all()
    assert (full.read_ceiling_written <= full.read_ceiling_reread).all()


def test_bad_scale_is_rejected():
    cfg = tiny_config()
    cfg["ppb"]["scale"] = "huge"
    with pytest.raises(ConfigError, match="scale"):
        study.run(cfg, progress=False)


@pytest.mark.parametrize("anchor", ["slowest", "fastest", "mean"])
def test_speed_anchor(anchor):
    t = Timing(
        49_000, 600_000, 1, 533.0, page_speed="charge_trap_3d", speed_ratio=4.0, speed_anchor=anchor
    )
    read, prog = t.page_tables(384)
    assert read[0] > read[-1] and prog[0] > prog[-1]
    assert read[0] / read[-1] == pytest.approx(4.0, rel=1e-3)
    ref = {"slowest": read.max(), "fastest": read.min(), "mean": read.mean()}[anchor]
    assert ref == pytest.approx(49_000, rel=1e-3)
    with pytest.raises(ConfigError, match="speed_anchor"):
        Timing(1, 1, 1, 1.0, speed_anchor="median")


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 10**7), st.integers(1, 40_000), st.booleans()),
        min_size=1,
        max_size=60,
    )
)
def test_compact_addresses_is_a_page_bijection(rows):
    off, size, w = (np.array(x) for x in zip(*rows, strict=True))
    req = Requests(np.arange(len(off)), off, size, w, TraceMeta(name="t", format="test"))
    a = expand_to_pages(req, 4096)
    b = expand_to_pages(study.compact_addresses(req, 4096), 4096)
    assert (a.request == b.request).all()
    pairs = set(zip(a.lpn.tolist(), b.lpn.tolist(), strict=True))
    assert len({x for x, _ in pairs}) == len(pairs) == len({y for _, y in pairs})
    assert sorted({y for _, y in pairs}) == list(range(len(pairs)))  # dense
    assert sorted(pairs) == sorted(pairs, key=lambda p: p[1])  # address order kept
