"""Study `bnvm`: address mapping for a PCM-based SSD (Kwon, "Address Translation Layer for
Byte-Addressable Non-Volatile Memory-Based Solid State Drives", IEEE Access 2019).

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.bnvm import claims, figures, simulate
from skftl.studies.bnvm.assumptions import ASSUMPTIONS
from skftl.studies.bnvm.claims import CLAIMS, READINGS
from skftl.studies.bnvm.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = ["ASSUMPTIONS", "CLAIMS", "READINGS", "claims", "figures", "simulate", *simulate.__all__]
