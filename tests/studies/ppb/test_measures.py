"""The `ppb` study's measures (issue #16): read shares and ceilings, GC-stalled reads, the
all-programs write measure, and the preconditioning switch, each on a case small enough to
compute by hand."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from skftl.errors import ConfigError
from skftl.nand import core
from skftl.studies.ppb import measures, setups
from skftl.studies.ppb import simulate as sim
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests, TraceMeta
from tests.studies.ppb.test_simulate import tiny_config

PS = 4096


def trace(rows: list[tuple[int, bool]]) -> Requests:
    """One-page requests: (page, is_write)."""
    page, w = (np.array(x) for x in zip(*rows, strict=True))
    n = len(page)
    return Requests(
        np.arange(n) * 1000, page * PS, np.full(n, PS), w, TraceMeta(name="t", format="test")
    )


def test_read_shares_by_hand():
    # reads: 1 (first), 2 (written before), 1 (re-read, never written), 3 (first), 2 (written)
    req = trace([(2, True), (1, False), (2, False), (1, False), (3, False), (2, False)])
    s = measures.read_shares(req, PS)
    assert s["written"] == pytest.approx(2 / 5)
    assert s["first"] == pytest.approx(2 / 5)
    assert s["reread"] == pytest.approx(3 / 5)
    assert np.isnan(measures.read_shares(trace([(0, True)]), PS)["first"])


def test_read_ceiling_by_hand():
    read_ns = np.array([40.0, 30.0, 20.0, 10.0])  # mean 25; fast half (of 2 VBs) mean 15
    assert measures.fastest_class_ns(read_ns, 2) == 15.0
    assert measures.fastest_class_ns(read_ns, 4) == 10.0
    assert measures.read_ceiling(0.5, read_ns, 2) == pytest.approx(100 * 0.5 * (1 - 15 / 25))
    assert measures.read_ceiling(0.0, read_ns, 2) == 0.0


def test_all_programs_measure_tends_to_the_block_mean():
    prog = np.array([4, 3, 2, 1]) * 100
    # a whole erase cycle: every page position programmed once (host and GC mixed), a trim
    new = np.array([0, 1, 2, 3, -1])
    kind = np.array([core.LOG_HOST, core.LOG_GC, core.LOG_HOST, core.LOG_GC, core.LOG_TRIM])
    assert measures.all_programs_ns(new, kind, prog, 4) == pytest.approx(prog.mean())
    # host programs alone can sit anywhere: here on the fast half only
    host = np.full(2, core.LOG_HOST)
    assert measures.all_programs_ns(np.array([2, 3]), host, prog, 4) == 150.0
    assert np.isnan(measures.all_programs_ns(new[4:], kind[4:], prog, 4))


def test_gc_stalled_reads_by_hand():
    read_ns, prog_ns, erase = np.array([10, 10]), np.array([100, 100]), 1000
    R, P, E = core.FLASH_READ, core.FLASH_PROGRAM, core.FLASH_ERASE
    H, G = core.ORIGIN_HOST, core.ORIGIN_GC
    #        chip kind page  time origin
    log = [
        (0, R, 0, 0, H),  # request 0: before any GC
        (0, R, 0, 500, G),  # a burst on chip 0 at t=500: 10 + 100 + 1000 ns
        (0, P, 1, 500, G),
        (0, E, -1, 500, G),
        (1, R, 0, 600, H),  # request 1: other chip, not stalled
        (0, R, 1, 1000, H),  # request 2: arrives during the burst (ends 1610)
        (0, R, 1, 1700, H),  # request 3: after it
    ]
    chip, kind, page, time, origin = (np.array(x) for x in zip(*log, strict=True))
    bursts = measures.gc_bursts(chip, kind, page, time, origin, read_ns, prog_ns, erase)
    assert [b.tolist() for b in bursts] == [[0], [1], [500], [1610]]
    rd = np.flatnonzero((origin == H) & (kind == R))
    stalled = measures.gc_stalled_reads(rd, chip[rd], time[rd], bursts, np.arange(4), 5)
    assert stalled.tolist() == [False, False, True, False, False]
    # the log digested as drained, cut anywhere (also inside the burst): the same result
    for cut in range(len(log) + 1):
        digest = measures.GcStallLog(read_ns, prog_ns, erase)
        for part in (slice(0, cut), slice(cut, None)):
            digest(chip[part], kind[part], page[part], time[part], origin[part])
        assert [b.tolist() for b in digest.bursts()] == [b.tolist() for b in bursts]
        assert digest.stalled(np.arange(4), 5).tolist() == stalled.tolist()
    s = measures.latency_summary(np.array([1.0, 1.0, 8.0, 2.0]), stalled[:4])
    assert s["stalled"] == 0.25 and s["stalled_latency"] == pytest.approx(8 / 12)
    assert s["mean_unstalled"] == pytest.approx(4 / 3) and s["median"] == 1.5


def _section() -> dict:
    cfg = tiny_config()
    return sim.settings(cfg)


def _mapped(ftl) -> int:
    return int((ftl.state.l2p >= 0).sum())


@pytest.mark.parametrize("setup", setups.SETUPS)
def test_preconditioning_switch(setup):
    section = _section()
    variant = sim.variants(section)[2]  # ppb
    req = trace([(p % 50, p % 3 == 0) for p in range(300)])
    req = sim.compact_addresses(req, 8192)
    footprint = len(np.unique(expand_to_pages(req, 8192).lpn))
    if setup == "aged":
        section = setups.aged_section(section, footprint, 8192, 64)
    ftl = sim.make_ftl(section, 8192, variant)
    before = ftl.counters()["host_writes"]
    setups.prepare(ftl, setup, section, seed=1, req=req)
    written = ftl.counters()["host_writes"] - before
    n_trace_writes = int(req.is_write.sum())
    expected = {
        "none": (0, 0),
        "fill": (ftl.n_lpn, ftl.n_lpn),
        "footprint": (footprint, footprint),
        "warmup": (footprint, footprint + n_trace_writes),
        "aged": (
            ftl.n_lpn,
            ftl.n_lpn + section["preconditioning"]["aged"]["passes"] * n_trace_writes,
        ),
    }[setup]
    assert (_mapped(ftl), written) == expected
    assert (ftl.state.chip_free == 0).all()  # the measured replay starts idle
    if setup == "aged":
        headroom = section["preconditioning"]["aged"]["headroom"]
        assert ftl.n_lpn == int(np.ceil(footprint * headroom))


def test_preconditioning_config_errors():
    section = _section()
    for bad, match in (
        ({"setups": ["fill", "hot"]}, "setups"),
        ({"setups": ["none"]}, "fill"),
        ({"setups": ["fill"], "fill_seeds": 0}, "fill_seeds"),
        ({"setups": ["fill", "aged"], "aged": {"headroom": 1.0, "passes": 2}}, "headroom"),
        ({"setups": ["fill", "aged"], "aged": {"headroom": 1.2, "passes": 0}}, "passes"),
    ):
        with pytest.raises(ConfigError, match=match):
            setups.setup_settings({**section, "preconditioning": bad})


def test_paper_traces_whole_extra_traces_capped():
    cfg = copy.deepcopy(tiny_config())
    cfg["ppb"].update(max_requests=None, extra_max_requests=100, synthetic_requests=500)
    traces = sim.load_traces(cfg, sim.settings(cfg))
    assert [len(r) for r in traces.values()] == [500, 500]
