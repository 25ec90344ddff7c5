"""The spread of each study's headline over excerpt windows and seeds: the window rule, the
whole-trace default, the variants a config selects, the classes stable / varies, and one
study at tiny scale through its variants to the tables."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skftl.cli import main
from skftl.config import load_config
from skftl.errors import ConfigError
from skftl.run_traces import excerpt, excerpt_windows, workload_for
from skftl.studies import spread as S
from skftl.studies.provenance import TRACE_SET, scope
from skftl.studies.registry import study_module
from skftl.studies.report_pages import landing_rst
from skftl.studies.scorecard import headline
from skftl.traces import load_trace
from skftl.traces.loader import verification_log
from skftl.traces.requests import Requests, TraceMeta

ROOT = Path(__file__).resolve().parents[2]


def _requests(n: int, synthetic: bool = False) -> Requests:
    meta = TraceMeta(name="toy", format="toy", synthetic=synthetic)
    return Requests(
        np.arange(n) * 10, np.arange(n) * 4096, np.full(n, 4096), np.zeros(n, bool), meta
    )


def _with_excerpt(cfg: dict, windows: int, window: int) -> dict:
    out = copy.deepcopy(cfg)
    out["traces"]["excerpt"] = {"windows": windows, "window": window}
    return out


def test_an_excerpt_is_window_k_of_n_equal_consecutive_windows() -> None:
    cfg = load_config()
    req = _requests(11)
    part = excerpt(req, _with_excerpt(cfg, 3, 1))
    assert list(part.time_ns) == [30, 40, 50]  # 11 // 3 = 3 per window, the last 2 left out
    assert part.meta.extra["excerpt"] == [3, 1]
    assert "excerpt window 1 of 3 (requests 3 to 6 of 11)" in part.meta.extra["verification"]
    # a synthetic stand-in is drawn as it is; so is every trace under the whole-trace default
    stand_in = _requests(11, synthetic=True)
    assert excerpt(stand_in, _with_excerpt(cfg, 3, 1)) is stand_in
    assert excerpt(req, cfg) is req
    with pytest.raises(ConfigError, match="traces.excerpt: trace 'toy'"):
        excerpt(_requests(5), _with_excerpt(cfg, 3, 0))


def test_windows_are_equal_consecutive_and_verdict_spread_counts_them() -> None:
    t = _requests(103)
    parts = excerpt_windows(t, 5)
    assert [len(p) for p in parts] == [20] * 5
    assert parts[1].offset_bytes[0] == 20 * 4096  # consecutive, in trace order
    with pytest.raises(ValueError, match="cannot make"):
        excerpt_windows(t, 60)

    def scored(a: float, b: float) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "claim": ["x", "y"],
                "paper": ["1", "2"],
                "ours": [a, b],
                "verdict": ["held" if abs(a - 1) < 0.25 else "missed", "held"],
            }
        )

    spread = S.verdict_spread({"w1": scored(1.1, 2.0), "w2": scored(1.6, 2.1)}, scored(1.0, 2.0))
    assert spread.loc["x", "lowest"] == pytest.approx(1.1)
    assert spread.loc["x", "highest"] == pytest.approx(1.6)
    assert (spread.loc["x", "held"], spread.loc["x", "variants"]) == (1, 2)
    assert list(spread.index[~spread["stable"]]) == ["x"]  # y is held in every window


def test_the_default_reads_every_trace_whole_and_scopes_as_before(shared_traces: Path) -> None:
    cfg = load_config()
    cfg["traces"]["trace_dirs"] = [str(shared_traces)]
    whole = workload_for("WebSearch1", cfg)
    assert not whole.meta.synthetic
    assert len(whole) == len(load_trace(whole.meta.name, trace_dirs=[shared_traces]))
    assert "excerpt" not in whole.meta.extra
    # the default's scopes hold no excerpt: the datasets that record them are unchanged
    assert "excerpt" not in scope(cfg, "lpmt")["traces"]
    window = _with_excerpt(cfg, 5, 4)
    assert scope(window, "lpmt")["traces"]["excerpt"] == {"windows": 5, "window": 4}
    assert "excerpt" not in scope(window, TRACE_SET)["traces"]  # traces are cached whole
    part = workload_for("WebSearch1", window)
    assert len(part) == len(whole) // 5
    # the dataset's trace record (the run's verification log) names the window
    assert "excerpt window 4 of 5" in verification_log()[part.meta.name]
    assert np.array_equal(part.time_ns, whole.time_ns[4 * len(part) : 5 * len(part)])


def test_the_config_selects_windows_seeds_and_studies() -> None:
    cfg = load_config(overrides={"seed": 7, "spread": {"studies": ["lpmt"], "windows": 3,
                                                        "seeds": 2}})  # fmt: skip
    assert S.points(cfg) == {
        "lpmt": [
            (S.EXCERPT, '{"window": 0, "windows": 3}'),
            (S.EXCERPT, '{"window": 1, "windows": 3}'),
            (S.EXCERPT, '{"window": 2, "windows": 3}'),
            (S.SEED, "8"),
            (S.SEED, "9"),
        ]
    }
    one = load_config(overrides={"spread": {"studies": "all", "windows": 1, "seeds": 1}})
    assert {k for pts in S.points(one).values() for k, _ in pts} == {S.SEED}
    assert set(S.points(one)) == set(one["studies"])
    with pytest.raises(ConfigError, match="traces.excerpt.window: 3 is not a window"):
        S.point_config(cfg, S.EXCERPT, {"windows": 3, "window": 3})


def _table(rows: list[tuple[str, str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"study": "toy", "claim": c, "basis": b, "varied": v, "value": "1",
             "default": v == "(default)", "verdict": verdict, "ours": ours}
            for c, b, v, verdict, ours in rows
        ]
    )  # fmt: skip


def test_a_prediction_is_stable_only_with_one_verdict_everywhere() -> None:
    table = _table(
        [
            ("a", "prediction", "(default)", "held", 1.0),
            ("a", "prediction", "seed", "held", 2.0),
            ("b", "prediction", "(default)", "held", 1.0),
            ("b", "prediction", "seed", "missed", 3.0),
            ("c", "prediction", "(default)", "not modelled", np.nan),
            ("c", "prediction", "seed", "not modelled", np.nan),
            ("i", "input", "(default)", "held", 1.0),
            ("i", "input", "seed", "missed", 1.0),
        ]
    )
    out = S.classify(table).set_index("claim")
    assert list(out.index) == ["a", "b"]  # not modelled and inputs are not scored
    assert out.loc["a", "class"] == "stable" and out.loc["a", "share_held"] == 1.0
    assert out.loc["b", "class"] == "varies" and out.loc["b", "held"] == 0
    assert out.loc["b", "flipped_by"] == "seed=1"
    assert (out.loc["b", "lowest"], out.loc["b", "highest"]) == (3.0, 3.0)


def test_one_study_at_tiny_scale_through_its_variants(tmp_path: Path, capsys) -> None:
    """The bnvm study on tiny.yaml's stand-ins: the default, two windows (tiny runs read no
    real trace, so they score as the default) and one more seed, to both tables."""
    cfg = load_config(ROOT / "config" / "tiny.yaml")
    cfg["spread"] = {"studies": ["bnvm"], "windows": 2, "seeds": 1}
    module = study_module("bnvm")
    ds = module.run(scope(cfg, "bnvm"), progress=False)
    variants = S.points(cfg)["bnvm"]
    assert len(variants) == 3
    paths = []
    for i, (key, value) in enumerate(variants):
        path = tmp_path / f"point_{i}.csv"
        S.run_point(cfg, "bnvm", key, S.json.loads(value)).to_csv(path, index=False)
        paths.append(str(path))
    dataset = tmp_path / "bnvm.nc"
    ds.to_netcdf(dataset, engine="h5netcdf")
    table_csv, summary_csv = tmp_path / "spread_bnvm.csv", tmp_path / "spread.csv"
    assert main(["spread", "table", "bnvm", "--dataset", str(dataset), "--out", str(table_csv),
                 "--points", *paths]) == 0  # fmt: skip
    table = pd.read_csv(table_csv, keep_default_na=False)
    assert list(table.columns) == S.TABLE_COLUMNS
    assert set(table["varied"]) == {"(default)", S.EXCERPT, S.SEED}
    assert len(table) == 4 * len(module.CLAIMS)
    spread_png = tmp_path / "spread.png"
    assert main(["spread", "summary", str(table_csv), "--out", str(summary_csv),
                 "--figure", str(spread_png)]) == 0  # fmt: skip
    assert spread_png.stat().st_size > 0 and spread_png.with_suffix(".pdf").is_file()
    summary = pd.read_csv(summary_csv, keep_default_na=False)
    assert len(summary) > 0 and set(summary["class"]) <= set(S.CLASSES)
    assert (summary["variants"] == 3).all()
    # a notebook's in-process run of the same variants gives the same table
    here = S.study_spread(cfg, "bnvm", ds)
    assert list(here["verdict"]) == list(table["verdict"])
    assert list(here["varied"]) == list(table["varied"])
    windows = table[table["varied"] == S.EXCERPT].reset_index(drop=True)
    default = table[table["varied"] == "(default)"].reset_index(drop=True)
    assert (windows["verdict"][: len(default)] == default["verdict"]).all()
    assert "stable" in capsys.readouterr().out
    # the summary joins the report's landing page
    card = tmp_path / "scorecard.csv"
    headline("bnvm", ds).assign(study="bnvm").to_csv(card, index=False)
    figure = tmp_path / "scorecard.png"
    figure.write_bytes(b"not drawn here")
    landing = landing_rst(card, figure, spread_csv=summary_csv)
    assert "Spread over windows and seeds" in landing and "stable" in landing
    assert "appear here after ``make spread``" in landing_rst(card, figure)
