"""The ppb study's explore (skftl/studies/ppb/explore.py): one configuration equals the
study's run of it, a new speed ratio replays the kept drive, the figure draws it."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import REPO_ROOT, load_config
from skftl.explore import png_bytes
from skftl.studies import ppb
from skftl.studies.ppb import explore as ex

NO_BEYOND = {"n_vbs": [], "max_open": [], "strict": False, "bloom": False,
             "sk_allocator": False, "ppb_sk": False, "migrate": False}  # fmt: skip


@pytest.fixture(scope="module")
def cfg() -> dict:
    return load_config(REPO_ROOT / "config" / "tiny.yaml")


def test_one_configuration_equals_the_studys_run_of_it(cfg: dict) -> None:
    values = ex.defaults(cfg)
    sec = cfg["ppb"]
    setups = ["fill", "footprint"]  # the default set-up, and one that replays the trace first
    pre = {**sec["preconditioning"], "setups": setups, "fill_seeds": 1}
    run = {**sec, "page_sizes": [values["page_size"]], "speed_ratios": [values["speed_ratio"]],
           "beyond": NO_BEYOND, "preconditioning": pre}  # fmt: skip
    ds = ppb.run({**cfg, "ppb": run}, progress=False)
    for setup in setups:
        res = ex.compute(cfg, **{**values, "setup": setup})
        at = ds.sel(setup=setup, trace=values["trace"], page_size=values["page_size"],
                    speed_ratio=values["speed_ratio"])  # fmt: skip
        for policy, metrics in (("page", res.page), (values["policy"], res.policy)):
            for name in ("read_array", "write_array", "read_latency", "erases", "gc_copies"):
                want = float(at[name].sel(policy=policy))
                assert metrics[name] == pytest.approx(want, nan_ok=True), (setup, policy, name)
    assert res.requests == int(ds["trace_requests"].sel(trace=values["trace"]))


def test_a_new_speed_ratio_replays_the_kept_drive(cfg: dict) -> None:
    values = ex.defaults(cfg)
    ex._DRIVES.clear()
    slow = ex.compute(cfg, **{**values, "speed_ratio": 2.0})
    drives = len(ex._DRIVES)
    fast = ex.compute(cfg, **{**values, "speed_ratio": 4.0})
    assert len(ex._DRIVES) == drives == 2  # the conventional drive and the policy's
    # placement and GC do not depend on timing: the same reads land on the same pages
    assert np.array_equal(slow.policy_reads, fast.policy_reads)
    assert fast.policy["read_array"] < slow.policy["read_array"]  # Table 1 is the slowest page
    assert fast.read_ns.min() == pytest.approx(fast.read_ns.max() / 4.0)


def test_the_figure_draws_the_result(cfg: dict) -> None:
    values = ex.defaults(cfg)
    res = ex.compute(cfg, **values)
    fig = ex.figure(res)
    assert len(fig.axes) == 3  # the positions, their read time (twin axis), the metrics
    assert f"speed ratio {values['speed_ratio']:g}" in fig._suptitle.get_text()
    other = ex.figure(ex.compute(cfg, **{**values, "speed_ratio": 2.0}))
    assert png_bytes(fig) != png_bytes(other)
    assert set(values) == {k.name for k in ex.knobs(cfg)}
