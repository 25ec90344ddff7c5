"""The `bnvm` study's declared assumptions (issue 34): defaults are the config's, every value
is valid and runs, every pattern names claims of the registry, and the capacity sets the log
as the paper's 0.1 % rule says (hand-worked for the traces' devices)."""

from __future__ import annotations

import fnmatch

import pytest

from skftl.config import load_config
from skftl.pcm import LogPolicy, PCMDevice
from skftl.studies import bnvm, scorecard
from skftl.studies import robustness as R
from skftl.studies.assumptions import READING, check_defaults
from tests.studies.bnvm.test_simulate import tiny_config

BY_KEY = {a.key: a for a in bnvm.ASSUMPTIONS}
IDS = [c.id for c in bnvm.CLAIMS]


def test_defaults_are_the_configs_and_every_pattern_names_claims():
    check_defaults("bnvm", bnvm.ASSUMPTIONS, load_config())
    assert {"device.capacity_gib", "idle_pick", READING} <= set(BY_KEY)  # issue 36, 10-11
    for a in bnvm.ASSUMPTIONS:
        for pattern in a.claims:
            assert any(fnmatch.fnmatchcase(i, pattern) for i in IDS), (a.key, pattern)
        assert a.argument.strip() and a.sources.strip()
    # the readings are rescored from one dataset: every one is a value, the default first
    reading = BY_KEY[READING]
    assert reading.default == bnvm.READINGS.default
    assert set(reading.values) == set(bnvm.READINGS.options)
    # every claim scored under the readings is one the reading assumption may move
    for c in bnvm.CLAIMS:
        if c.readings and not c.not_modelled:
            assert reading.moves(c.id), c.id
    # an assumption that reruns the study keeps to a few values
    for a in bnvm.ASSUMPTIONS:
        assert a.key == READING or len(a.values) <= 5, a.key


@pytest.mark.parametrize(
    ("capacity", "pages", "units"),
    # 0.1 % of the device over 4 chips, in whole 128-page refresh units:
    # 16 GiB = 4,194,304 pages -> 1,048.6 per chip -> 8 units; 32 GiB -> 16; 128 GiB -> 65
    [(16.0, 1024, 8), (32.0, 2048, 16), (128.0, 8320, 65)],
)
def test_the_capacity_sets_the_log(capacity, pages, units):
    dev = PCMDevice(capacity_gib=capacity)
    log = LogPolicy()
    assert (log.pages_per_chip(dev), log.refresh_units(dev)) == (pages, units)
    assert capacity in BY_KEY["device.capacity_gib"].values


def test_every_value_is_valid_and_the_study_runs_with_it(monkeypatch, tmp_path):
    """Each alternative passes the schema and a tiny run scores every claim with it; the
    capacity reaches the device's mapping tables and the log of the run."""
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    base = tiny_config(str(tmp_path))
    base["bnvm"]["log"]["log_pages_per_chip"] = None  # the log sized from the capacity
    base["bnvm"]["device"]["pages_per_block"] = 128
    base["bnvm"]["sweep"]["log_pages_per_chip"] = [128, 256]
    default = bnvm.run(base, progress=False)
    for a in bnvm.ASSUMPTIONS:
        if a.key == READING:
            continue
        for value in a.alternatives:
            cfg = R.point_config(base, "bnvm", a.key, value)
            ds = bnvm.run(cfg, progress=False)
            head = scorecard.headline("bnvm", ds)
            assert len(head) == len(bnvm.CLAIMS), (a.key, value)
            if a.key == "device.capacity_gib":
                pages = {16.0: 1024, 32.0: 2048}[value]
                assert ds.attrs["log_pages_per_chip"] == pages
                table = ds["mapping_table_bytes"].sel(scheme="dynamic")
                assert float(table) == pytest.approx(value * 2**30 / 4096 * 4)
            if a.key == "idle_pick":  # the idle-chip choice moves dynamic only
                for scheme in ("static", "static_full", "block"):
                    assert (
                        ds["total_time"]
                        .sel(scheme=scheme)
                        .equals(default["total_time"].sel(scheme=scheme))
                    )
    with pytest.raises(Exception, match="page_size"):
        R.point_config(base, "bnvm", "device.page_size", 0)
