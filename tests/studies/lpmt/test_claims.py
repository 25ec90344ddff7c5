"""The `lpmt` claims registry on a tiny run of all six workloads: every claim becomes a
scorecard row under every reading, ids are unique, a reading selects the placement and the
timing model it names, and a claim whose input a run lacks says why it is not evaluated."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
import yaml

from skftl.studies import lpmt, scorecard
from skftl.studies.claims import COLUMNS, VERDICTS, evaluate, evaluate_claim
from skftl.studies.lpmt.claims import (
    CASES,
    CLAIMS,
    FOLDING_READINGS,
    HASHES,
    LAYOUT_READINGS,
    READINGS,
    TABLE_IV,
    TABLE_VI,
    TABLE_VI_IMPROVEMENT,
    WORKLOADS,
    _change,
    _paper_three_over_90,
    _slope,
    hash_of,
    model_of,
    placement_of,
)
from tests.studies.lpmt.test_simulate import tiny_config

DEFAULT_MODEL = model_of(READINGS.default)  # the run the default reading scores

BY_ID = {c.id: c for c in CLAIMS}


@pytest.fixture(scope="module")
def ds() -> xr.Dataset:
    # every input the registry reads: the paper's six workloads and four hashes (and
    # decimal folding), every placement; the smallest sensitivity sweep
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SKFTL_TRACE_DIRS", raising=False)
        cfg = tiny_config(
            workloads=list(WORKLOADS),
            n_requests=1500,
            hashes=[*HASHES, "folding_decimal"],
            sensitivity={"placements": ["single"], "assoc": [8], "load_factor": [1.0],
                         "n_banks": [4], "bank_groups": [4]},
        )  # fmt: skip
        return lpmt.run(cfg, progress=False)


def test_ids_unique_and_readings_known():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert set(c.readings) <= set(READINGS.options), c.id
        assert c.not_modelled or c.paper is not None
    # every cell of Tables IV-VI is a claim
    assert sum(i.startswith("tab4.occupancy.") for i in ids) == 6 * 4
    assert sum(i.startswith("tab5.cases.") for i in ids) == 3 * len(CASES)
    assert sum(i.startswith("tab6.latency.") for i in ids) == 6 * 3
    # each four-bank cell also against its own workload's single bank
    assert sum(i.startswith("tab6.improvement.") and i.count(".") == 3 for i in ids) == 6 * 2


def test_every_claim_is_a_row(ds):
    head = scorecard.headline("lpmt", ds)
    assert list(head.columns) == COLUMNS
    assert list(head.claim) == [c.id for c in CLAIMS]
    assert set(head.verdict) <= set(VERDICTS)
    # the run has every input: nothing is left unevaluated
    missing = head[head.verdict == "not evaluated"]
    assert missing.empty, missing[["claim", "note"]].to_string()
    assert (head.verdict == "not modelled").sum() == sum(bool(c.not_modelled) for c in CLAIMS)
    judged = head[~head.verdict.isin(["not modelled", "not evaluated"])]
    # synthetic stand-ins everywhere, except the DRAM-rule probes, which rest on no workload
    probes = judged.claim.str.startswith(("tab5.cycles.", "fig3."))
    assert judged[~probes].workload_kind.eq("synthetic stand-in").all()
    assert judged[probes].workload_kind.eq("none").all()
    assert (head.reading[head.claim.isin([c.id for c in CLAIMS if c.readings])] ==
            READINGS.default).all()  # fmt: skip


def test_every_reading_dependent_claim_under_every_reading(ds):
    table = scorecard.readings("lpmt", ds)
    dependent = [c.id for c in CLAIMS if c.readings and not c.not_modelled]
    assert list(table.claim) == dependent
    by_id = table.set_index("claim")
    for c in CLAIMS:
        if c.id not in by_id.index:
            continue
        for r in READINGS.options:  # scored under each reading it names, "n/a" under the rest
            v = by_id.loc[c.id, f"{r}: verdict"]
            assert (v in VERDICTS) if r in c.readings else v == "n/a", (c.id, r)
    assert set(BY_ID["tab6.latency.MSR.dynamic"].readings) == set(LAYOUT_READINGS)
    assert set(BY_ID["tab4.occupancy.MSR.folding"].readings) == set(FOLDING_READINGS)
    # the paper's dynamic order is a different run under each layout reading (a spread set
    # has its activations outside Fig. 6's window anyway: per probe changes little there)
    row = by_id.loc["tab6.latency.Financial1.dynamic"]
    runs = ("paper_layouts", "paper_layouts+per_probe", "paper_layouts+ddr4", "spread")
    values = [float(row[f"{r}: ours"]) for r in runs]
    assert len(set(np.round(values, 9))) == len(values)


def test_reading_selects_placement_and_model(ds):
    c = BY_ID["tab6.latency.MSR.fixed"]
    for r in LAYOUT_READINGS:
        want = ds.latency.sel(workload="MSR", placement=placement_of("fixed", r), model=model_of(r))
        assert c.ours(ds, r) == pytest.approx(float(want))
    assert placement_of("fixed", READINGS.default) == "set_per_bank"
    assert placement_of("dynamic", READINGS.default) == "interleaved"
    assert placement_of("fixed", "spread+ddr4") == "spread_fixed"
    assert placement_of("dynamic", "spread+per_probe") == "spread_dynamic"
    # the default classes reads by Fig. 6's 4-read window; the open-row rule is named
    assert READINGS.default == "paper_layouts+window"
    assert model_of(READINGS.default) == "paper_window"
    assert model_of("paper_layouts") == model_of("spread") == "paper"
    assert model_of("spread+window") == "paper_window"
    assert model_of("paper_layouts+per_probe") == "paper_per_probe"
    assert model_of("spread+ddr4") == "ddr4"
    # decimal folding replaces Table IV's folding column only
    assert hash_of("folding", "decimal_folding") == "folding_decimal"
    assert hash_of("radix", "decimal_folding") == "radix"
    occ = BY_ID["tab4.occupancy.MSR.folding"].ours(ds, "decimal_folding")
    assert occ == pytest.approx(float(ds.set_occupancy.sel(workload="MSR", hash="folding_decimal")))
    # Table V cells: the share of one class among all workloads' reads
    share = BY_ID["tab5.cases.single.row_hit"].ours(ds, "spread+ddr4")
    cases = ds.cases.sel(placement="single", model="ddr4").sum("workload")
    assert share == pytest.approx(100 * float(cases[-1] / cases.sum()))


def test_values_computed_from_the_dataset(ds):
    occ = BY_ID["tab4.occupancy.MSR.division"].ours(ds, READINGS.default)
    assert occ == pytest.approx(float(ds.set_occupancy.sel(workload="MSR", hash="division")))
    # the count of hashes over 90 % on every workload but WebSearch2/3, by hand
    rows = [w for w in WORKLOADS if w not in ("WebSearch2", "WebSearch3")]
    low = ds.set_occupancy.sel(workload=rows, hash=list(HASHES)).min("workload")
    assert BY_ID["tab4.text.three_hashes_over_90"].ours(ds, "") == float((low > 90).sum())
    imp = BY_ID["tab6.improvement.dynamic"].ours(ds, READINGS.default)
    lat = ds.latency.sel(model=DEFAULT_MODEL)
    by_hand = 100 * (lat.sel(placement="single") - lat.sel(placement="interleaved"))
    assert imp == pytest.approx(float((by_hand / lat.sel(placement="single")).mean()))
    order = BY_ID["tab6.order.WebSearch1"].ours(ds, READINGS.default)
    assert order["fixed"] == pytest.approx(
        float(ds.latency.sel(workload="WebSearch1", placement="set_per_bank", model=DEFAULT_MODEL))
    )
    y = xr.DataArray([1.0, 3.0, 5.0, 7.0], coords={"progress": [1, 2, 3, 4]}, dims="progress")
    assert _slope(y) == pytest.approx(2.0)


def test_rule_probes(ds):
    # Fig. 6 with Table I: 23, 19, 15, 11 cycles for b[t]=b[t-1..4], DL otherwise
    paper = [float(BY_ID[f"tab5.cycles.{cid}"].ours(ds, "spread")) for cid, _, _ in CASES]
    assert paper == [c for _, _, c in CASES]
    strict = [BY_ID[f"tab5.cycles.{cid}"].ours(ds, "paper_layouts+ddr4") for cid, _, _ in CASES]
    assert all(s >= p for s, p in zip(strict, paper, strict=True))  # strict rules only add
    assert strict[0] > paper[0]  # tRAS: a row opened just before cannot close at once


def test_paper_against_itself():
    # the text says three hashes; the paper's own Table IV has two over 90 %
    assert _paper_three_over_90() == ["shifting", "radix"]
    for pl, v in TABLE_VI_IMPROVEMENT.items():
        own = np.mean([100 * (r["single"] - r[pl]) / r["single"] for r in TABLE_VI.values()])
        assert own == pytest.approx(v, abs=0.01)
    assert set(TABLE_IV) == set(WORKLOADS) == set(TABLE_VI)


def test_missing_inputs_say_not_evaluated(ds):
    reduced = ds.sel(
        placement=["single", "set_per_bank", "interleaved"], workload=["Financial1", "MSR"]
    )
    reduced = reduced.drop_vars("case_cycles")
    alt = evaluate(CLAIMS, reduced, "spread").set_index("claim")
    row = alt.loc["tab6.latency.MSR.fixed"]
    assert row.verdict == "not evaluated" and "spread_fixed" in row.note
    default = evaluate(CLAIMS, reduced, READINGS.default).set_index("claim")
    assert default.loc["tab6.latency.MSR.fixed"].verdict != "not evaluated"
    row = default.loc["tab4.occupancy.WebSearch2.radix"]
    assert row.verdict == "not evaluated" and "WebSearch2" in row.note
    row = default.loc["tab5.cycles.b1"]
    assert row.verdict == "not evaluated" and "case_cycles" in row.note
    # a claim over the workloads present is still judged, over those
    assert default.loc["tab6.improvement.fixed"].verdict in ("held", "direction only", "missed")
    # and no claim raises: each is a row
    assert len(default) == len(CLAIMS)
    assert evaluate_claim(BY_ID["fig8.values"], reduced, "")["verdict"] == "not modelled"


# ------------------------------------------------------------------ basis and judging rules
NOT_PREDICTIONS = {
    "input": {f"tab5.cycles.{cid}" for cid, _, _ in CASES} | {"fig3.same_bank_gap"},
    "by_construction": {f"tab5.cases.single.{cid}" for cid in ("b2", "b3", "b4", "other_bank")},
    # the synthetic Financial1 preset was fitted to the paper's 700,873 files
    "calibrated": {"sec3.files.Financial1", "sec3.entries"},
}
# a synthetic WebSearch2/3 is drawn at its preset's alignment: its share of multiples of
# four echoes how it was generated
NOT_PREDICTIONS["input"] |= {f"sec3.multiples_of_four.{w}" for w in ("WebSearch2", "WebSearch3")}


def test_bases(ds):
    head = scorecard.headline("lpmt", ds).set_index("claim")
    for basis, ids in NOT_PREDICTIONS.items():
        assert set(head.index[head.basis == basis]) == ids, basis
    n_other = sum(map(len, NOT_PREDICTIONS.values()))
    assert (head.basis == "prediction").sum() == len(CLAIMS) - n_other
    # by construction: one bank leaves these classes empty for any workload (only a run's
    # very first read has no predecessor)
    for model in ("paper", "paper_window"):  # whichever way rows are kept
        cases = ds.cases.sel(placement="single", model=model).sum("workload")
        lab = list(cases["case"].values)
        assert int(cases.sel(case=lab[1:4]).sum()) == 0
        assert int(cases.sel(case=lab[4])) <= ds.sizes["workload"]
    # the table size is an input when the config sets it, not a calibration
    fixed = ds.copy()
    cfg = yaml.safe_load(fixed.attrs["config"])
    cfg["lpmt"]["n_sets"] = 4096
    fixed.attrs["config"] = yaml.safe_dump(cfg)
    assert scorecard.headline("lpmt", fixed).set_index("claim").loc["sec3.entries"].basis == "input"


def test_input_claims_move_with_the_config(monkeypatch):
    # Table V's latency row echoes Table I through Fig. 6: one more RP cycle is one more
    # cycle on every conflict class and on Fig. 3's gap, none on a row hit
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)

    def head(**timing: int):
        cfg = tiny_config(workloads=["Financial1"], **{f"timing_{k}": v for k, v in timing.items()})
        return evaluate(CLAIMS, lpmt.run(cfg, progress=False), READINGS.default).set_index("claim")

    base, moved = head(), head(rp=10)
    for cid, _, cyc in CASES:
        conflict = cid.startswith("b")
        assert base.loc[f"tab5.cycles.{cid}"].ours == cyc
        assert moved.loc[f"tab5.cycles.{cid}"].ours == cyc + conflict
    assert moved.loc["fig3.same_bank_gap"].ours == base.loc["fig3.same_bank_gap"].ours + 1


def _with(ds: xr.Dataset, name: str, value: float, **where) -> xr.Dataset:
    out = ds.copy(deep=True)
    out[name].loc[where] = value
    return out


def test_occupancy_judged_in_points(ds):
    c = BY_ID["tab4.occupancy.Financial1.shifting"]  # paper 99.13 %
    assert c.paper.rule.startswith("±5 points")
    # 75 % is within ±25 % of 99.13 but 24 points off; 95 % is 4.1 points off
    far = evaluate_claim(c, _with(ds, "set_occupancy", 75.0, workload="Financial1",
                                  hash="shifting"), READINGS.default)  # fmt: skip
    near = evaluate_claim(c, _with(ds, "set_occupancy", 95.0, workload="Financial1",
                                   hash="shifting"), READINGS.default)  # fmt: skip
    assert (far["magnitude_held"], near["magnitude_held"]) == ("no", "yes")
    # every share of the registry is judged in points, and no other number is
    for cl in CLAIMS:
        if cl.paper is None or not hasattr(cl.paper, "value"):
            continue
        share = cl.id.startswith(
            ("tab4.occupancy.", "tab5.cases.", "tab6.improvement.", "sec3.multiples_of_four.")
        )
        share |= cl.id == "tab6.text.additional_gain"
        assert cl.paper.percent == share, cl.id


def _table6(ds: xr.Dataset, w: str, single: float, fixed: float, dynamic: float) -> xr.Dataset:
    out = ds.copy(deep=True)
    for pl, v in (("single", single), ("set_per_bank", fixed), ("interleaved", dynamic)):
        out["latency"].loc[{"workload": w, "placement": pl, "model": DEFAULT_MODEL}] = v
    return out


def test_table6_cell_not_held_while_its_order_is_reversed(ds):
    # 92 ns is within 25 % of the paper's 74.87, but slower than fixed (83.07): reversed
    reversed_ = evaluate(CLAIMS, _table6(ds, "Financial1", 90.95, 83.07, 92.0), READINGS.default)
    row = reversed_.set_index("claim").loc["tab6.latency.Financial1.dynamic"]
    assert row.magnitude_held == "yes" and row.verdict == "missed"
    assert "tab6.order.Financial1" in row.note
    # the single bank is the order's baseline, judged on its own
    assert reversed_.set_index("claim").loc["tab6.latency.Financial1.single"].verdict == "held"
    kept = evaluate(CLAIMS, _table6(ds, "Financial1", 90.95, 83.07, 74.0), READINGS.default)
    assert kept.set_index("claim").loc["tab6.latency.Financial1.dynamic"].verdict == "held"
    assert BY_ID["tab6.latency.MSR.fixed"].part_of == "tab6.order.MSR"
    assert not BY_ID["tab6.latency.MSR.single"].part_of


def test_table4_read_exactly(ds):
    # ours = the paper's Table IV: every cell is held, and so are the WebSearch2/3
    # exceptions; the paper's own rows fail its "three hashes" and "folding is the worst"
    # (so a folding cell is not bound to that comparison: an exact one would be missed)
    occ = ds.copy(deep=True)
    for w, row in TABLE_IV.items():
        for h, v in row.items():
            occ["set_occupancy"].loc[{"workload": w, "hash": h}] = v
    head = evaluate(CLAIMS, occ, READINGS.default).set_index("claim")
    cells = head[head.index.str.startswith("tab4.occupancy.")]
    assert len(cells) == 24 and (cells.verdict == "held").all()
    assert head.loc["tab4.text.WebSearch2.below_90"].verdict == "held"
    assert head.loc["tab4.text.three_hashes_over_90"].ours == 2.0
    assert head.loc["tab4.text.folding_worst"].direction_held == "no"
    assert not any(c.part_of for c in CLAIMS if c.id.startswith("tab4.occupancy."))


def test_websearch_exception_is_fewer_than_three_hashes(ds):
    # one hash far below 90 % is not the exception while three others fill more than 90 %
    occ = ds.copy(deep=True)
    occ["set_occupancy"].loc[{"workload": "WebSearch2"}] = 97.0
    occ["set_occupancy"].loc[{"workload": "WebSearch2", "hash": "division"}] = 12.5
    row = evaluate_claim(BY_ID["tab4.text.WebSearch2.below_90"], occ, READINGS.default)
    assert (row["ours"], row["verdict"]) == (3.0, "missed")
    occ["set_occupancy"].loc[{"workload": "WebSearch2", "hash": "shifting"}] = 71.9
    row = evaluate_claim(BY_ID["tab4.text.WebSearch2.below_90"], occ, READINGS.default)
    assert (row["ours"], row["verdict"]) == (2.0, "held")


def test_fig8_ours_is_the_change_over_the_workload(ds):
    y = xr.DataArray([1.0, 3.0, 5.0, 7.0], coords={"progress": [1, 2, 3, 4]}, dims="progress")
    assert _change(y) == pytest.approx(6.0)
    prog = ds.copy(deep=True)
    x = prog["progress"].values.astype(float)
    for pl in ("single", "set_per_bank", "interleaved"):
        where = {"workload": "MSR", "placement": pl, "model": DEFAULT_MODEL}
        prog["latency_progress"].loc[where] = 80.0 + 0.5 * x
    row = evaluate_claim(BY_ID["fig8.rises.MSR"], prog, READINGS.default)
    assert row["ours"] == pytest.approx(0.5 * (x[-1] - x[0]))
    assert row["verdict"] == "held" and "not legible" in row["note"]


def test_multiples_of_four_from_the_addresses(ds):
    # ours is the share of requests whose start sector is a multiple of 4, from the trace
    for w in ("WebSearch2", "WebSearch3"):
        c = BY_ID[f"sec3.multiples_of_four.{w}"]
        assert c.ours(ds, "") == pytest.approx(float(ds.aligned4_pct.sel(workload=w)))
        assert c.paper.value == 100.0 and c.paper.percent
        # a synthetic stand-in echoes its preset's alignment (an input); a real trace's
        # addresses are a prediction
        assert c.basis(ds) == "input"
        real = ds.copy(deep=True)
        real["synthetic"].loc[{"workload": w}] = False
        assert c.basis(real) == "prediction"
        assert "echoes how" in c.note(ds, "")
    # the alignment is computed, not assumed: Financial1's addresses are not all aligned
    assert float(ds.aligned4_pct.sel(workload="Financial1")) < 100.0


def test_table6_improvement_per_workload(ds):
    # each four-bank cell against its own workload's single bank, the paper's from its cells
    for w, row in TABLE_VI.items():
        for pl in ("fixed", "dynamic"):
            c = BY_ID[f"tab6.improvement.{w}.{pl}"]
            assert c.paper.value == pytest.approx(
                100 * (row["single"] - row[pl]) / row["single"], abs=0.005
            )
            assert c.part_of == f"tab6.order.{w}"
            lat = ds.latency.sel(workload=w, model=DEFAULT_MODEL)
            ours = placement_of(pl, READINGS.default)
            by_hand = 100 * (1 - lat.sel(placement=ours) / lat.sel(placement="single"))
            assert c.ours(ds, READINGS.default) == pytest.approx(float(by_hand))
    # bound to its order: a held improvement is missed while the order is reversed
    reversed_ = evaluate(CLAIMS, _table6(ds, "Financial1", 90.95, 75.0, 76.0), READINGS.default)
    row = reversed_.set_index("claim").loc["tab6.improvement.Financial1.dynamic"]
    assert row.magnitude_held == "yes" and row.verdict == "missed"
