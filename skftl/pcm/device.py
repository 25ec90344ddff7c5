"""The PCM device of the paper's Table 2 as a small config dataclass."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from skftl.errors import ConfigError

# mapping-table entry sizes: Sec. II.B.2 gives 3 bytes per block entry; it gives none per
# page entry, we take a 32-bit physical page number
PAGE_ENTRY_BYTES = 4
BLOCK_ENTRY_BYTES = 3


@dataclass(frozen=True)
class PCMDevice:
    """Chips working in parallel, page (read/write unit), refresh unit ("block") and the
    operation latencies. Defaults are Table 2 of the paper; ``t_read_us`` is our choice
    (the paper gives none): 25 us for a 4 KB page, i.e. ~160 MB/s per chip, the order of
    the Onyx PCM prototype's per-chip read bandwidth the paper cites for its latencies.
    ``capacity_gib`` is our assumption too: the paper gives no BNVM-SSD capacity; 128 GiB
    is the only SSD size it names (Sec. II.B.1-2). It sizes the 0.1 % log area and the
    mapping tables, never the simulated traffic."""

    n_chips: int = 4
    page_size: int = 4096  # bytes; the paper allows 2 KB or 4 KB
    pages_per_block: int = 128  # pages per refresh unit ("LBN 0 = LPN 0-127" in the paper)
    t_clean_us: float = 200.0  # write on an empty page
    t_dirty_us: float = 250.0  # overwrite
    t_refresh_ms: float = 100.0  # per refresh unit (paper: 50-100 ms, used 100 ms)
    t_read_us: float = 25.0
    endurance: int = 1_000_000  # write/refresh cycles per page
    capacity_gib: float = 128.0

    def __post_init__(self) -> None:
        if not 1 <= self.n_chips <= 62:
            raise ConfigError(f"bnvm: n_chips must be in 1..62, got {self.n_chips}")
        for name in ("page_size", "pages_per_block", "endurance", "capacity_gib"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"bnvm: {name} must be positive, got {getattr(self, name)}")
        for name in ("t_clean_us", "t_dirty_us", "t_refresh_ms", "t_read_us"):
            if getattr(self, name) < 0:
                raise ConfigError(f"bnvm: {name} must be >= 0, got {getattr(self, name)}")

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> PCMDevice:
        """Build from the ``bnvm.device`` config mapping (unknown keys are an error)."""
        known = {f.name for f in fields(cls)}
        unknown = set(section) - known
        if unknown:
            raise ConfigError(f"bnvm.device: unknown keys {sorted(unknown)}; known {sorted(known)}")
        return cls(**section)

    @property
    def n_pages(self) -> int:
        """Pages on the device."""
        return int(self.capacity_gib * 2**30) // self.page_size

    def mapping_table_bytes(self, scheme: str) -> int:
        """DRAM the scheme's logical-to-physical table needs on this device (Sec. II.B): one
        entry per page (dynamic page mapping) or per refresh unit (block mapping); static
        page mapping computes its addresses and keeps no table."""
        if scheme == "static":
            return 0
        if scheme == "dynamic":
            return self.n_pages * PAGE_ENTRY_BYTES
        if scheme == "block":
            return self.n_pages // self.pages_per_block * BLOCK_ENTRY_BYTES
        raise ConfigError(f"bnvm: no mapping table rule for scheme {scheme!r}")

    @property
    def t_clean_ns(self) -> int:
        return round(self.t_clean_us * 1e3)

    @property
    def t_dirty_ns(self) -> int:
        return round(self.t_dirty_us * 1e3)

    @property
    def t_refresh_ns(self) -> int:
        return round(self.t_refresh_ms * 1e6)

    @property
    def t_read_ns(self) -> int:
        return round(self.t_read_us * 1e3)
