"""Current profiles, token modelling (eqs. 1-3), op-stream mapping and profile variants."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.errors import ConfigError, TraceFormatError
from skftl.power.device import OP_ERASE, OP_PROGRAM, OP_READ, Device
from skftl.power.profiles import (
    ATOMICS,
    ERASE_EXEC,
    LEVEL_UNIT,
    PROG_EXEC,
    READ_EXEC,
    load_profiles,
    sub_atomic_split,
)
from skftl.power.sim import OpStream, simulate
from skftl.power.tokens import TokenModel, latency_overhead_cycles
from skftl.power.variants import VARIANTS, device_profiles, profile_variant
from skftl.power.workload import ops_from_requests
from skftl.traces.requests import Requests, TraceMeta

PROF = load_profiles()


def test_default_profiles_carry_what_the_paper_states():
    tok = TokenModel(4, 4)
    assert PROF.peak(PROG_EXEC) == LEVEL_UNIT  # pre-charge is I_max
    assert PROF.peak(READ_EXEC) == round(0.8543 * LEVEL_UNIT)
    assert PROF.peak(ERASE_EXEC) == round(0.7229 * LEVEL_UNIT)
    assert max(PROF.peak(a) for a in range(len(ATOMICS))) == LEVEL_UNIT
    sa = PROF.sub_atomic(PROG_EXEC)
    assert tok.required_tokens(PROF.peak(PROG_EXEC)) == 15
    assert [tok.required_tokens(p) for p in sa.peak] == [15, 8, 2]
    counts = [len(PROF.sub_atomic(a).peak) for a in range(len(ATOMICS))]
    assert counts[0] + counts[1] == 6 and sum(counts[2:5]) == 8 and sum(counts[5:]) == 9
    dev = Device()
    dur = [sum(PROF.duration_ns(a) for a in t) for t in dev.templates()]
    assert dur == [52_000, 770_000, 1_022_000, 7_400_000]  # Table IV
    assert len(dev.templates()[1]) == 20  # Table III: 20 atomic operations per LSB program


def test_merge_rule_joins_rises_and_splits_drops():
    s = np.array([5] * 25 + [9] * 25 + [4] * 25 + [6] * 25 + [2] * 25, np.int64)  # 1 us steps
    sa = sub_atomic_split(s, 500)
    # 5 then 9 join (rise); 4 starts a new one that 6 joins; 2 starts the last
    assert sa.peak.tolist() == [9, 6, 2]
    assert (sa.start * 40).tolist() == [0, 2000, 4000]
    # a group that grows back above its predecessor is merged into it (monotone peaks)
    s2 = np.array([5] * 25 + [3] * 25 + [7] * 25 + [1] * 25, np.int64)
    assert sub_atomic_split(s2, 500).peak.tolist() == [7, 1]


def test_token_model_equations():
    tok = TokenModel(4, 4)
    assert tok.total_tokens == 60 and tok.budget_units == 4 * LEVEL_UNIT
    assert tok.token_bits == 6 and tok.transfer_cycles() == 7  # Sec. III-E
    assert tok.required_tokens(LEVEL_UNIT) == 15
    assert tok.required_tokens(round(0.8543 * LEVEL_UNIT)) == 13
    assert tok.required_tokens(1) == 1
    # Table III: program LSB 40 / 1020 cycles, read 6 / 153, erase 4 / 102
    assert [latency_overhead_cycles(n, 7, k) for n in (20, 3, 2) for k in (0, 7)] == [
        40, 1020, 6, 153, 4, 102,
    ]  # fmt: skip
    with pytest.raises(ConfigError):
        TokenModel(0.5, 4)
    with pytest.raises(ConfigError):
        TokenModel(2.5, 2)  # 7.5 tokens


def test_sampled_profile_csv_roundtrip(tmp_path):
    rows = ["atomic,sample,current"]
    for a, name in enumerate(ATOMICS):
        for k, v in enumerate(PROF.samples[a][::1]):
            rows.append(f"{name},{k},{v * 0.05 / LEVEL_UNIT:.9f}")  # in amperes, I_max = 50 mA
    p = tmp_path / "measured.csv"
    p.write_text("\n".join(rows) + "\n")
    got = load_profiles(p)
    for a in range(len(ATOMICS)):
        assert np.array_equal(got.samples[a], PROF.samples[a])


@pytest.mark.parametrize(
    ("body", "line", "what"),
    [
        ("prog_exec,1000,1.5\n", 3, "level"),
        ("prog_exc,1000,0.5\n", 3, "unknown atomic"),
        ("prog_exec,1001,0.5\n", 3, "multiple of 40"),
    ],
)
def test_profile_errors_name_file_line_and_value(tmp_path, body, line, what):
    p = tmp_path / "bad.csv"
    p.write_text("# comment\natomic,duration_ns,level\n" + body)
    with pytest.raises(TraceFormatError) as exc:
        load_profiles(p)
    assert exc.value.line == line and what in str(exc.value) and "bad.csv" in str(exc.value)


def test_missing_atomic_is_an_error(tmp_path):
    p = tmp_path / "short.csv"
    p.write_text("atomic,duration_ns,level\nprog_exec,1000,1.0\n")
    with pytest.raises(TraceFormatError, match="missing"):
        load_profiles(p)


def test_requests_map_to_chips_by_address():
    meta = TraceMeta(name="t", format="test")
    req = Requests(
        time_ns=np.array([0, 10, 20]),
        offset_bytes=np.array([0, 8192 * 9, 8192]),
        size_bytes=np.array([16384, 8192, 8192]),
        is_write=np.array([True, False, True]),
        meta=meta,
    )
    ops = ops_from_requests(req, n_chips=8, page_size=8192, n_ops=100, erase_every=2)
    # pages 0,1 (write) -> chips 0,1; page 9 (read) -> chip 1; page 1 (write) -> chip 1
    # an erase follows the 2nd program (on its chip)
    assert ops.kind.tolist() == [OP_PROGRAM, OP_PROGRAM, OP_ERASE, OP_READ, OP_PROGRAM]
    assert ops.chip.tolist() == [0, 1, 1, 1, 1]
    assert ops.msb.tolist() == [0, 0, 0, 0, 1]  # chip 1's second program is an MSB page
    assert np.all(ops.arrival_ns == 0)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_keep_peaks_and_lsb_program_time(name):
    v = profile_variant(PROF, name)
    for a in range(len(ATOMICS)):
        assert v.peak(a) == PROF.peak(a)
        if name != "short_exec":
            assert v.duration_ns(a) == PROF.duration_ns(a)
    lsb, read = Device().templates()[1], Device().templates()[0]
    assert sum(v.duration_ns(a) for a in lsb) == 770_000
    assert sum(v.duration_ns(a) for a in read) == 52_000


def test_token_ring_size_is_bounded():
    """A ring's live packets are one bit each in an int64: more than 64 chips per ring is a
    clear ConfigError (more rings are fine), not a silent wrong result."""
    ops = OpStream(np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1))
    dev = Device(n_chips=128, ways_per_channel=8)
    with pytest.raises(ConfigError, match="token ring of 128 chips"):
        simulate(ops, "KMTPM_SA", PROF, dev, TokenModel(4, 4))
    assert simulate(ops, "KMTPM_SA", PROF, dev, TokenModel(8, 4), n_rings=2).completed


def test_read_current_scale_scales_every_read_phase_and_nothing_else():
    """``device.read_current_scale``: each read phase's current times the scale, shapes and
    durations kept; the sentences the default rests on hold at 0.6 (a read's execution 8 of
    15 tokens, fewer than an erase's 11; 8 reads above the 4 I_max of alpha = 4) and fail at
    the 85.43 % of the shipped profiles (13 tokens) and at 0.5 (8 reads under 4 I_max)."""
    tok = TokenModel(4, 4)
    reads = [ATOMICS.index(a) for a in ("read_setup", "read_exec", "read_dataout")]
    for scale, tokens, burst_over_budget in ((1.0, 13, True), (0.6, 8, True), (0.5, 7, False)):
        dev = Device(read_model="chip", read_current_scale=scale)
        prof = device_profiles(PROF, dev)
        for a in range(len(ATOMICS)):
            want = np.round(PROF.samples[a] * scale) if a in reads else PROF.samples[a]
            assert np.array_equal(prof.samples[a], want), (scale, ATOMICS[a])
        assert tok.required_tokens(prof.peak(READ_EXEC)) == tokens
        assert (8 * prof.peak(READ_EXEC) > tok.budget_units) == burst_over_budget
        assert tokens < 11 or scale == 1.0  # an erase needs 11
        assert tok.required_tokens(prof.peak(ERASE_EXEC)) == 11
    with pytest.raises(ConfigError, match="read_current_scale"):
        Device(read_current_scale=0.0)
    with pytest.raises(ConfigError, match="channel_arbitration"):
        Device(channel_arbitration="round_robin")
    with pytest.raises(ConfigError, match="subatomic_guard_pct"):
        Device(subatomic_guard_pct=-1)
