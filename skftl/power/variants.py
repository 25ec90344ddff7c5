"""Profile-shape variants for the sensitivity study (beyond the paper): the paper's
measured currents are unpublished, so we vary the parts of the shape it does not pin down."""

from __future__ import annotations

import numpy as np

from skftl.errors import ConfigError
from skftl.power.profiles import ATOMICS, PROG_EXEC, Profiles, sub_atomic_split

VARIANTS = {
    "default": "the shipped calibrated model",
    "flat_subatomic": "every sub-atomic operation held at its peak (no gap below the tokens)",
    "deep_valleys": "currents below their sub-atomic peak lowered by 40 %",
    "long_precharge": "program pre-charge (15-token phase) three times longer",
    "short_precharge": "program pre-charge half as long",
}


def profile_variant(prof: Profiles, name: str, interval_ns: int = 500) -> Profiles:
    """``prof`` reshaped as named in ``VARIANTS``; durations and peaks are unchanged."""
    if name not in VARIANTS:
        raise ConfigError(f"unknown profile variant {name!r}; known: {', '.join(VARIANTS)}")
    if name == "default":
        return prof
    out = []
    for a in range(len(ATOMICS)):
        s = prof.samples[a].copy()
        sa = sub_atomic_split(s, interval_ns)
        if name in ("flat_subatomic", "deep_valleys"):
            for lo, hi, pk in zip(sa.start, sa.stop, sa.peak, strict=True):
                seg = s[lo:hi]
                if name == "flat_subatomic":
                    seg[:] = pk
                else:
                    seg[seg < pk] = np.round(seg[seg < pk] * 0.6).astype(np.int64)
        elif a == PROG_EXEC and len(sa.start) > 1:
            e1 = int(sa.stop[0])
            e2 = int(sa.stop[1])
            top = int(sa.peak[0])
            if name == "long_precharge":
                ext = min(2 * e1, e2 - e1 - 1)  # keep at least one sample of the next phase
                s[e1 : e1 + ext] = top
            else:  # short_precharge: the second half of the pre-charge joins the next phase
                half = e1 // 2
                s[half:e1] = s[e1]
        out.append(s)
    return Profiles(tuple(out), f"{prof.source} [variant {name}]")
