"""The `skrm` claims registry on a tiny run of two traces: every claim becomes a scorecard
row under every reading it names, ids are unique and the per-trace claims follow the
config's trace list, a reading selects the counts it names, and a claim whose input a run
lacks says why it is not evaluated."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from skftl.config import load_config
from skftl.studies import scorecard, skrm
from skftl.studies.claims import COLUMNS, VERDICTS, evaluate, evaluate_claim
from skftl.studies.skrm import figures
from skftl.studies.skrm.claims import CLAIMS, READINGS, TRACE_KEYS
from tests.test_skrm_study import tiny_config

BY_ID = {c.id: c for c in CLAIMS}


@pytest.fixture(scope="module")
def ds() -> xr.Dataset:
    # two of the registry's traces (synthetic presets, so no trace folder is needed)
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SKFTL_TRACE_DIRS", raising=False)
        cfg = tiny_config()
        cfg["skrm"]["traces"]["web_0"] = {"candidates": [], "preset": "msr_web"}
        return skrm.run(cfg, progress=False)


def test_ids_unique_readings_known_and_traces_follow_the_config():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert set(c.readings) <= set(READINGS.options), c.id
        assert c.not_modelled or c.paper is not None
    # per-trace claims exist for every trace of the default config, for Figs. 9, 10 and 13
    assert tuple(load_config()["skrm"]["traces"]) == TRACE_KEYS
    for prefix in ("fig9.inject.sk_lowest.", "fig10.remove.sk_lowest.", "fig13.bitdiff.sk_below."):
        per_trace = [i.removeprefix(prefix) for i in ids if i.startswith(prefix)]
        for sfx in (".warm", ".multipass"):
            assert sorted(i.removesuffix(sfx) for i in per_trace if i.endswith(sfx)) == sorted(
                TRACE_KEYS
            )
        assert sorted(i for i in per_trace if "." not in i) == sorted(TRACE_KEYS)
    # every claim of Figs. 9-14 is scored under every set-up, cold ids unsuffixed
    cold = [i for i in ids if i.startswith("fig") and i != "fig12.shift.follows_interport"]
    cold = [i for i in cold if not i.endswith((".warm", ".multipass"))]
    for sfx in (".warm", ".multipass"):
        assert {f"{i}{sfx}" for i in cold} <= set(ids)
    # the Heimdall cuts are smoke-test data, not scored
    assert not [i for i in ids if "msr_cut" in i]


def test_every_claim_is_a_row_under_every_reading(ds):
    for reading in READINGS.options:
        table = evaluate(CLAIMS, ds, reading)
        assert list(table.columns) == COLUMNS
        assert len(table) == len(CLAIMS)
        assert set(table["verdict"]) <= set(VERDICTS)
    head = scorecard.headline("skrm", ds)
    rows = head.set_index("claim")
    # the traces of this run are evaluated, the others say which trace is missing
    assert rows.loc["fig9.inject.sk_lowest.web_0.warm", "verdict"] not in ("not evaluated",)
    assert rows.loc["fig9.inject.sk_lowest.web_0", "verdict"] not in ("not evaluated",)
    assert rows.loc["fig9.inject.sk_lowest.desktop", "verdict"] not in ("not evaluated",)
    assert rows.loc["fig9.inject.sk_lowest.mds", "verdict"] == "not evaluated"
    assert "'mds'" in rows.loc["fig9.inject.sk_lowest.mds", "note"]
    assert rows.loc["sec4a.pc_trace", "verdict"] == "not modelled"


def test_reading_dependent_claims_evaluated_under_each_of_their_readings(ds):
    table = scorecard.readings("skrm", ds).set_index("claim")
    dependent = [c for c in CLAIMS if c.readings and not c.not_modelled]
    assert sorted(table.index) == sorted(c.id for c in dependent)
    for c in dependent:
        for r in READINGS.options:
            verdict = table.loc[c.id, f"{r}: verdict"]
            if r in c.readings:
                assert verdict in VERDICTS, (c.id, r)
            else:
                assert verdict == "n/a", (c.id, r)


def test_a_reading_selects_the_counts_it_names(ds):
    # the 1-bit difference: popcount change under 'paper', Hamming distance under 'hamming',
    # SK-FTL's replay under the row rule a row reading names
    cut = BY_ID["fig13.bitdiff.sk_vs_pw.mean.synthetic.warm"]
    for reading, name in (("paper", "bitdiff"), ("hamming", "hamming")):
        b = ds[name].sel(setup="warm").astype(float)
        want = np.mean(100 * (b.sel(scheme="SK-FTL") / b.sel(scheme="PW FTL") - 1).values)
        assert cut.ours(ds, reading) == pytest.approx(want)
    pw = ds["bitdiff"].sel(setup="warm", scheme="PW FTL").astype(float)
    for rule in ("lockstep", "match"):
        sk = ds["rows_bitdiff"].sel(setup="warm", rows=rule)
        assert cut.ours(ds, rule) == pytest.approx(np.mean(100 * (sk / pw - 1).values))
    # the default reading is the configured row rule
    assert cut.ours(ds, "paper") == pytest.approx(cut.ours(ds, tiny_config()["skrm"]["rows"]))
    # operation counts: SK-RMSim charges permutation writes 2W + 2 shifts, naive 2W
    spread = BY_ID["fig12.shift.similar"]
    for reading, conv in (("paper", "paper"), ("skrmsim", "skrmsim")):
        sh = ds["op_latency"].sel(convention=conv, setup="cold", op="shift")
        want = float((sh.max("scheme") / sh.min("scheme")).max())
        assert spread.ours(ds, reading) == pytest.approx(want)
    assert spread.ours(ds, "skrmsim") > spread.ours(ds, "paper")


def test_real_and_synthetic_means_are_separate(ds):
    # this run has one synthetic trace: its mean is that trace's change, the real mean is
    # not evaluated (and says why)
    lat = ds["op_latency"].sel(convention="paper", setup="multi-pass", op="inject")
    ch = 100 * (lat.sel(scheme="SK-FTL") / lat.sel(scheme="PW FTL") - 1).values
    synthetic = ["(synthetic)" in str(t) for t in ds["trace"].values]
    want = float(np.mean(ch[np.array(synthetic)]))
    assert BY_ID["fig9.inject.sk_vs_pw.mean.synthetic.multipass"].ours(ds, "paper") == (
        pytest.approx(want)
    )
    if all(synthetic):
        row = evaluate_claim(BY_ID["fig9.inject.sk_vs_pw.mean.real.multipass"], ds, "paper")
        assert row["verdict"] == "not evaluated" and "no real trace" in row["note"]


def test_averages_are_the_mean_of_per_trace_changes(ds):
    # the registry's "on average" and the notebook's table agree (all traces synthetic here)
    for setup, sfx in (("cold", ""), ("warm", ".warm")):
        table = figures.change_table(ds, "paper", setup)
        for op in ("inject", "remove"):
            claim = BY_ID[f"fig{9 if op == 'inject' else 10}.{op}.sk_vs_pw.mean.synthetic{sfx}"]
            want = table.loc[f"{op}: SK-FTL vs PW FTL", "mean"]
            assert claim.ours(ds, "paper") == pytest.approx(want, abs=0.01)
    # FTL and PW FTL share one NAND run: Fig. 13's identical bars hold by construction
    row = evaluate_claim(BY_ID["fig13.bitdiff.ftl_equals_pw"], ds, "paper")
    assert row["verdict"] == "held"


def test_missing_inputs_say_why(ds):
    reduced = ds.drop_vars(["sens_entry_bits_latency", "nand_read_latency", "hamming"])
    for claim, reading, missing in (
        ("fig12.shift.follows_interport", "paper", "sens_entry_bits_latency"),
        ("fig14.nand_read.difference.synthetic", "paper", "nand_read_latency"),
        ("fig13.bitdiff.sk_vs_pw.mean.synthetic", "hamming", "hamming"),
    ):
        row = evaluate_claim(BY_ID[claim], reduced, reading)
        assert row["verdict"] == "not evaluated", claim
        assert missing in row["note"], (claim, row["note"])
    # the same claims are evaluated on the full dataset
    assert evaluate_claim(BY_ID["fig14.nand_read.difference.synthetic"], ds, "paper")[
        "verdict"
    ] in (set(VERDICTS) - {"not evaluated"})
