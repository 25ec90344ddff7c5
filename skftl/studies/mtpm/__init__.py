"""Study `mtpm`: multi-token power management of NAND flash (You et al.) -- NPM, PPM, DCC,

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.mtpm import claims, figures
from skftl.studies.mtpm.claims import CLAIMS, READINGS
from skftl.studies.mtpm.simulate import *  # noqa: F403  (run and the study's public names)
