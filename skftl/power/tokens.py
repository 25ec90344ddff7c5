"""Token modelling, eqs. (1)-(2) of You et al.: PB = alpha * I_max, TT = alpha * (2^TG - 1),
I_token = PB / TT, RT_i = ceil(I_i,max / I_token); and the ring timing that follows from the
token width (Section III-E, eq. 3)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from skftl.errors import ConfigError
from skftl.power.profiles import LEVEL_UNIT


@dataclass(frozen=True)
class TokenModel:
    """Budget and token quantum for ``alpha`` (budget in units of I_max) and token
    granularity ``tg`` (bits that represent I_max)."""

    alpha: float
    tg: int

    def __post_init__(self) -> None:
        if self.tg < 1:
            raise ConfigError(f"token granularity TG must be >= 1, got {self.tg}")
        if self.alpha < 1:
            raise ConfigError(f"alpha must be >= 1 (budget >= one peak current), got {self.alpha}")
        tt = self.alpha * (2**self.tg - 1)
        if abs(tt - round(tt)) > 1e-9:
            raise ConfigError(f"alpha * (2^TG - 1) must be an integer token count, got {tt}")

    @property
    def total_tokens(self) -> int:
        """TT = alpha * (2^TG - 1)."""
        return round(self.alpha * (2**self.tg - 1))

    @property
    def budget_units(self) -> int:
        """PB = alpha * I_max in integer current units."""
        return round(self.alpha * LEVEL_UNIT)

    def required_tokens(self, peak_units: int) -> int:
        """RT = ceil(I_max_of_operation / I_token), I_token = PB / TT (exact integer form)."""
        return -(-int(peak_units) * self.total_tokens // self.budget_units)

    @property
    def token_bits(self) -> int:
        """Bits to carry a token count in 0..TT (6 for TG = 4, alpha = 4)."""
        return max(1, math.ceil(math.log2(self.total_tokens + 1)))

    def transfer_cycles(self) -> int:
        """T_trans of eq. (3): the key bit plus the token bits, sent serially (7 for TG 4)."""
        return 1 + self.token_bits


def latency_overhead_cycles(n_atomic: int, t_trans: int, n: int, t_comp: int = 2) -> int:
    """Eq. (3): L_overhead = N_atomic * (T_trans * n + T_comp)."""
    return n_atomic * (t_trans * n + t_comp)
