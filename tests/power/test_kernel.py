"""The power-management kernel against the naive pure-Python reference, token conservation,
the budget guarantee of MTPM / KMTPM / DCC / CTRL, and the Fig. 4 deadlock."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from numba.core.registry import CPUDispatcher

from skftl.errors import ConfigError
from skftl.power import hooks, schemes
from skftl.power.device import CHANNEL_ARBITRATIONS, Device
from skftl.power.profiles import (
    ATOMICS,
    LEVEL_UNIT,
    PROG_EXEC,
    PROG_VERIFY,
    READ_DATAOUT,
    READ_EXEC,
    READ_SETUP,
    SAMPLE_NS,
    Profiles,
    load_profiles,
)
from skftl.power.schemes_ring import _rotate
from skftl.power.sim import OpStream, simulate
from skftl.power.tokens import TokenModel
from skftl.power.variants import device_profiles
from tests.power.reference import reference_simulate

ALL = ["NPM", "PPM", "DCC", "MTPM", "KMTPM_A", "KMTPM_SA", "CTRL"]
GUARANTEED = ["DCC", "MTPM", "KMTPM_A", "KMTPM_SA", "CTRL"]


@st.composite
def tiny_profiles(draw) -> Profiles:
    """Short random staircase profiles (40-400 ns segments) so the reference stays fast."""
    out = []
    for _ in ATOMICS:
        segs = draw(
            st.lists(st.tuples(st.integers(1, 10), st.integers(1, 20)), min_size=1, max_size=4)
        )
        out.append(
            np.concatenate([np.full(n, lvl * LEVEL_UNIT // 20, np.int64) for n, lvl in segs])
        )
    return Profiles(tuple(out), "hypothesis")


@st.composite
def op_streams(draw, n_chips: int) -> OpStream:
    n = draw(st.integers(1, 10))
    kind = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    chip = draw(st.lists(st.integers(0, n_chips - 1), min_size=n, max_size=n))
    msb = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    arr = np.sort(np.array(draw(st.lists(st.integers(0, 3000), min_size=n, max_size=n))))
    return OpStream(np.array(kind), np.array(chip), np.array(msb), arr)


@st.composite
def cases(draw):
    # rings of 3 and 6 chips take the kernel's modulo path, the others its mask path
    n_chips = draw(st.sampled_from([2, 3, 4, 6, 8]))
    ways = draw(st.sampled_from([w for w in (1, 2, 4, 8) if n_chips % w == 0]))
    dev = Device(
        n_chips=n_chips,
        ways_per_channel=ways,
        program_loops=draw(st.integers(1, 2)),
        msb_verifies=draw(st.integers(1, 3)),
        read_model=draw(st.sampled_from(["channel", "chip"])),
        xfer_read_ns=draw(st.sampled_from([0, 40, 130])),
        xfer_program_ns=draw(st.sampled_from([0, 200, 555])),
        xfer_erase_ns=draw(st.sampled_from([0, 40])),
        channel_arbitration=draw(st.sampled_from(CHANNEL_ARBITRATIONS)),
        subatomic_guard_pct=draw(st.sampled_from([0, 10, 100])),
    )
    scheme = draw(st.sampled_from(ALL))
    n_rings = 1
    if scheme in ("MTPM", "KMTPM_A", "KMTPM_SA"):
        n_rings = draw(st.sampled_from([r for r in (1, 2) if n_chips % r == 0]))
    tg = draw(st.integers(2, 4))
    alpha = n_rings * draw(st.integers(1, 3))
    prof = draw(tiny_profiles())
    ops = draw(op_streams(n_chips))
    msg = draw(st.sampled_from([0, 25])) if scheme == "CTRL" else 0
    dcc = draw(st.sampled_from(["atomic", "subatomic"]))
    lat = draw(st.sampled_from([0, 40, 370])) if scheme == "DCC" else 0
    return ops, scheme, prof, dev, TokenModel(alpha, tg), n_rings, msg, dcc, lat


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_kernel_matches_reference(case):
    ops, scheme, prof, dev, tok, n_rings, msg, dcc, lat = case
    kw = {"n_rings": n_rings, "ctrl_msg_ns": msg, "dcc_model": dcc, "dcc_decision_ns": lat}
    res = simulate(ops, scheme, prof, dev, tok, check_tokens=True, **kw)
    ref = reference_simulate(ops, scheme, prof, dev, tok, **kw)
    assert np.array_equal(res.op_done, ref["op_done"])
    assert np.array_equal(res.op_start, ref["op_start"])
    assert np.array_equal(res.op_issue, ref["op_issue"])
    assert np.array_equal(res.wait_ns, ref["wait_ns"])
    assert res.stats["peak_current"] == ref["peak_current"]
    assert res.stats["violation_samples"] == ref["violation_samples"]
    assert res.stats["conservation_errors"] == 0 == ref["conservation_errors"]
    assert res.completed


@st.composite
def default_mixes(draw):
    n = draw(st.integers(1, 60))
    kind = draw(st.lists(st.sampled_from([0, 0, 1, 1, 2]), min_size=n, max_size=n))
    chip = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    msb = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    arr = np.sort(np.array(draw(st.lists(st.integers(0, 2_000_000), min_size=n, max_size=n))))
    return OpStream(np.array(kind), np.array(chip), np.array(msb), arr)


PROFILES = load_profiles()


@settings(max_examples=40, deadline=None)
@given(
    default_mixes(),
    st.sampled_from(GUARANTEED),
    st.sampled_from([2, 3, 4, 5, 6, 8]),
    st.sampled_from([2, 3, 4, 5]),
    st.sampled_from([0, 40_960]),
    st.sampled_from(["atomic", "subatomic"]),
    st.sampled_from(["channel", "chip"]),
    st.sampled_from([0, 16_000]),
    st.tuples(
        st.sampled_from(CHANNEL_ARBITRATIONS),
        st.sampled_from([0, 25, 100]),
        st.sampled_from([0.5, 0.7, 1.0]),
    ),
)
def test_managed_schemes_never_exceed_budget(ops, scheme, alpha, tg, xfer, dcc, read, lat, opt):
    """Every 40 ns sample of the summed current stays within PB, tokens are conserved at
    every event, and every operation completes (either read model, any DCC latency, channel
    arbitration, sub-atomic guard band and read current)."""
    arb, guard, scale = opt
    dev = Device(
        xfer_program_ns=xfer,
        read_model=read,
        channel_arbitration=arb,
        subatomic_guard_pct=guard,
        read_current_scale=scale,
    )
    prof = device_profiles(PROFILES, dev)
    res = simulate(
        ops, scheme, prof, dev, TokenModel(alpha, tg), check_tokens=True, dcc_model=dcc,
        dcc_decision_ns=lat,
    )  # fmt: skip
    assert res.violations == 0
    assert res.stats["peak_current"] <= alpha * LEVEL_UNIT
    assert res.stats["conservation_errors"] == 0
    assert res.completed


def test_unmanaged_schemes_do_violate_on_a_burst():
    """The property above is not vacuous: NPM and PPM exceed the budget on the same kind of
    input (8 simultaneous reads: 8 x 0.8543 I_max > 4 I_max)."""
    ops = OpStream(np.zeros(8), np.arange(8), np.zeros(8), np.zeros(8))
    for scheme in ("NPM", "PPM"):
        res = simulate(ops, scheme, PROFILES, Device(), TokenModel(4, 4))
        assert res.violations > 0
        assert res.stats["peak_current"] == round(8 * 0.8543 * LEVEL_UNIT)


def _fig4_profiles() -> Profiles:
    """TT = 15 (alpha 1, TG 4). Erase execution needs 5 tokens, read setup 12, program
    execution 8; every other atomic operation 1 token."""
    low = np.full(5, LEVEL_UNIT // 20, np.int64)
    lv = {"erase_exec": 0.3333, "read_setup": 0.8, "prog_exec": 0.5}
    out = []
    for name in ATOMICS:
        if name in lv:
            out.append(np.full(25, round(lv[name] * LEVEL_UNIT), np.int64))  # 1 us
        else:
            out.append(low)
    return Profiles(tuple(out), "fig4")


def _fig4_ops(hop: int) -> OpStream:
    # w0 erases from t=0 and gets all tokens when they come round (slot 4); w2's read and
    # w1's program arrive just after the token packet has passed them
    return OpStream(
        kind=np.array([2, 0, 1]),
        chip=np.array([0, 2, 1]),
        msb=np.zeros(3),
        arrival_ns=np.array([0, 4 * hop + 1, 5 * hop + 1]),
    )


def test_fig4_deadlock_without_key_and_completion_with_it():
    dev = Device(n_chips=4, ways_per_channel=4, program_loops=1)
    tok = TokenModel(1, 4)
    hop = round(tok.transfer_cycles() * dev.cycle_ns)
    prof = _fig4_profiles()
    ops = _fig4_ops(hop)
    nokey = simulate(ops, "NOKEY", prof, dev, tok, check_tokens=True)
    assert nokey.op_done[0] >= 0  # w0 finishes ...
    assert nokey.op_done[1] == -1 and nokey.op_done[2] == -1  # ... w2 and w1 never start
    assert nokey.op_start[1] == -1 and nokey.op_start[2] == -1
    assert nokey.stats["conservation_errors"] == 0
    ref = reference_simulate(ops, "NOKEY", prof, dev, tok)
    assert np.array_equal(ref["op_done"], nokey.op_done)
    for scheme in ("MTPM", "KMTPM_A", "KMTPM_SA"):
        res = simulate(ops, scheme, prof, dev, tok, check_tokens=True)
        assert res.completed, scheme
        assert res.stats["conservation_errors"] == 0


def test_no_key_variant_holds_partial_tokens_like_fig4():
    """In the deadlock the 15 tokens sit as 10 at w2 (needs 12) and 5 at w1 (needs 8)."""
    dev = Device(n_chips=4, ways_per_channel=4, program_loops=1)
    tok = TokenModel(1, 4)
    hop = round(tok.transfer_cycles() * dev.cycle_ns)
    ref = reference_simulate(_fig4_ops(hop), "NOKEY", _fig4_profiles(), dev, tok)
    assert ref["op_done"][0] >= 0 and ref["op_done"][2] == -1


@pytest.mark.parametrize("scheme", ["MTPM", "KMTPM_SA"])
def test_multi_ring_keeps_each_ring_within_its_share(scheme):
    ops = OpStream(np.ones(16), np.arange(16) % 8, np.zeros(16), np.zeros(16))
    res = simulate(
        ops, scheme, PROFILES, Device(ways_per_channel=4), TokenModel(4, 4), n_rings=2,
        check_tokens=True,
    )  # fmt: skip
    assert res.completed and res.violations == 0 and res.stats["conservation_errors"] == 0


def test_recorded_series_matches_peak():
    ops = OpStream(np.array([1, 0, 1, 0]), np.arange(4), np.zeros(4), np.zeros(4))
    res = simulate(ops, "NPM", PROFILES, Device(), TokenModel(4, 4), record_bin_samples=1)
    assert res.series.max() == res.stats["peak_current"]
    assert len(res.series) * SAMPLE_NS >= res.makespan_ns


def test_dcc_reserves_nothing_for_an_operation_still_on_the_channel():
    """Chip 0 has read and now transfers a program (41 us on its channel) when chip 1's read
    is scheduled. Only operations already scheduled reserve an envelope: chip 1 starts at
    once. (DCC used to count chip 0 with its read's start time and the program's envelope,
    whose pre-charge pieces plus the read exceed PB = I_max, and delayed chip 1.)"""
    dev = Device(n_chips=2, ways_per_channel=1, xfer_program_ns=40_960, xfer_read_ns=40)
    tok = TokenModel(1, 4)
    ops = OpStream(
        kind=np.array([0, 1, 0]),
        chip=np.array([0, 0, 1]),
        msb=np.zeros(3),
        arrival_ns=np.array([0, 0, 60_000]),
    )
    for model in ("atomic", "subatomic"):
        res = simulate(ops, "DCC", PROFILES, dev, tok, dcc_model=model)
        ref = reference_simulate(ops, "DCC", PROFILES, dev, tok, dcc_model=model)
        assert res.op_done[0] < 60_040 < res.op_issue[1]  # chip 0's program on the channel
        assert res.op_start[2] == res.op_issue[2] == 60_040, model
        assert np.array_equal(res.op_start, ref["op_start"])
        assert np.array_equal(res.op_done, ref["op_done"])
        assert res.violations == 0


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([1, 2, 3, 8, 33, 63, 64]).flatmap(
        lambda m: st.tuples(st.just(m), st.integers(0, m - 1), st.integers(0, 2**m - 1))
    )
)
@example((64, 1, 2**63 + 2))  # the sign bit must move like any other (no sign extension)
@example((64, 63, 2**63 + 1))
def test_ring_mask_rotation(case):
    """A packet is re-targeted by walking its ring's mask of waiting chips rotated to its
    first stop (``schemes_ring._rotate``): any ring size up to 64 chips (the mask's sign bit)."""
    m, r, w = case
    want = ((w >> r) | (w << (m - r))) & ((1 << m) - 1)
    got = int(_rotate(np.int64(w - 2**64 if w >= 2**63 else w), r, m))
    assert got % 2**64 == want


def test_every_family_hook_is_routed():
    """``schemes.py`` passes each hook a family defines to that family (a hook it does not
    route would silently run NPM's), and a family defines nothing but hooks and helpers."""
    for family in schemes.FAMILIES.values():
        name = family.__name__.rsplit(".", 1)[-1]
        public = {
            n
            for n, v in vars(family).items()
            if isinstance(v, CPUDispatcher)
            and v.py_func.__module__ == family.__name__
            and not n.startswith("_")
        }
        if family is hooks:
            assert public == set(hooks.HOOKS)
            continue
        assert public <= set(hooks.HOOKS), (name, public - set(hooks.HOOKS))
        for hook in public:
            router = inspect.getsource(getattr(schemes, hook).py_func)
            assert f"{name}.{hook}(" in router, (name, hook)


def test_read_dataout_queues_on_the_channel():
    """Two reads on two chips of one channel, unmanaged: under the channel read model the
    second page waits for the first on the bus; inside the chip both finish together."""
    ops = OpStream(np.zeros(2), np.arange(2), np.zeros(2), np.zeros(2))
    prof = load_profiles()
    done = {}
    for model in ("channel", "chip"):
        dev = Device(n_chips=2, ways_per_channel=2, read_model=model)
        p = device_profiles(prof, dev)
        done[model] = simulate(ops, "NPM", p, dev, TokenModel(1, 4)).op_done
        if model == "channel":  # tR (setup + execution) is still Table IV's 52 us
            assert p.duration_ns(READ_SETUP) + p.duration_ns(READ_EXEC) == 52_000
            assert p.duration_ns(READ_DATAOUT) == dev.read_dataout_ns
    assert done["channel"][1] - done["channel"][0] == Device().read_dataout_ns
    assert done["chip"][0] == done["chip"][1] == 52_000


def test_verify_resplit_keeps_table_iv_program_times():
    prof = load_profiles()
    for k in (2, 3, 4):
        dev = Device(msb_verifies=k, read_model="chip")
        p = device_profiles(prof, dev)
        e, v = p.duration_ns(PROG_EXEC), p.duration_ns(PROG_VERIFY)
        assert dev.program_loops * (e + v) == 770_000  # tPROG LSB
        assert dev.program_loops * (e + k * v) == 1_022_000  # tPROG MSB
    with pytest.raises(ConfigError, match="msb_verifies"):
        device_profiles(prof, Device(msb_verifies=1))


def test_dcc_decisions_are_serialised_in_the_controller():
    """DCC's controller takes ``dcc_decision_ns`` per decision, one at a time: three erases
    arriving together start after one, two and three decisions (the budget fits them all)."""
    ops = OpStream(np.full(3, 2), np.arange(3), np.zeros(3), np.zeros(3))
    dev = Device(n_chips=4, ways_per_channel=4)
    for lat in (0, 1_000):
        res = simulate(ops, "DCC", PROFILES, dev, TokenModel(4, 4), dcc_decision_ns=lat)
        assert res.op_start.tolist() == [lat, 2 * lat, 3 * lat]
