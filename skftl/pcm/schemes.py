"""Names of the mapping schemes, grouping rules and idle-chip choices, and the log policy
of the static + full scheme. The kernel sees them as small integers."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from skftl.errors import ConfigError

# mapping scheme -> kernel id
SCHEMES: dict[str, int] = {"static": 0, "dynamic": 1, "block": 2, "static_full": 3}
# how page operations are grouped into one parallel operation (see kernel docstring)
GROUPINGS: dict[str, int] = {"queue": 0, "request": 1, "stream": 2}
# which idle chip the dynamic scheme takes for a new page
IDLE_PICKS: dict[str, int] = {"round_robin": 0, "lowest": 1}


def lookup(table: dict[str, int], value: str, what: str) -> int:
    """Kernel id of ``value`` in ``table``, or a ConfigError naming the choices."""
    try:
        return table[value]
    except KeyError:
        raise ConfigError(f"bnvm: unknown {what} {value!r}; choose from {sorted(table)}") from None


@dataclass(frozen=True)
class LogPolicy:
    """Full-associative log area of the static + full scheme.

    ``log_pages_per_chip`` is the log capacity per chip in pages; it is made of
    ``log_pages_per_chip / pages_per_block`` refresh units at the same offset in every chip
    (the paper's ``refresh_units`` of eq. 1). ``flush_timeout_ms`` > 0 flushes a partly
    filled buffer once its oldest update is that old (not in the paper, which flushes only
    a full buffer; 0 = the paper's rule)."""

    log_pages_per_chip: int = 128
    flush_timeout_ms: float = 0.0

    def __post_init__(self) -> None:
        if self.log_pages_per_chip <= 0:
            raise ConfigError(
                f"bnvm.log: log_pages_per_chip must be positive, got {self.log_pages_per_chip}"
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

    def refresh_units(self, pages_per_block: int) -> int:
        """Refresh units per chip in the log area (eq. 1's ``refresh_units``)."""
        if self.log_pages_per_chip % pages_per_block:
            raise ConfigError(
                f"bnvm: log_pages_per_chip ({self.log_pages_per_chip}) must be a multiple of "
                f"pages_per_block ({pages_per_block})"
            )
        return self.log_pages_per_chip // pages_per_block
