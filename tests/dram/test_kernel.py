"""LPMT kernel vs the plain-Python reference, table invariants, and the paper's worked
DRAM examples (Fig. 3, Fig. 5, Fig. 6 / Table V)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.dram import DramTiming, Lpmt, LpmtConfig, case_labels, time_stream
from skftl.dram import kernel as K
from skftl.dram import state as S
from skftl.dram.hashes import hash_keys
from skftl.dram.layout import PLACEMENTS as LAYOUT_PLACEMENTS
from skftl.dram.lpmt import EARLY_EXIT, ROW_HITS
from skftl.dram.steady import CLS_FLUSH
from skftl.dram.timing import SC_REFRESHES, TP_RC
from skftl.errors import ConfigError
from skftl.numba_cache import VARIANT_KEY
from tests.dram.reference import RefLpmt

PLACEMENTS = list(LAYOUT_PLACEMENTS)


@st.composite
def scenarios(draw, paper_shape=False):
    """Small random tables and operation streams. ``paper_shape``: the paper's 8 ways
    over 4 banks, which run in their own compiled kernel (kernel.PAPER_SHAPES). Every
    early exit and row-hit rule (the window rule under the paper model, with windows
    shorter than a pass over the banks too)."""
    model = draw(st.sampled_from(["paper", "ddr4"]))
    cfg = LpmtConfig(
        n_sets=draw(st.integers(1, 4)),
        assoc=8 if paper_shape else draw(st.sampled_from([1, 2, 4])),
        n_secondary=draw(st.integers(0, 4)),
        n_blocks=draw(st.integers(1, 4)),
        pages_per_block=draw(st.integers(1, 4)),
        hash=draw(st.sampled_from(["division", "folding", "xxhash"])),
        placement=draw(st.sampled_from(PLACEMENTS)),
        n_banks=4 if paper_shape else draw(st.integers(1, 4)),
        early_exit=draw(st.sampled_from(EARLY_EXIT)),
        insert_on_read=draw(st.booleans()),
        row_hits=draw(st.sampled_from(ROW_HITS if model == "paper" else ROW_HITS[:2])),
        # 4 or 8 entries per row (8 or 16 with 8 ways in a bank): row changes
        row_bytes=draw(st.sampled_from([64, 128] if paper_shape else [32, 64])),
    )
    timing = DramTiming(
        model=model,
        window=draw(st.sampled_from([1, 2, 4])) if model == "paper" else 4,
        bank_groups=draw(st.integers(1, 2)),
        trefi_ns=draw(st.sampled_from([90.0, 7800.0])),  # short: many refreshes
        trfc_ns=30.0,
        reorder_on_act=draw(st.booleans()),
    )
    if paper_shape and timing.model == "ddr4":
        timing = DramTiming(model="ddr4")  # the datasheet's: its kernel has them as constants
    n = draw(st.integers(1, 60))
    ops = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    keys = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    args = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    # DELETE_PAGE takes a page index (0-based), DELETE ignores its argument
    args = [a - 1 if o == S.OP_DELETE_PAGE else a for o, a in zip(ops, args, strict=True)]
    return cfg, timing, np.array(ops), np.array(keys), np.array(args)


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_kernel_matches_reference(sc):
    check_against_reference(*sc)


@settings(max_examples=60, deadline=None)
@given(scenarios(paper_shape=True))
def test_paper_shape_kernels_match_reference(sc):
    cfg, timing, *_ = sc
    assert Lpmt(cfg, timing)._kernel is not K.ops_kernel(None)  # a specialised kernel
    check_against_reference(*sc)


@pytest.mark.parametrize("placement", ["single", "interleaved", "spread_dynamic"])
def test_strict_constant_timing_kernel_across_refreshes(placement):
    """The kernel with the datasheet's timing as constants, over enough operations for
    several refreshes (every 5,200 cycles), which the short random streams above
    rarely reach."""
    rng = np.random.default_rng(3)
    n = 600  # ~7,000 reads: the recorded stream (10,000 reads) holds them all
    ops = rng.choice(4, n, p=[0.5, 0.3, 0.1, 0.1])
    args = np.where(ops == S.OP_DELETE_PAGE, rng.integers(0, 3, n), rng.integers(1, 4, n))
    cfg = LpmtConfig(n_sets=8, n_secondary=8, n_blocks=8, pages_per_block=16,
                     placement=placement, hash="folding")  # fmt: skip
    t = check_against_reference(cfg, DramTiming(model="ddr4"), ops, rng.integers(0, 150, n), args)
    assert t._kernel is not K.ops_kernel(None)
    assert t.dram.sc[SC_REFRESHES] >= 3


@pytest.mark.parametrize("window", [4, 3])
@pytest.mark.parametrize("row_hits", ROW_HITS)
@pytest.mark.parametrize(
    "placement", ["interleaved", "interleaved_fixed", "spread_fixed", "spread_dynamic"]
)
def test_paper_closed_form_probes(placement, row_hits, window):
    """Long runs of full probes over every bank, which the paper-shape kernels time in
    closed form from the previous probe (probe.steady_probe), broken up by
    block-table reads, early exits and deletes: the same results as the reference. A
    window of 3 reads is shorter than a pass over the 4 banks: under the window rule an
    interleaved probe's second pass then has no row hits (no closed forms)."""
    rng = np.random.default_rng(5)
    n = 400
    ops = rng.choice(4, n, p=[0.6, 0.3, 0.05, 0.05])
    pages = np.where(rng.random(n) < 0.1, rng.integers(2, 4, n), 1)
    args = np.where(ops == S.OP_DELETE_PAGE, rng.integers(0, 2, n), pages)
    for early_exit in EARLY_EXIT:
        cfg = LpmtConfig(n_sets=16, n_secondary=8, n_blocks=8, pages_per_block=16,
                         placement=placement, row_hits=row_hits, early_exit=early_exit,
                         row_bytes=128, hash="folding")  # fmt: skip
        timing = DramTiming(window=window)
        t = check_against_reference(cfg, timing, ops, rng.integers(0, 200, n), args)
        assert t._kernel is not K.ops_kernel(None)


@pytest.mark.parametrize(
    "placement", ["interleaved", "interleaved_fixed", "spread_fixed", "spread_dynamic"]
)
def test_strict_steady_probes_from_the_memo(placement):
    """The strict kernels time most full probes over every bank from the memo of earlier
    probes (skftl.dram.steady), across refreshes, block-table reads, deletes and the
    Fig. 7 order: the same results as the reference, which schedules every command."""
    rng = np.random.default_rng(7)
    n = 900  # ~8,000 reads, several refreshes; the recorded stream holds them all
    ops = rng.choice(4, n, p=[0.6, 0.3, 0.05, 0.05])
    pages = np.where(rng.random(n) < 0.1, rng.integers(2, 4, n), 1)
    args = np.where(ops == S.OP_DELETE_PAGE, rng.integers(0, 2, n), pages)
    cfg = LpmtConfig(n_sets=32, n_secondary=16, n_blocks=32, pages_per_block=16,
                     placement=placement, row_bytes=128, hash="folding")  # fmt: skip
    keys = rng.integers(0, 400, n)
    check_against_reference(cfg, DramTiming(model="ddr4"), ops, keys, args)
    quiet = Lpmt(cfg, DramTiming(model="ddr4"))  # the memo serves unrecorded runs
    quiet.run(ops, keys, args)
    assert quiet.dram.sc[SC_REFRESHES] >= 3
    # most probes from the memo, enough for an in-loop flush of their packed classes
    assert quiet.memo_probes > max(quiet.counters[S.CT_SETS_PROBED] // 2, CLS_FLUSH)


def check_against_reference(cfg, timing, ops, keys, args):
    t = Lpmt(cfg, timing, record=10_000)
    homes = t.homes(keys)
    out = t.run(ops, keys, args)
    ref = RefLpmt(cfg, timing, lambda k: int(hash_keys(cfg.hash, np.array([k]), cfg.n_sets)[0]),
                  t.layout.bt_row_base)  # fmt: skip
    want = [ref.op(int(o), int(k), int(a)) for o, k, a in zip(ops, keys, args, strict=True)]
    assert out.latency.tolist() == [w[0] for w in want]
    assert out.reads.tolist() == [w[1] for w in want]
    assert out.status.tolist() == [w[2] for w in want]
    assert homes.tolist() == [ref.homes_of(int(k)) for k in keys]
    s = t.snapshot()
    assert s["ent_key"].tolist() == ref.key
    assert s["ent_pa"].tolist() == ref.pa
    assert s["ent_flags"].tolist() == ref.flags
    assert s["set_next"].tolist() == ref.next
    assert s["set_prev"].tolist() == ref.prev
    assert s["free_sets"].tolist() == ref.free_sets
    assert s["bt_next"].tolist() == ref.bt_next
    assert s["bt_prev"].tolist() == ref.bt_prev
    assert s["bt_flags"].tolist() == ref.bt_flags
    assert s["free_pages"].tolist() == ref.free_pages
    assert s["cases"].tolist() == ref.dram.cases
    n = int(s["counters"][S.CT_READS])
    assert (
        list(zip(t.record[0, :n].tolist(), t.record[1, :n].tolist(), strict=True)) == ref.dram.reads
    )
    assert s["counters"][S.CT_SEC_ALLOC] == ref.counters["sec_alloc"]
    assert s["counters"][S.CT_SEC_FREE] == ref.counters["sec_free"]
    assert s["counters"][S.CT_FAIL_PAGES] == ref.counters["fail_pages"]
    assert s["counters"][S.CT_FAIL_SETS] == ref.counters["fail_sets"]
    assert s["counters"][S.CT_CYCLES] == sum(w[0] for w in want)
    t.check_invariants()
    # without a recorded stream the kernel takes shortcuts (fused interleaved passes)
    # that the recorded run above cannot: the same results
    quiet = Lpmt(cfg, timing)
    out0 = quiet.run(ops, keys, args)
    assert out0.latency.tolist() == out.latency.tolist()
    assert out0.reads.tolist() == out.reads.tolist()
    assert out0.status.tolist() == out.status.tolist()
    s0 = quiet.snapshot()
    assert all(np.array_equal(s0[name], s[name]) for name in s), "unrecorded run differs"
    assert all(
        np.array_equal(a, b) for a, b in zip(quiet.dram.arrays(), t.dram.arrays(), strict=True)
    )
    return t


@settings(max_examples=60, deadline=None)
@given(scenarios())
def test_invariants_and_live_keys(sc):
    cfg, timing, ops, keys, args = sc
    t = Lpmt(cfg, timing)
    live: dict[int, int] = {}
    for o, k, a in zip(ops.tolist(), keys.tolist(), args.tolist(), strict=True):
        status = t.run(np.array([o]), np.array([k]), np.array([a])).status[0]
        if status == S.ST_INSERTED or (status == S.ST_HIT and o == S.OP_WRITE and k in live):
            live[k] = a
        elif status == S.ST_HIT and o == S.OP_DELETE:
            live.pop(k)
        elif status == S.ST_HIT and o == S.OP_DELETE_PAGE and a < live[k]:
            live[k] -= 1
            if live[k] == 0:
                live.pop(k)
        t.check_invariants()
    assert sorted(t.live_keys().tolist()) == sorted(live)
    for k, n in live.items():
        assert len(t.pages(k)) == n
        assert t.lookup(k)[0]


def small_table(**kw) -> Lpmt:
    base = dict(n_sets=2, assoc=2, n_secondary=4, n_blocks=4, pages_per_block=4, hash="division")
    return Lpmt(LpmtConfig(**(base | kw)))


def test_secondary_sets_chain_and_free_from_middle():
    t = small_table()
    keys = [0, 2, 4, 6, 8, 10]  # all hash to set 0: primary + two secondary sets
    for k in keys:
        assert t.insert(k) == S.ST_INSERTED
    assert t.location(4)[0] == 2 and t.location(8)[0] == 3
    assert t.set_next[0] == 2 and t.set_next[2] == 3 and t.set_prev[3] == 2
    t.delete(4)
    t.delete(6)  # the middle secondary set is now empty: unlinked and freed
    assert t.set_next[0] == 3 and t.set_prev[3] == 0
    assert 2 in t.snapshot()["free_sets"]
    t.check_invariants()
    assert t.lookup(10)[0] and not t.lookup(6)[0]
    t.insert(12)  # chain 0 -> 3 is full: the freed set 2 is reused at the chain's end
    assert t.location(12) == (2, 0)
    assert t.set_next[3] == 2 and t.set_prev[2] == 3 and t.set_next[2] == -1
    t.check_invariants()


def test_block_table_chain_delete_middle_first_last():
    t = small_table()
    t.insert(1, 4)
    p = t.pages(1)
    assert p == [0, 1, 2, 3]
    assert t.delete_page(1, 2)  # middle
    assert t.pages(1) == [0, 1, 3]
    assert t.bt_next[1] == 3 and t.bt_prev[3] == 1
    assert t.delete_page(1, 0)  # first: the LPMT entry now points at page 1
    g, w = t.location(1)
    assert t.pages(1) == [1, 3] and t.ent_pa[g, w] == 1 and t.bt_prev[1] == g * 2 + w
    assert t.delete_page(1, 1)  # last
    assert t.pages(1) == [1] and t.ent_flags[g, w] & S.F_SINGLE
    t.check_invariants()
    assert t.delete_page(1, 0)  # last page: the file is gone
    assert t.location(1) is None
    t.check_invariants()


def test_update_remaps_out_of_place_and_single_flag_skips_bt():
    t = small_table()
    t.insert(3, 1)
    _, lat1 = t.lookup(3)
    reads = t.counters[S.CT_BT_READS]
    t.lookup(3)
    assert t.counters[S.CT_BT_READS] == reads  # single-page: no BT read
    t.update(3, 3)
    assert t.pages(3) == [1, 2, 3]  # new pages first, then the old one is freed
    t.lookup(3)
    assert t.counters[S.CT_BT_READS] == reads + 3  # the update found a single page: no BT read
    t.check_invariants()


def test_insert_fails_cleanly_when_full():
    t = small_table(n_secondary=0, n_sets=1)
    assert t.insert(0) == S.ST_INSERTED and t.insert(1) == S.ST_INSERTED
    assert t.insert(2) == S.ST_FAILED
    assert t.counters[S.CT_FAIL_SETS] == 1
    t.check_invariants()


# ------------------------------------------------------------------ DRAM timing rules
def test_fig5_banks_3_1_2_3_last_read_is_15_cycles():
    lat, cases = time_stream([3, 1, 2, 3], [0, 0, 0, 1], DramTiming(), n_banks=4)
    assert lat[-1] == 15
    assert cases[2] == 1  # class b[t] = b[t-3]


@pytest.mark.parametrize("n, want", [(1, 23), (2, 19), (3, 15), (4, 11), (5, 4)])
def test_fig6_latency_by_distance(n, want):
    banks = [0] + list(range(1, n)) + [0]
    lat, _ = time_stream(banks, [0] * n + [1], DramTiming(), n_banks=max(banks) + 1)
    assert lat[-1] == want


def test_row_hit_and_other_bank_cost_one_burst():
    lat, cases = time_stream([0, 0, 1], [5, 5, 9], DramTiming(), n_banks=2)
    assert lat[1:].tolist() == [4, 4]
    assert cases.tolist() == [0, 0, 0, 0, 2, 1] and len(case_labels()) == 6


def test_fig3_same_bank_other_row_18_and_23_cycles():
    """Fig. 3: same bank, different row, no interleaving. The paper rule gives 23 cycles
    between data ends (Table V). The strict scheduler with tRAS and refresh off places
    the commands: ACT at 0, READ at RCD, PRE at READ + RTP, and the second READ 18 cycles
    (RP + RCD, Fig. 3's 18) after that precharge; its data end 23 cycles after the first."""
    t = DramTiming()
    assert time_stream([0, 0], [0, 1], t, n_banks=1)[0][1] == 23
    strict = DramTiming(model="ddr4", tras_ns=0.0, refresh=False)
    lat, _ = time_stream([0, 0], [0, 1], strict, n_banks=1)
    end0, end1 = lat[0], lat[0] + lat[1]
    read0, read1 = end0 - t.cl - t.dl, end1 - t.cl - t.dl
    assert read0 == t.rcd  # the first row was opened at cycle 0
    precharge = read0 + t.rtp
    assert read1 - precharge == 18
    assert lat[1] == 23


def test_strict_model_adds_tras_to_the_fig5_case():
    """tRAS = 32 ns (22 cycles at 1.5 ns) forbids precharging bank 3 before cycle 22,
    so Fig. 5's last read costs more than the paper's 15 cycles."""
    strict = DramTiming(model="ddr4")
    lat, _ = time_stream([3, 1, 2, 3], [0, 0, 0, 1], strict, n_banks=4)
    assert lat[-1] > 15
    relaxed = DramTiming(model="ddr4", tras_ns=0.0, refresh=False)
    assert time_stream([3, 1, 2, 3], [0, 0, 0, 1], relaxed, n_banks=4)[0][-1] == 15
    assert strict.params()[TP_RC] == 22 + 9


def test_strict_bank_groups_and_refresh():
    one_group = DramTiming(model="ddr4", bank_groups=1, refresh=False)
    four = DramTiming(model="ddr4", bank_groups=4, refresh=False)
    banks, rows = [0, 1, 2, 3] * 4, [0] * 16
    assert time_stream(banks, rows, one_group, 4)[0][1:].tolist() == [5] * 15  # tCCD_L
    assert time_stream(banks, rows, four, 4)[0][1:].tolist() == [4] * 15  # tCCD_S
    refresh = DramTiming(model="ddr4", trefi_ns=30.0, trfc_ns=15.0)
    lat, _ = time_stream([0] * 40, [0] * 40, refresh, 1)
    assert lat.sum() > time_stream([0] * 40, [0] * 40, four, 1)[0].sum()


def test_dynamic_order_reads_least_recent_bank_first():
    """Fig. 7: after reading banks 0..3 in order, a read of bank 0 makes bank 1 the
    least recently used, so the next set is read starting at bank 1."""
    t = Lpmt(
        LpmtConfig(n_sets=8, assoc=4, n_secondary=0, n_blocks=1, pages_per_block=8,
                   placement="spread_dynamic", n_banks=4, hash="division"),
        record=64,
    )  # fmt: skip
    t.lookup(0)  # set 0: banks 0,1,2,3 (initial order)
    t.lookup(1)  # set 1: 0,1,2,3 again (same recency order)
    assert t.record[0, :8].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    fixed = Lpmt(LpmtConfig(n_sets=8, assoc=4, n_secondary=0, n_blocks=1, pages_per_block=8,
                            placement="spread_fixed", n_banks=4, hash="division"),
                 record=64)  # fmt: skip
    t.insert(9, 2)  # writes are untimed; set 1's lookup reads 0..3
    n = int(t.counters[S.CT_READS])
    t.run(np.array([S.OP_READ]), np.array([9]), np.array([1]))  # set 1 then 2 BT reads (bank 0)
    t.lookup(2)
    order = t.record[0, n + 6 : n + 10].tolist()
    assert order == [1, 2, 3, 0]  # bank 0 was just used by the BT reads
    fixed.lookup(2)
    assert fixed.record[0, :4].tolist() == [0, 1, 2, 3]


def _two_probes(placement: str, row_hits: str) -> tuple[Lpmt, int, int]:
    """Lookups of absent keys 0 and 1 (sets 0 and 1, full 8-read probes) on 4 banks, one
    set per row in each bank (2 entries per row), paper timing."""
    cfg = LpmtConfig(n_sets=8, assoc=8, n_secondary=0, n_blocks=1, pages_per_block=8,
                     placement=placement, n_banks=4, hash="division", row_bytes=16,
                     row_hits=row_hits)  # fmt: skip
    t = Lpmt(cfg, DramTiming(), record=64)
    return t, t.lookup(0)[1], t.lookup(1)[1]


def test_interleaved_layout_puts_way_w_in_bank_base_plus_w():
    """Way w of set g in bank (g + w) mod 4, set g in row g of every bank (2 entries per
    row); the fixed order reads ways 0..7, i.e. banks g, g+1, .., twice."""
    t, *_ = _two_probes("interleaved_fixed", "per_bank")
    assert t.record[0, :16].tolist() == [0, 1, 2, 3] * 2 + [1, 2, 3, 0] * 2
    assert t.record[1, :16].tolist() == [0] * 8 + [1] * 8
    # Fig. 7: set 1 read least recently read bank first: bank 0 (its way 3), then 1, 2, 3
    t, *_ = _two_probes("interleaved", "per_bank")
    assert t.record[0, 8:16].tolist() == [0, 1, 2, 3] * 2


# Hand-worked with Fig. 6 and Table I (DL 4; b[t]=b[t-n] after a row change costs
# 36 - (9 + 4n): 23, 19, 15, 11). Set 0 (first probe): 4 first reads of idle banks (no
# repeat, 4 each) + 4 row hits = 32. Set 1:
# * interleaved, per bank: banks 0,1,2,3 each last read 4 reads ago -> 4 x 11, then 4
#   hits: 60;
# * interleaved_fixed, per bank: banks 1,2,3 were read 3 reads ago -> 3 x 15; bank 0 7
#   reads ago (outside the window) -> 4; 4 hits: 65;
# * per probe: only the first read pays (11 resp. 15), 7 hits: 39 resp. 43;
# * spread (2 consecutive ways per bank): each bank read 8 reads ago -> 4 x 4, 4 hits: 32.
@pytest.mark.parametrize(
    "placement, row_hits, want, cases",
    [
        ("interleaved", "per_bank", 60, [0, 0, 0, 4, 4, 8]),
        ("interleaved", "per_probe", 39, [0, 0, 0, 1, 1, 14]),
        ("interleaved_fixed", "per_bank", 65, [0, 0, 3, 0, 5, 8]),
        ("interleaved_fixed", "per_probe", 43, [0, 0, 1, 0, 1, 14]),
        ("spread_fixed", "per_bank", 32, [0, 0, 0, 0, 8, 8]),
        ("spread_dynamic", "per_probe", 32, [0, 0, 0, 0, 2, 14]),
    ],
)
def test_hand_worked_probe_sequence_fig6_costs(placement, row_hits, want, cases):
    t, first, second = _two_probes(placement, row_hits)
    assert (first, second) == (32, want)
    assert t.dram.cases.tolist() == cases


def test_bad_row_hit_accounting_names_the_key():
    with pytest.raises(ConfigError, match="row_hits"):
        Lpmt(LpmtConfig(row_hits="per_set"))


def test_kernel_variants_bind_plain_constants():
    """ops_kernel compiles one variant of run_ops_kernel per spec, the spec's constants
    bound as its globals (SPEC_*), which Numba compiles in but does not key its cache on:
    every spec has its own cache tag (numba_cache.VARIANT_KEY), and the constants are plain
    numbers, flags and tuples."""
    tags = set()
    ddr4 = tuple(int(v) for v in DramTiming("ddr4").params())
    for shape in K.PAPER_SHAPES:
        for spec in ((0, None, *shape), (1, ddr4, *shape), None):
            scope = K.ops_kernel(spec).py_func.__globals__
            tags.add(scope[VARIANT_KEY])
            for name, value in scope.items():
                if name.startswith("SPEC_"):
                    assert isinstance(value, int | bool | tuple), (spec, name, type(value))
    assert len(tags) == 2 * len(K.PAPER_SHAPES) + 1


# ------------------------------------------------------------------ early exit, by hand
def _ops_table(placement: str, early_exit: str, n_sets: int, n_banks: int) -> Lpmt:
    """An 8-way table, keys hashed by division (key mod n_sets), paper timing, recorded."""
    cfg = LpmtConfig(n_sets=n_sets, assoc=8, n_secondary=2, n_blocks=2, pages_per_block=8,
                     placement=placement, n_banks=n_banks, hash="division",
                     early_exit=early_exit)  # fmt: skip
    return Lpmt(cfg, DramTiming(), record=64)


# One bank, set 0 (even keys): writes of keys 0, 2, 4 fill ways 0, 1, 2 (each a miss probe
# first), then a lookup of the absent key 6 and of key 4 (way 2). Reads per operation:
# * none: every probe reads all 8 ways;
# * match: the misses read 8 ways, the hit stops at way 2: 3 reads;
# * match_or_empty: a miss stops at the first invalid way, read included: the empty set
#   1 read (way 0), then 2 (ways 0-1), 3 (ways 0-2); the miss on ways 0-2 valid reads
#   ways 0-3: 4; the hit 3, as with match.
@pytest.mark.parametrize(
    "early_exit, reads",
    [("none", [8, 8, 8, 8, 8]), ("match", [8, 8, 8, 8, 3]), ("match_or_empty", [1, 2, 3, 4, 3])],
)
def test_hand_worked_early_exit_in_way_order(early_exit, reads):
    t = _ops_table("single", early_exit, n_sets=2, n_banks=1)
    ops = np.array([S.OP_WRITE] * 3 + [S.OP_READ] * 2)
    t.config_vector[S.CONFIG_INSERT_ON_MISS] = 0  # the lookup of key 6 stays a miss
    out = t.run(ops, np.array([0, 2, 4, 6, 4]), np.ones(5, dtype=np.int64))
    assert out.reads.tolist() == reads
    # one bank, one row: the first read has no earlier read of its bank, the others are
    # row hits; DL = 4 cycles each
    assert out.latency.tolist() == [4 * r for r in reads]
    # the stop rule cuts reads only: the same inserts, misses and hits in every mode
    assert out.status.tolist() == [S.ST_INSERTED] * 3 + [S.ST_MISS, S.ST_HIT]
    assert [t.location(k) for k in (0, 2, 4)] == [(0, 0), (0, 1), (0, 2)]
    assert t.dram.cases.tolist() == [0, 0, 0, 0, 1, sum(reads) - 1]


# Set 0 interleaved over 4 banks (way w in bank w mod 4; pass 0 = ways 0-3), keys hashed to
# set 0. The write of key 0 finds the set empty: match_or_empty stops at way 0, the first
# invalid way, read first in both orders (bank 0; a fresh DRAM ranks bank 0 least recent).
# The lookup of the absent key 4 then needs ways 0-1 (way 1 is the first invalid one):
# * in way order (interleaved_fixed): banks 0, 1: 2 reads;
# * in Fig. 7's order bank 0, just read, comes last: banks 1, 2, 3, 0, and way 0 is read
#   only at the 4th read: 4 reads.
# match reads all 8 ways of both (misses); none too.
@pytest.mark.parametrize(
    "placement, early_exit, reads, banks",
    [
        ("interleaved_fixed", "match_or_empty", [1, 2], [0, 0, 1]),
        ("interleaved", "match_or_empty", [1, 4], [0, 1, 2, 3, 0]),
        ("interleaved", "match", [8, 8], [0, 1, 2, 3] * 4),
        ("interleaved_fixed", "none", [8, 8], [0, 1, 2, 3] * 4),
    ],
)
def test_hand_worked_early_exit_in_fig7_order(placement, early_exit, reads, banks):
    t = _ops_table(placement, early_exit, n_sets=4, n_banks=4)
    t.config_vector[S.CONFIG_INSERT_ON_MISS] = 0
    out = t.run(np.array([S.OP_WRITE, S.OP_READ]), np.array([0, 4]), np.array([1, 1]))
    assert out.reads.tolist() == reads
    assert out.status.tolist() == [S.ST_INSERTED, S.ST_MISS]
    assert t.record[0, : sum(reads)].tolist() == banks


def test_bad_early_exit_names_the_key():
    with pytest.raises(ConfigError, match="early_exit"):
        Lpmt(LpmtConfig(early_exit=True))  # the stop rules are named, not a flag


def test_rule_names_are_the_kernel_codes():
    """Lpmt passes a rule's index in its tuple to the kernel, which compares it with its
    constants."""
    codes = (S.EARLY_NONE, S.EARLY_MATCH, S.EARLY_MATCH_OR_EMPTY)
    assert dict(zip(EARLY_EXIT, codes, strict=True)) == {n: i for i, n in enumerate(EARLY_EXIT)}
    assert EARLY_EXIT == ("none", "match", "match_or_empty")
    codes = (S.ROW_PER_BANK, S.ROW_PER_PROBE, S.ROW_WINDOW)
    assert dict(zip(ROW_HITS, codes, strict=True)) == {n: i for i, n in enumerate(ROW_HITS)}
    assert ROW_HITS == ("per_bank", "per_probe", "window")


# ------------------------------------------------------------------ the window rule, by hand
# Fig. 6 / Table V: a read is a row hit iff the nearest read of its bank within the last 4
# reads had its row; with no read of the bank in the window it is "no repeat" whatever its
# row. Four banks, one way per set, set g in bank g mod 4, sets 0-3 in row 0 and 4-7 in
# row 1 (one entry per row); lookups of absent keys (key = set), one read each:
#   key  bank row  last read of the bank    per bank       window
#   0    0    0    -                        no repeat      no repeat
#   1    1    0    -                        no repeat      no repeat
#   2    2    0    -                        no repeat      no repeat
#   3    3    0    -                        no repeat      no repeat
#   1    1    0    3 reads back, row 0      row hit        row hit
#   0    0    0    5 reads back, row 0      row hit (open) no repeat
#   6    2    1    4 reads back, row 0      b[t]=b[t-4]    b[t]=b[t-4]   (11 cycles)
#   4    0    1    2 reads back, row 0      b[t]=b[t-2]    b[t]=b[t-2]   (19 cycles)
# Classes [b1, b2, b3, b4, no repeat, row hit]; every other read costs DL = 4 under both.
@pytest.mark.parametrize(
    "row_hits, cases", [("per_bank", [0, 1, 0, 1, 4, 2]), ("window", [0, 1, 0, 1, 5, 1])]
)
def test_hand_worked_window_rule(row_hits, cases):
    cfg = LpmtConfig(n_sets=8, assoc=1, n_secondary=0, n_blocks=1, pages_per_block=8,
                     placement="set_per_bank", n_banks=4, hash="division", row_bytes=8,
                     row_hits=row_hits)  # fmt: skip
    t = Lpmt(cfg, DramTiming(), record=16)
    keys = [0, 1, 2, 3, 1, 0, 6, 4]
    lat = [t.lookup(k)[1] for k in keys]
    assert t.record[0, :8].tolist() == [0, 1, 2, 3, 1, 0, 2, 0]
    assert t.record[1, :8].tolist() == [0, 0, 0, 0, 0, 0, 1, 1]
    assert lat == [4, 4, 4, 4, 4, 4, 11, 19]
    assert t.dram.cases.tolist() == cases


# One full probe of set 0 interleaved over 4 banks (8 ways: banks 0-3, then 0-3 again, one
# row): the first pass meets fresh banks (no repeat); each read of the second pass re-reads
# its bank's row 4 reads after the first. With Fig. 6's window of 4 that is a row hit under
# both rules; with a window of 3 the bank's last read is outside it: a row hit per bank (its
# row is open), "no repeat" under the window rule. DL every read: 32 cycles either way.
@pytest.mark.parametrize(
    "window, row_hits, cases",
    [
        (4, "per_bank", [0, 0, 0, 0, 4, 4]),
        (4, "window", [0, 0, 0, 0, 4, 4]),
        (3, "per_bank", [0, 0, 0, 4, 4]),
        (3, "window", [0, 0, 0, 8, 0]),
    ],
)
@pytest.mark.parametrize("record", [64, 0])  # recorded: read by read; else closed forms
def test_hand_worked_window_rule_second_pass(window, row_hits, cases, record):
    cfg = LpmtConfig(n_sets=8, assoc=8, n_secondary=0, n_blocks=1, pages_per_block=8,
                     placement="interleaved", n_banks=4, hash="division", row_bytes=16,
                     row_hits=row_hits)  # fmt: skip
    t = Lpmt(cfg, DramTiming(window=window), record=record)
    assert t.lookup(0) == (False, 32)
    assert t.dram.cases.tolist() == cases


def test_window_rule_is_the_paper_models():
    with pytest.raises(ConfigError, match="row_hits"):
        Lpmt(LpmtConfig(row_hits="window"), DramTiming(model="ddr4"))
