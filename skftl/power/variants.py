"""Profile-shape variants for the sensitivity study (beyond the paper): the paper's
measured currents are unpublished, so we vary the parts of the shape it does not pin down."""

from __future__ import annotations

import numpy as np

from skftl.errors import ConfigError
from skftl.power.profiles import (
    ATOMICS,
    PROG_EXEC,
    PROG_VERIFY,
    READ_DATAOUT,
    READ_EXEC,
    Profiles,
    sub_atomic_split,
)

VARIANTS = {
    "default": "the shipped calibrated model",
    "flat_subatomic": "every sub-atomic operation held at its peak (no gap below the tokens)",
    "deep_valleys": "currents below their sub-atomic peak lowered by 40 %",
    "long_precharge": "program pre-charge (15-token phase) three times longer",
    "short_precharge": "program pre-charge half as long",
    "short_exec": "program execution half as long (32.2 us), verify stretched to 44.8 us so an LSB "
    "loop still takes 77 us (an MSB program then takes 1.67 ms instead of 1.022 ms)",
    "short_read_exec": "read execution 15 us instead of 40 us, data out 34 us instead of 9 us "
    "(tR stays 52 us)",
}


def profile_variant(prof: Profiles, name: str, interval_ns: int = 500) -> Profiles:
    """``prof`` reshaped as named in ``VARIANTS``; peaks are unchanged, and durations too
    except for ``short_exec``."""
    if name not in VARIANTS:
        raise ConfigError(f"unknown profile variant {name!r}; known: {', '.join(VARIANTS)}")
    if name == "default":
        return prof
    if name in ("short_exec", "short_read_exec"):
        first, second = (
            (PROG_EXEC, PROG_VERIFY) if name == "short_exec" else (READ_EXEC, READ_DATAOUT)
        )
        total = len(prof.samples[first]) + len(prof.samples[second])
        n_first = len(prof.samples[first]) // 2 if name == "short_exec" else 15_000 // 40
        out = list(prof.samples)
        out[first] = _resample(out[first], n_first)
        out[second] = _resample(out[second], total - n_first)
        return Profiles(tuple(out), f"{prof.source} [variant {name}]")
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


def _resample(s: np.ndarray, n: int) -> np.ndarray:
    """Stretch or compress a 40 ns profile to ``n`` samples (nearest earlier sample)."""
    return s[(np.arange(n) * len(s)) // n].copy()
