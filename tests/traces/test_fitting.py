"""The calibration's measuring of short draws (skftl.traces.fitting): how many draws a step
measures and how their measures are averaged, and that averaging narrows how much a short
trace's look-alike varies with the seed of its fit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from skftl.traces import fitting


def test_a_short_profile_is_measured_on_several_draws():
    """Draws of at least CALIBRATION_FLOOR requests in all, at most CALIBRATION_DRAWS, the
    fit's own seed first; a long profile's step measures its one draw, as before."""
    floor, most = fitting.CALIBRATION_FLOOR, fitting.CALIBRATION_DRAWS
    assert fitting._draw_seeds(floor, 7) == [7]
    assert fitting._draw_seeds(10 * floor, 7) == [7]
    seeds = fitting._draw_seeds(floor // 4, 7)
    assert len(seeds) == 4 and seeds[0] == 7 and len(set(seeds)) == 4
    assert len(fitting._draw_seeds(floor // 4 - 1, 7)) == 5
    assert len(fitting._draw_seeds(10, 7)) == most


def test_mean_of_draws_by_hand():
    """Numbers and lists of numbers of one length averaged element by element, a draw's NaN
    left out (NaN where all are), anything else the first draw's; one draw as it is."""
    a = {"x": 1, "y": [1.0, float("nan"), float("nan")], "n": "a", "h": [1, 2], "e": []}
    b = {"x": 2.0, "y": [3.0, 4.0, float("nan")], "n": "b", "h": [1, 2, 3], "e": []}
    got = fitting._mean_of([a, b])
    assert got["x"] == 1.5 and isinstance(got["x"], float)
    assert got["y"][:2] == [2.0, 4.0] and math.isnan(got["y"][2])
    assert got["n"] == "a" and got["h"] == [1, 2] and got["e"] == []
    assert fitting._mean_of([a]) is a


@pytest.mark.realtrace
def test_averaged_steps_narrow_a_short_traces_look_alikes(shared_traces, monkeypatch):
    """On the first half of pixel6a_telegram_precond (2,660 requests) the look-alike's
    footprint per request varies with the fit's seed by far less when each step measures
    the mean of several draws than when it measures one (measured: 5 % against 20 % over
    eight seeds), and its furthest from the trace's is nearer."""
    from skftl.traces import generalisation, load_trace
    from skftl.traces.locality import measured

    real = load_trace("pixel6a_telegram_precond", trace_dirs=[shared_traces])
    half = real[: len(real) // 2]
    fitted = measured(half)
    n = len(half)
    want = fitted.profile["footprint_pages"] / n

    def per_request(seeds: range) -> np.ndarray:
        return np.asarray(
            [
                generalisation._look_alike(
                    half, fitted, n, seed=s, page_size=4096, calibrate=3, name=None
                ).profile["footprint_pages"]
                / n
                for s in seeds
            ]
        )

    averaged = per_request(range(5))
    monkeypatch.setattr(fitting, "CALIBRATION_FLOOR", 1)  # one draw per step
    one = per_request(range(5))
    spread = [np.std(x, ddof=1) / np.mean(x) for x in (averaged, one)]
    assert spread[0] < 0.5 * spread[1], spread
    assert np.max(np.abs(averaged / want - 1)) < np.max(np.abs(one / want - 1))
