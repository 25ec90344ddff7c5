"""Issue 35, item 7: the paper's Tables V and VI against each other, worked by hand from its
own numbers (Table I, Fig. 6, 4 banks, 8 ways, Fig. 7's order), and the same question on a
run; and the figures that draw the paper's rows beside ours."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

from skftl.studies.lpmt import claims as C  # noqa: E402
from skftl.studies.lpmt import figures as F  # noqa: E402


def test_counting_rules_by_hand():
    t = F.counting_rules()
    cyc = "cycles per probe"
    hits = t.columns[5]
    # one bank: one b[t]=b[t-1] (23) and 7 row hits (4) per 8-read probe
    assert t.loc[("per probe", "single"), cyc] == 23 + 7 * 4
    # a set in one bank: the last probe's bank 1 time in 4 (23), else hidden (4)
    assert t.loc[("per probe", "fixed"), cyc] == pytest.approx(0.25 * 23 + 0.75 * 4 + 7 * 4)
    # Fig. 7's order: always the bank read 4 reads before, b[t]=b[t-4] (11 cycles)
    assert t.loc[("per probe", "dynamic"), cyc] == 11 + 7 * 4
    assert t.loc[("per probe", "dynamic"), hits] == 87.5
    # per bank, the interleaved set opens a row in all 4 banks: half the reads
    assert t.loc[("per bank", "dynamic"), cyc] == 4 * 11 + 4 * 4
    assert t.loc[("per bank", "dynamic"), hits] == 50.0
    # every hand-worked row's shares sum to 100 % (the paper's rows as printed)
    shares = t.iloc[:, :6].sum(axis=1)
    assert shares.loc[["per bank", "per probe"]].round(6).eq(100.0).all()
    assert shares.loc[("paper's Table V", "single")] == pytest.approx(98.01)
    # the paper's Table V rows, weighted by Fig. 6 (cycles per read x 8)
    tv = t.loc[("paper's Table V", "dynamic"), cyc]
    assert tv == pytest.approx((8.68 * 11 + 3.83 * 4 + 87.49 * 4) / 100 * 8, abs=1e-3)
    # break-even: q * 23 + (1 - q) * 4 = 11
    assert F.fixed_break_even() == pytest.approx(7 / 19)


def test_paper_activations():
    a = F.paper_activations()["value"]
    fx, dy = C.TABLE_V["fixed"], C.TABLE_V["dynamic"]
    assert a.iloc[1] == pytest.approx(round(100 * fx[0] / (100 - fx[5]), 3))
    assert a.iloc[5] == pytest.approx(round(100 * dy[4] / (100 - dy[5]), 3))


def test_run_side_and_figures(tmp_path):
    from tests.studies.lpmt.test_claims import WORKLOADS, lpmt, tiny_config

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SKFTL_TRACE_DIRS", raising=False)
        cfg = tiny_config(
            workloads=list(WORKLOADS),
            n_requests=600,
            sensitivity={"placements": ["single", "set_per_bank", "interleaved"], "assoc": [],
                         "load_factor": [], "n_banks": [], "bank_groups": [], "reaccess": []},
        )  # fmt: skip
        ds = lpmt.run(cfg, progress=False)
    r = F.counting_rule_run(ds)
    assert {"paper", "paper_per_probe", "ddr4", "paper (Table V / VI)"} <= set(r.index)
    assert "ddr4, tCCD_L = tCCD_S" in r.index
    assert r.loc["paper (Table V / VI)", "workloads with dynamic < fixed"] == 6
    lat = ds.latency.sel(model="paper_per_probe")
    n = int((lat.sel(placement="interleaved") < lat.sel(placement="set_per_bank")).sum())
    assert r.loc["paper_per_probe", "workloads with dynamic < fixed"] == n
    # Table VI per workload, the paper's own improvements beside ours
    w = F.improvement_by_workload(ds)
    assert w[("fixed", "paper")]["MSR"] == pytest.approx(100 * (98.62 - 89.56) / 98.62, abs=0.01)
    assert F.improvement_table(ds).iloc[:, -1]["interleaved"] == C.TABLE_VI_IMPROVEMENT["dynamic"]
    # the figures draw the paper's rows: Table V's with its 87 % row hits
    fig = F.cases_figure(ds)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert any(lab.startswith("paper: 4 banks, dynamic") for lab in labels)
    assert any("87.5 % row hits" in t.get_text() for t in fig.axes[0].texts)
    fig = F.latency_figure(ds)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(t.startswith("set_per_bank (paper's fixed, default") for t in legend)
    assert any(t.startswith("interleaved (paper's dynamic, default") for t in legend)
    assert len(F.occupancy_figure(ds).axes) == 2
    fig = F.progress_figure(ds)
    assert any("Table VI mean" in t.get_text() for t in fig.legends[0].get_texts())
