"""Round-trip validation of the synthesiser: profile a real trace, synthesise a trace of the
same length from that profile, profile it again, and compare the two side by side.

Targets: each scalar of :data:`skftl.traces.locality.SCALARS` within 10 %
relative; the reuse-distance CDF and the footprint-growth curve within a KS distance of 0.1
(the rows of :func:`skftl.traces.locality.compare`). Where the real sample is too small for
those to mean anything (a few reuses in a short trace), a row also holds by a named sampling
rule (:data:`skftl.traces.locality.SAMPLING_RULES`); its ``rule`` says so and its
``distance`` stays the relative one (KS for a curve). Long traces are cut to their first
``max_requests`` requests (a prefix keeps the time order that reuse and growth depend on);
the result says how many requests were used of how many.
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

CURVES = ("reuse_distance_cdf_ks", "footprint_growth_ks")  # compare()'s KS rows


@dataclass(frozen=True)
class RoundTrip:
    """One trace's round trip: the comparison rows and the curves behind the two KS rows."""

    name: str
    n_used: int
    n_total: int
    rows: list[dict]
    reuse_real: np.ndarray  # reuse distances (requests) of the requests that have one
    reuse_synthetic: np.ndarray
    growth_real: np.ndarray  # distinct pages after each request
    growth_synthetic: np.ndarray

    @property
    def held(self) -> int:
        return sum(r["holds"] for r in self.rows)


def round_trip(
    requests: Requests,
    *,
    max_requests: int | None = None,
    seed: int = 0,
    page_size: int = 4096,
    name: str | None = None,
    calibrate: int = 3,
) -> RoundTrip:
    """Profile ``requests`` (its first ``max_requests``), synthesise the same number of
    requests like it (``calibrate``: see :func:`spec_from_profile`), and compare. The
    calibration draws with ``seed``, the trace compared with ``seed + 1``: a draw the
    calibration has not seen (with one seed the compared trace would be the calibration's
    own last draw, and its noise would be fitted, not tested)."""
    real = requests if max_requests is None else requests[:max_requests]
    require_profilable(real)
    m_real = locality.measured(real, page_size)
    preset = profile_trace(real, page_size, name=name, flat=m_real.profile)
    spec = spec_from_profile(preset, len(real), seed=seed, calibrate=calibrate)
    m_syn = locality.measured(generate(spec, len(real), seed=seed + 1), page_size)
    return RoundTrip(
        name=preset.name,
        n_used=len(real),
        n_total=len(requests),
        rows=locality.compare_measured(m_real, m_syn),
        reuse_real=m_real.reuse,
        reuse_synthetic=m_syn.reuse,
        growth_real=m_real.growth,
        growth_synthetic=m_syn.growth,
    )


def round_trips(
    names: Iterable[str],
    load: Callable[[str], Requests],
    *,
    max_requests: int | None = None,
    seed: int = 0,
    page_size: int = 4096,
    calibrate: int = 3,
) -> list[RoundTrip]:
    """:func:`round_trip` of every trace ``load(name)`` returns, named by ``name``."""
    return [
        round_trip(
            load(n),
            max_requests=max_requests,
            seed=seed,
            page_size=page_size,
            name=n,
            calibrate=calibrate,
        )
        for n in names
    ]


def table(results: Iterable[RoundTrip]) -> pd.DataFrame:
    """Long table: one row per (trace, measure) with real, synthetic, distance, holds."""
    frames = [
        pd.DataFrame(r.rows).assign(trace=r.name, requests_used=r.n_used, requests=r.n_total)
        for r in results
    ]
    cols = ["trace", "requests_used", "requests", "measure", "real", "synthetic", "distance"]
    if not frames:
        return pd.DataFrame(columns=[*cols, "holds", "rule"])
    out = pd.concat(frames, ignore_index=True)[[*cols, "holds", "rule"]]
    curve = out["measure"].isin(CURVES)  # a curve row has only a distance (KS), no values
    out.loc[curve, ["real", "synthetic"]] = np.nan
    return out


def summary(results: Iterable[RoundTrip]) -> pd.DataFrame:
    """Per trace: rows held of rows compared, and which measures missed."""
    return pd.DataFrame(
        [
            {
                "trace": r.name,
                "requests used": f"{r.n_used:,} of {r.n_total:,}",
                "held": f"{r.held} of {len(r.rows)}",
                "missed": ", ".join(x["measure"] for x in r.rows if not x["holds"]) or "-",
                "held by a sampling rule": ", ".join(
                    x["measure"] for x in r.rows if x["rule"] in locality.SAMPLING_RULES
                )
                or "-",
            }
            for r in results
        ],
        columns=["trace", "requests used", "held", "missed", "held by a sampling rule"],
    ).set_index("trace")


def held_by_measure(results: Iterable[RoundTrip]) -> pd.DataFrame:
    """Per measure: on how many traces it holds (``held``) of how many compared (``traces``)."""
    t = table(results)
    return t.groupby("measure", sort=False)["holds"].agg(held="sum", traces="count")
