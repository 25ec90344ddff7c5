"""The `mtpm` study's declared assumptions: exported beside the claims, defaults equal to the
config, every value valid and runnable, and complete: a claim whose value moves when one
assumption takes another value is among the claims that assumption declares it may move."""

from __future__ import annotations

import fnmatch

import numpy as np
import pandas as pd
import pytest

from skftl.config import load_config, validate
from skftl.studies import mtpm
from skftl.studies.assumptions import READING, check_defaults, get_key, with_value
from skftl.studies.claims import evaluate
from skftl.studies.mtpm.claims import CLAIMS, READINGS
from tests.studies.mtpm.test_simulate import tiny_cfg

IDS = [c.id for c in CLAIMS]
BY_KEY = {a.key: a for a in mtpm.ASSUMPTIONS}


def test_exported_and_defaults_equal_config():
    assert "ASSUMPTIONS" in mtpm.__all__
    assert len(BY_KEY) == len(mtpm.ASSUMPTIONS)  # one entry per parameter
    cfg = load_config()
    check_defaults("mtpm", mtpm.ASSUMPTIONS, cfg)
    # the issues' named unstated choice that has a config key is declared
    assert "dcc_decision_ns" in BY_KEY
    assert BY_KEY["dcc_decision_ns"].default == get_key(cfg["mtpm"], "dcc_decision_ns")


def test_values_valid_and_claim_patterns_match():
    cfg = load_config()
    for a in mtpm.ASSUMPTIONS:
        assert 3 <= len(a.values) <= 5 or a.key == READING, a.key
        for p in a.claims:
            assert any(fnmatch.fnmatchcase(i, p) for i in IDS), (a.key, p)
        if a.key == READING:
            assert a.default == READINGS.default
            assert set(a.values) <= set(READINGS.options)
            # a calibration is not a plausible value of an unstated parameter, nor is a
            # reading of the paper's text (what "22.85 % over DCC" measures)
            assert "dcc_calibrated" not in a.values and "points" not in a.values
            continue
        for v in a.values:
            validate(with_value(cfg, "mtpm", a.key, v))  # a ConfigError if not


def _ours(cfg: dict, reading: str = READINGS.default) -> pd.Series:
    ds = mtpm.run(cfg, progress=False)
    return evaluate(CLAIMS, ds, reading).set_index("claim")["ours"]


def _moved(base: pd.Series, other: pd.Series) -> set[str]:
    out = set()
    for cid in base.index:
        a, b = base[cid], other[cid]
        if isinstance(a, float) and isinstance(b, float):
            if not (np.isnan(a) and np.isnan(b)) and not np.isclose(a, b, rtol=1e-12, atol=0):
                out.add(cid)
        elif a != b:
            out.add(cid)
    return out


@pytest.fixture(scope="module")
def tiny() -> dict:
    cfg = tiny_cfg()
    cfg["mtpm"]["workers"] = 1
    cfg["mtpm"]["synthetic"]["traces"] = {"R0": 0, "R25": 25, "R50": 50, "R100": 100}
    cfg["mtpm"]["alpha_sweep"] = [4, 5, 8]
    return cfg


def test_every_value_runs_and_moves_only_declared_claims(tiny):
    base = _ours(tiny)
    moved_any = {}
    for a in mtpm.ASSUMPTIONS:
        if a.key == READING:
            continue
        moved_any[a.key] = set()
        for v in a.alternatives:
            other = _ours(with_value(tiny, "mtpm", a.key, v))
            moved = _moved(base, other)
            undeclared = sorted(c for c in moved if not a.moves(c))
            assert not undeclared, (a.key, v, undeclared)
            moved_any[a.key] |= moved
    # each assumption moves something a claim rests on (it is not declared for nothing)
    for key, moved in moved_any.items():
        assert moved, key
    # DCC's decision latency moves DCC's claims and leaves the token schemes' alone
    assert "fig15.overhead_alpha8.DCC" in moved_any["dcc_decision_ns"]
    assert "fig16.program.KMTPM_SA" not in moved_any["dcc_decision_ns"]


def test_reading_alternatives_move_only_declared_claims(tiny):
    ds = mtpm.run(tiny, progress=False)
    a = BY_KEY[READING]
    base = evaluate(CLAIMS, ds, a.default).set_index("claim")["ours"]
    for v in a.alternatives:
        other = evaluate(CLAIMS, ds, v).set_index("claim")["ours"]
        moved = _moved(base, other)
        assert moved, v
        assert not [c for c in moved if not a.moves(c)], v
