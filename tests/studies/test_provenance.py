"""Config scopes (what each job reads, so what a parameter edit reruns), the shared settings a
dataset records, and the scorecard's refusal to combine datasets computed under different ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import xarray as xr
import yaml

from skftl.cli import main
from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.studies.provenance import (
    TRACE_SET,
    check_shared_settings,
    scope,
    scope_text,
    shared_settings,
    stamp,
)
from skftl.studies.registry import STUDIES, dataset_file


@pytest.fixture(scope="module")
def cfg() -> dict:
    return load_config()


def _edited(cfg: dict, *path: str, value) -> dict:
    out = copy.deepcopy(cfg)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _changed_scopes(cfg: dict, other: dict) -> set[str]:
    return {s for s in [TRACE_SET, *STUDIES] if scope_text(cfg, s) != scope_text(other, s)}


def test_a_study_scope_is_the_shared_settings_its_section_and_what_else_it_reads(cfg) -> None:
    lpmt = scope(cfg, "lpmt")
    assert set(lpmt) == {"seed", "traces", "lpmt"}
    assert "resources" not in lpmt["lpmt"]  # places the job, changes no result
    assert lpmt["lpmt"]["n_banks"] == cfg["lpmt"]["n_banks"]
    # only the trace-set keys of traces:, not the traces study's own presets
    assert "synthetic" not in lpmt["traces"] and "workloads" in lpmt["traces"]
    assert set(scope(cfg, "ftl")) == {"seed", "traces", "nand", "ftl"}
    assert "synthetic" in scope(cfg, "traces")["traces"]
    assert set(scope(cfg, TRACE_SET)) == {"traces"}
    with pytest.raises(ConfigError, match="unknown config scope 'nope'"):
        scope(cfg, "nope")


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("lpmt", "n_banks"), 8, {"lpmt"}),
        (("nand", "speed_ratio"), 3.0, {"ftl"}),
        (("traces", "synthetic"), ["Financial1"], {"traces"}),
        (("traces", "stand_ins"), "aggregates", {TRACE_SET, *STUDIES}),
        (("seed",), 7, set(STUDIES)),
        (("mtpm", "resources", "runtime"), 999, set()),
        (("studies",), ["traces", "lpmt"], set()),
    ],
)
def test_an_edit_changes_exactly_the_scopes_that_read_it(cfg, path, value, expected) -> None:
    assert _changed_scopes(cfg, _edited(cfg, *path, value=value)) == expected


def test_a_scope_file_loads_back_to_the_same_scope(cfg, tmp_path: Path) -> None:
    edited = _edited(cfg, "lpmt", "n_banks", value=8)
    path = tmp_path / "lpmt.yaml"
    path.write_text(scope_text(edited, "lpmt"))
    assert scope(load_config(path), "lpmt") == scope(edited, "lpmt")


def test_a_study_sees_only_its_scope_and_its_dataset_records_it(
    cfg, tmp_path: Path, monkeypatch
) -> None:
    import skftl.studies.cli as study_cli

    seen = {}

    def run(c, progress=True):
        seen.update(c)
        return xr.Dataset({"x": ("i", [1.0])})

    fake = SimpleNamespace(run=run)
    monkeypatch.setattr(study_cli, "study_module", lambda study: fake)
    monkeypatch.setattr(study_cli, "write_scored", lambda *a: [])
    conf = tmp_path / "my.yaml"
    conf.write_text("seed: 11\nlpmt: {n_banks: 8}\nmtpm: {alpha: 6}\n")
    nc = study_cli.run_study("lpmt", conf, tmp_path / "out", progress=False)
    assert set(seen) == {"seed", "traces", "lpmt"} and seen["lpmt"]["n_banks"] == 8
    ds = xr.open_dataset(nc, engine="h5netcdf")
    assert yaml.safe_load(ds.attrs["run_config"]) == scope(load_config(conf), "lpmt")
    assert json.loads(ds.attrs["shared_settings"])["seed"] == 11


def _results(root: Path, seeds: dict[str, int], scales: dict[str, str] | None = None) -> Path:
    """A results folder with a hand-made dataset and headline per study."""
    base = load_config()
    for study, seed in seeds.items():
        cfg = _edited(base, "seed", value=seed)
        if scales and study in scales:
            cfg = _edited(cfg, study, "scale", value=scales[study])
        ds = xr.Dataset({"x": ("i", [1.0])})
        stamp(ds.attrs, cfg, study)
        path = dataset_file(root, study)
        path.parent.mkdir(parents=True, exist_ok=True)
        ds.to_netcdf(path, engine="h5netcdf")
        pd.DataFrame(
            {
                "claim": ["a"],
                "verdict": ["held"],
                "workload_kind": ["synthetic stand-in"],
                "basis": ["prediction"],
            }
        ).to_csv(path.parent / "headline.csv", index=False)
    return root


def test_the_scorecard_refuses_datasets_of_two_seeds(tmp_path: Path, capsys) -> None:
    root = _results(tmp_path / "mixed", {"traces": 1, "lpmt": 1, "mtpm": 2})
    assert main(["scorecard", "--results", str(root)]) == 2
    err = capsys.readouterr().err
    assert "refusing to combine" in err and "seed differs (traces, lpmt: 1; mtpm: 2)" in err
    same = _results(tmp_path / "same", {"traces": 1, "lpmt": 1, "mtpm": 1})
    assert main(["scorecard", "--results", str(same)]) == 0


def test_scales_must_agree_among_the_studies_that_have_one(tmp_path: Path) -> None:
    # mtpm has no scale key: it combines with either scale
    root = _results(tmp_path / "a", {"lpmt": 1, "ppb": 1, "mtpm": 1}, {"lpmt": "paper"})
    with pytest.raises(ConfigError, match=r"scale differs \(lpmt: \"paper\"; ppb: \"default\"\)"):
        check_shared_settings({s: dataset_file(root, s) for s in ("lpmt", "ppb", "mtpm")})
    both = _results(
        tmp_path / "b", {"lpmt": 1, "ppb": 1, "mtpm": 1}, {"lpmt": "paper", "ppb": "paper"}
    )
    check_shared_settings({s: dataset_file(both, s) for s in ("lpmt", "ppb", "mtpm")})


def test_a_dataset_without_shared_settings_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.nc"
    xr.Dataset({"x": ("i", [1.0])}).to_netcdf(path, engine="h5netcdf")
    with pytest.raises(ConfigError, match="records no shared settings"):
        check_shared_settings({"lpmt": path})


def test_shared_settings_leave_out_where_the_cache_lives(cfg) -> None:
    moved = _edited(cfg, "traces", "cache_dir", value="/elsewhere")
    assert shared_settings(moved, "lpmt") == shared_settings(cfg, "lpmt")
    assert scope_text(moved, TRACE_SET) != scope_text(cfg, TRACE_SET)  # but the cache is redone
