"""Study `ppb`: Progressive Performance Boosting on 3D charge-trap NAND (Chen et al., DAC'17).

The study's parts: `simulate` (config -> dataset), `claims` (every claim of the paper,
scored by :mod:`skftl.studies.claims`), `assumptions` (the unstated parameters those claims
rest on, :mod:`skftl.studies.assumptions`) and `figures` (what the notebook draws).
"""

from skftl.studies.ppb import assumptions, claims, figures, simulate
from skftl.studies.ppb.assumptions import ASSUMPTIONS
from skftl.studies.ppb.claims import CLAIMS, READINGS
from skftl.studies.ppb.simulate import *  # noqa: F403  (run and the study's public names)

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
