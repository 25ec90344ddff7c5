"""Every study declares the unstated parameters its claims depend on, with its case: defaults
that are the config's, values the schema takes, sources, and claims that exist."""

from __future__ import annotations

import fnmatch

import pytest

from skftl.config import load_config
from skftl.studies.assumptions import READING, Assumption, check_defaults
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.robustness import point_config


@pytest.mark.parametrize("study", list(STUDIES))
def test_every_study_declares_its_assumptions_with_their_case(study: str) -> None:
    module = study_module(study)
    assumptions = module.ASSUMPTIONS
    assert assumptions and all(isinstance(a, Assumption) for a in assumptions), study
    assert len({a.key for a in assumptions}) == len(assumptions), "a key declared twice"
    cfg = load_config()
    check_defaults(study, assumptions, cfg)
    ids = [c.id for c in module.CLAIMS]
    for a in assumptions:
        for pattern in a.claims:
            assert fnmatch.filter(ids, pattern), f"{study}.{a.key}: {pattern} matches no claim"
        if a.key == READING:
            assert set(a.values) <= set(module.READINGS.options), f"{study}: unknown reading"
            assert a.default == module.READINGS.default
            continue
        for value in a.alternatives:
            point_config(cfg, study, a.key, value)  # the schema takes it
