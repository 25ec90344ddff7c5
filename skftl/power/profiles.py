"""Per-atomic-operation NAND current profiles sampled every 40 ns, and the paper's
sub-atomic segmentation (500 ns merge rule, Section III-D2).

Currents are held as integers in micro-I_max (``LEVEL_UNIT`` per I_max) so that sums over
chips and comparisons with the power budget are exact.

The default profiles (``skftl/data/power/profiles_default.csv``) are a *calibrated model*
built from the few facts the paper states (peak ratios, token counts, sub-atomic counts,
Table IV durations); the paper's measured 40 ns currents are not public. A user can load
measured profiles instead (see ``load_profiles``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from skftl.errors import TraceFormatError

SAMPLE_NS = 40  # current sampling period of the paper's measurements
LEVEL_UNIT = 1_000_000  # integer current units per I_max
DEFAULT_PROFILE_PATH = (
    Path(__file__).resolve().parent.parent / "data" / "power" / "profiles_default.csv"
)

# Atomic operations (Table I); the order fixes their integer ids in the kernels.
ATOMICS: tuple[str, ...] = (
    "prog_exec",
    "prog_verify",
    "read_setup",
    "read_exec",
    "read_dataout",
    "erase_exec",
    "erase_verify",
)
ATOMIC_LABELS: tuple[str, ...] = ("P_A1", "P_A2", "R_A1", "R_A2", "R_A3", "E_A1", "E_A2")
PROG_EXEC, PROG_VERIFY, READ_SETUP, READ_EXEC, READ_DATAOUT, ERASE_EXEC, ERASE_VERIFY = range(7)


@dataclass(frozen=True)
class SubAtomic:
    """Sub-atomic operations of one atomic operation: sample ranges and peak currents."""

    start: np.ndarray  # first 40 ns sample of each sub-atomic operation
    stop: np.ndarray  # one past its last sample
    peak: np.ndarray  # its maximum current (micro-I_max)


@dataclass(frozen=True)
class Profiles:
    """Current of each atomic operation, one int64 value (micro-I_max) per 40 ns sample."""

    samples: tuple[np.ndarray, ...]
    source: str

    def __post_init__(self) -> None:
        if len(self.samples) != len(ATOMICS):
            raise ValueError(f"need {len(ATOMICS)} atomic profiles, got {len(self.samples)}")

    def duration_ns(self, atomic: int) -> int:
        return len(self.samples[atomic]) * SAMPLE_NS

    def peak(self, atomic: int) -> int:
        return int(self.samples[atomic].max())

    def sub_atomic(self, atomic: int, interval_ns: int = 500) -> SubAtomic:
        return sub_atomic_split(self.samples[atomic], interval_ns)

    def runs(self, atomic: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Run-length form (offset_ns, duration_ns, level) of one atomic's profile."""
        s = self.samples[atomic]
        change = np.flatnonzero(np.diff(s)) + 1
        starts = np.concatenate(([0], change))
        stops = np.concatenate((change, [len(s)]))
        return starts * SAMPLE_NS, (stops - starts) * SAMPLE_NS, s[starts].astype(np.int64)

    def scaled(self, level_scale: dict[int, float] | None = None) -> Profiles:
        """A copy with some atomics' currents multiplied (for shape-sensitivity studies)."""
        out = list(self.samples)
        for a, f in (level_scale or {}).items():
            out[a] = np.minimum(np.round(out[a] * f), LEVEL_UNIT).astype(np.int64)
        return Profiles(tuple(out), self.source + f" scaled {level_scale}")


def sub_atomic_split(samples: np.ndarray, interval_ns: int = 500) -> SubAtomic:
    """The paper's rule: take the maximum current of every ``interval_ns`` interval; an
    interval whose maximum is equal to or above the sub-atomic operation being formed joins
    it, a smaller one starts a new sub-atomic operation. Sub-atomic peaks must decrease
    monotonically inside an atomic operation (surplus tokens are returned and never taken
    back), so a later group whose peak reaches an earlier one is merged back into it."""
    n = len(samples)
    if n == 0:
        raise ValueError("empty profile")
    # interval j holds the samples k with floor(k * 40 / interval_ns) == j
    idx = (np.arange(n) * SAMPLE_NS) // interval_ns
    bounds = np.flatnonzero(np.diff(idx)) + 1
    i_start = np.concatenate(([0], bounds))
    i_max = np.maximum.reduceat(samples, i_start)
    groups: list[list[int]] = []  # [start_sample, peak]
    for start, m in zip(i_start.tolist(), i_max.tolist(), strict=True):
        if groups and m >= groups[-1][1]:
            groups[-1][1] = m  # joins the sub-atomic operation being formed
            continue
        groups.append([start, m])
    # a group can end above its predecessor (it grew after starting lower): merge it back so
    # that peaks decrease strictly within the atomic operation
    starts = [g[0] for g in groups] + [n]
    merged: list[list[int]] = []
    for i in range(len(groups)):
        peak = int(samples[starts[i] : starts[i + 1]].max())
        seg = [starts[i], starts[i + 1], peak]
        while merged and merged[-1][2] <= seg[2]:
            prev = merged.pop()
            seg = [prev[0], seg[1], max(prev[2], seg[2])]
        merged.append(seg)
    arr = np.array(merged, dtype=np.int64)
    return SubAtomic(arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy())


def load_profiles(path: str | Path | None = None) -> Profiles:
    """Read current profiles from CSV (``#`` comment lines allowed).

    Two layouts are accepted:

    * segments: columns ``atomic, duration_ns, level`` - consecutive flat segments per
      atomic operation, ``level`` as a fraction of I_max (the shipped default);
    * sampled: columns ``atomic, sample, current`` - one row per 40 ns sample (e.g. a
      measured profile) in any unit; currents are normalised by the largest value, which
      the model takes as I_max.

    ``atomic`` names are those of ``ATOMICS``; every one must be present.
    """
    path = Path(path) if path is not None else DEFAULT_PROFILE_PATH
    if not path.is_file():
        raise TraceFormatError(path, None, str(path), "current-profile file not found")
    df = pd.read_csv(path, comment="#", skipinitialspace=True)
    cols = set(df.columns)
    # data line numbers in the file (1-based, counting comments and header) for errors
    with open(path) as fh:
        data_lines = [
            i + 1 for i, ln in enumerate(fh) if ln.strip() and not ln.lstrip().startswith("#")
        ][1:]

    def bad(row: int, value: object, reason: str) -> TraceFormatError:
        line = data_lines[row] if row < len(data_lines) else None
        return TraceFormatError(path, line, value, reason)

    for row, name in enumerate(df["atomic"] if "atomic" in cols else []):
        if name not in ATOMICS:
            raise bad(row, name, f"unknown atomic operation; expected one of {', '.join(ATOMICS)}")
    if {"atomic", "duration_ns", "level"} <= cols:
        samples = _from_segments(df, bad)
    elif {"atomic", "sample", "current"} <= cols:
        samples = _from_samples(df, bad)
    else:
        raise TraceFormatError(
            path, 1, sorted(cols), "need columns atomic,duration_ns,level or atomic,sample,current"
        )
    for a, name in enumerate(ATOMICS):
        if len(samples[a]) == 0:
            raise TraceFormatError(path, None, name, "atomic operation missing from profile file")
    return Profiles(tuple(samples), str(path))


def _from_segments(df: pd.DataFrame, bad) -> list[np.ndarray]:
    parts: list[list[np.ndarray]] = [[] for _ in ATOMICS]
    for row, (name, dur, level) in enumerate(
        zip(df["atomic"], df["duration_ns"], df["level"], strict=True)
    ):
        if (
            not (isinstance(dur, (int, np.integer)) or float(dur).is_integer())
            or dur <= 0
            or dur % SAMPLE_NS
        ):
            raise bad(row, dur, f"duration_ns must be a positive multiple of {SAMPLE_NS}")
        if not (0.0 <= float(level) <= 1.0) or math.isnan(float(level)):
            raise bad(row, level, "level must be a fraction of I_max in [0, 1]")
        n = int(dur) // SAMPLE_NS
        parts[ATOMICS.index(name)].append(
            np.full(n, round(float(level) * LEVEL_UNIT), dtype=np.int64)
        )
    return [np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts]


def _from_samples(df: pd.DataFrame, bad) -> list[np.ndarray]:
    cur = pd.to_numeric(df["current"], errors="coerce").to_numpy(dtype=float)
    for row in np.flatnonzero(~np.isfinite(cur) | (cur < 0)):
        raise bad(int(row), df["current"].iloc[row], "current must be a finite number >= 0")
    top = cur.max()
    if top <= 0:
        raise bad(0, top, "all currents are zero")
    out: list[np.ndarray] = []
    for name in ATOMICS:
        sel = np.flatnonzero(df["atomic"].to_numpy() == name)
        order = np.argsort(df["sample"].to_numpy()[sel], kind="stable")
        sel = sel[order]
        idx = df["sample"].to_numpy()[sel]
        if len(idx) and not np.array_equal(idx, np.arange(len(idx))):
            k = int(np.flatnonzero(idx != np.arange(len(idx)))[0])
            raise bad(int(sel[k]), idx[k], f"samples of {name} must be 0, 1, 2, ... without gaps")
        out.append(np.round(cur[sel] / top * LEVEL_UNIT).astype(np.int64))
    return out
