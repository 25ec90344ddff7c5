"""Skyrmion racetrack memory (SK-RM) as the home of a page-mapped FTL's L2P table.

* ``kernel``: the Numba cost model over the stream of entry updates.
* ``model``: layout, Table II operation costs, write schemes (FTL, PW FTL, SK-FTL and its
  ablations), ``CostModel``; the readings of the paper are in its docstring.
* ``nand_side``: the NAND FTL with the SK-aware allocator (``skftl.nand.policies_skftl``)
  and replay of a trace into cost models.
"""

from skftl.skrm.model import (
    FTL,
    PAPER_SCHEMES,
    PW_FTL,
    SK_FTL,
    CostModel,
    Layout,
    OpCosts,
    Scheme,
    ablation_schemes,
)

__all__ = [
    "FTL",
    "PAPER_SCHEMES",
    "PW_FTL",
    "SK_FTL",
    "CostModel",
    "Layout",
    "OpCosts",
    "Scheme",
    "ablation_schemes",
]
