"""Assumptions: the parameters a paper does not state on which a scored claim depends.

Each study keeps its own as data (``skftl/studies/<id>/assumptions.py``: ``ASSUMPTIONS``), beside
its claims: the config key, the default and the argument for it from the paper's text, the
plausible values and where their bounds come from, and the claims it may move. The robustness
sweep (:mod:`skftl.studies.robustness`) varies each one alone over its values and rescores,
so a reviewer can tell "does not reproduce" from "does not reproduce under the one value we
picked". A study's named readings (:class:`skftl.studies.claims.Readings`) are swept the same
way, from the one dataset, under the key :data:`READING`.
"""

from __future__ import annotations

import copy
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the pseudo-key of a study's named readings (no config key: every reading is in the dataset)
READING = "reading"


@dataclass(frozen=True)
class Assumption:
    """One unstated parameter.

    ``key``: its config key below the study's section (``open_per_class`` for
    ``skrm.open_per_class``; a dotted path for nested keys), or :data:`READING`. ``values``: the
    plausible values, the default among them (every alternative, or at least three points of a
    range). ``argument``: why the default, from the paper's text. ``sources``: where the other
    values and the range's bounds come from (a passage, a datasheet, a cited work, the
    trace's own device). ``claims``: the claim ids it may move (shell patterns, e.g.
    ``fig9.*``). ``trim``: study-section keys set at every point of the sweep to skip work
    that does not read ``key`` (e.g. sensitivity sweeps no claim it moves rests on): the
    claims that work feeds are then "not evaluated" at the point and not counted there.
    """

    key: str
    default: Any
    values: tuple[Any, ...]
    argument: str
    sources: str
    claims: tuple[str, ...]
    trim: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise ValueError(f"assumption {self.key}: default {self.default!r} not in values")
        if len(self.values) < 2:
            raise ValueError(f"assumption {self.key}: give the alternatives, not one value")
        if not self.argument.strip() or not self.sources.strip() or not self.claims:
            raise ValueError(f"assumption {self.key}: argument, sources and claims are required")

    @property
    def alternatives(self) -> tuple[Any, ...]:
        return tuple(v for v in self.values if v != self.default)

    def moves(self, claim_id: str) -> bool:
        """``claim_id`` is one this assumption may move."""
        return any(fnmatch.fnmatchcase(claim_id, p) for p in self.claims)


def get_key(section: Mapping[str, Any], key: str) -> Any:
    """The value at dotted ``key`` of a config section (KeyError naming the key)."""
    node: Any = section
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(f"no config key {key!r}")
        node = node[part]
    return node


def with_value(cfg: Mapping[str, Any], study: str, key: str, value: Any) -> dict[str, Any]:
    """A copy of ``cfg`` with ``<study>.<key>`` set to ``value``."""
    out = copy.deepcopy(dict(cfg))
    node = out[study]
    *parents, last = key.split(".")
    for part in parents:
        node = node[part]
    if last not in node:
        raise KeyError(f"no config key {study}.{key}")
    node[last] = copy.deepcopy(value)
    return out


def check_defaults(study: str, assumptions: Sequence[Assumption], cfg: Mapping[str, Any]) -> None:
    """Each assumption's default is the config's value (a ValueError naming the key)."""
    for a in assumptions:
        if a.key == READING:
            continue
        have = get_key(cfg[study], a.key)
        if have != a.default:
            raise ValueError(
                f"{study}.{a.key}: the assumption's default {a.default!r} is not the config's "
                f"{have!r}"
            )
