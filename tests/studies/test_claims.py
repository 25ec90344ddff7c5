"""Verdicts are computed: the shared claim types on hand-made cases, every registry entry
evaluated (none dropped when its inputs are missing), readings, and the scorecard."""

from __future__ import annotations

import importlib
import math

import pandas as pd
import pytest
import xarray as xr

from skftl.cli import main
from skftl.config import load_config
from skftl.studies import claims as C
from skftl.studies import scorecard
from skftl.studies.provenance import stamp
from skftl.studies.registry import STUDIES, dataset_file, study_module


@pytest.fixture
def ds() -> xr.Dataset:
    return xr.Dataset(
        {
            "latency": (("placement",), [80.0, 90.0, 100.0]),
            "ratio": ((), 0.8),
        },
        coords={"placement": ["fixed", "dynamic", "single"]},
    )


def lat(ds: xr.Dataset, reading: str) -> float:
    return float(C.sel(ds["latency"], placement=reading))


def claim(paper: C.Expect, ours, **kw) -> C.Claim:
    kw.setdefault("basis", "prediction")
    return C.Claim(id="x", where="Fig. 1", statement="s", paper=paper, ours=ours, **kw)


def row(c: C.Claim, ds: xr.Dataset, reading: str = "fixed") -> dict:
    return C.evaluate_claim(c, ds, reading)


def test_relation_held_and_not_held(ds):
    r = row(claim(C.Relation(op="<", ref=1.0), lambda d, r: float(d["ratio"])), ds)
    assert (r["direction_held"], r["magnitude_held"], r["verdict"]) == ("yes", "n/a", "held")
    r = row(claim(C.Relation(op=">", ref=1.0), lambda d, r: float(d["ratio"])), ds)
    assert (r["direction_held"], r["verdict"]) == ("no", "missed")
    assert math.isnan(r["rel_diff"])


def test_number_inside_and_outside_25pct(ds):
    r = row(claim(C.Value(value=100.0, unit="ns"), lat), ds)  # 80 vs 100: -20 %
    assert (r["magnitude_held"], r["verdict"], r["rel_diff"]) == ("yes", "held", -0.2)
    r = row(claim(C.Value(value=120.0), lat), ds)  # 80 vs 120: -33 %
    assert (r["magnitude_held"], r["verdict"]) == ("no", "missed")
    assert r["rel_diff"] == pytest.approx(-1 / 3, abs=1e-4)
    # a number with a direction: the sign holds while the magnitude misses
    r = row(claim(C.Value(value=300.0, direction=(">", 0)), lat), ds)
    assert (r["direction_held"], r["magnitude_held"], r["verdict"]) == (
        "yes",
        "no",
        "direction only",
    )
    r = row(claim(C.Value(value=-100.0, direction=("<", 0)), lat), ds)
    assert (r["direction_held"], r["verdict"]) == ("no", "missed")
    assert r["rel_diff"] == pytest.approx(1.8)  # (80 - -100) / |-100|: the flipped sign shows


def test_zero_uses_printed_precision(ds):
    zero = C.Value(value=0.0, abs_tol=0.005)
    assert row(claim(zero, lambda d, r: 0.004), ds)["verdict"] == "held"
    assert row(claim(zero, lambda d, r: 0.5), ds)["verdict"] == "missed"
    assert math.isnan(row(claim(zero, lambda d, r: 0.5), ds)["rel_diff"])


def test_order_and_range(ds):
    def by_placement(d: xr.Dataset, r: str) -> dict[str, float]:
        return {str(p): float(v) for p, v in zip(d.placement.values, d.latency.values, strict=True)}

    held = row(claim(C.Order(keys=("fixed", "dynamic", "single")), by_placement), ds)
    assert held["verdict"] == "held" and "fixed=80" in held["ours"]
    assert row(claim(C.Order(keys=("single", "fixed")), by_placement), ds)["verdict"] == "missed"
    short = row(claim(C.Order(keys=("fixed", "striped")), by_placement), ds)
    assert short["verdict"] == "not evaluated" and "striped" in short["note"]
    rng = C.Range(lo=1.5, hi=1.8)
    assert row(claim(rng, lambda d, r: 1.6), ds)["rel_diff"] == 0.0
    out = row(claim(rng, lambda d, r: 2.5), ds)
    assert out["verdict"] == "missed" and out["rel_diff"] == pytest.approx(0.7 / 1.8, abs=1e-4)
    assert row(claim(rng, lambda d, r: 2.0), ds)["verdict"] == "held"  # within 25 % of 1.8


def test_not_modelled_is_kept_with_its_reason(ds):
    c = C.Claim(
        id="nm", where="Sec. 5", statement="energy", not_modelled="no energy model",
        basis="prediction",
    )  # fmt: skip
    r = row(c, ds)
    assert (r["verdict"], r["note"], r["paper"]) == ("not modelled", "no energy model", "")
    with pytest.raises(ValueError, match="not_modelled"):
        C.Claim(id="bad", where="", statement="", paper=C.Value(value=1.0), basis="input")


def test_missing_input_says_why_and_is_not_dropped(ds):
    registry = [
        claim(C.Value(value=100.0), lat, readings=("fixed", "striped")),
        C.Claim(
            id="nan", where="Fig. 2", statement="t", paper=C.Relation(op="<", ref=0),
            ours=lambda d, r: float("nan"), basis="prediction",
        ),
        C.Claim(
            id="key", where="Fig. 3", statement="u", paper=C.Relation(op="<", ref=0),
            ours=lambda d, r: float(d["absent"]), basis="prediction",
        ),
    ]  # fmt: skip
    table = C.evaluate(registry, ds, "striped")
    assert list(table.columns) == C.COLUMNS and len(table) == 3
    assert (table.verdict == "not evaluated").all()
    assert "placement=['striped'] not in this run" in table.note[0]
    assert "nan" in table.note[1] and "absent" in table.note[2]
    assert table.reading.tolist() == ["striped", "any", "any"]


def test_workload_kind_checked(ds):
    with pytest.raises(ValueError, match="workload"):
        claim(C.Value(value=1.0), lat, workload="made up")
    c = claim(C.Value(value=100.0), lat, workload=lambda d: C.kind_of_labels(["web (synthetic)"]))
    assert row(c, ds)["workload_kind"] == "synthetic stand-in"
    assert C.kind_of_labels(["Financial1"], same=True) == "same"


def test_duplicate_ids_refused(ds):
    c = claim(C.Value(value=1.0), lat)
    with pytest.raises(ValueError, match="twice"):
        C.evaluate([c, c], ds, "fixed")


def test_by_reading_flags_changed_verdicts(ds):
    readings = C.Readings(options={"fixed": "a", "single": "b"}, default="fixed")
    registry = [
        claim(C.Value(value=85.0), lat, readings=("fixed", "single")),  # 80 held, 100 held
        C.Claim(
            id="y",
            where="T",
            statement="s",
            paper=C.Relation(op="<", ref=85.0),
            ours=lat,
            readings=("fixed", "single"),
            basis="prediction",
        ),  # fmt: skip
        C.Claim(
            id="z",
            where="T",
            statement="s",
            paper=C.Relation(op="<", ref=1.0),
            ours=lambda d, r: 0.5,
            basis="prediction",
        ),  # fmt: skip
    ]
    table = C.by_reading(registry, ds, readings).set_index("claim")
    assert list(table.index) == ["x", "y"]  # reading-independent claims are not repeated
    assert not table.loc["x", "changes"]
    assert table.loc["y", "changes"]
    assert table.loc["y", "fixed: verdict"] == "held" and table.loc["y", "single: verdict"] == (
        "missed"
    )
    with pytest.raises(ValueError, match="default reading"):
        C.Readings(options={"a": ""}, default="b")


def test_every_study_has_the_same_shape():
    for study in STUDIES:
        m = study_module(study)
        assert callable(m.run), study
        for part in ("simulate", "claims", "figures"):
            assert importlib.import_module(f"skftl.studies.{study}.{part}"), (study, part)
        assert isinstance(m.READINGS, C.Readings)
        assert m.CLAIMS and all(isinstance(c, C.Claim) for c in m.CLAIMS), study
        assert len({c.id for c in m.CLAIMS}) == len(m.CLAIMS), study
        for c in m.CLAIMS:
            unknown = set(c.readings) - set(m.READINGS.options)
            assert not unknown, f"{study} {c.id}: unknown readings {unknown}"


def test_every_claim_evaluated_on_an_empty_dataset():
    """No registry may drop a claim whose inputs are missing: on a dataset with nothing in it
    every claim is a row, 'not modelled' or 'not evaluated' with a reason."""
    empty = xr.Dataset(attrs={"config": ""})
    for study in STUDIES:
        m = study_module(study)
        table = C.evaluate(m.CLAIMS, empty, m.READINGS.default)
        assert len(table) == len(m.CLAIMS)
        assert set(table.verdict) <= {"not evaluated", "not modelled"}, study
        assert (table.note.str.len() > 0).all(), study


def _card(tmp_path) -> dict[str, str]:
    rows = {
        "lpmt": [("a", "held", "real stand-in"), ("b", "missed", "synthetic stand-in")],
        "bnvm": [("c", "not modelled", "none"), ("d", "direction only", "real stand-in")],
    }
    paths = {}
    for study, rs in rows.items():
        df = pd.DataFrame(
            [
                {
                    **dict.fromkeys(C.COLUMNS, ""),
                    "claim": c,
                    "verdict": v,
                    "workload_kind": k,
                    "basis": "prediction",
                }
                for c, v, k in rs
            ]  # fmt: skip
        )
        (tmp_path / study).mkdir()
        df.to_csv(tmp_path / study / "headline.csv", index=False)
        paths[study] = str(tmp_path / study / "headline.csv")
        ds = xr.Dataset()
        stamp(ds.attrs, load_config(), study)  # one config: the scorecard combines them
        ds.to_netcdf(dataset_file(tmp_path, study), engine="h5netcdf")
    return paths


def test_scorecard_combines_counts_and_draws(tmp_path):
    card = scorecard.combine(_card(tmp_path))
    assert card.columns[0] == "study" and len(card) == 4
    n = scorecard.counts(card)
    assert list(n.index) == ["lpmt", "bnvm"]  # registry order
    assert n.loc["lpmt", "held"] == 1 and n.loc["lpmt", "missed"] == 1
    assert n.loc["bnvm", "total"] == 2
    k = scorecard.counts(card, by_kind=True)
    assert k.loc[("bnvm", "none"), "not modelled"] == 1
    paths = scorecard.draw(card, tmp_path / "scorecard.png")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size for p in paths)


def test_scorecard_cli(tmp_path, capsys):
    _card(tmp_path)
    out = tmp_path / "out.csv"
    assert main(["scorecard", "--results", str(tmp_path), "--claims", "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "direction only" in text and "lpmt" in text and "not modelled" in text
    assert "Verdicts: held = " in text and "Bases: prediction = " in text  # the legend
    assert len(pd.read_csv(out)) == 4
    (tmp_path / "lpmt" / "headline.csv").write_text("metric,paper,ours\nx,1,2\n")
    assert main(["scorecard", "--results", str(tmp_path)]) == 2
    assert "predates the claims registry" in capsys.readouterr().err


def test_ours_is_shown_in_the_paper_s_unit():
    from skftl.studies.scorecard import with_unit

    assert with_unit("-62.69 %", -10.305) == "-10.3 %"
    assert with_unit("64 GB", 64.0) == "64 GB"
    assert with_unit("1.5-1.8 x", 1.2689) == "1.269 x"
    assert with_unit("< 1 (SK-FTL / PW FTL)", 0.8589) == "0.8589 (SK-FTL / PW FTL)"
    assert with_unit("a < b", "a=1; b=2") == "a=1; b=2"  # an order: as it is
    assert with_unit("7 skyrmions", float("nan")) == ""  # not evaluated


def test_headline_columns_are_the_issue_s():
    assert C.COLUMNS == ["claim", "where", "statement", "basis", "paper", "ours", "rel_diff",
                         "rule", "direction_held", "magnitude_held", "verdict", "workload_kind",
                         "reading", "note"]  # fmt: skip


def test_scale_comparison_puts_runs_side_by_side(tmp_path):
    from skftl.studies.scorecard import scale_comparison

    head = pd.DataFrame(
        {
            "claim": ["a", "b", "c", "d"],
            "basis": ["prediction", "prediction", "prediction", "input"],
            "verdict": ["held", "missed", "held", "held"],
        }
    )
    other = tmp_path / "headline.csv"
    head.assign(verdict=["missed", "missed", "held", "held"]).to_csv(other, index=False)
    table = scale_comparison({"this": head, "paper": other, "absent": tmp_path / "none.csv"})
    assert table.loc["this", "held"] == 2 and table.loc["this", "total"] == 3  # predictions
    assert table.loc["paper", "missed"] == 2
    absent = next(i for i in table.index if i.startswith("absent: not run"))
    assert table.loc[absent].isna().all()
