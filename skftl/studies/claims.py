"""Claims and verdicts: the one type every study's registry (``skftl/studies/<id>/claims.py``)
is made of, and the one evaluation that turns a registry and a dataset into the study's
scorecard rows (``results/<id>/headline.csv``).

A :class:`Claim` is something the paper states in its evaluation: where (figure, table,
section), a one-line paraphrase, what the paper says (an :class:`Expect`: a number, a
relation, an order or a range), how ours is computed from the study's dataset under a named
reading, and which workload it rests on. Verdicts are computed here, never written by hand:

- ``direction_held``: yes / no / n/a. A relation, an order or a trend is a direction; a number
  is one when the claim gives it a ``direction`` (e.g. "a reduction": ``("<", 0)``).
- ``magnitude_held``: yes / no / n/a, by the rule for the kind of number (``rule`` column):

  * a quantity (a latency, a count, a ratio): within ±25 % of the paper's value
    (:data:`RELATIVE_TOLERANCE`);
  * a share or a percentage (unit ``%``, ``pp``, ``pts``): within ±5 percentage points
    (:data:`POINTS_TOLERANCE`), since ±25 % of a share of 80 % would accept 60 % to 100 %;
  * a range: the distance to its nearer end, by the same two rules;
  * a trend (:class:`Trend`: "X rises with Y"): ours must move the paper's way by at least a
    quarter of the paper's own change (:data:`MATERIAL_TREND`), so a 1 % drift does not
    confirm a 20 % rise;
  * "only X", "at most X", "each": relations (:class:`Relation`; "each" is a share ``>= 1``).

- ``verdict``: ``held`` (every applicable check yes), ``direction only`` (the direction holds,
  the magnitude does not), ``missed`` (the direction fails, or the number is off and the
  claim states no direction), ``not modelled`` (kept with its reason), ``not evaluated``
  (ours could not be computed from this dataset: the reason says which input is missing).
  A number that belongs to a comparison (``part_of``: a Table VI cell under "fixed is
  fastest") is not ``held`` while that comparison is reversed.

Each claim states its ``basis`` (:data:`BASES`); only predictions are results: the headline
counts take them alone and list the other bases apart.

No claim is ever dropped: a registry entry whose inputs are missing is still a row.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

#: what a claim's number rests on, as the scorecard splits it
WORKLOAD_KINDS = ("same", "real stand-in", "synthetic stand-in", "none")
VERDICTS = ("held", "direction only", "missed", "not modelled", "not evaluated")
#: what a claim rests on; only predictions are results
BASES: dict[str, str] = {
    "prediction": "computed by the model from the workload",
    "input": "echoes a configured value",
    "by_construction": "the model's design makes it hold for any workload",
    "calibrated": "a parameter was fitted to this number or to one it implies",
    "inferred": "an implication we drew, not a statement of the paper",
}
COLUMNS = [
    "claim",
    "where",
    "statement",
    "basis",
    "paper",
    "ours",
    "rel_diff",
    "rule",
    "direction_held",
    "magnitude_held",
    "verdict",
    "workload_kind",
    "reading",
    "note",
]
#: a quantity is held within this share of the paper's value
RELATIVE_TOLERANCE = 0.25
#: a share or percentage is held within this many percentage points
POINTS_TOLERANCE = 5.0
#: a trend is material when ours moves the paper's way by this share of the paper's change
MATERIAL_TREND = 0.25
#: units that mark a number as a share or percentage (judged in points)
PERCENT_UNITS = ("%", "pp", "pts", "points")

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
BasisFn = Callable[[xr.Dataset], str]


class MissingInput(LookupError):
    """Raised by a claim's ``ours`` when the dataset lacks what it needs (a trace, a scheme,
    a swept value). The claim's row then says ``not evaluated`` and this message."""


# --- what the paper says ---------------------------------------------------------------------
@dataclass(frozen=True)
class Expect:
    """Base of the paper's statements; ``check(ours)`` -> (direction, within, rel_diff);
    ``rule`` names how the magnitude is judged."""

    unit: str = ""

    def text(self) -> str:
        raise NotImplementedError

    @property
    def percent(self) -> bool:
        """The number is a share or a percentage (judged in points)."""
        return self.unit.split(" ", 1)[0] in PERCENT_UNITS

    @property
    def rule(self) -> str:
        return "direction"

    def _within(self, diff: float, ref: float, abs_tol: float = 0.0) -> bool:
        """``diff`` (ours minus the paper's value, or the distance to a range) is within the
        rule for this kind of number around ``ref``."""
        tol = POINTS_TOLERANCE if self.percent else RELATIVE_TOLERANCE * abs(ref)
        return abs(diff) <= max(tol, abs_tol)

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

    @property
    def rule(self) -> str:
        return _magnitude_rule(self.percent, self.abs_tol)

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Value")
        rel = (x - self.value) / abs(self.value) if self.value != 0 else math.nan
        within = _yes(self._within(x - self.value, self.value, self.abs_tol))
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

    @property
    def rule(self) -> str:
        return "relation"

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

    @property
    def rule(self) -> str:
        return "order"

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

    @property
    def rule(self) -> str:
        return _magnitude_rule(self.percent) + " of the range"

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Range")
        end = self.lo if x < self.lo else self.hi
        dist = 0.0 if self.lo <= x <= self.hi else x - end
        rel = dist / abs(end) if end != 0 else (0.0 if dist == 0 else math.inf)
        direction = "n/a"
        if self.direction is not None:
            op, ref = self.direction
            direction = _yes(_OPS[op](x, ref))
        return direction, _yes(self._within(dist, end)), rel


@dataclass(frozen=True)
class Trend(Expect):
    """The paper states a trend ("X rises with Y") and shows its size: ours is our change
    (in the units of ``paper_change``, the paper's own change over the same span). The
    direction holds when ours moves the paper's way (``op``: ``">"`` a rise, ``"<"`` a fall);
    the magnitude when it moves by at least :data:`MATERIAL_TREND` of the paper's change."""

    op: str = ">"
    paper_change: float = math.nan

    def __post_init__(self) -> None:
        if self.op not in (">", "<"):
            raise ValueError(f"a trend rises ('>') or falls ('<'), got {self.op!r}")
        if not math.isfinite(self.paper_change) or self.paper_change == 0:
            raise ValueError("a trend needs the paper's own (non-zero) change")

    def text(self) -> str:
        word = "rises" if self.op == ">" else "falls"
        return f"{word} (paper: {self.paper_change:+g}{(' ' + self.unit) if self.unit else ''})"

    @property
    def rule(self) -> str:
        return f"trend: the paper's way by >= {MATERIAL_TREND:g} of its change"

    def check(self, ours: Ours) -> tuple[str, str, float]:
        x = _scalar(ours, "Trend")
        direction = _yes(_OPS[self.op](x, 0.0))
        material = _yes(abs(x) >= MATERIAL_TREND * abs(self.paper_change))
        return direction, material, (x - self.paper_change) / abs(self.paper_change)


def _magnitude_rule(percent: bool, abs_tol: float = 0.0) -> str:
    rule = f"±{POINTS_TOLERANCE:g} points" if percent else f"±{RELATIVE_TOLERANCE:.0%}"
    return rule + (f" (or ±{abs_tol:g})" if abs_tol else "")


# --- a claim -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """One statement of the paper's evaluation.

    ``ours(ds, reading)`` computes our value (a number, or a mapping for :class:`Order`) and
    raises :class:`MissingInput` (or ``KeyError``, as ``xarray.sel`` does) when the dataset
    lacks an input. ``readings`` names the study readings the value depends on (empty: the
    same under every reading). ``workload`` is one of :data:`WORKLOAD_KINDS` or a function
    of the dataset returning one. A claim the model cannot address has ``paper`` and ``ours``
    left out and ``not_modelled`` set to the reason. ``basis`` (one of :data:`BASES`, or a
    function of the dataset returning one: a row is ``calibrated`` where a synthetic preset
    fitted to it stands in, a ``prediction`` on a real trace) says whether the row is a
    result; ``part_of`` names the comparison claim (an Order or a Relation of the same
    registry) a number belongs to: it is not held while that fails.
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
    basis: str | BasisFn = ""
    part_of: str = ""
    # what the paper states under a reading that reads its words differently (e.g. "1.5 to
    # 1.8 times more" as a ratio of 2.5-2.8); every other reading compares with ``paper``
    paper_under: Mapping[str, Expect] = field(default_factory=dict)

    def expect(self, reading: str) -> Expect | None:
        """What the paper states, under ``reading``."""
        return self.paper_under.get(reading, self.paper)

    def __post_init__(self) -> None:
        if not callable(self.basis) and self.basis not in BASES:
            raise ValueError(
                f"claim {self.id}: basis {self.basis!r}; every claim states one of "
                f"{', '.join(BASES)}"
            )
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


def _basis(claim: Claim, ds: xr.Dataset) -> str:
    if not callable(claim.basis):
        return claim.basis
    try:
        basis = claim.basis(ds)
    except (MissingInput, KeyError):
        return "prediction"  # the row is "not evaluated" then, whatever its basis
    if basis not in BASES:
        raise ValueError(f"claim {claim.id}: basis {basis!r} not in {list(BASES)}")
    return basis


def _workload_kind(claim: Claim, ds: xr.Dataset) -> str:
    kind = claim.workload(ds) if callable(claim.workload) else claim.workload
    if kind not in WORKLOAD_KINDS:
        raise ValueError(f"claim {claim.id}: workload kind {kind!r} not in {WORKLOAD_KINDS}")
    return kind


def evaluate_claim(claim: Claim, ds: xr.Dataset, reading: str) -> dict[str, Any]:
    """One scorecard row: the claim, ours under ``reading``, and the computed verdict."""
    paper = claim.expect(reading)
    row: dict[str, Any] = {
        "claim": claim.id,
        "where": claim.where,
        "statement": claim.statement,
        "basis": _basis(claim, ds),
        "paper": paper.text() if paper is not None else "",
        "ours": np.nan,
        "rel_diff": np.nan,
        "rule": paper.rule if paper is not None else "",
        "direction_held": "n/a",
        "magnitude_held": "n/a",
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
        direction, within, rel = paper.check(ours)  # type: ignore[union-attr]
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
        "magnitude_held": within,
        "verdict": _verdict(direction, within),
        "workload_kind": kind,
        "note": _with_unverified(note, kind, ds),
    }


def _with_unverified(note: str, kind: str, ds: xr.Dataset) -> str:
    """The note, plus what the run's trace log (the dataset's ``trace_verification``
    attribute) says against it: real traces that could not be verified (for a
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
    rows = {c.id: evaluate_claim(c, ds, reading) for c in claims}
    for c in claims:
        if c.part_of:
            _bind(rows[c.id], rows[c.part_of])
    return pd.DataFrame(list(rows.values()), columns=COLUMNS)


def _bind(row: dict[str, Any], comparison: dict[str, Any]) -> None:
    """A number that belongs to a comparison is not held while the comparison is reversed."""
    if row["verdict"] == "held" and comparison["direction_held"] == "no":
        row["verdict"] = "missed"
        why = f"held alone, but its comparison {comparison['claim']} is reversed"
        row["note"] = "; ".join(filter(None, [why, row["note"]]))


def by_reading(claims: Sequence[Claim], ds: xr.Dataset, readings: Readings) -> pd.DataFrame:
    """The verdict of every reading-dependent claim under every reading: one row per claim,
    columns ``<reading>: verdict`` / ``<reading>: ours``, and ``changes`` (the verdict is not
    the same under all readings)."""
    rows = []
    by_id = {c.id: c for c in claims}
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
            if c.part_of:
                _bind(ev, evaluate_claim(by_id[c.part_of], ds, r))
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
    for c in claims:
        if c.part_of and c.part_of not in seen:
            raise ValueError(f"claim {c.id}: part_of {c.part_of!r} is no claim of this registry")


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
