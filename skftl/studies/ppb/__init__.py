"""Study `ppb`: Progressive Performance Boosting on 3D charge-trap NAND with fast and slow

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.ppb import claims, figures
from skftl.studies.ppb.claims import CLAIMS, READINGS
from skftl.studies.ppb.simulate import *  # noqa: F403  (run and the study's public names)
