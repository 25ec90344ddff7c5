"""Study `skrm`: the L2P table of a page-mapped FTL on skyrmion racetrack memory (Yang et al.,
"Exploring Skyrmion Racetrack Memory for High Performance Full-Nonvolatile FTL").

The study's parts: `simulate` (config -> dataset), `claims` (every claim of the paper,
scored by :mod:`skftl.studies.claims`), `assumptions` (the unstated parameters the verdicts
rest on) and `figures` (what the notebook draws).
"""

from skftl.studies.skrm import assumptions, claims, figures, simulate
from skftl.studies.skrm.assumptions import ASSUMPTIONS
from skftl.studies.skrm.claims import CLAIMS, READINGS
from skftl.studies.skrm.simulate import *  # noqa: F403  (run and the study's public names)

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
