"""Hand-worked timings of the power kernel's channel arbitration and of the sub-atomic guard
band: a few operations whose every issue, start and completion time is worked out below from
the rules (the docstrings of skftl/power/kernel.py and the scheme modules beside it), checked
against the kernel and the reference."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.power.device import Device
from skftl.power.profiles import (
    ATOMICS,
    LEVEL_UNIT,
    PROG_EXEC,
    PROG_VERIFY,
    READ_DATAOUT,
    READ_EXEC,
    READ_SETUP,
    Profiles,
)
from skftl.power.sim import OpStream, simulate
from skftl.power.tokens import TokenModel
from tests.power.reference import reference_simulate


def _flat(**atomics: tuple[int, float]) -> Profiles:
    """Profiles of flat atomic operations: name -> (duration in ns, level in I_max); the
    others 40 ns at 0.05 I_max."""
    out = []
    for name in ATOMICS:
        ns, level = atomics.get(name, (40, 0.05))
        out.append(np.full(ns // 40, round(level * LEVEL_UNIT), np.int64))
    return Profiles(tuple(out), "hand-worked")


def _check(ops, scheme, prof, dev, tok, issue, start, done):
    res = simulate(ops, scheme, prof, dev, tok, check_tokens=True)
    ref = reference_simulate(ops, scheme, prof, dev, tok)
    assert res.op_issue.tolist() == issue
    assert res.op_start.tolist() == start
    assert res.op_done.tolist() == done
    for key in ("op_issue", "op_start", "op_done"):
        assert np.array_equal(ref[key], getattr(res, key)), key
    assert res.stats["conservation_errors"] == 0


# Two chips share one channel; each has two reads queued at t = 0 (ops 0 and 2 on chip 0, 1 and
# 3 on chip 1). A read command takes 40 ns of channel, setup + execution 3000 ns on the chip,
# the data-out 4000 ns of channel. No management (NPM).
#
# Common to every arbitration: the commands go 0-40 (chip 0) and 40-80 (chip 1); chip 0's
# data-out asks for the channel at 40 + 3000 = 3040 and gets it at once (3040-7040, op 0 done
# at 7040); chip 1's asks at 80 + 3000 = 3080 and waits. At 7040 chip 0's next command (op 2)
# and chip 1's data-out both wait for the channel:
#
# commands_first: the command first (7040-7080), chip 1's data-out 7080-11080 (op 1 done);
#   op 2 issued at 7080, its data-out asks at 10080 and waits; at 11080 chip 1's command
#   (op 3) goes first (11080-11120), then op 2's data-out 11120-15120; op 3's data-out asks
#   at 11120 + 3000 = 14120 and runs 15120-19120.
# dataout_first: chip 1's data-out first (7040-11040, op 1 done), then the two commands, the
#   older first: op 2's (waiting since 7040) 11040-11080, op 3's 11080-11120; op 2's data-out
#   at 14080-18080, op 3's (asks at 14120) 18080-22080.
# fifo: each transfer booked when requested: chip 1's data-out (asked at 3080) 7040-11040,
#   op 2's command (asked at 7040) after it, 11040-11080, op 3's (asked at 11040) 11080-11120;
#   the data-outs as under dataout_first.
ARBITRATION = {
    "commands_first": ([40, 80, 7080, 11120], [40, 80, 7080, 11120], [7040, 11080, 15120, 19120]),
    "dataout_first": ([40, 80, 11080, 11120], [40, 80, 11080, 11120], [7040, 11040, 18080, 22080]),
    "fifo": ([40, 80, 11080, 11120], [40, 80, 11080, 11120], [7040, 11040, 18080, 22080]),
}


@pytest.mark.parametrize("arbitration", list(ARBITRATION))
def test_channel_arbitration_by_hand(arbitration):
    prof = _flat(read_setup=(1000, 0.3), read_exec=(2000, 0.3), read_dataout=(4000, 0.1))
    dev = Device(n_chips=2, ways_per_channel=2, xfer_read_ns=40, channel_arbitration=arbitration)
    ops = OpStream(np.zeros(4), np.array([0, 1, 0, 1]), np.zeros(4), np.zeros(4))
    issue, start, done = ARBITRATION[arbitration]
    _check(ops, "NPM", prof, dev, TokenModel(2, 4), issue, start, done)


def test_dcc_decides_a_data_out_once_the_channel_is_granted():
    """DCC on an arbitrated channel, 1 us per decision: chip 0's and chip 1's reads arrive at
    0. The commands go 0-40 and 40-80; DCC decides each read's chip part when its command ends
    (one decision at a time): chip 0's at 40 + 1000 = 1040, chip 1's at 2040 (the controller is
    busy until 1040, then 1 us). Chip 0's data-out asks at 1040 + 3000 = 4040, gets the channel
    at once and DCC decides it by 5040 (data-out 5040-9040, op 0 done); chip 1's asks at 5040,
    waits for the channel until 9040, is decided by 10040 and runs 10040-14040."""
    prof = _flat(read_setup=(1000, 0.3), read_exec=(2000, 0.3), read_dataout=(4000, 0.1))
    dev = Device(n_chips=2, ways_per_channel=2, xfer_read_ns=40)
    ops = OpStream(np.zeros(2), np.array([0, 1]), np.zeros(2), np.zeros(2))
    kw = {"dcc_decision_ns": 1000}
    res = simulate(ops, "DCC", prof, dev, TokenModel(2, 4), **kw)
    ref = reference_simulate(ops, "DCC", prof, dev, TokenModel(2, 4), **kw)
    assert res.op_issue.tolist() == [40, 80]
    assert res.op_start.tolist() == [1040, 2040]
    assert res.op_done.tolist() == [9040, 14040]
    assert np.array_equal(ref["op_done"], res.op_done)


# The guard band. alpha = 1, TG = 4: 15 tokens on a ring of 2 chips, a hop is 1 key bit + 4
# token bits = 5 cycles = 25 ns, a decision 10 ns. Chip 1 programs (one loop): execution 1000 ns
# at I_max (15 tokens) then 1000 ns at 0.5 I_max (8 tokens), two sub-atomic operations, then a
# 1000 ns verify at 0.1 I_max (2 tokens). Chip 0 reads: setup, execution, data-out, 1000 ns each
# at 0.4 I_max (6 tokens), the data-out inside the chip. Both arrive at 0 (no transfer time).
#
# The tokens and the key leave chip 0 in slot 0 and reach chip 1 at 25: it starts its
# execution at 35 and sends the key on (chip 0 holds it from 50, waiting with no tokens).
# guard 0 %: the pre-charge's 7 surplus tokens return at its nominal end, 35 + 1000 = 1035;
#   they leave in slot 42 (1050) and reach chip 0 at 1075: its read starts at 1085 and runs
#   three atomic operations of 1000 ns, each after a 10 ns decision: done at 4105.
# guard 50 %: returned at 35 + 1520 (1000 x 1.5 on the 40 ns grid): leave in slot 63 (1575),
#   reach chip 0 at 1600: start 1610, done 4630.
# guard 100 %: 2000 ns is the execution's end: the 7 tokens return with it at 2035, when the
#   verify starts (2045) on 2 of the 8 it holds and sends 6 on: 13 tokens leave in slot 82
#   (2050) and reach chip 0 at 2075: start 2085, done 5105.
# The program's own times do not move: its execution still ends at 2035 and its verify, on
# tokens it keeps, runs 2045-3045.
GUARD = {0: (1085, 4105), 50: (1610, 4630), 100: (2085, 5105)}


@pytest.mark.parametrize("guard", list(GUARD))
def test_subatomic_guard_band_by_hand(guard):
    prof = _flat(
        read_setup=(1000, 0.4), read_exec=(1000, 0.4), read_dataout=(1000, 0.4),
        prog_verify=(1000, 0.1),
    )  # fmt: skip
    samples = list(prof.samples)
    samples[PROG_EXEC] = np.repeat([LEVEL_UNIT, LEVEL_UNIT // 2], 25).astype(np.int64)
    prof = Profiles(tuple(samples), "hand-worked")
    assert prof.sub_atomic(PROG_EXEC).peak.tolist() == [LEVEL_UNIT, LEVEL_UNIT // 2]
    assert [prof.duration_ns(a) for a in (READ_SETUP, READ_EXEC, READ_DATAOUT)] == [1000] * 3
    assert prof.duration_ns(PROG_VERIFY) == 1000
    dev = Device(
        n_chips=2, ways_per_channel=1, program_loops=1, read_model="chip",
        subatomic_guard_pct=guard,
    )  # fmt: skip
    ops = OpStream(np.array([0, 1]), np.array([0, 1]), np.zeros(2), np.zeros(2))
    read_start, read_done = GUARD[guard]
    tok = TokenModel(1, 4)
    _check(ops, "KMTPM_SA", prof, dev, tok, [0, 0], [read_start, 35], [read_done, 3045])


def test_guard_band_leaves_the_other_schemes_alone():
    """Only the token protocol times sub-atomic returns: MTPM, KMTPM (atomic), PPM and DCC run
    the same with any guard band."""
    prof = _flat(prog_exec=(2000, 1.0), read_exec=(3000, 0.8))
    ops = OpStream(np.array([1, 0, 1, 0]), np.array([0, 1, 2, 3]), np.zeros(4), np.zeros(4))
    for scheme in ("PPM", "DCC", "MTPM", "KMTPM_A"):
        done = {
            g: simulate(ops, scheme, prof, Device(n_chips=4, ways_per_channel=4,
                                                  subatomic_guard_pct=g), TokenModel(2, 4)).op_done
            for g in (0, 100)
        }  # fmt: skip
        assert np.array_equal(done[0], done[100]), scheme
