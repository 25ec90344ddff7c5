"""A hot/cold separating FTL policy: your own policy for skftl, in one file.

Data updated (written again) at least ``HOT_UPDATES`` times is *hot* and goes to its own write point
(stream 1), everything else to stream 0, so hot pages, which are soon invalid again, fill
blocks of their own, and GC finds victims with few valid pages. GC copies keep the data's
class. A policy is a module of hooks (the contract: ``skftl.nand.hooks``); this one defines
two and its state; ``skftl.nand.Ftl(..., policy="notebooks/hot_cold_policy.py")`` builds a
replay kernel for it alone (``notebooks/20_your_own_policy.ipynb``).

Numba compiles a module constant into the kernel: changing ``HOT_UPDATES`` changes this
file, hence its digest, so the kernel is compiled anew.
"""

from __future__ import annotations

import numpy as np

from skftl.nand.core import inline

NAME = "hot_cold"
HOT_UPDATES = 1  # updates of a page (writes beyond its first) that make it hot


def init_state(ftl) -> np.ndarray:  # noqa: ANN001 - a skftl.nand.Ftl
    """Writes per logical page so far."""
    return np.zeros(ftl.n_lpn, np.int64)


@inline
def write_stream(S, lpn, given):
    n = S.pstate[lpn] + 1
    S.pstate[lpn] = n
    return 1 if n > HOT_UPDATES else 0


@inline
def gc_stream(S, lpn, victim_stream):
    return 1 if S.pstate[lpn] > HOT_UPDATES else 0
