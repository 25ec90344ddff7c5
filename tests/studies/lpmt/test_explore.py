"""The lpmt study's explore (skftl/studies/lpmt/explore.py): one configuration equals the
study's run of it, a knob moves the result, the figure draws it."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import REPO_ROOT, load_config
from skftl.explore import png_bytes
from skftl.studies import lpmt
from skftl.studies.lpmt import explore as ex


@pytest.fixture(scope="module")
def cfg() -> dict:
    return load_config(REPO_ROOT / "config" / "tiny.yaml")


def test_one_configuration_equals_the_studys_run_of_it(cfg: dict) -> None:
    """The study run on the one workload (the table sized from it alone, as the explore
    sizes it): the same latency per tenth, cases and mean, placement and one bank."""
    values = ex.defaults(cfg)
    res = ex.compute(cfg, **values)
    small = {"placements": ["single", values["placement"]], "hashes": [values["hash"]],
             "sensitivity": {"placements": ["single"], "assoc": [], "load_factor": [],
                             "n_banks": [], "bank_groups": [], "reaccess": []}}  # fmt: skip
    ds = lpmt.run(lpmt.with_overrides(cfg, workloads=[values["workload"]], **small), False)
    at = ds.sel(workload=values["workload"], model=values["model"])
    for pl, run in ((values["placement"], res.run), ("single", res.single)):
        assert float(at["latency"].sel(placement=pl)) == pytest.approx(run.mean_ns)
        assert np.allclose(at["latency_progress"].sel(placement=pl), run.by_bin_ns)
        assert np.array_equal(at["cases"].sel(placement=pl), run.cases)
    assert res.requests == int(ds["requests"].sel(workload=values["workload"]))
    assert res.label == str(ds["label"].sel(workload=values["workload"]).values)


def test_a_knob_moves_the_placement_not_the_one_bank_baseline(cfg: dict) -> None:
    values = ex.defaults(cfg)
    four = ex.compute(cfg, **values)
    eight = ex.compute(cfg, **{**values, "n_banks": 8})
    assert eight.run.mean_ns != four.run.mean_ns
    assert eight.single.mean_ns == four.single.mean_ns  # one bank whatever n_banks says
    assert eight.improvement == pytest.approx(
        100 * (eight.single.mean_ns - eight.run.mean_ns) / eight.single.mean_ns
    )
    other = ex.compute(cfg, **{**values, "workload": "WebSearch2", "model": "ddr4"})
    assert other.values["workload"] == "WebSearch2" and other.run.mean_ns != four.run.mean_ns


def test_the_figure_draws_the_result(cfg: dict) -> None:
    res = ex.compute(cfg, **ex.defaults(cfg))
    fig = ex.figure(res)
    assert len(fig.axes) == 2
    title = fig._suptitle.get_text()
    assert res.values["workload"] in title and f"{res.improvement:+.1f} %" in title
    assert png_bytes(fig) != png_bytes(ex.figure(ex.compute(cfg, **{**res.values, "n_banks": 8})))


def test_knobs_start_at_the_config_and_the_default_reading(cfg: dict) -> None:
    knobs = {k.name: k for k in ex.knobs(cfg)}
    values = ex.defaults(cfg)
    assert set(values) == set(knobs)
    assert values["n_banks"] == cfg["lpmt"]["n_banks"] and values["placement"] == "interleaved"
    assert values["model"] == "paper_window" and knobs["workload"].choices == (
        "Financial1",
        "WebSearch2",
    )
