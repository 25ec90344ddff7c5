"""How well a look-alike (``skftl traces synth --like``) fits a trace it was not fitted on.

The round trip of :mod:`skftl.traces.validation` fits a trace and compares the look-alike with
that same trace. Two protocols ask more of the fit:

- **(a) split half**: fit on the first half of a trace, draw a look-alike as long as the second
  half, compare it with the second half (:func:`split_half`). A trace is not stationary (an app
  loads, then runs; a server's mix shifts), so a perfect generator still misses where the two
  halves differ: each row also compares the fitted half itself with the held half
  (``persistence``: what taking the first half as the forecast gives), the bound the trace sets.
- **(b) leave one out**: nothing of the fit was developed against the trace; fit on the whole
  trace and compare the look-alike with it (:func:`leave_one_out`). The fit has no constants
  chosen on traces (its parameters are estimated from the profile it is given), so the
  protocol is the round trip of a trace kept out of the fit's development:
  :data:`HELD_OUT` names the traces of ../shared/traces that the fit's development never
  looked at, and the table marks them.

Per measure (:data:`MEASURES`): its group (the issue's list: footprint per request and its
growth, reuse share and distance quantiles, rewrite and reread shares, hottest-decile share,
sizes, mix, gaps), how it is compared and its target. Shares of the mix are compared in
points (``abs``), the rest relative (``rel``) or as a curve distance (``ks``); where the real
sample is too small for the target to mean anything the sampling rules of
:mod:`skftl.traces.locality` also hold a row, and its ``rule`` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from skftl.traces import locality
from skftl.traces.profile import profile_trace, require_profilable, spec_from_profile
from skftl.traces.requests import Requests
from skftl.traces.synthetic import generate


@dataclass(frozen=True)
class Measure:
    """One compared measure: ``kind`` ``rel`` (|synthetic - real| / |real| <= tolerance),
    ``abs`` (|synthetic - real| <= tolerance, a share in points) or ``ks`` (a curve's KS
    distance <= tolerance)."""

    name: str
    group: str
    kind: str
    tolerance: float


MEASURES: tuple[Measure, ...] = (
    Measure("footprint_per_request", "footprint", "rel", 0.10),
    Measure("footprint_growth_ks", "footprint", "ks", 0.10),
    Measure("reuse_share", "reuse", "rel", 0.10),
    Measure("median_reuse_distance", "reuse", "rel", 0.10),
    Measure("reuse_distance_cdf_ks", "reuse", "ks", 0.10),
    Measure("rewrite_share", "rewrite and reread", "rel", 0.10),
    Measure("reread_share", "rewrite and reread", "rel", 0.10),
    Measure("read_hit_written_share", "rewrite and reread", "rel", 0.10),
    Measure("top_decile_access_share", "hottest decile", "rel", 0.10),
    Measure("mean_read_size_kb", "sizes", "rel", 0.10),
    Measure("mean_write_size_kb", "sizes", "rel", 0.10),
    Measure("read_fraction", "mix", "abs", 0.03),
    Measure("seq_read_fraction", "mix", "abs", 0.03),
    Measure("seq_write_fraction", "mix", "abs", 0.03),
    Measure("gap_cv", "gaps", "rel", 0.10),
    Measure("gap_median_ratio", "gaps", "rel", 0.10),
)
BY_NAME = {m.name: m for m in MEASURES}

# The traces of ../shared/traces that the fit's mechanisms and estimators were developed and
# checked against while they were written (the round trip of notebooks/00_traces.ipynb).
# The others were held out of that work: protocol (b) on them is a test of a trace the fit
# has not seen.
HELD_OUT = ("pixel6a_cod_exec", "pixel6a_diablo_exec", "heimdall_rand_iops_1006")


def _value(m: locality.Measured, key: str) -> float:
    p = m.profile
    if key == "footprint_per_request":
        return float(p["footprint_pages"]) / float(p["n_requests"])
    return float(p[key])


def _trials(p: dict, key: str) -> float:
    """Trials behind a share of profile ``p`` (NaN: not a share of counted events)."""
    if key == "reread_share":  # of the non-sequential reads
        return float(p["n_requests"]) * float(p["read_fraction"]) * (1 - p["seq_read_fraction"])
    trials = locality.SHARE_TRIALS.get(key)
    return float(p[trials]) if trials else float("nan")


def _share_se(p: dict, key: str) -> float:
    if key in locality.MEAN_SIZE_SD:
        return locality._sampling_se(p, key)
    if key not in p:
        return float("nan")
    m, share = _trials(p, key), float(p[key])
    if not (m > 0 and np.isfinite(share)):
        return float("nan")
    return float(np.sqrt(share * (1.0 - share) / m))


def compare(real: locality.Measured, synthetic: locality.Measured) -> list[dict]:
    """One row per :data:`MEASURES` entry: both values (NaN for a curve), the distance
    (relative, in points, or KS), whether it holds and by which rule."""
    rows = []
    for m in MEASURES:
        if m.kind == "ks":
            d = (
                locality.curve_distance(real.growth, synthetic.growth)
                if m.name == "footprint_growth_ks"
                else locality.ks_distance(real.reuse, synthetic.reuse)
            )
            holds, rule = bool(d <= m.tolerance), f"KS <= {m.tolerance:g}"
            if not holds and m.name == "reuse_distance_cdf_ks":
                if d <= locality._ks_critical(len(real.reuse), len(synthetic.reuse)):
                    holds, rule = True, locality.KS_RULE
            ref, got = float("nan"), float("nan")
        else:
            ref, got = _value(real, m.name), _value(synthetic, m.name)
            if np.isnan(ref) and np.isnan(got):
                d = 0.0  # undefined in both (the write sizes of two read-only traces)
            elif m.kind == "abs":
                d = abs(got - ref)
            elif ref:
                d = abs(got - ref) / abs(ref)
            else:
                d = 0.0 if got == 0 else float("inf")
            holds = bool(d <= m.tolerance)
            rule = f"{m.tolerance * 100:g} {'points' if m.kind == 'abs' else '% relative'}"
            if not holds and m.kind == "rel":
                se = np.hypot(_share_se(real.profile, m.name), _share_se(synthetic.profile, m.name))
                if abs(got - ref) <= locality.SAMPLING_SE * se:  # NaN never holds
                    holds, rule = True, locality.SAMPLING_RULE
                if not holds and m.name == "median_reuse_distance":
                    lo, hi = locality._median_ci(real.reuse)
                    if lo <= got <= hi:
                        holds, rule = True, locality.MEDIAN_RULE
        rows.append({"measure": m.name, "group": m.group, "real": ref, "synthetic": got,
                     "distance": float(d), "holds": holds, "rule": rule})  # fmt: skip
    return rows


def _look_alike(
    fit: Requests,
    measured: locality.Measured,
    n: int,
    *,
    seed: int,
    page_size: int,
    calibrate: int,
    name: str | None,
) -> locality.Measured:
    """The measured look-alike of ``n`` requests fitted on ``fit`` (``measured``: ``fit``
    already measured): the fit draws with ``seed``, the look-alike with ``seed + 1`` (a draw
    the calibration has not seen)."""
    preset = profile_trace(fit, page_size, name=name, flat=measured.profile)
    spec = spec_from_profile(preset, n, seed=seed, calibrate=calibrate)
    return locality.measured(generate(spec, n, seed=seed + 1), page_size)


def split_half(
    requests: Requests,
    *,
    seed: int = 0,
    page_size: int = 4096,
    calibrate: int = 3,
    name: str | None = None,
) -> pd.DataFrame:
    """Protocol (a): fit on the first half, draw a look-alike as long as the second half and
    compare it with the second half (``synthetic``), beside the first half itself compared
    with the second (``persistence``, the bound a non-stationary trace sets). One row per
    measure, the two comparisons side by side."""
    require_profilable(requests)
    half = len(requests) // 2
    first, second = requests[:half], requests[half:]
    require_profilable(first)
    held = locality.measured(second, page_size)
    fitted = locality.measured(first, page_size)
    alike = _look_alike(
        first, fitted, len(second), seed=seed, page_size=page_size, calibrate=calibrate, name=name
    )
    model = pd.DataFrame(compare(held, alike))
    persistence = pd.DataFrame(compare(held, fitted))
    out = model.rename(columns={"real": "held"})
    out["fitted_half"] = persistence["synthetic"]
    out["persistence_distance"] = persistence["distance"]
    out["persistence_holds"] = persistence["holds"]
    return out.assign(trace=name or requests.meta.name, requests=len(requests))


def leave_one_out(
    requests: Requests,
    *,
    seed: int = 0,
    page_size: int = 4096,
    calibrate: int = 3,
    name: str | None = None,
) -> pd.DataFrame:
    """Protocol (b): fit on the whole trace (nothing of the fit was tuned on it: see the
    module docstring), draw a look-alike as long and compare it with the trace."""
    require_profilable(requests)
    real = locality.measured(requests, page_size)
    alike = _look_alike(
        requests, real, len(requests), seed=seed, page_size=page_size, calibrate=calibrate,
        name=name,
    )  # fmt: skip
    label = name or requests.meta.name
    return pd.DataFrame(compare(real, alike)).assign(
        trace=label, requests=len(requests), held_out=label in HELD_OUT
    )


def run(
    protocol: Callable[..., pd.DataFrame],
    names: Iterable[str],
    load: Callable[[str], Requests],
    *,
    max_requests: int | None = None,
    **kwargs: object,
) -> pd.DataFrame:
    """``protocol`` (:func:`split_half` or :func:`leave_one_out`) on every trace ``load(name)``
    returns (its first ``max_requests`` requests, when given), one long table."""
    frames = []
    for n in names:
        req = load(n)
        if max_requests:
            req = req[:max_requests]
        frames.append(protocol(req, name=n, **kwargs))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def within_target(table: pd.DataFrame, column: str = "holds") -> pd.DataFrame:
    """Per measure (in :data:`MEASURES` order): traces within target (``column``), traces
    compared, and the share within."""
    g = table.groupby("measure", sort=False)[column].agg(within="sum", traces="count")
    g = g.reindex([m.name for m in MEASURES]).dropna()
    g.insert(0, "group", [BY_NAME[k].group for k in g.index])
    g["share"] = g["within"] / g["traces"]
    return g.astype({"within": int, "traces": int})


def ratios(table: pd.DataFrame, measure: str = "footprint_per_request") -> pd.Series:
    """Per trace, the look-alike's value of ``measure`` over the real (held) one."""
    rows = table[table["measure"] == measure].set_index("trace")
    real = rows["held"] if "held" in rows else rows["real"]
    return rows["synthetic"] / real
