"""The robustness sweep on a toy study: one assumption that flips one claim, a reading, and
the classes robust / reachable / unreachable."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
import xarray as xr

from skftl.cli import main
from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.studies import claims as C
from skftl.studies import robustness as R
from skftl.studies import scorecard
from skftl.studies.assumptions import READING, Assumption, check_defaults, with_value


def _toy(monkeypatch) -> SimpleNamespace:
    """A study `lpmt` whose output is n_banks: 'x' is held iff n_banks >= 8, 'y' always (when the
    hashes run: the n_banks points trim them),
    'z' never, 'w' only under the reading 'wide', 'i' is an input."""

    def run(cfg, progress=True):
        ds = xr.Dataset({"banks": ((), float(cfg["lpmt"]["n_banks"]))})
        if cfg["lpmt"]["sensitivity"]["assoc"]:  # the work a trim skips
            ds["hashed"] = ((), 1.0)
        return ds

    def banks(ds, reading):
        return float(ds["banks"])

    def claim(cid, paper, ours=banks, basis="prediction", readings=()):
        return C.Claim(id=cid, where="T", statement=cid, paper=paper, ours=ours, basis=basis,
                       readings=readings)  # fmt: skip

    module = SimpleNamespace(
        run=run,
        READINGS=C.Readings(options={"narrow": "", "wide": ""}, default="narrow"),
        CLAIMS=(
            claim("x", C.Relation(op=">=", ref=8.0)),
            claim("y", C.Relation(op=">", ref=0.0), ours=lambda ds, r: float(C.var(ds, "hashed"))),
            claim("z", C.Relation(op="<", ref=0.0)),
            claim(
                "w",
                C.Relation(op=">", ref=0.5),
                ours=lambda ds, r: 1.0 if r == "wide" else 0.0,
                readings=("narrow", "wide"),
            ),
            claim("i", C.Value(value=4.0), basis="input"),
        ),  # fmt: skip
        ASSUMPTIONS=(
            Assumption(
                key="n_banks",
                default=4,
                values=(2, 4, 8),
                argument="the paper's Fig. 7 draws four",
                sources="a toy",
                claims=("x",),
                trim={"sensitivity.assoc": []},
            ),
            Assumption(
                key=READING,
                default="narrow",
                values=("narrow", "wide"),
                argument="a toy",
                sources="a toy",
                claims=("w",),
            ),
        ),  # fmt: skip
    )
    monkeypatch.setattr(R, "study_module", lambda study: module)
    monkeypatch.setattr(scorecard, "study_module", lambda study: module)  # its headline()
    return module


def test_one_assumption_flips_one_claim(monkeypatch) -> None:
    module = _toy(monkeypatch)
    cfg = load_config()
    check_defaults("lpmt", module.ASSUMPTIONS, cfg)
    assert R.points({**cfg, "studies": ["lpmt"]}) == {"lpmt": [("n_banks", "2"), ("n_banks", "8")]}
    pts = [R.run_point(cfg, "lpmt", k, json.loads(v)) for k, v in R.points(cfg)["lpmt"]]
    default = module.run(load_config())
    table = R.study_table("lpmt", default, pts)
    # the default, one reading rescored from the default dataset, two reruns
    assert sorted(set(zip(table.assumption, table.value, strict=True))) == [
        ("(default)", "null"), ("n_banks", "2"), ("n_banks", "8"), ("reading", '"wide"')
    ]  # fmt: skip
    summary = R.classify(table).set_index("claim")
    assert "i" not in summary.index  # an input is no prediction
    assert summary.loc["x", "class"] == "reachable" and summary.loc["x", "held_at"] == "n_banks=8"
    assert summary.loc["x", "flipped_by"] == "n_banks=8"
    # the trim skipped what y rests on: not evaluated at the points, not counted there
    y_points = table[(table.claim == "y") & (table.assumption == "n_banks")]
    assert set(y_points.verdict) == {"not evaluated"}
    assert summary.loc["y", "class"] == "robust" and summary.loc["y", "points"] == 1
    assert summary.loc["z", "class"] == "unreachable"
    assert (
        summary.loc["w", "class"] == "reachable" and summary.loc["w", "held_at"] == 'reading="wide"'
    )
    counts = R.counts(summary.reset_index())
    assert counts.loc["lpmt"].tolist() == [1, 2, 1]


def test_the_sweep_refuses_values_the_schema_refuses(monkeypatch) -> None:
    _toy(monkeypatch)
    with pytest.raises(ConfigError, match="n_banks"):
        R.run_point(load_config(), "lpmt", "n_banks", -1)
    with pytest.raises(ConfigError, match="no config key lpmt.nope"):
        R.run_point(load_config(), "lpmt", "nope", 1)


def test_config_selects_studies_and_assumptions(monkeypatch) -> None:
    _toy(monkeypatch)
    cfg = {**load_config(), "studies": ["traces", "lpmt"]}
    cfg["robustness"] = {"studies": ["lpmt"], "assumptions": ["lpmt.reading"]}
    assert R.points(cfg) == {"lpmt": []}  # readings need no rerun
    cfg["robustness"] = {"studies": "all", "assumptions": ["lpmt.n_banks"]}
    assert R.points(cfg)["lpmt"] == [("n_banks", "2"), ("n_banks", "8")]


def test_an_assumption_states_its_case() -> None:
    with pytest.raises(ValueError, match="default 3 not in values"):
        Assumption(key="k", default=3, values=(1, 2), argument="a", sources="s", claims=("x",))
    with pytest.raises(ValueError, match="required"):
        Assumption(key="k", default=1, values=(1, 2), argument="", sources="s", claims=("x",))
    a = Assumption(key="k", default=1, values=(1, 2), argument="a", sources="s", claims=("fig9.*",))
    assert a.moves("fig9.inject") and not a.moves("fig13.x") and a.alternatives == (2,)
    cfg = load_config()
    before = cfg["lpmt"]["timing"]["cl"]
    assert with_value(cfg, "lpmt", "timing.cl", before + 2)["lpmt"]["timing"]["cl"] == before + 2
    assert cfg["lpmt"]["timing"]["cl"] == before  # a copy: the config is not changed
    with pytest.raises(ValueError, match="not the config's"):
        check_defaults(
            "lpmt",
            (
                Assumption(
                    key="n_banks",
                    default=99,
                    values=(99, 4),
                    argument="a",
                    sources="s",
                    claims=("x",),
                ),
            ),
            cfg,
        )


def test_the_summary_reads_the_tables_back(monkeypatch, tmp_path) -> None:
    module = _toy(monkeypatch)
    cfg = load_config()
    pts = [R.run_point(cfg, "lpmt", "n_banks", 8)]
    table = R.study_table("lpmt", module.run(load_config()), pts)
    path = tmp_path / "lpmt.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "robustness.csv"
    png = tmp_path / "robustness.png"
    assert main(["robustness", "summary", str(path), "--out", str(out), "--figure", str(png)]) == 0
    assert png.stat().st_size > 0 and png.with_suffix(".pdf").is_file()
    back = pd.read_csv(out, keep_default_na=False).set_index("claim")
    assert back.loc["x", "class"] == "reachable"
