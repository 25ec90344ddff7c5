"""Study `traces`: characteristics of every trace of a run, beside the LPMT paper's Table III.

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.traces import claims, figures, simulate
from skftl.studies.traces.assumptions import ASSUMPTIONS
from skftl.studies.traces.claims import CLAIMS, READINGS
from skftl.studies.traces.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = ["ASSUMPTIONS", "CLAIMS", "READINGS", "claims", "figures", "simulate", *simulate.__all__]
