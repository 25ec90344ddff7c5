"""Study `lpmt`: a hashed L2P table (LPMT) in DRAM with bank interleaving (Song et al., 2019).

The study's parts: `simulate` (config -> dataset), `claims` (every claim of the paper,
scored by :mod:`skftl.studies.claims`), `assumptions` (the unstated choices the claims
depend on, swept by :mod:`skftl.studies.robustness`) and `figures` (what the notebook
draws).
"""

from skftl.studies.lpmt import assumptions, claims, figures, simulate
from skftl.studies.lpmt.assumptions import ASSUMPTIONS
from skftl.studies.lpmt.claims import CLAIMS, READINGS
from skftl.studies.lpmt.simulate import *  # noqa: F403  (run and the study's public names)

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
