"""The mtpm study's explore (skftl/studies/mtpm/explore.py): one configuration equals the
study's simulation of it, a knob moves the result, the figure draws it."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import REPO_ROOT, load_config
from skftl.explore import png_bytes
from skftl.power.device import OP_PROGRAM, Device
from skftl.power.profiles import load_profiles
from skftl.studies.mtpm import explore as ex
from skftl.studies.mtpm import simulate as study


@pytest.fixture(scope="module")
def cfg() -> dict:
    return load_config(REPO_ROOT / "config" / "tiny.yaml")


@pytest.mark.parametrize(("scheme", "mix"), [("KMTPM_SA", "R50"), ("DCC", "Financial1")])
def test_one_configuration_equals_the_studys_simulation(cfg: dict, scheme: str, mix: str) -> None:
    sec = cfg["mtpm"]
    values = {**ex.defaults(cfg), "scheme": scheme, "mix": mix}
    res = ex.compute(cfg, **values)
    dev = Device.from_config(study._setup_device(sec, "default"))
    runner = study._Runner(
        load_profiles(study._profile_path(sec.get("profiles"))), dev, study._NoBar(),
        dcc_model=str(sec["dcc_model"]), dcc_decision_ns=int(sec["dcc_decision_ns"]),
    )  # fmt: skip
    syn = study._synthetic(sec, int(cfg["seed"]), dev.n_chips)
    if mix in syn:
        ops = syn[mix]
    else:  # the one block trace alone (the others may have no trace or preset here)
        one = {**sec, "real": {**sec["real"], "workloads": {mix: sec["real"]["workloads"][mix]}}}
        ops = study._real(cfg, one, dev.n_chips)[0][mix]
    for name, got in ((scheme, res.run), ("NPM", res.npm)):
        want = runner.sim(ops, name, float(values["alpha"]), int(values["tg"]))
        assert got.throughput_ops_per_s == pytest.approx(want.throughput_ops_per_s)
        assert got.peak_over_budget == pytest.approx(want.peak_over_budget)
        assert got.mean_latency_ns(res.kinds, OP_PROGRAM) == pytest.approx(
            want.mean_latency_ns(ops.kind, OP_PROGRAM)
        )


def test_a_knob_moves_the_result(cfg: dict) -> None:
    values = ex.defaults(cfg)
    base = ex.compute(cfg, **values)
    assert base.npm.peak_over_budget > 0 >= base.run.peak_over_budget  # NPM alone violates
    wide = ex.compute(cfg, **{**values, "alpha": 8})
    assert wide.total_tokens == 8 * (2 ** values["tg"] - 1) != base.total_tokens
    assert wide.npm.peak_over_budget < base.npm.peak_over_budget
    coarse = ex.compute(cfg, **{**values, "tg": 2})
    assert coarse.total_tokens == values["alpha"] * 3
    assert not np.array_equal(coarse.run.op_done, base.run.op_done)


def test_the_figure_draws_the_result(cfg: dict) -> None:
    values = ex.defaults(cfg)
    res = ex.compute(cfg, **values)
    fig = ex.figure(res)
    assert len(fig.axes) == 2 and f"TG = {values['tg']}" in fig._suptitle.get_text()
    assert png_bytes(fig) != png_bytes(ex.figure(ex.compute(cfg, **{**values, "alpha": 6})))
    assert set(values) == {k.name for k in ex.knobs(cfg)}
