"""Study `ftl`: validation of the NAND/FTL model against Desnoyers' analytic WAF (SYSTOR'12).

The study's three parts: `simulate` (config -> dataset), `claims` (every claim of the
paper, scored by :mod:`skftl.studies.claims`) and `figures` (what the notebook draws).
"""

from skftl.studies.ftl import claims, figures, simulate
from skftl.studies.ftl.assumptions import ASSUMPTIONS
from skftl.studies.ftl.claims import CLAIMS, READINGS
from skftl.studies.ftl.simulate import *  # noqa: F403  (run and the study's public names)

__all__ = ["ASSUMPTIONS", "CLAIMS", "READINGS", "claims", "figures", "simulate", *simulate.__all__]
