"""Claims and verdicts: the one type every study's registry (``skftl/studies/<id>/claims.py``)
is made of, and the one evaluation that turns a registry and a dataset into the study's
scorecard rows (``results/<id>/headline.csv``).

A :class:`Claim` is something the paper states in its evaluation: where (figure, table,
section), a one-line paraphrase, what the paper says (an :class:`Expect`: a number, a
relation, an order or a range), how ours is computed from the study's dataset under a named
reading, and which workload it rests on. Verdicts are computed here, never written by hand:

- ``direction_held``: yes / no / n/a. A relation or an order is a direction; a number is one
  when the claim gives it a ``direction`` (e.g. "a reduction": ``("<", 0)``).
- ``within_25pct``: yes / no / n/a: ``|ours - paper| <= 0.25 |paper|`` where the paper gives a
  number (for a range, the distance to its nearer end).
- ``verdict``: ``held`` (every applicable check yes), ``direction only`` (the direction holds,
  the magnitude does not), ``missed`` (the direction fails, or the number is off and the
  claim states no direction), ``not modelled`` (kept with its reason), ``not evaluated``
  (ours could not be computed from this dataset: the reason says which input is missing).

No claim is ever dropped: a registry entry whose inputs are missing is still a row.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

#: what a claim's number rests on, as the scorecard splits it
WORKLOAD_KINDS = ("same", "real stand-in", "synthetic stand-in", "none")
VERDICTS = ("held", "direction only", "missed", "not modelled", "not evaluated")
COLUMNS = [
    "claim",
    "where",
    "statement",
    "paper",
    "ours",
    "rel_diff",
    "direction_held",
    "within_25pct",
    "verdict",
    "workload_kind",
    "reading",
    "note",
]
TOLERANCE = 0.25

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
}

Ours = float | Mapping[str, float]
OursFn = Callable[[xr.Dataset, str], Ours]
WorkloadFn = Callable[[xr.Dataset], str]


class MissingInput(LookupError):
    """Raised by a claim's ``ours`` when the dataset lacks what it needs (a trace, a scheme,
    a swept value). The claim's row then says ``not evaluated`` and this message."""


# --- what the paper says ---------------------------------------------------------------------
@dataclass(frozen=True)
class Expect:
    """Base of the paper's statements; ``check(ours)`` -> (direction, within, rel_diff)."""

    unit: str = ""

    def text(self) -> str:
        raise NotImplementedError

    def check(self, ours: Ours) -> tuple[str, str, float]:
        raise NotImplementedError


def _yes(b: bool) -> str:
    return "yes" if b else "no"


def _scalar(ours: Ours, what: str) -> float:
    if isinstance(ours, Mapping):
        raise TypeError(f"{what} takes one number, got {dict(ours)!r}")
    return float(ours)


@dataclass(frozen=True)
class Value(Expect):
    """The paper gives a number. ``direction`` optionally states the sign the number carries
    as a relation ``(op, ref)``, e.g. ``("<", 0)`` for a reduction given as a negative %.
    ``abs_tol`` is an absolute tolerance beside the relative one: the paper's printed
    precision (half its last digit: 0.005 for "0.00"), so that a number printed as zero,
    which has no relative error, can be matched; or what the paper calls "the same"."""

    value: float = math.nan
    direction: tuple[str, float] | None = None
    abs_tol: float = 0.0

    def text(self) -> str:
        return f"{self.value:g}{(' ' + self.unit) if self.unit else ''}"

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Value")
        rel = (x - self.value) / abs(self.value) if self.value != 0 else math.nan
        within = _yes(abs(x - self.value) <= max(TOLERANCE * abs(self.value), self.abs_tol))
        direction = "n/a"
        if self.direction is not None:
            op, ref = self.direction
            direction = _yes(_OPS[op](x, ref))
        return direction, within, rel


@dataclass(frozen=True)
class Relation(Expect):
    """The paper states a direction: ours ``op`` ``ref`` (e.g. a ratio ``< 1``)."""

    op: str = "<"
    ref: float = 1.0

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"unknown relation {self.op!r}; known: {', '.join(_OPS)}")

    def text(self) -> str:
        return f"{self.op} {self.ref:g}{(' ' + self.unit) if self.unit else ''}"

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Relation")
        return _yes(_OPS[self.op](x, self.ref)), "n/a", math.nan


@dataclass(frozen=True)
class Order(Expect):
    """The paper orders named quantities, smallest first: ``Order(("fixed", "dynamic",
    "single"))`` is "fixed < dynamic < single". Ours is a mapping with those keys."""

    keys: tuple[str, ...] = ()
    strict: bool = True

    def text(self) -> str:
        return (" < " if self.strict else " <= ").join(self.keys)

    def check(self, ours: Ours) -> tuple[str, str, float]:
        if not isinstance(ours, Mapping):
            raise TypeError(f"Order takes a mapping of {self.keys}, got {ours!r}")
        missing = [k for k in self.keys if k not in ours]
        if missing:
            raise MissingInput(f"no value for {', '.join(missing)}")
        vals = [float(ours[k]) for k in self.keys]
        cmp = operator.lt if self.strict else operator.le
        return _yes(all(cmp(a, b) for a, b in zip(vals, vals[1:], strict=False))), "n/a", math.nan


@dataclass(frozen=True)
class Range(Expect):
    """The paper gives a range ``lo``-``hi``; inside it rel_diff is 0, outside it is the
    relative distance to the nearer end. ``direction`` as for :class:`Value`."""

    lo: float = math.nan
    hi: float = math.nan
    direction: tuple[str, float] | None = None

    def text(self) -> str:
        return f"{self.lo:g}-{self.hi:g}{(' ' + self.unit) if self.unit else ''}"

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Range")
        if self.lo <= x <= self.hi:
            rel = 0.0
        else:
            end = self.lo if x < self.lo else self.hi
            rel = (x - end) / abs(end) if end != 0 else math.inf
        direction = "n/a"
        if self.direction is not None:
            op, ref = self.direction
            direction = _yes(_OPS[op](x, ref))
        return direction, _yes(abs(rel) <= TOLERANCE), rel


# --- a claim -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """One statement of the paper's evaluation.

    ``ours(ds, reading)`` computes our value (a number, or a mapping for :class:`Order`) and
    raises :class:`MissingInput` (or ``KeyError``, as ``xarray.sel`` does) when the dataset
    lacks an input. ``readings`` names the study readings the value depends on (empty: the
    same under every reading). ``workload`` is one of :data:`WORKLOAD_KINDS` or a function
    of the dataset returning one. A claim the model cannot address has ``paper`` and ``ours``
    left out and ``not_modelled`` set to the reason.
    """

    id: str
    where: str
    statement: str
    paper: Expect | None = None
    ours: OursFn | None = None
    workload: str | WorkloadFn = "none"
    readings: tuple[str, ...] = ()
    note: str | Callable[[xr.Dataset, str], str] = ""
    not_modelled: str = ""

    def __post_init__(self) -> None:
        if self.not_modelled:
            return
        if self.paper is None or self.ours is None:
            raise ValueError(f"claim {self.id}: give paper and ours, or not_modelled")
        if isinstance(self.workload, str) and self.workload not in WORKLOAD_KINDS:
            raise ValueError(f"claim {self.id}: workload {self.workload!r} not in {WORKLOAD_KINDS}")


@dataclass(frozen=True)
class Readings:
    """A study's named readings of its paper's ambiguities: name -> what it means; the
    default is the one the paper's text supports best (argued in the study's notebook)."""

    options: Mapping[str, str]
    default: str

    def __post_init__(self) -> None:
        if self.default not in self.options:
            raise ValueError(f"default reading {self.default!r} not in {list(self.options)}")


def _fmt(x: Ours) -> Any:
    if isinstance(x, Mapping):
        return "; ".join(f"{k}={float(v):.4g}" for k, v in x.items())
    return round(float(x), 6)


def _verdict(direction: str, within: str) -> str:
    checks = [c for c in (direction, within) if c != "n/a"]
    if not checks:
        raise ValueError("a claim needs a direction or a number to be judged")
    if all(c == "yes" for c in checks):
        return "held"
    if direction == "yes":
        return "direction only"
    return "missed"


def _workload_kind(claim: Claim, ds: xr.Dataset) -> str:
    kind = claim.workload(ds) if callable(claim.workload) else claim.workload
    if kind not in WORKLOAD_KINDS:
        raise ValueError(f"claim {claim.id}: workload kind {kind!r} not in {WORKLOAD_KINDS}")
    return kind


def evaluate_claim(claim: Claim, ds: xr.Dataset, reading: str) -> dict[str, Any]:
    """One scorecard row: the claim, ours under ``reading``, and the computed verdict."""
    row: dict[str, Any] = {
        "claim": claim.id,
        "where": claim.where,
        "statement": claim.statement,
        "paper": claim.paper.text() if claim.paper is not None else "",
        "ours": np.nan,
        "rel_diff": np.nan,
        "direction_held": "n/a",
        "within_25pct": "n/a",
        "reading": reading if claim.readings else "any",
        "note": "",
    }
    if claim.not_modelled:
        return row | {
            "verdict": "not modelled",
            "workload_kind": "none",
            "note": claim.not_modelled,
        }
    try:
        kind = _workload_kind(claim, ds)
        ours = claim.ours(ds, reading)  # type: ignore[misc]
        if not isinstance(ours, Mapping) and not np.isfinite(float(ours)):
            raise MissingInput(f"ours is {float(ours)} (no data for it in this run)")
        direction, within, rel = claim.paper.check(ours)  # type: ignore[union-attr]
        note = claim.note(ds, reading) if callable(claim.note) else claim.note
    except (MissingInput, KeyError) as exc:
        msg = exc.args[0] if exc.args else type(exc).__name__
        return row | {
            "verdict": "not evaluated",
            "workload_kind": "none",
            "note": f"missing input: {msg}",
        }
    return row | {
        "ours": _fmt(ours),
        "rel_diff": round(rel, 4) if np.isfinite(rel) else np.nan,
        "direction_held": direction,
        "within_25pct": within,
        "verdict": _verdict(direction, within),
        "workload_kind": kind,
        "note": _with_unverified(note, kind, ds),
    }


def _with_unverified(note: str, kind: str, ds: xr.Dataset) -> str:
    """The note, plus what the run's trace log (the dataset's ``trace_verification``
    attribute, issue 22) says against it: real traces that could not be verified (for a
    claim scored on a real trace), and traces missing or trace folders that do not exist
    (for every claim)."""
    log = [item for item in str(ds.attrs.get("trace_verification", "")).split("; ") if item]
    unverified = [i for i in log if "UNVERIFIED" in i] if kind in ("same", "real stand-in") else []
    missing = [i for i in log if "MISSING" in i or "do NOT exist" in i]
    extra = ["real trace(s) NOT verified: " + "; ".join(unverified)] if unverified else []
    extra += ["fallback: " + "; ".join(missing)] if missing else []
    return "; ".join([*filter(None, [note]), *extra])


def evaluate(claims: Sequence[Claim], ds: xr.Dataset, reading: str) -> pd.DataFrame:
    """Every claim of a registry evaluated under one reading (one row each, none dropped)."""
    _check_unique(claims)
    return pd.DataFrame([evaluate_claim(c, ds, reading) for c in claims], columns=COLUMNS)


def by_reading(claims: Sequence[Claim], ds: xr.Dataset, readings: Readings) -> pd.DataFrame:
    """The verdict of every reading-dependent claim under every reading: one row per claim,
    columns ``<reading>: verdict`` / ``<reading>: ours``, and ``changes`` (the verdict is not
    the same under all readings)."""
    rows = []
    for c in claims:
        if not c.readings or c.not_modelled:
            continue
        row: dict[str, Any] = {"claim": c.id, "where": c.where, "statement": c.statement}
        row["paper"] = c.paper.text() if c.paper else ""
        verdicts = []
        for r in readings.options:
            if r not in c.readings:
                row[f"{r}: verdict"], row[f"{r}: ours"] = "n/a", np.nan
                continue
            ev = evaluate_claim(c, ds, r)
            row[f"{r}: verdict"], row[f"{r}: ours"] = ev["verdict"], ev["ours"]
            verdicts.append(ev["verdict"])
        row["changes"] = len(set(verdicts)) > 1
        rows.append(row)
    cols = ["claim", "where", "statement", "paper"]
    cols += [f"{r}: {x}" for r in readings.options for x in ("verdict", "ours")] + ["changes"]
    return pd.DataFrame(rows, columns=cols)


def _check_unique(claims: Sequence[Claim]) -> None:
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise ValueError(f"claim id {c.id!r} appears twice in one registry")
        seen.add(c.id)


# --- helpers the registries share --------------------------------------------------------------
def kind_of_labels(labels: Sequence[str], same: bool = False) -> str:
    """Workload kind of a claim resting on traces with these labels: ``synthetic stand-in``
    when any is synthetic (its label says so), else ``same`` or ``real stand-in``."""
    if any("(synthetic)" in str(lab) for lab in labels):
        return "synthetic stand-in"
    return "same" if same else "real stand-in"


def sel(da: xr.DataArray, **where: Any) -> xr.DataArray:
    """``da.sel(**where)``, raising :class:`MissingInput` that names the missing coordinate
    value (xarray's KeyError says less)."""
    for dim, v in where.items():
        if dim not in da.coords:
            raise MissingInput(f"{da.name}: no dimension {dim!r}")
        have = da.coords[dim].values
        wanted = v if isinstance(v, (list, tuple, np.ndarray)) else [v]
        absent = [w for w in wanted if w not in have]
        if absent:
            raise MissingInput(f"{da.name}: {dim}={absent} not in this run")
    return da.sel(**where)


def var(ds: xr.Dataset, name: str) -> xr.DataArray:
    """``ds[name]``, raising :class:`MissingInput` when the run did not produce it."""
    if name not in ds:
        raise MissingInput(f"variable {name!r} not in this dataset")
    return ds[name]
