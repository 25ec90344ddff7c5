"""Study `lpmt`: hashed L2P table (LPMT) in DRAM with bank interleaving.

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.lpmt import claims, figures
from skftl.studies.lpmt.claims import CLAIMS, READINGS
from skftl.studies.lpmt.simulate import *  # noqa: F403  (run and the study's public names)
