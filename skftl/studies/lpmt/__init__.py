"""Study `lpmt`: a hashed L2P table (LPMT) in DRAM with bank interleaving (Song et al., 2019).

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.lpmt import claims, figures, simulate
from skftl.studies.lpmt.claims import CLAIMS, READINGS
from skftl.studies.lpmt.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = ["CLAIMS", "READINGS", "claims", "figures", "simulate", *simulate.__all__]
