"""NAND operation timing: array latencies per page position and the channel transfer.

Page speed models (``page_speed``):

* ``uniform``: every page reads in ``t_read`` and programs in ``t_prog``.
* ``lsb_msb``: 2-bit MLC; odd pages are MSB pages (``t_prog_msb``, ``t_read_msb``), even
  pages LSB (``t_prog``, ``t_read``). Real LSB/MSB pairings are vendor-specific; alternating
  keeps half the pages of each kind in program order.
* ``charge_trap_3d``: the PPB paper's asymmetric feature size: access latency changes
  linearly with page position from the slowest page (``t_read``/``t_prog``) to the fastest
  (the slowest divided by ``speed_ratio``); ``fast_end`` says whether the ``last`` or the
  ``first`` page of a block is fastest. Erase time is per block and does not vary.

All times are integer nanoseconds inside the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError

PAGE_SPEEDS = ("uniform", "lsb_msb", "charge_trap_3d")
SPEED_ANCHORS = ("slowest", "fastest", "mean")


@dataclass(frozen=True)
class Timing:
    t_read_ns: int
    t_prog_ns: int
    t_erase_ns: int
    channel_mb_s: float  # MB/s (1e6 bytes per second)
    page_speed: str = "uniform"
    t_prog_msb_ns: int = 0  # lsb_msb only (0: same as t_prog)
    t_read_msb_ns: int = 0  # lsb_msb only (0: same as t_read)
    speed_ratio: float = 1.0  # charge_trap_3d: slowest/fastest page latency
    fast_end: str = "last"  # charge_trap_3d: "last" or "first"
    speed_anchor: str = "slowest"  # charge_trap_3d: page t_read/t_prog describe (SPEED_ANCHORS)
    copyback: bool = True  # GC copies stay inside the chip (no channel transfer)

    def __post_init__(self) -> None:
        if self.page_speed not in PAGE_SPEEDS:
            raise ConfigError(
                f"nand: page_speed must be one of {PAGE_SPEEDS}, got {self.page_speed!r}"
            )
        if self.fast_end not in ("last", "first"):
            raise ConfigError(f"nand: fast_end must be 'last' or 'first', got {self.fast_end!r}")
        if self.speed_anchor not in SPEED_ANCHORS:
            raise ConfigError(
                f"nand: speed_anchor must be one of {SPEED_ANCHORS}, got {self.speed_anchor!r}"
            )
        if min(self.t_read_ns, self.t_prog_ns, self.t_erase_ns) < 0 or self.channel_mb_s <= 0:
            raise ConfigError("nand: latencies must be >= 0 and channel_mb_s > 0")
        if self.speed_ratio < 1.0:
            raise ConfigError(f"nand: speed_ratio must be >= 1, got {self.speed_ratio}")

    def transfer_ns(self, page_size: int) -> int:
        """Time to move one page over the channel."""
        return int(round(page_size / (self.channel_mb_s * 1e6) * 1e9))

    def page_tables(self, pages_per_block: int) -> tuple[np.ndarray, np.ndarray]:
        """(read_ns, prog_ns): int64 latency of each page position within a block."""
        idx = np.arange(pages_per_block)
        read = np.full(pages_per_block, self.t_read_ns, dtype=np.float64)
        prog = np.full(pages_per_block, self.t_prog_ns, dtype=np.float64)
        if self.page_speed == "lsb_msb":
            msb = idx % 2 == 1
            read[msb] = self.t_read_msb_ns or self.t_read_ns
            prog[msb] = self.t_prog_msb_ns or self.t_prog_ns
        elif self.page_speed == "charge_trap_3d":
            x = idx / max(pages_per_block - 1, 1)  # 0 at the first page, 1 at the last
            if self.fast_end == "first":
                x = 1.0 - x
            scale = 1.0 - x * (1.0 - 1.0 / self.speed_ratio)
            if self.speed_anchor == "fastest":
                scale *= self.speed_ratio
            elif self.speed_anchor == "mean":
                scale /= scale.mean()
            read *= scale
            prog *= scale
        return np.rint(read).astype(np.int64), np.rint(prog).astype(np.int64)

    @classmethod
    def from_config(cls, section: dict) -> Timing:
        """From a resolved ``nand`` section (times in us, rate in MB/s)."""
        s = section

        def us(key: str, default: float | None = None) -> int:
            v = s.get(key, default)
            if v is None:
                raise ConfigError(f"nand section: missing key {key!r}")
            return int(round(float(v) * 1000))

        return cls(
            t_read_ns=us("t_read_us"),
            t_prog_ns=us("t_prog_us"),
            t_erase_ns=us("t_erase_us"),
            channel_mb_s=float(s.get("channel_mb_s", 0) or 0) or _missing("channel_mb_s"),
            page_speed=str(s.get("page_speed", "uniform")),
            t_prog_msb_ns=us("t_prog_msb_us", 0),
            t_read_msb_ns=us("t_read_msb_us", 0),
            speed_ratio=float(s.get("speed_ratio", 1.0)),
            fast_end=str(s.get("fast_end", "last")),
            speed_anchor=str(s.get("speed_anchor", "slowest")),
            copyback=bool(s.get("gc_copyback", True)),
        )


def _missing(key: str) -> float:
    raise ConfigError(f"nand section: missing or zero {key!r}")
