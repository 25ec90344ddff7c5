"""Desnoyers' analytic write-amplification model (P. Desnoyers, "Analytic modeling of SSD
write performance", SYSTOR 2012, doi:10.1145/2367589.2367603), for uniformly random
single-page writes to a page-mapped FTL.

With ``alpha = T / U = 1 / (1 - Sf)`` (physical over logical pages; spare factor
``Sf = (T - U) / T``):

* LRU (FIFO) cleaning, Eq. 4:  ``A = alpha / (alpha + W0(-alpha * exp(-alpha)))``
  (``W0`` the principal branch of Lambert's W);
* greedy cleaning, Eq. 12, the paper's approximation for ``Np`` pages per block:
  ``A = A_lru(k * alpha) / k`` with ``k = 1 + 1 / (2 Np)``.

The equations follow the author's own reference code (Matlab, published with a Python
port by Y. Oh, University of Seoul), which names them Eq. 4 and Eq. 12.
"""

from __future__ import annotations

import math


def lambert_w0(x: float) -> float:
    """Principal branch of Lambert's W for ``-1/e <= x`` (Halley iteration)."""
    if x < -1.0 / math.e - 1e-15:
        raise ValueError(f"lambert_w0 is real only for x >= -1/e, got {x}")
    if x == 0.0:
        return 0.0
    # start: branch-point series near -1/e, log-based guess for large x, else x itself
    if x < -0.25:
        p = math.sqrt(max(2.0 * (math.e * x + 1.0), 0.0))
        w = -1.0 + p - p * p / 3.0
    elif x > 3.0:
        w = math.log(x) - math.log(math.log(x))
    else:
        w = x
    for _ in range(100):
        ew = math.exp(w)
        f = w * ew - x
        if w == -1.0:
            break
        step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        w -= step
        if abs(step) <= 1e-15 * (1.0 + abs(w)):
            break
    return w


def alpha_of(spare_factor: float) -> float:
    """Physical over logical pages for a spare factor (physical - logical) / physical."""
    if not 0.0 < spare_factor < 1.0:
        raise ValueError(f"spare factor must be in (0, 1), got {spare_factor}")
    return 1.0 / (1.0 - spare_factor)


def waf_lru(spare_factor: float) -> float:
    """Eq. 4: write amplification of LRU/FIFO cleaning under uniform random writes."""
    return _lru(alpha_of(spare_factor))


def _lru(alpha: float) -> float:
    return alpha / (alpha + lambert_w0(-alpha * math.exp(-alpha)))


def waf_greedy(spare_factor: float, pages_per_block: int) -> float:
    """Eq. 12: write amplification of greedy cleaning under uniform random writes."""
    k = 1.0 + 1.0 / (2.0 * pages_per_block)
    return _lru(k * alpha_of(spare_factor)) / k
