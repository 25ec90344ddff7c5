"""Study `mtpm`: multi-token power management of NAND flash (You et al.): NPM, PPM, DCC, MTPM
and KMTPM (atomic / sub-atomic) on a token ring of 8 NAND chips.

The study's parts: `simulate` (config -> dataset), `claims` (every claim of the paper, scored
by :mod:`skftl.studies.claims`), `assumptions` (the unstated parameters the claims rest on)
and `figures` (what the notebook draws).
"""

from skftl.studies.mtpm import assumptions, claims, figures, simulate
from skftl.studies.mtpm.assumptions import ASSUMPTIONS
from skftl.studies.mtpm.claims import CLAIMS, READINGS
from skftl.studies.mtpm.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = [
    "ASSUMPTIONS",
    "CLAIMS",
    "READINGS",
    "assumptions",
    "claims",
    "figures",
    "simulate",
    *simulate.__all__,
]
