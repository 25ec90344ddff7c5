"""The one in-memory form of a block trace: numpy columns plus metadata."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

SECTOR = 512


@dataclass(frozen=True)
class TraceMeta:
    """Where a trace came from and how it was read."""

    name: str
    format: str
    source: str = ""
    sha256: str = ""
    lines: int = 0
    synthetic: bool = False
    backward_time_jumps: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Name for tables and figure legends; says when a trace is synthetic, and, for a
        stand-in drawn from another workload's measured profile (``extra["profile_of"]``),
        whose profile it is."""
        if not self.synthetic:
            return self.name
        of = self.extra.get("profile_of") if self.extra else None
        return f"{self.name} (synthetic)" + (f" [{of} profile]" if of else "")


@dataclass
class Requests:
    """Block requests in trace order.

    ``time_ns`` is the arrival time in ns relative to the first request (int64; it may
    go backwards where the source clock did, see ``meta.backward_time_jumps``);
    ``offset_bytes`` and ``size_bytes`` are int64 byte quantities; ``is_write`` is bool.
    """

    time_ns: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    is_write: np.ndarray
    meta: TraceMeta

    def __post_init__(self) -> None:
        self.time_ns = np.ascontiguousarray(self.time_ns, dtype=np.int64)
        self.offset_bytes = np.ascontiguousarray(self.offset_bytes, dtype=np.int64)
        self.size_bytes = np.ascontiguousarray(self.size_bytes, dtype=np.int64)
        self.is_write = np.ascontiguousarray(self.is_write, dtype=np.bool_)
        n = len(self.time_ns)
        for col in ("offset_bytes", "size_bytes", "is_write"):
            if len(getattr(self, col)) != n:
                raise ValueError(f"column {col} has {len(getattr(self, col))} rows, expected {n}")

    def __len__(self) -> int:
        return len(self.time_ns)

    def __getitem__(self, index: slice | np.ndarray) -> Requests:
        """Row selection (slice, boolean mask or index array); metadata is kept."""
        return Requests(
            self.time_ns[index],
            self.offset_bytes[index],
            self.size_bytes[index],
            self.is_write[index],
            self.meta,
        )

    def head(self, n: int) -> Requests:
        return self[:n]

    def with_meta(self, **changes: object) -> Requests:
        return Requests(
            self.time_ns,
            self.offset_bytes,
            self.size_bytes,
            self.is_write,
            dataclasses.replace(self.meta, **changes),
        )

    @property
    def n_reads(self) -> int:
        return int(len(self) - np.count_nonzero(self.is_write))

    @property
    def n_writes(self) -> int:
        return int(np.count_nonzero(self.is_write))

    @property
    def out_of_order(self) -> int:
        """Requests that arrive before an earlier one (see :func:`out_of_order_count`)."""
        return out_of_order_count(self.time_ns)

    def monotonic_time_ns(self) -> np.ndarray:
        """Arrival times made non-decreasing (a backward jump waits for the previous
        request), as a replaying simulator needs them."""
        return np.maximum.accumulate(self.time_ns) if len(self) else self.time_ns.copy()


def out_of_order_count(time_ns: np.ndarray) -> int:
    """Requests that arrive before an earlier one (those ``monotonic_time_ns`` delays)."""
    if len(time_ns) < 2 or not (time_ns[1:] < time_ns[:-1]).any():
        return 0
    return int(np.count_nonzero(time_ns < np.maximum.accumulate(time_ns)))
