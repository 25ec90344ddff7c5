"""Study `ppb`: Progressive Performance Boosting on 3D charge-trap NAND (Chen et al., DAC'17).

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.ppb import claims, figures, simulate
from skftl.studies.ppb.claims import CLAIMS, READINGS
from skftl.studies.ppb.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = ["CLAIMS", "READINGS", "claims", "figures", "simulate", *simulate.__all__]
