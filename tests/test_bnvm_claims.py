"""The `bnvm` claims registry on a tiny run of all six paper traces (synthetic presets):
every claim becomes a scorecard row under every reading it names, ids are unique, a reading
selects the grouping it names, verdicts follow the data, and a claim whose input a run lacks
says why it is not evaluated."""

from __future__ import annotations

import pytest
import xarray as xr

from skftl.studies import bnvm, scorecard
from skftl.studies.bnvm import claims as bc
from skftl.studies.claims import COLUMNS, VERDICTS, evaluate, evaluate_claim
from tests.test_bnvm_study import tiny_config

BY_ID = {c.id: c for c in bnvm.CLAIMS}


@pytest.fixture(scope="module")
def ds(tmp_path_factory) -> xr.Dataset:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SKFTL_TRACE_DIRS", raising=False)
        cfg = tiny_config(str(tmp_path_factory.mktemp("cache")), letters=bc.LETTERS)
        # a log of one 4-page refresh unit per chip, so that even these short traces merge
        cfg["bnvm"]["device"]["pages_per_block"] = 4
        cfg["bnvm"]["log"]["log_pages_per_chip"] = 4
        cfg["bnvm"]["synthetic_requests"] = 2000
        return bnvm.run(cfg, progress=False)


def test_ids_unique_readings_known_and_every_trace_covered():
    ids = [c.id for c in bnvm.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in bnvm.CLAIMS:
        assert set(c.readings) <= set(bnvm.READINGS.options), c.id
        assert c.not_modelled or c.paper is not None
    # the readings are the kernel's grouping rules, the default argued in the notebook
    assert set(bnvm.READINGS.options) == set(bc.GROUPINGS)
    # Figs. 2 and 3: a claim per paper trace for each per-trace statement
    for prefix in ("fig2.write_time.", "fig2.parallel_writes.", "fig3.clean_ratio."):
        assert sorted(i.removeprefix(prefix) for i in ids if i.startswith(prefix)) == list(
            bc.LETTERS
        )
    # the statements the old headline did not score are claims: B's extra dirty writes,
    # C-E's extra parallel writes, F's more writes yet faster
    assert BY_ID["fig2.dirty_diff.B"].paper.op == ">"
    assert all(BY_ID[f"fig2.parallel_writes.{x}"].paper.op == ">" for x in "CDE")
    assert BY_ID["fig2.parallel_writes.F"].paper.op == "<"
    assert BY_ID["fig2.write_time.F"].paper.op == ">"


def test_every_claim_is_a_row_under_every_reading(ds):
    for reading in bnvm.READINGS.options:
        table = evaluate(bnvm.CLAIMS, ds, reading)
        assert list(table.columns) == COLUMNS
        assert len(table) == len(bnvm.CLAIMS)
        assert set(table["verdict"]) <= set(VERDICTS)
    head = scorecard.headline("bnvm", ds).set_index("claim")
    # all six traces are in this run: only the not-modelled claims lack a verdict
    nm = {c.id for c in bnvm.CLAIMS if c.not_modelled}
    assert set(head.index[head["verdict"] == "not modelled"]) == nm
    assert not (head["verdict"] == "not evaluated").any(), head[head.verdict == "not evaluated"]
    assert set(head.loc[head.index.str.startswith("fig2."), "workload_kind"]) == {
        "synthetic stand-in"
    }
    assert set(head.loc[head.index.str.startswith("tab2."), "workload_kind"]) == {"none"}
    # every reading-dependent claim is scored under every reading
    rd = scorecard.readings("bnvm", ds)
    dependent = [c.id for c in bnvm.CLAIMS if c.readings and not c.not_modelled]
    assert sorted(rd["claim"]) == sorted(dependent)
    for r in bnvm.READINGS.options:
        assert set(rd[f"{r}: verdict"]) <= set(VERDICTS) - {"not modelled"}


def test_a_reading_selects_its_grouping(ds):
    claim = BY_ID["fig2.write_time.A"]
    for r in bnvm.READINGS.options:
        wt = ds["write_time"].sel(grouping=r, trace="A")
        want = float(wt.sel(scheme="dynamic") / wt.sel(scheme="static"))
        assert evaluate_claim(claim, ds, r)["ours"] == pytest.approx(want, rel=1e-6)
    # the three groupings are different runs (stream ignores arrival times)
    rounds = ds["parallel_clean_writes"] + ds["parallel_dirty_writes"]
    assert not rounds.sel(grouping="queue").equals(rounds.sel(grouping="stream"))


def test_verdicts_follow_the_data(ds):
    claim = BY_ID["fig2.write_time.A"]  # paper: dynamic / static < 1
    r = bnvm.READINGS.default
    for factor, verdict in ((0.5, "held"), (2.0, "missed")):
        d = ds.copy(deep=True)
        static = d["write_time"].sel(grouping=r, trace="A", scheme="static")
        d["write_time"].loc[{"grouping": r, "trace": "A", "scheme": "dynamic"}] = factor * static
        assert evaluate_claim(claim, d, r)["verdict"] == verdict
    # trace C's dirty difference: the paper's number, scored against ours
    d = ds.copy(deep=True)
    base = d["parallel_dirty_writes"].sel(grouping=r, trace="C", scheme="static")
    d["parallel_dirty_writes"].loc[{"grouping": r, "trace": "C", "scheme": "dynamic"}] = (
        base + bc.PAPER_C_DIRTY_DIFF
    )
    row = evaluate_claim(BY_ID["fig2.dirty_diff.C"], d, r)
    assert row["verdict"] == "held" and row["ours"] == bc.PAPER_C_DIRTY_DIFF
    # its note shows the paper's own counts disagree with the difference it states
    a = bc.paper_c_arithmetic()
    assert a["dirty diff from counts"] != a["dirty diff stated"]
    assert f"{a['dirty diff from counts']:+,}" in row["note"]


def test_missing_inputs_say_why(ds):
    r = bnvm.READINGS.default
    no_b = ds.sel(trace=[x for x in bc.LETTERS if x != "B"])
    row = evaluate_claim(BY_ID["fig2.dirty_diff.B"], no_b, r)
    assert row["verdict"] == "not evaluated" and "'B'" in row["note"]
    row = evaluate_claim(BY_ID["fig2.B.dirty_rounds_one_or_two"], ds.drop_vars("round_hist"), r)
    assert row["verdict"] == "not evaluated" and "round_hist" in row["note"]
    row = evaluate_claim(BY_ID["sec4a.example.block"], ds.drop_vars("example_write_time"), r)
    assert row["verdict"] == "not evaluated" and "example_write_time" in row["note"]
    # a run of one grouping only (e.g. an older dataset) cannot score the others
    one = ds.sel(grouping=["queue"])
    row = evaluate_claim(BY_ID["fig3.clean_ratio.C"], one, "stream")
    assert row["verdict"] == "not evaluated" and "stream" in row["note"]
    # pooled claims over the run's traces still evaluate on a subset
    assert evaluate_claim(BY_ID["sec4a.block_slower"], no_b, r)["verdict"] in VERDICTS[:3]


def test_registry_tables(ds):
    cov = scorecard.coverage("bnvm")
    assert cov["claims"].sum() == len(bnvm.CLAIMS)
    head = scorecard.headline("bnvm", ds)
    assert scorecard.verdict_counts(head)["total"].sum() == len(bnvm.CLAIMS)
    rd = scorecard.readings("bnvm", ds)
    assert scorecard.verdicts_by_reading(rd).sum().tolist() == [len(rd)] * len(
        bnvm.READINGS.options
    )
