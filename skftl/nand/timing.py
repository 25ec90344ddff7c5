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

Device semantics (each an option; the defaults are the original model):

* ``die_model``: ``independent`` (every chip of the geometry is a die that runs its own
  commands) or ``shared_chip`` (MQSim's semantics: ``dies_per_chip`` dies of one channel
  share a chip that runs one command at a time; dies join a command of the same kind that
  has not started yet, a multi-die command).
* ``unmapped_read``: a read of a never-written page ``complete_at_arrival`` (no flash
  access), is ``premapped`` (SSDsim: written before the replay, untimed and uncounted as a
  host write) or costs an ``array_read`` (MQSim reads the flash).
* ``write_cache_mib`` > 0: a write-back DRAM cache of that many MiB (whole pages) in front
  of the FTL, evicting by ``write_cache_policy`` (``lru`` | ``fifo``).
* ``multi_plane``: a die runs one read / program / erase command on several planes at once
  when their page indices match (MQSim); the conventional policy then keeps one write point
  per plane (host LPNs striped over the planes after the chips, GC copies in the victim's
  plane) so that pages of one request can align.
* ``gc_threshold_scope``: ``chip`` (GC watermarks per chip, ``ftl.gc_low_blocks`` /
  ``gc_high_blocks``) or ``plane``: besides the chip's, each plane collects, victims from
  that plane alone, when its free blocks fall below ``gc_plane_low_share`` of its blocks,
  until it has ``gc_plane_high_share`` of them (MQSim's GC_Exec_Threshold is 0.05).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError

PAGE_SPEEDS = ("uniform", "lsb_msb", "charge_trap_3d")
SPEED_ANCHORS = ("slowest", "fastest", "mean")
DIE_MODELS = ("independent", "shared_chip")
UNMAPPED_READS = ("complete_at_arrival", "premapped", "array_read")
WRITE_CACHE_POLICIES = ("lru", "fifo")
GC_THRESHOLD_SCOPES = ("chip", "plane")


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
    die_model: str = "independent"  # DIE_MODELS
    dies_per_chip: int = 1  # shared_chip: dies (geometry chips of one channel) per chip
    unmapped_read: str = "complete_at_arrival"  # UNMAPPED_READS
    write_cache_mib: float = 0.0  # DRAM write cache (0 = none)
    write_cache_policy: str = "lru"  # WRITE_CACHE_POLICIES
    multi_plane: bool = False
    gc_threshold_scope: str = "chip"  # GC_THRESHOLD_SCOPES
    gc_plane_low_share: float = 0.05  # plane scope: GC below this share of free blocks
    gc_plane_high_share: float | None = None  # ... until this share is free (None: the low)

    def __post_init__(self) -> None:
        if self.gc_plane_high_share is None:
            object.__setattr__(self, "gc_plane_high_share", self.gc_plane_low_share)
        if not isinstance(self.multi_plane, bool):
            raise ConfigError(f"nand: multi_plane must be true or false, got {self.multi_plane!r}")
        if not 0 < self.gc_plane_low_share <= self.gc_plane_high_share < 1:
            raise ConfigError(
                "nand: gc_plane_low_share and gc_plane_high_share must satisfy 0 < low <= high "
                f"< 1, got {self.gc_plane_low_share!r} and {self.gc_plane_high_share!r}"
            )
        for key, value, allowed in (
            ("gc_threshold_scope", self.gc_threshold_scope, GC_THRESHOLD_SCOPES),
            ("die_model", self.die_model, DIE_MODELS),
            ("unmapped_read", self.unmapped_read, UNMAPPED_READS),
            ("write_cache.policy", self.write_cache_policy, WRITE_CACHE_POLICIES),
        ):
            if value not in allowed:
                raise ConfigError(f"nand: {key} must be one of {allowed}, got {value!r}")
        if not isinstance(self.dies_per_chip, int) or self.dies_per_chip < 1:
            raise ConfigError(
                f"nand: dies_per_chip must be a positive integer, got {self.dies_per_chip!r}"
            )
        if not self.write_cache_mib >= 0:
            raise ConfigError(
                f"nand: write_cache.capacity_mib must be >= 0, got {self.write_cache_mib!r}"
            )
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

    def plane_gc_blocks(self, blocks_per_plane: int) -> tuple[int, int]:
        """(low, high) per-plane GC watermarks in blocks; (0, 0) with chip scope. GC starts
        when free < low share x blocks, i.e. free < ceil(low share x blocks)."""
        if self.gc_threshold_scope != "plane":
            return 0, 0
        low = math.ceil(self.gc_plane_low_share * blocks_per_plane)
        return low, max(low, math.ceil(self.gc_plane_high_share * blocks_per_plane))

    def cache_pages(self, page_size: int) -> int:
        """Whole pages the write cache holds (0: no cache)."""
        return int(self.write_cache_mib * (1 << 20)) // page_size

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
        wc = s.get("write_cache") or {}
        if not isinstance(wc, dict):
            raise ConfigError(
                f"nand: write_cache must be a mapping {{capacity_mib, policy}}, got {wc!r}"
            )
        unknown = set(wc) - {"capacity_mib", "policy"}
        if unknown:
            raise ConfigError(f"nand: write_cache has unknown keys {sorted(unknown)}")

        low = _float(s, "gc_plane_low_share", "gc_plane_low_share", 0.05)

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
            die_model=str(s.get("die_model", "independent")),
            dies_per_chip=_int(s, "dies_per_chip", 1),
            unmapped_read=str(s.get("unmapped_read", "complete_at_arrival")),
            write_cache_mib=_float(wc, "write_cache.capacity_mib", "capacity_mib", 0.0),
            write_cache_policy=str(wc.get("policy", "lru")),
            multi_plane=s.get("multi_plane", False),
            gc_threshold_scope=str(s.get("gc_threshold_scope", "chip")),
            gc_plane_low_share=low,
            gc_plane_high_share=_float(s, "gc_plane_high_share", "gc_plane_high_share", low),
        )


def _int(section: dict, key: str, default: int) -> int:
    v = section.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"nand: {key} must be an integer, got {v!r}")
    return v


def _float(section: dict, name: str, key: str, default: float) -> float:
    v = section.get(key, default)
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ConfigError(f"nand: {name} must be a number, got {v!r}") from None


def _missing(key: str) -> float:
    raise ConfigError(f"nand section: missing or zero {key!r}")
