"""Workload profiles, preset files and `skftl traces profile|synth` (issue 19 part D2)."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from skftl.cli import main
from skftl.errors import ConfigError
from skftl.traces import read_trace
from skftl.traces.profile import load_preset, measure, profile_trace, write_preset
from skftl.traces.requests import Requests, TraceMeta
from skftl.traces.synthetic import generate


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    monkeypatch.delenv("SKFTL_CACHE_DIR", raising=False)


def _trace(rows: list[tuple[int, int, int, bool]]) -> Requests:
    t, off, size, w = map(np.array, zip(*rows, strict=True))
    return Requests(t, off, size, w, TraceMeta(name="hand", format="test", source="hand.trace"))


def test_measure_by_hand():
    # write A (pages 0-1), read A (hits written), write A again (rewrite), read B (page 8)
    req = _trace(
        [(0, 0, 8192, True), (10, 0, 4096, False), (20, 0, 8192, True), (30, 32768, 4096, False)]
    )
    p = measure(req)
    assert p["read_fraction"] == 0.5
    assert p["write_sizes"] == [8192] and p["read_sizes"] == [4096]
    assert p["write_size_probs"] == p["read_size_probs"] == [1.0]
    assert p["alignment_bytes"] == 4096
    assert p["footprint_pages"] == 3 and p["address_span_bytes"] == 36864
    assert p["rewrite_share"] == 0.5  # 2 of 4 page writes
    assert p["read_hit_written_share"] == 0.5  # page 0 read after its write; page 8 not
    assert p["reuse_share"] == 0.5 and p["median_reuse_distance"] == 1.0  # each to the latest
    assert p["iops"] == pytest.approx(4 / 30e-9)


def test_preset_file_round_trip(tmp_path):
    preset = profile_trace(generate("msr_web", 3000, seed=3))
    assert preset.provenance.kind == "measured" and preset.provenance.n_requests == 3000
    path = write_preset(preset, tmp_path / "p.yaml")
    assert load_preset(path) == preset


@pytest.mark.parametrize(
    "edit, field",
    [
        ({"footprint_pages": -5}, "profile.footprint_pages"),
        ({"rewrite_share": 1.5}, "profile.rewrite_share"),
        ({"read_fraction": -0.1}, "profile.read_fraction"),
        ({"alignment_bytes": 1000}, "profile.alignment_bytes"),
        ({"read_size_probs": [0.5]}, "profile"),  # a cross-field check: named in the text
        ({"footprint_growth": [0.5, 0.2, 1.0]}, "profile.footprint_growth"),
        ({"a_later_measure": "high"}, "profile"),  # undeclared keys must be numbers
        ({"reuse_share": None}, "profile.reuse_share"),
    ],
)
def test_bad_preset_names_file_and_field(tmp_path, edit, field):
    data = profile_trace(generate("Financial1", 500)).model_dump(mode="json")
    data["profile"].update(edit)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=rf"^{path}: field {field}: "):
        load_preset(path)


def test_missing_field_and_not_a_mapping(tmp_path):
    data = profile_trace(generate("Financial1", 500)).model_dump(mode="json")
    del data["profile"]["footprint_pages"]
    path = tmp_path / "missing.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="field profile.footprint_pages: Field required"):
        load_preset(path)
    path.write_text("- 1\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_preset(path)


def test_cli_profile_synth_profile(tmp_path, capsys):
    """profile -> preset file -> synth -> profile: the Table III aggregates come back."""
    src = tmp_path / "src.trace"
    cache = ["--cache-dir", str(tmp_path / "c")]
    req = generate("Financial2", 4000, seed=1)
    from skftl.traces.export import write_mqsim

    write_mqsim(req, src)
    preset = tmp_path / "fin2.yaml"
    assert main([*cache, "traces", "profile", str(src), "-o", str(preset)]) == 0
    out = capsys.readouterr().out
    assert "\nread_fraction: 0.82" in out and f"wrote {preset}" in out
    syn = tmp_path / "syn.trace"
    args = ["traces", "synth", "--like", str(preset), "-n", "4000", "-o", str(syn), "--seed", "2"]
    assert main([*cache, *args]) == 0
    assert "wrote 4,000 synthetic requests" in capsys.readouterr().out
    a, b = load_preset(preset).profile, measure(read_trace(syn))
    assert b["read_fraction"] == pytest.approx(a.read_fraction, abs=1e-3)
    for key in ("seq_read_fraction", "seq_write_fraction"):
        assert b[key] == pytest.approx(getattr(a, key), abs=2e-3)
    for key in ("mean_read_size_kb", "mean_write_size_kb"):
        assert b[key] == pytest.approx(getattr(a, key), rel=0.10)
    assert b["alignment_bytes"] == a.alignment_bytes
    # --like a trace profiles it on the fly: same draw as through the preset file
    syn2 = tmp_path / "syn2.trace"
    args = ["traces", "synth", "--like", str(src), "-n", "4000", "-o", str(syn2), "--seed", "2"]
    assert main([*cache, *args]) == 0
    assert syn2.read_bytes() == syn.read_bytes()


def test_cli_bad_input(write_trace, tmp_path, capsys):
    cache = ["--cache-dir", str(tmp_path / "c")]
    one = write_trace("one.trace", "0 0 0 8 1\n")
    assert main([*cache, "traces", "profile", str(one)]) == 2
    assert f"{one}: 1 request(s); a profile needs at least 2" in capsys.readouterr().err
    empty = write_trace("empty.trace", "")
    assert main([*cache, "traces", "profile", str(empty), "--format", "mqsim"]) == 2
    assert str(empty) in capsys.readouterr().err
    two = write_trace("two.trace", "0 0 0 8 1\n1000 0 64 8 0\n")
    args = ["traces", "synth", "--like", str(two), "-n", "0", "-o", str(tmp_path / "o")]
    assert main([*cache, *args]) == 2
    assert "-n/--requests must be >= 1, got 0" in capsys.readouterr().err


AGGREGATES = ("read_fraction", "mean_read_size_kb", "mean_write_size_kb", "seq_read_fraction")


@pytest.mark.realtrace
def test_round_trip_on_a_real_trace(shared_traces):
    from skftl.traces import locality
    from skftl.traces.validation import round_trip, summary, table

    real = read_trace(shared_traces / "mqsim_bundled" / "tpcc-small.trace.gz")
    trip = round_trip(real, max_requests=5000, seed=1, name="tpcc")
    assert trip.n_used == 5000 and trip.n_total == len(real)
    rows = {r["measure"]: r for r in trip.rows}
    assert set(rows) == {*locality.SCALARS, "reuse_distance_cdf_ks", "footprint_growth_ks"}
    for key in AGGREGATES:  # the Table III aggregates survive the round trip
        assert rows[key]["holds"], rows[key]
    assert len(table([trip])) == len(rows)
    assert summary([trip]).loc["tpcc", "held"] == f"{trip.held} of {len(rows)}"


def test_paper_presets_cite_every_number_and_keep_table3():
    from skftl.traces.paper_presets import PRESET_DIR, WORKLOADS
    from skftl.traces.profile import spec_from_profile
    from skftl.traces.stats import characterise

    assert sorted(p.stem for p in PRESET_DIR.glob("*.yaml")) == sorted(w.name for w in WORKLOADS)
    for work in WORKLOADS:
        preset = load_preset(PRESET_DIR / f"{work.name}.yaml")
        assert set(preset.provenance.citations) == set(preset.profile.model_dump())
        assert set(preset.provenance.basis) == set(preset.profile.model_dump())
        kinds = set(preset.provenance.basis.values())
        assert kinds <= {"measured", "published", "assumed"}
        assert ("published" in kinds) == (work.table3 is not None or work.files is not None)
        assert preset.provenance.kind == ("paper" if work.table3 else "excerpt")
        assert work.excerpt in preset.provenance.source
    for name in ("Financial2", "WebSearch1"):  # the Table III calibration survives
        work = next(w for w in WORKLOADS if w.name == name)
        spec = spec_from_profile(load_preset(PRESET_DIR / f"{name}.yaml"), 5000, calibrate=0)
        c = characterise(generate(spec, 5000, seed=0))
        mean_kb, read_pct, seq_r, seq_w = work.table3
        assert c["mean_size_kb"] == pytest.approx(mean_kb, rel=0.10)
        assert c["read_pct"] == pytest.approx(read_pct, abs=0.05)
        assert c["seq_read_pct"] == pytest.approx(seq_r, abs=0.05)


def test_validation_of_no_trace_is_empty():
    from skftl.traces.validation import held_by_measure, summary, table

    assert summary([]).empty and table([]).empty and held_by_measure([]).empty


def test_nexus5_presets_stand_for_what_the_bnvm_study_uses():
    from skftl.config import load_config
    from skftl.traces.paper_presets import WORKLOADS

    stand_ins = load_config()["bnvm"]["stand_ins"]
    for work in WORKLOADS:
        if work.name.startswith("nexus5_"):
            assert work.excerpt == stand_ins[work.name[-1]][0], work.name
