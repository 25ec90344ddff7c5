"""The bnvm study's explore (skftl/studies/bnvm/explore.py): one configuration equals the
study's run of it under every reading, a knob moves the result, the figure draws it."""

from __future__ import annotations

import pytest

from skftl.config import REPO_ROOT, load_config
from skftl.explore import png_bytes
from skftl.studies import bnvm
from skftl.studies.bnvm import explore as ex


@pytest.fixture(scope="module")
def cfg() -> dict:
    return load_config(REPO_ROOT / "config" / "tiny.yaml")


@pytest.mark.parametrize(("grouping", "flush_rounds"), [("queue", 2), ("stream", 1)])
def test_one_configuration_equals_the_studys_run_of_it(
    cfg: dict, grouping: str, flush_rounds: int
) -> None:
    values = {**ex.defaults(cfg), "grouping": grouping, "flush_rounds": flush_rounds}
    res = ex.compute(cfg, **values)
    ds = bnvm.run({**cfg, "bnvm": {**cfg["bnvm"], "traces": [values["trace"]]}}, progress=False)
    at = ds.sel(trace=values["trace"], install="none", grouping=grouping,
                flush_rounds=flush_rounds)  # fmt: skip
    for scheme in bnvm.SCHEMES:
        run = res.runs[scheme]
        s = at.sel(scheme=scheme)
        assert float(s["write_time"]) == pytest.approx(run.write_time_s)
        assert float(s["total_time"]) == pytest.approx(run.total_time_s)
        clean, dirty = res.parallel(scheme)
        assert (int(s["parallel_clean_writes"]), int(s["parallel_dirty_writes"])) == (clean, dirty)
    assert res.label == str(ds["label"].sel(trace=values["trace"]).values)


def test_a_knob_moves_the_result(cfg: dict) -> None:
    values = ex.defaults(cfg)
    four = ex.compute(cfg, **values)
    eight = ex.compute(cfg, **{**values, "n_chips": 8})
    assert eight.runs["static"].write_time_s < four.runs["static"].write_time_s
    fast = ex.compute(cfg, **{**values, "t_refresh_ms": 0.01})
    full = "static_full"
    assert fast.runs[full].refresh_time_s < four.runs[full].refresh_time_s
    assert fast.runs["static"].total_time_s == four.runs["static"].total_time_s  # no refresh


def test_the_figure_draws_the_result(cfg: dict) -> None:
    values = ex.defaults(cfg)
    res = ex.compute(cfg, **values)
    fig = ex.figure(res)
    assert len(fig.axes) == 2 and f"trace {values['trace']}" in fig._suptitle.get_text()
    other = ex.figure(ex.compute(cfg, **{**values, "n_chips": 8}))
    assert png_bytes(fig) != png_bytes(other)
    assert set(ex.defaults(cfg)) == {k.name for k in ex.knobs(cfg)}
