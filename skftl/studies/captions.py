"""A study figure's caption: what it shows, and the claims of the study's registry it bears
on. Each study's ``figures`` module holds ``CAPTIONS`` (figure file stem -> :class:`Caption`);
``skftl report-page captions`` (:mod:`skftl.studies.report_pages`) adds the verdicts of those
claims from the run's ``headline.csv`` and writes the report's caption of every figure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class Caption:
    """``shows``: what the figure shows, readable without the paper (axes, what is compared,
    the paper's figure or table number), plain facts and no results. ``claims``: claim-id
    patterns of the study's registry the figure bears on; a pattern is a claim id, an id
    prefix (``tab4.occupancy`` matches ``tab4.occupancy`` and ``tab4.occupancy.*``) or a glob
    (``fig9.inject.*.warm``); one starting with ``!`` removes what it matches. Empty: the
    figure bears on no claim (``shows`` says why, e.g. beyond the paper)."""

    shows: str
    claims: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.claims, str):
            raise TypeError("Caption.claims is a tuple of patterns, not a string")


def matches(pattern: str, claim_id: str) -> bool:
    """Whether one (positive) pattern matches a claim id: the id, an id prefix or a glob."""
    return fnmatchcase(claim_id, pattern) or fnmatchcase(claim_id, pattern + ".*")


def patterns(caption: Caption) -> tuple[list[str], list[str]]:
    """(the patterns that select claims, those that remove them, without their ``!``)."""
    keep = [p for p in caption.claims if not p.startswith("!")]
    drop = [p[1:] for p in caption.claims if p.startswith("!")]
    return keep, drop


def bears_on(caption: Caption, claim_ids: Iterable[str]) -> list[str]:
    """The claim ids (in the given order) a caption's patterns select."""
    keep, drop = patterns(caption)
    return [
        c
        for c in claim_ids
        if any(matches(p, c) for p in keep) and not any(matches(p, c) for p in drop)
    ]
