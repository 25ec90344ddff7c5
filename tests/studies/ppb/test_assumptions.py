"""The `ppb` study's declared assumptions: defaults are the config's, every value validates and
runs, the claim patterns name real claims, and each alternative really reaches the claims it
says it may move."""

from __future__ import annotations

import fnmatch

import numpy as np
import pytest

from skftl.config import DEFAULT_CONFIG, load_config, validate
from skftl.studies import ppb as study
from skftl.studies.assumptions import READING, check_defaults, with_value
from skftl.studies.claims import evaluate
from skftl.studies.ppb.assumptions import ASSUMPTIONS
from skftl.studies.ppb.claims import CLAIMS, READINGS

SCORED = [c.id for c in CLAIMS if not c.not_modelled]
CONFIG_KEYS = [a for a in ASSUMPTIONS if a.key != READING]


def test_exported_and_defaults_are_the_configs():
    assert study.ASSUMPTIONS is ASSUMPTIONS
    assert "ASSUMPTIONS" in study.__all__
    check_defaults("ppb", ASSUMPTIONS, load_config())
    keys = [a.key for a in ASSUMPTIONS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("name", ["config.yaml", "tiny.yaml", "paper.yaml"])
def test_every_value_validates(name):
    cfg = load_config(DEFAULT_CONFIG.parent / name)
    for a in CONFIG_KEYS:
        for v in a.values:
            validate(with_value(cfg, "ppb", a.key, v))


def test_claim_patterns_name_scored_claims():
    for a in ASSUMPTIONS:
        for pattern in a.claims:
            hits = fnmatch.filter(SCORED, pattern)
            assert hits, (a.key, pattern)
    # every scored claim rests on the reading at least, and none of the figure-value entries
    # (not modelled) is named
    reading = next(a for a in ASSUMPTIONS if a.key == READING)
    assert all(reading.moves(c) for c in SCORED)
    values = [c.id for c in CLAIMS if c.not_modelled]
    assert not any(a.moves(c) for a in ASSUMPTIONS for c in values)
    # the naive split has no hot/cold lists: the list sizes do not claim to move it
    lists = [a for a in ASSUMPTIONS if a.key.startswith("policy.") and "fraction" in a.key]
    assert lists and not any(a.moves("fig3.split_more_gc_copies.web") for a in lists)


def test_reading_values_are_readings_changing_one_choice():
    reading = next(a for a in ASSUMPTIONS if a.key == READING)
    assert reading.default == READINGS.default
    assert set(reading.values) <= set(READINGS.options)
    # policy (strict-), metric (programs, request) and every other set-up (@...)
    assert {"strict-array", "programs", "request"} <= set(reading.values)
    setups = {v.split("@")[1] for v in reading.values if "@" in v}
    assert setups == {"none", "footprint", "warmup", "aged"}


def _reduced(cfg: dict) -> dict:
    """The default set-up only, one fill seed, ppb_strict as the only extra variant; 6,000
    requests per trace, enough updates of hot data that the iron-hot list's capacity binds
    (at 3,000 the tiny stand-ins fill it under no value, and its fraction changes nothing)."""
    s = cfg["ppb"]
    s["max_requests"] = s["synthetic_requests"] = 6000
    s["preconditioning"]["setups"] = ["fill"]
    s["preconditioning"]["fill_seeds"] = 1
    s["beyond"] = {"n_vbs": [], "max_open": [], "strict": True}
    return cfg


def _ours(cfg: dict) -> dict[str, float]:
    head = evaluate(CLAIMS, study.run(cfg, progress=False), READINGS.default).set_index("claim")
    return {c: float(x) for c, x in head["ours"].items() if isinstance(x, float | int)}


@pytest.fixture(scope="module")
def base_cfg() -> dict:
    return _reduced(load_config(DEFAULT_CONFIG.parent / "tiny.yaml"))


@pytest.fixture(scope="module")
def base_ours(base_cfg) -> dict[str, float]:
    return _ours(base_cfg)


@pytest.mark.parametrize(
    "key, value", [(a.key, v) for a in CONFIG_KEYS for v in a.alternatives], ids=str
)
def test_each_alternative_runs_and_moves_its_claims(base_cfg, base_ours, key, value):
    """The study runs with the value, and at least one claim the assumption names moves (a
    value the study ignored would leave every claim where it was)."""
    a = next(a for a in ASSUMPTIONS if a.key == key)
    ours = _ours(with_value(base_cfg, "ppb", key, value))
    moved = [
        c
        for c in SCORED
        if a.moves(c)
        and c in ours
        and c in base_ours
        and not np.isclose(ours[c], base_ours[c], rtol=0, atol=1e-9)
        and np.isfinite(ours[c])
    ]
    assert moved, (key, value)


def test_the_sweep_s_trim_scores_every_claim_it_evaluates_as_the_full_run():
    """The set-ups, extra traces and beyond-the-paper variants each point skips feed no claim
    under the default reading: a trimmed run scores what it evaluates as the full run."""
    from skftl.studies.ppb.assumptions import _TRIM

    full_cfg = load_config(DEFAULT_CONFIG.parent / "tiny.yaml")
    trimmed_cfg = full_cfg
    for key, value in _TRIM.items():
        trimmed_cfg = with_value(trimmed_cfg, "ppb", key, value)
    validate(trimmed_cfg)
    assert (
        trimmed_cfg["ppb"]["preconditioning"]["setups"]
        != full_cfg["ppb"]["preconditioning"]["setups"]
    )
    full = evaluate(CLAIMS, study.run(full_cfg, progress=False), READINGS.default)
    trimmed = evaluate(CLAIMS, study.run(trimmed_cfg, progress=False), READINGS.default)
    full, trimmed = full.set_index("claim"), trimmed.set_index("claim")
    scored = trimmed.index[trimmed.verdict.isin(["held", "direction only", "missed"])]
    assert len(scored) >= 20
    for c in scored:
        assert (trimmed.loc[c, "ours"], trimmed.loc[c, "verdict"]) == (
            full.loc[c, "ours"],
            full.loc[c, "verdict"],
        ), c
