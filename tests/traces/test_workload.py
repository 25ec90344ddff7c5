"""Workload resolution: real trace first, synthetic stand-in otherwise, never confused."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from skftl.errors import ConfigError, UnknownTraceError
from skftl.traces.requests import Requests, TraceMeta

# the module (skftl.traces re-exports the function under the same name)
wl = importlib.import_module("skftl.traces.workload")

SHARED = Path(__file__).resolve().parents[3] / "shared" / "traces"


def fake_real(name: str) -> Requests:
    one = np.zeros(1, dtype=np.int64)
    return Requests(one, one, one + 4096, np.zeros(1, bool), TraceMeta(name, "msr", sha256="x"))


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """Registered: a, b, c; present on disk: b, c. Records what was loaded."""
    present = {"b": tmp_path / "b.csv", "c": tmp_path / "c.csv"}
    loaded: list[str] = []

    def locate(name, dirs):
        if name not in {"a", "b", "c"}:
            raise UnknownTraceError(name)
        assert dirs == [tmp_path]
        return present.get(name)

    def load(name, dirs, cache_dir):
        loaded.append(name)
        return fake_real(name)

    monkeypatch.setattr(wl, "_locate", locate)
    monkeypatch.setattr(wl, "_load", load)
    return loaded


def test_first_found_real_candidate_wins(registry, tmp_path):
    req = wl.workload("msr_web", candidates=["a", "c", "b"], trace_dirs=[tmp_path])
    assert registry == ["c"]
    assert req.meta.name == "c" and not req.meta.synthetic and req.meta.label == "c"


def test_falls_back_to_the_labelled_synthetic_preset(registry, tmp_path):
    req = wl.workload("msr_web", candidates=["a"], trace_dirs=[tmp_path], n_requests=100, seed=3)
    assert registry == []
    assert req.meta.synthetic and req.meta.label == "msr_web (synthetic)" and len(req) == 100
    assert req.meta.extra["real_candidates_tried"] == ["a"]
    assert req.meta.extra["seed"] == 3


def test_unregistered_candidate_is_a_config_error(registry, tmp_path):
    # issue 22: a typo in a candidate list used to fall back to another trace with a warning
    with pytest.raises(ConfigError, match="workload MSR: candidate 'zzz'"):
        wl.workload("MSR", candidates=["zzz", "b"], trace_dirs=[tmp_path])
    assert registry == []


def test_no_synthetic_when_disallowed_or_unknown(registry, tmp_path):
    with pytest.raises(UnknownTraceError, match="disallowed"):
        wl.workload("msr_web", candidates=["a"], trace_dirs=[tmp_path], allow_synthetic=False)
    with pytest.raises(UnknownTraceError, match="no synthetic preset"):
        wl.workload("not_a_preset", candidates=["a"], trace_dirs=[tmp_path])


def test_a_loader_returning_synthetic_data_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(wl, "_locate", lambda name, dirs: tmp_path / "x")
    monkeypatch.setattr(
        wl, "_load", lambda name, dirs, cache: fake_real(name).with_meta(synthetic=True)
    )
    with pytest.raises(UnknownTraceError, match="synthetic"):
        wl.workload("msr_web", candidates=["a"], trace_dirs=[tmp_path])


def test_candidates_default_to_the_config():
    cfg = {"traces": {"workloads": {"msr_web": ["msr_web_0", "msr_web_0_excerpt"]}}}
    assert wl.configured_candidates("msr_web", cfg) == ["msr_web_0", "msr_web_0_excerpt"]
    assert wl.configured_candidates("other", cfg) == ["other"]
    # the repository config lists candidates (possibly none) for every preset
    from skftl.config import load_config
    from skftl.traces.synthetic import PRESETS

    assert set(PRESETS) <= set(load_config()["traces"]["workloads"])


@pytest.mark.realtrace
def test_real_excerpt_is_found_in_the_shared_folder(tmp_path):
    pytest.importorskip("skftl.traces.registry")
    try:
        from skftl.traces import load_trace  # noqa: F401
    except ImportError:
        pytest.skip("skftl.traces.load_trace not available yet")
    if not SHARED.is_dir():
        pytest.skip("shared traces not present")
    req = wl.workload(
        "msr_web",
        candidates=["msr_web_0", "msr_web_0_excerpt"],
        trace_dirs=[SHARED],
        cache_dir=tmp_path,
    )
    assert not req.meta.synthetic and len(req) == 100_000
    syn = wl.workload("msr_media", candidates=["msr_mds_0"], trace_dirs=[SHARED], n_requests=10)
    assert syn.meta.synthetic


def test_stand_ins_come_from_the_preset_file_or_the_builtin_spec():
    from skftl.traces.locality import profile
    from skftl.traces.synthetic import generate

    old = wl.stand_in("Financial1", 3000, seed=5, source="aggregates")
    assert np.array_equal(old.offset_bytes, generate("Financial1", 3000, seed=5).offset_bytes)
    new = wl.stand_in("Financial1", 20_000, seed=5)  # long enough for the reuse to settle
    again = wl.stand_in("Financial1", 20_000, seed=5)
    for col in ("time_ns", "offset_bytes", "size_bytes", "is_write"):
        assert np.array_equal(getattr(new, col), getattr(again, col))
    assert new.meta.synthetic and "Financial1.yaml" in new.meta.source
    # the published file count (700,873 files in 5,334,987 requests) sets the reuse
    assert profile(new)["reuse_share"] == pytest.approx(1 - 700_873 / 5_334_987, rel=0.1)
    assert profile(old)["reuse_share"] < 0.1
    # no preset file: the built-in spec either way
    assert wl.preset_file("pc_desktop") is None
    desk = wl.stand_in("pc_desktop", 500, seed=1)
    assert np.array_equal(desk.offset_bytes, generate("pc_desktop", 500, seed=1).offset_bytes)
    with pytest.raises(ConfigError, match="traces.stand_ins: 'toy'"):
        wl.stand_in("Financial1", 10, source="toy")
