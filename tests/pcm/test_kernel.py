"""PCM SSD kernel: the paper's worked examples, conservation, and equality with the
pure-Python reference on random small traces."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.errors import ConfigError
from skftl.pcm import LogPolicy, PCMDevice, simulate
from skftl.pcm import kernel as K
from skftl.pcm.simulate import active_clock, paged_from_lpns
from tests.pcm.reference import reference

DEV = PCMDevice(n_chips=4, pages_per_block=8)


def paged(lpns, writes=None, reqs=None, times=None, device=DEV):
    n = len(lpns)
    return paged_from_lpns(
        np.asarray(lpns, dtype=np.int64),
        np.ones(n, bool) if writes is None else np.asarray(writes, bool),
        np.zeros(n, np.int64) if reqs is None else np.asarray(reqs, np.int64),
        np.zeros(n, np.int64) if times is None else np.asarray(times, np.int64),
        device,
    )


@pytest.mark.parametrize("grouping", ["queue", "request", "stream"])
def test_worked_example_w0_A0_3(grouping):
    """'w 0 A0-3, 4' on idle chips: one write response time for static and dynamic page
    mapping, four for block mapping (Sec. II.B.2 and IV.A.1)."""
    pages = paged([0, 1, 2, 3])
    for scheme, rounds in (("static", 1), ("dynamic", 1), ("block", 4)):
        res = simulate(pages, DEV, scheme, grouping=grouping)
        assert res.counters["clean_rounds"] == rounds
        assert res.counters["dirty_rounds"] == 0
        assert res.write_time_s == pytest.approx(rounds * 200e-6)
        assert res.counters["device_free_ns"] == rounds * 200_000


def test_dirty_round_rule_and_mixed_round():
    """A round with any dirty write is one parallel dirty write (250 us)."""
    # write 0-3, then rewrite 0 together with new page 5 (chips 0 and 1) in one request
    pages = paged([0, 1, 2, 3, 0, 5], reqs=[0, 0, 0, 0, 1, 1], times=[0, 0, 0, 0, 10**6, 10**6])
    res = simulate(pages, DEV, "static")
    assert (res.counters["clean_rounds"], res.counters["dirty_rounds"]) == (1, 1)
    assert res.round_hist[2, 1] == 1  # two pages, one dirty
    assert res.write_time_s == pytest.approx(450e-6)


def test_dynamic_packs_what_static_serialises():
    """Four new pages that all map to chip 0 statically: 4 rounds static, 1 dynamic."""
    pages = paged([0, 4, 8, 12])
    assert simulate(pages, DEV, "static").counters["clean_rounds"] == 4
    assert simulate(pages, DEV, "dynamic").counters["clean_rounds"] == 1


def test_dynamic_updates_stay_on_mapped_chip():
    """Dynamic placement can break the static striping of a later sequential update."""
    # LPNs 0..3 written one request apart on an idle device land on chips 0, 1, 2, 3 with
    # round_robin but all on chip 0 with 'lowest'; rewriting them in one request then takes
    # one round (round_robin) or four (lowest)
    times = [0, 10**6, 2 * 10**6, 3 * 10**6, 4 * 10**6, 4 * 10**6, 4 * 10**6, 4 * 10**6]
    pages = paged([0, 1, 2, 3, 0, 1, 2, 3], reqs=[0, 1, 2, 3, 4, 4, 4, 4], times=times)
    low = simulate(pages, DEV, "dynamic", idle_pick="lowest").counters
    rr = simulate(pages, DEV, "dynamic", idle_pick="round_robin").counters
    assert (low["clean_rounds"], low["dirty_rounds"]) == (4, 4)
    assert (rr["clean_rounds"], rr["dirty_rounds"]) == (4, 1)


def test_queue_grouping_joins_only_waiting_pages():
    """Under 'queue', a request arriving while the device is busy joins the next round;
    one arriving after the round was issued does not."""
    # request 0 occupies chips 0,1 and chip 0 again (2 rounds: issued at 0 and 200 us);
    # request 1 (chip 2) arrives at 100 us, while round 2 is waiting -> joins it
    pages = paged([0, 1, 4, 2], reqs=[0, 0, 0, 1], times=[0, 0, 0, 100_000])
    assert simulate(pages, DEV, "static", grouping="queue").counters["clean_rounds"] == 2
    assert simulate(pages, DEV, "static", grouping="request").counters["clean_rounds"] == 3
    late = paged([0, 1, 2], reqs=[0, 0, 1], times=[0, 0, 300_000])
    assert simulate(late, DEV, "static", grouping="queue").counters["clean_rounds"] == 2
    assert simulate(late, DEV, "static", grouping="stream").counters["clean_rounds"] == 1


def test_static_full_flush_and_merge_eq1():
    """Updates are buffered (page x chips), flushed as one parallel clean write, and a full
    log is merged at t_dirty * max valid pages per chip + t_refresh * units (eq. 1)."""
    dev = PCMDevice(n_chips=4, pages_per_block=2, t_refresh_ms=1.0)
    log = LogPolicy(log_pages_per_chip=2, flush_rounds=1)  # 1 refresh unit per chip, 2 rows
    first = list(range(8))
    # two buffer-fulls of updates (0, 4, 1, 2) and (3, 5, 6, 7): every page updated once
    updates = [0, 4, 1, 2, 3, 5, 6, 7]
    pages = paged(first + updates, device=dev)
    res = simulate(pages, dev, "static_full", grouping="stream", log=log)
    c = res.counters
    assert c["clean_pages"] == 8 and c["buffered"] == 8 and c["dirty_pages"] == 0
    assert c["flushes"] == 2 and c["merges"] == 1 and c["merge_pages"] == 8
    # valid pages per home chip: chip0 {0,4}, chip1 {1,5}, chip2 {2,6}, chip3 {3,7} -> M = 2
    assert c["merge_rounds"] == 2
    assert res.merge_copy_time_s == pytest.approx(2 * 250e-6)
    assert res.refresh_time_s == pytest.approx(1e-3)
    assert c["clean_rounds"] == 2 + 2  # two data rounds, two flushes
    assert res.wear_log.tolist() == [2] * 8  # one write and one refresh per log page


def test_two_round_flush_worked_example():
    """Sec. IV.C.2.b's reading: a full buffer costs two parallel clean writes. Pages 0-3
    written (one round), then all four updated: the buffer fills and is flushed. One-round
    reading: 2 clean rounds, 400 us; two-round reading: 3 clean rounds, 600 us, the extra
    round holding no pages (the wait for busy chips)."""
    pages = paged([0, 1, 2, 3, 0, 1, 2, 3])
    for rounds in (1, 2):
        res = simulate(pages, DEV, "static_full", log=LogPolicy(8, flush_rounds=rounds))
        c = res.counters
        assert (c["flushes"], c["flushed_pages"], c["dirty_rounds"]) == (1, 4, 0)
        assert c["clean_rounds"] == 1 + rounds
        assert res.write_time_s == pytest.approx((1 + rounds) * 200e-6)
        assert c["device_free_ns"] == (1 + rounds) * 200_000
        assert res.round_hist[4, 0] == 2  # the data round and the flush
        assert res.round_hist[0, 0] == rounds - 1
    with pytest.raises(ConfigError, match="flush_rounds"):
        LogPolicy(8, flush_rounds=3)


def test_residency_on_the_active_clock():
    """An update waiting across a 6-day idle gap waits 6 days of wall time but only the
    cap on the active clock (gaps capped at 1 s), and the flush issue is measured from its
    arrival on the active clock."""
    day = 86_400 * 10**9
    times = [0, 0, 10**6, 6 * day, 6 * day, 6 * day]
    pages = paged([0, 1, 0, 1, 0, 1], reqs=[0, 0, 1, 2, 2, 2], times=times)
    log = LogPolicy(8, flush_rounds=1)
    wall = simulate(pages, DEV, "static_full", log=log).counters
    capped = simulate(pages, DEV, "static_full", log=log, idle_cap_s=1.0).counters
    assert wall["flushes"] == capped["flushes"] == 1 and wall["residual"] == 0
    # the first update (t = 1 ms) is flushed when the fourth arrives (t = 6 days)
    assert wall["residency_max_ns"] == 6 * day - 10**6
    assert capped["residency_max_ns"] == 10**9
    # the three updates that filled the buffer at t = 6 days waited nothing
    assert capped["residency_sum_ns"] == 10**9


def test_log_invalidates_older_copies():
    dev = PCMDevice(n_chips=2, pages_per_block=2, t_refresh_ms=1.0)
    log = LogPolicy(log_pages_per_chip=2)
    pages = paged([0, 1, 0, 0, 0, 0], device=dev)  # 0 updated four times -> two flushes
    c = simulate(pages, dev, "static_full", grouping="stream", log=log).counters
    assert c["merges"] == 1 and c["merge_pages"] == 1 and c["merge_rounds"] == 1


def test_timeout_flush_bounds_buffer_residency():
    """A partly filled buffer is flushed once its oldest update waited the timeout; on the
    active clock a timeout inside a long gap counts up to the cap."""
    dev = PCMDevice(n_chips=4, pages_per_block=4)
    times = [0, 0, 10**9, 5 * 10**9]
    pages = paged([0, 1, 0, 2], reqs=[0, 0, 1, 2], times=times, device=dev)
    never = simulate(pages, dev, "static_full", log=LogPolicy(4, 0.0)).counters
    assert never["residual"] == 1 and never["residency_max_ns"] == 4 * 10**9
    tmo = simulate(pages, dev, "static_full", log=LogPolicy(4, 1000.0)).counters
    assert tmo["timeout_flushes"] == 1 and tmo["residual"] == 0
    assert tmo["residency_max_ns"] == 10**9
    capped = simulate(pages, dev, "static_full", log=LogPolicy(4, 1000.0), idle_cap_s=0.5)
    assert capped.counters["residency_max_ns"] == 5 * 10**8


def test_reads_break_fifo_write_rounds_and_use_read_latency():
    pages = paged([0, 1, 2, 3], writes=[True, False, True, True])
    c = simulate(pages, DEV, "static", grouping="stream").counters
    assert (c["clean_rounds"], c["read_rounds"]) == (2, 1)
    assert c["device_free_ns"] == 2 * 200_000 + 25_000
    c = simulate(pages, DEV, "static", grouping="stream", include_reads=False).counters
    assert (c["clean_rounds"], c["read_rounds"], c["host_reads"]) == (1, 0, 1)


def test_precondition_makes_installed_pages_dirty():
    """Pages an install trace wrote are dirty on their next write; intervals are merged."""
    from skftl.pcm.simulate import prepare_pages, written_intervals
    from skftl.traces.requests import Requests, TraceMeta

    def reqs(offsets_pages, sizes_pages, writes):
        n = len(offsets_pages)
        return Requests(
            np.arange(n) * 10**6,
            np.asarray(offsets_pages) * 4096,
            np.asarray(sizes_pages) * 4096,
            np.asarray(writes, bool),
            TraceMeta("t", "test"),
        )

    install = reqs([10, 12, 20, 30], [4, 4, 2, 5], [True, True, True, False])
    starts, ends = written_intervals(install, 4096)
    assert starts.tolist() == [10, 20] and ends.tolist() == [16, 22]
    dev = PCMDevice(n_chips=4, pages_per_block=8)
    usage = reqs([14, 30], [4, 1], [True, True])  # pages 14,15 installed; 16,17,30 not
    c = simulate(prepare_pages(usage, dev, precondition=install), dev, "static").counters
    assert (c["dirty_pages"], c["clean_pages"]) == (2, 3)
    c = simulate(prepare_pages(usage, dev), dev, "static").counters
    assert (c["dirty_pages"], c["clean_pages"]) == (0, 5)


def test_bad_config_is_a_clear_error():
    with pytest.raises(ConfigError, match="scheme"):
        simulate(paged([0]), DEV, "hybrid")
    with pytest.raises(ConfigError, match="multiple of pages_per_block"):
        LogPolicy(log_pages_per_chip=12).refresh_units(DEV)
    with pytest.raises(ConfigError, match="log_fraction"):
        LogPolicy(log_fraction=1.5)


def test_log_area_is_a_share_of_capacity():
    """Sec. II.B.3: 0.1 % of the device for the log, in whole refresh units per chip."""
    dev = PCMDevice(n_chips=4, page_size=4096, pages_per_block=128, capacity_gib=128.0)
    pages = LogPolicy().pages_per_chip(dev)
    assert pages % 128 == 0 and pages * 4 <= 0.001 * dev.n_pages < (pages + 128) * 4
    assert LogPolicy().refresh_units(dev) == pages // 128 == 65
    assert LogPolicy(log_pages_per_chip=256).pages_per_chip(dev) == 256
    tiny = PCMDevice(n_chips=4, pages_per_block=128, capacity_gib=0.001)
    assert LogPolicy().pages_per_chip(tiny) == 128  # at least one refresh unit


def test_mapping_table_sizes():
    """Sec. II.B: entries x pages (dynamic), x refresh units (block, 3 B), none (static)."""
    dev = PCMDevice(page_size=4096, pages_per_block=128, capacity_gib=128.0)
    assert dev.mapping_table_bytes("static") == 0
    assert dev.mapping_table_bytes("dynamic") == 2**25 * 4
    assert dev.mapping_table_bytes("block") == 2**18 * 3
    with pytest.raises(ConfigError, match="mapping table"):
        dev.mapping_table_bytes("static_full")
    with pytest.raises(ConfigError, match="unknown keys"):
        PCMDevice.from_config({"chips": 4})


ops = st.lists(
    st.tuples(st.integers(0, 40), st.booleans(), st.integers(0, 3), st.integers(0, 400_000)),
    min_size=0,
    max_size=60,
)


def _trace(rows, n_chips, ppb, pre=frozenset()):
    dev = PCMDevice(n_chips=n_chips, pages_per_block=ppb, t_refresh_ms=0.5)
    lpn = np.array([r[0] for r in rows], dtype=np.int64)
    w = np.array([r[1] for r in rows], dtype=bool)
    req = np.cumsum([r[2] > 0 for r in rows]).astype(np.int64) if rows else np.zeros(0, int)
    t = np.cumsum([r[3] if r[2] > 0 else 0 for r in rows]).astype(np.int64) if rows else req
    pre_ops = np.isin(lpn, np.array(sorted(pre), dtype=np.int64))
    return dev, paged_from_lpns(lpn, w, req, t, dev, prewritten_ops=pre_ops)


@settings(max_examples=150, deadline=None)
@given(
    rows=ops,
    scheme=st.sampled_from(["static", "dynamic", "block", "static_full"]),
    grouping=st.sampled_from([0, 1, 2]),
    idle_pick=st.sampled_from([0, 1]),
    n_chips=st.sampled_from([1, 2, 4]),
    ppb=st.sampled_from([1, 2, 4]),
    log_rows=st.sampled_from([4, 8]),
    timeout=st.sampled_from([0, 150_000]),
    include_reads=st.booleans(),
    pre=st.frozensets(st.integers(0, 40), max_size=20),
    flush_rounds=st.sampled_from([1, 2]),
    idle_cap=st.sampled_from([None, 50e-6]),
)
def test_kernel_matches_reference(
    rows,
    scheme,
    grouping,
    idle_pick,
    n_chips,
    ppb,
    log_rows,
    timeout,
    include_reads,
    pre,
    flush_rounds,
    idle_cap,
):
    dev, p = _trace(rows, n_chips, ppb, pre)
    act = active_clock(p.time_ns, idle_cap)
    sid = {"static": 0, "dynamic": 1, "block": 2, "static_full": 3}[scheme]
    units = log_rows // ppb
    args = (p.lpn, p.is_write, p.request, p.time_ns)
    mid = (p.block, sid, grouping, idle_pick, n_chips)
    tail = (
        log_rows,
        units,
        timeout,
        include_reads,
        dev.t_clean_ns,
        dev.t_dirty_ns,
        dev.t_read_ns,
        dev.t_refresh_ns,
        flush_rounds,
    )
    cnt, wear, wear_log, hist = K.run_kernel(*args, act, *mid, p.prewritten, *tail)
    prewritten = np.flatnonzero(p.prewritten).tolist()
    ref, ref_wear, ref_wear_log, ref_hist = reference(
        *args, *mid, *tail, active_ns=act, prewritten=prewritten
    )
    got = dict(zip(K.COUNTER_NAMES, cnt.tolist(), strict=True))
    assert got == {name: ref.get(name, 0) for name in K.COUNTER_NAMES}
    assert {i: int(v) for i, v in enumerate(wear) if v} == dict(ref_wear)
    assert {i: int(v) for i, v in enumerate(wear_log) if v} == dict(ref_wear_log)
    assert {(n, d): int(hist[n, d]) for n, d in zip(*np.nonzero(hist), strict=True)} == dict(
        ref_hist
    )
    # conservation: each host page write is one clean or dirty write, or buffered and later
    # flushed (or still in the buffer at the end)
    assert got["host_writes"] == got["clean_pages"] + got["dirty_pages"] + got["buffered"]
    assert got["buffered"] == got["flushed_pages"] + got["residual"]
    # every page written in a round is accounted for by the histogram
    pages_in_rounds = sum(n * v for (n, _), v in ref_hist.items())
    assert pages_in_rounds == got["clean_pages"] + got["dirty_pages"] + got["flushed_pages"]
    assert got["clean_rounds"] + got["dirty_rounds"] == sum(ref_hist.values())
    # wear: the install write of prewritten pages, one per data page write, merge copies
    assert int(wear.sum()) == (
        len(prewritten) + got["clean_pages"] + got["dirty_pages"] + got["merge_pages"]
    )
