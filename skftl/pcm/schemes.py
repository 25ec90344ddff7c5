"""Names of the mapping schemes, grouping rules and idle-chip choices, and the log policy
of the static + full scheme. The kernel sees them as small integers."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from skftl.errors import ConfigError
from skftl.pcm.device import PCMDevice

# mapping scheme -> kernel id
SCHEMES: dict[str, int] = {"static": 0, "dynamic": 1, "block": 2, "static_full": 3}
# how page operations are grouped into one parallel operation (see kernel docstring)
GROUPINGS: dict[str, int] = {"queue": 0, "request": 1, "stream": 2}
# which idle chip the dynamic scheme takes for a new page
IDLE_PICKS: dict[str, int] = {"round_robin": 0, "lowest": 1}
# parallel clean writes one static + full buffer flush counts (Sec. IV.C.1 | IV.C.2.b)
FLUSH_ROUNDS: tuple[int, ...] = (1, 2)


def lookup(table: dict[str, int], value: str, what: str) -> int:
    """Kernel id of ``value`` in ``table``, or a ConfigError naming the choices."""
    try:
        return table[value]
    except KeyError:
        raise ConfigError(f"bnvm: unknown {what} {value!r}; choose from {sorted(table)}") from None


@dataclass(frozen=True)
class LogPolicy:
    """Full-associative log area of the static + full scheme.

    The log holds ``log_pages_per_chip`` pages per chip, made of ``log_pages_per_chip /
    pages_per_block`` refresh units at the same offset in every chip (the paper's
    ``refresh_units`` of eq. 1). ``log_pages_per_chip=None`` sizes it as ``log_fraction``
    of the device's capacity (Sec. II.B.3: "allocate 0.1% of flash memory for log
    blocks"), rounded down to whole refresh units per chip (at least one).
    ``flush_timeout_ms`` > 0 flushes a partly filled buffer once its oldest update is that
    old (not in the paper, which flushes only a full buffer; 0 = the paper's rule).
    ``flush_rounds``: parallel clean writes one buffer flush counts (1: Sec. IV.C.1, 2: Sec.
    IV.C.2.b; see ``skftl.pcm.kernel``)."""

    log_pages_per_chip: int | None = None
    flush_timeout_ms: float = 0.0
    log_fraction: float = 0.001
    flush_rounds: int = 2

    def __post_init__(self) -> None:
        if self.log_pages_per_chip is not None and self.log_pages_per_chip <= 0:
            raise ConfigError(
                f"bnvm.log: log_pages_per_chip must be positive, got {self.log_pages_per_chip}"
            )
        if not 0 < self.log_fraction < 1:
            raise ConfigError(f"bnvm.log: log_fraction must be in (0, 1), got {self.log_fraction}")
        if self.flush_rounds not in FLUSH_ROUNDS:
            raise ConfigError(
                f"bnvm.log: flush_rounds must be one of {FLUSH_ROUNDS}, got {self.flush_rounds}"
            )
        if self.flush_timeout_ms < 0:
            raise ConfigError(
                f"bnvm.log: flush_timeout_ms must be >= 0, got {self.flush_timeout_ms}"
            )

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> LogPolicy:
        known = {f.name for f in fields(cls)}
        unknown = set(section) - known
        if unknown:
            raise ConfigError(f"bnvm.log: unknown keys {sorted(unknown)}; known {sorted(known)}")
        return cls(**section)

    def pages_per_chip(self, device: PCMDevice) -> int:
        """Log pages per chip on ``device``: the configured number, else ``log_fraction`` of
        the capacity in whole refresh units (at least one)."""
        if self.log_pages_per_chip is not None:
            return self.log_pages_per_chip
        per_chip = self.log_fraction * device.n_pages / device.n_chips
        return max(1, int(per_chip // device.pages_per_block)) * device.pages_per_block

    def refresh_units(self, device: PCMDevice) -> int:
        """Refresh units per chip in the log area (eq. 1's ``refresh_units``)."""
        pages = self.pages_per_chip(device)
        if pages % device.pages_per_block:
            raise ConfigError(
                f"bnvm: log_pages_per_chip ({pages}) must be a multiple of "
                f"pages_per_block ({device.pages_per_block})"
            )
        return pages // device.pages_per_block
