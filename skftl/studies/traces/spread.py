"""How much a study's headline depends on which requests were taken: its claims scored again
on excerpt windows of the real traces and on other seeds of the synthetic stand-ins.

A stand-in is one draw, and a real excerpt one stretch of a longer trace; a verdict that
holds on one window or seed and not on the next rests on that choice. :func:`verdict_spread`
summarises any study's claims scored under several such variants (one scored table per
variant, as :func:`skftl.studies.claims.evaluate` returns); :func:`excerpt_windows` cuts
the windows. :func:`headline_spread` does both for this study (`traces`, the LPMT paper's
Table III): each real trace cut into equal consecutive windows, each synthetic stand-in drawn
again with the next seeds of the config's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import xarray as xr

from skftl.run_traces import excerpt_windows, load_by_id, real_trace_names, synthetic_trace_ids
from skftl.studies.claims import evaluate
from skftl.traces.requests import Requests
from skftl.traces.stats import characterise_many

__all__ = ["excerpt_windows", "verdict_spread", "headline_spread"]


def verdict_spread(tables: Mapping[str, pd.DataFrame], base: pd.DataFrame) -> pd.DataFrame:
    """Per claim of ``base`` (the run's own scored table): its value and verdict, and over
    the variants in ``tables`` (label -> a scored table of the same claims) the lowest,
    median and highest value, in how many of them it is held, and whether the verdict
    differs between variants or from the run's (``stable``: it does not)."""
    long = pd.concat(
        [t[["claim", "ours", "verdict"]].assign(variant=label) for label, t in tables.items()],
        ignore_index=True,
    )
    long["ours"] = pd.to_numeric(long["ours"], errors="coerce")
    g = long.groupby("claim", sort=False)
    out = pd.DataFrame(
        {
            "lowest": g["ours"].min(),
            "median": g["ours"].median(),
            "highest": g["ours"].max(),
            "held": g["verdict"].agg(lambda v: int((v == "held").sum())),
            "variants": g["verdict"].size(),
        }
    )
    # the paper's value is echoed where the scored table has it
    run = base.set_index("claim")[[c for c in ("paper", "ours", "verdict") if c in base]]
    out = run.join(out, how="inner")
    verdicts = g["verdict"].agg(lambda v: frozenset(v))
    out["stable"] = [
        verdicts[c] == frozenset([run.loc[c, "verdict"]]) for c in out.index
    ]  # one verdict everywhere
    return out


def _dataset(traces: list[tuple[str, Requests]], page_size: int, like: xr.Dataset) -> xr.Dataset:
    """A dataset like the study's (``like``: its attributes, which say which row each trace
    stands for) over ``traces`` (trace id, requests)."""
    ds = characterise_many([r for _, r in traces], page_size=page_size)
    ds = ds.assign_coords(trace_id=("trace", [t for t, _ in traces]))
    ds.attrs.update(like.attrs)
    return ds


def headline_spread(
    ds: xr.Dataset,
    cfg: dict[str, Any],
    *,
    windows: int = 5,
    seeds: int = 5,
    reading: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The `traces` study's claims scored on ``windows`` equal consecutive windows of every
    real trace of the run (the synthetic stand-ins as they are) and on ``seeds`` draws of
    every synthetic stand-in (seeds ``cfg['seed'] + 1 ..``; the real traces whole). Returns
    (per claim and family, :func:`verdict_spread`; the long table of every variant's value
    and verdict). ``ds`` is the run's dataset (:func:`skftl.studies.traces.run`)."""
    from skftl.studies.traces import CLAIMS, READINGS

    reading = reading or READINGS.default
    page = int(cfg.get("traces", {}).get("page_size", 4096))
    base = evaluate(CLAIMS, ds, reading)
    real = real_trace_names(cfg)
    synthetic = synthetic_trace_ids(cfg)
    whole = {t: load_by_id(t, cfg) for t in real + synthetic}
    cut = {t: excerpt_windows(whole[t], windows) for t in real if len(whole[t]) >= 2 * windows}
    variants: dict[str, dict[str, pd.DataFrame]] = {"window": {}, "seed": {}}
    for k in range(windows):
        traces = [(t, cut[t][k] if t in cut else whole[t]) for t in real + synthetic]
        variants["window"][f"window {k + 1}"] = evaluate(
            CLAIMS, _dataset(traces, page, ds), reading
        )
    seed0 = int(cfg.get("seed", 0))
    for k in range(1, seeds + 1):
        other = {**cfg, "seed": seed0 + k}
        traces = [(t, whole[t]) for t in real] + [(t, load_by_id(t, other)) for t in synthetic]
        variants["seed"][f"seed {seed0 + k}"] = evaluate(
            CLAIMS, _dataset(traces, page, ds), reading
        )
    summary = pd.concat(
        {family: verdict_spread(tables, base) for family, tables in variants.items() if tables},
        names=["family", "claim"],
    )
    long = pd.concat(
        [
            t[["claim", "ours", "verdict"]].assign(family=family, variant=label)
            for family, tables in variants.items()
            for label, t in tables.items()
        ],
        ignore_index=True,
    )
    return summary, long


def unstable(summary: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict is not the same on every window or seed."""
    return summary[~summary["stable"].astype(bool)]


def spread_width(summary: pd.DataFrame) -> pd.Series:
    """Per (family, claim): highest minus lowest value over the variants."""
    return (summary["highest"] - summary["lowest"]).astype(float).rename("width")
