"""Trace -> file mapping and a smoke run of the lpmt study on a tiny config."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from skftl.config import load_config
from skftl.dram import OP_READ, OP_WRITE
from skftl.dram.files import FileStream, file_stream, with_reaccess
from skftl.dram.layout import PLACEMENTS
from skftl.errors import ConfigError
from skftl.studies import lpmt, scorecard
from skftl.studies.claims import COLUMNS, VERDICTS
from skftl.traces.requests import Requests, TraceMeta


def test_requests_become_files():
    req = Requests(
        time_ns=np.arange(4),
        offset_bytes=np.array([0, 4096, 0, 8192]),
        size_bytes=np.array([512, 12288, 4097, 4096]),
        is_write=np.array([True, False, True, False]),
        meta=TraceMeta("t", "test"),
    )
    fs = file_stream(req, page_size=4096, la_unit=512)
    assert fs.keys.tolist() == [0, 8, 0, 16]
    assert fs.pages.tolist() == [1, 3, 2, 1]
    assert fs.ops.tolist() == [OP_WRITE, OP_READ, OP_WRITE, OP_READ]
    assert fs.n_files == 3
    assert fs.pages_needed() == 2 + 3 + 1 + 3  # each file at its largest + one largest


def tiny_config(**overrides: Any) -> dict[str, Any]:
    """A tiny lpmt config on synthetic stand-ins only (fast and hermetic; the caller keeps
    SKFTL_TRACE_DIRS out of the environment)."""
    cfg = load_config()
    cfg["traces"]["trace_dirs"] = []
    params = dict(
        workloads=["Financial1", "WebSearch2"],
        n_requests=3000,
        hashes=["folding", "division", "xxhash"],
        placements=list(PLACEMENTS),
        sensitivity={"placements": ["single", "interleaved"], "assoc": [4, 8],
                     "load_factor": [0.5], "n_banks": [4, 8], "bank_groups": [1],
                     "reaccess": [0.0, 0.5]},
    )  # fmt: skip
    return lpmt.with_overrides(cfg, **(params | overrides))


@pytest.fixture
def tiny_cfg(monkeypatch):
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    return tiny_config()


def test_study_smoke(tiny_cfg):
    ds = lpmt.run(tiny_cfg, progress=False)
    for name, v in ds.data_vars.items():
        assert "units" in v.attrs and "long_name" in v.attrs, name
    assert ds["label"].values.tolist() == ["Financial1 (synthetic)", "WebSearch2 (synthetic)"]
    assert ds["synthetic"].values.all()
    assert (ds["failed_inserts"] == 0).all()
    lat = ds["latency"].sel(model="paper")
    assert (lat.sel(placement="set_per_bank") < lat.sel(placement="single")).all()
    # one set in one bank: the strict rules only add delay; interleaved, a look-ahead
    # controller overlaps a pass's 4 activations, which Fig. 6 charges one after another
    one = ["single", "set_per_bank"]
    assert (ds["latency"].sel(model="ddr4", placement=one) >= lat.sel(placement=one)).all()
    # one activation per probe: never slower than per-bank rows; a single bank unchanged
    probe = ds["latency"].sel(model="paper_per_probe")
    assert (probe <= lat).all()
    assert (probe.sel(placement="single") == lat.sel(placement="single")).all()
    assert (probe.sel(placement="interleaved") < lat.sel(placement="interleaved")).all()
    # Fig. 6's 4-read window: the latencies of open rows per bank, fewer row hits (a read of
    # a bank's open row more than 4 reads after its last read is "no repeat")
    window = ds["cases"].sel(model="paper_window")
    assert (ds["latency"].sel(model="paper_window") == lat).all()
    assert (window.sum("case") == ds["cases"].sel(model="paper").sum("case")).all()
    hits = ds["cases"].sel(case="row hit")
    assert (hits.sel(model="paper_window") <= hits.sel(model="paper")).all()
    assert (hits.sel(model="paper_window") < hits.sel(model="paper")).any()
    # every stop rule of a set probe: the configured one is the main run of its model, and
    # in way order a stop at an empty way too reads no more than a stop at the match only
    ee = ds["early_exit_reads"]
    main = ds["reads_per_lookup"].sel(model=lpmt.EARLY_EXIT_MODEL)
    assert np.array_equal(ee.sel(early_exit="none"), main)
    fixed = ["single", "set_per_bank", "interleaved_fixed", "spread_fixed"]
    assert (ee.sel(early_exit="match", placement=fixed) < main.sel(placement=fixed)).all()
    assert (
        (ee.sel(early_exit="match_or_empty") <= ee.sel(early_exit="match"))
        .sel(placement=fixed)
        .all()
    )
    ee_cases = ds["early_exit_cases"].sum("case")
    assert np.allclose(ee_cases, (ee * ds["requests"]).round())
    # the strict model with nothing switched off is the strict run
    strict = ds["strict_ablation"].sel(ablation="strict", splacement="interleaved")
    assert np.allclose(strict, ds["latency"].sel(model="ddr4", placement="interleaved"))
    # re-access: share 0 is the trace itself; 0.5 adds about half the requests
    share = ds["reaccess_share"]
    assert np.allclose(share.sel(reaccess=0.0), 100 * (1 - ds["files"] / ds["requests"]))
    assert (share.sel(reaccess=0.5) >= 45).all()
    # every request is a lookup: case counts add up to the reads
    reads = (ds["reads_per_lookup"] * ds["requests"]).round()
    assert (ds["cases"].sum("case") == reads).all()
    # WebSearch2's addresses are multiples of 4 sectors: division uses 1/4 of the sets
    assert float(ds["set_occupancy"].sel(workload="WebSearch2", hash="division")) <= 25.0
    head = scorecard.headline("lpmt", ds)
    assert list(head.columns) == COLUMNS
    assert set(head["verdict"]) <= set(VERDICTS)
    row = head.set_index("claim").loc["tab6.improvement.dynamic"]
    assert row.verdict in ("held", "direction only", "missed")  # both workloads are present
    assert row.workload_kind == "synthetic stand-in"
    tabs = lpmt.tables(ds)
    assert {"table4_occupancy", "table5_cases_paper", "table6_latency", "fig8_progress"} <= set(
        tabs
    )
    # deterministic: same config -> same numbers
    again = lpmt.run(tiny_cfg, progress=False)
    assert np.array_equal(again["latency"].values, ds["latency"].values)
    assert np.array_equal(again["cases"].values, ds["cases"].values)


def test_reaccess_takes_earlier_files():
    keys = np.arange(10_000, dtype=np.int64) * 8
    fs = FileStream("x", "x", True, "", keys, np.zeros_like(keys), np.ones_like(keys))
    assert with_reaccess(fs, 0.0, 1) is fs
    out = with_reaccess(fs, 0.3, 1)
    assert out.reaccess_share == pytest.approx(0.3, abs=0.02)
    seen: set[int] = set()
    for old, new in zip(keys.tolist(), out.keys.tolist(), strict=True):
        assert new == old or new in seen  # a changed request takes an earlier file
        seen.add(new)
    assert np.array_equal(with_reaccess(fs, 0.3, 1).keys, out.keys)  # seeded
    with pytest.raises(ConfigError, match="re-access"):
        with_reaccess(fs, 1.0, 1)


def test_notebook_parameters_reach_the_run(tiny_cfg):
    cfg = lpmt.with_overrides(tiny_cfg, n_banks=8, timing_tck_ns=0.75, workloads=["Financial1"])
    assert cfg["lpmt"]["n_banks"] == 8 and cfg["lpmt"]["timing"]["tck_ns"] == 0.75
    assert tiny_cfg["lpmt"]["n_banks"] == 4  # the original is untouched
    streams = lpmt.load_streams(cfg)
    assert lpmt.table_config(cfg["lpmt"], streams).n_banks == 8
