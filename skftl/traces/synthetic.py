"""Seeded synthetic block traces and the presets that stand in for unavailable traces.

A trace is drawn from a :class:`SyntheticSpec`: request sizes (per type, 512 B
multiples), read share, the share of reads and of writes that are *sequential*
(exactly the :mod:`skftl.traces.stats` definition: the request starts where the
previous request of the same type ended), a footprint with optional hot/cold or
Zipf skew, an address alignment, and a Poisson arrival process with optional bursts.

Exactness by construction: the number of writes and the number of sequential reads
(writes) are fixed counts (``round(fraction * n)``), placed at random positions,
and a non-sequential request that lands by chance exactly on the previous end is
moved by one alignment unit. So a generated trace's read % and sequential % equal
the spec up to one request of rounding, and only the mean size is subject to
sampling noise. Everything is vectorised numpy or, with temporal locality on, Numba
kernels over numpy's draws (:mod:`skftl.traces.reuse_kernel`; no per-request Python).

Every preset says where its numbers come from in its ``source`` and ``notes``
fields; numbers not taken from a paper or measured on a real excerpt are labelled
as assumptions.
"""

from __future__ import annotations

import dataclasses
import functools
import zlib
from dataclasses import dataclass, field

import numpy as np

from skftl.errors import ConfigError
from skftl.traces.locality import slice_starts, time_slice
from skftl.traces.requests import SECTOR, Requests, TraceMeta

KB = 1024
GiB = 2**30
DEFAULT_N_REQUESTS = 200_000  # equals config traces.synthetic_requests
_MAX_NUDGE_ROUNDS = 64


@dataclass(frozen=True)
class SizeDist:
    """Request-size distribution in bytes (every size a positive multiple of 512).

    ``kind="discrete"``: ``sizes`` with probabilities ``probs`` (an empirical
    histogram is a discrete distribution). ``kind="lognormal"``: a lognormal of
    median ``median`` bytes and shape ``sigma``, rounded up to 512 B and clipped to
    [``min_size``, ``max_size``].
    """

    kind: str = "discrete"
    sizes: tuple[int, ...] = ()
    probs: tuple[float, ...] = ()
    median: float = 4096.0
    sigma: float = 1.0
    min_size: int = SECTOR
    max_size: int = 1 << 20

    def __post_init__(self) -> None:
        if self.kind == "discrete":
            if not self.sizes or len(self.sizes) != len(self.probs):
                raise ConfigError(f"discrete size distribution needs sizes and probs: {self}")
            if any(s <= 0 or s % SECTOR for s in self.sizes):
                raise ConfigError(f"sizes must be positive multiples of 512 B: {self.sizes}")
            p = np.asarray(self.probs, dtype=float)
            if np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-6):
                raise ConfigError(f"size probabilities must be >= 0 and sum to 1: {self.probs}")
        elif self.kind == "lognormal":
            if self.median <= 0 or self.sigma < 0 or not 0 < self.min_size <= self.max_size:
                raise ConfigError(f"bad lognormal size distribution: {self}")
            if self.min_size % SECTOR or self.max_size % SECTOR:
                raise ConfigError(f"size bounds must be multiples of 512 B: {self}")
        else:
            raise ConfigError(f"size distribution kind must be discrete or lognormal: {self.kind}")

    @classmethod
    def discrete(cls, sectors_to_prob: dict[int, float]) -> SizeDist:
        """From {size in 512 B sectors: weight}; the weights are normalised."""
        total = float(sum(sectors_to_prob.values()))
        items = sorted(sectors_to_prob.items())
        return cls(
            sizes=tuple(int(s) * SECTOR for s, _ in items),
            probs=tuple(w / total for _, w in items),
        )

    @property
    def mean_bytes(self) -> float:
        """Expected size in bytes: exact for discrete; for the rounded and clipped
        lognormal, estimated from a fixed-seed sample of 200,000."""
        if self.kind == "discrete":
            return float(np.dot(self.sizes, self.probs))
        return float(self.sample(np.random.default_rng(0), 200_000).mean())

    def tilted_to_mean(self, mean_bytes: float) -> SizeDist:
        """The discrete distribution closest in KL divergence to this one whose mean
        is ``mean_bytes`` (exponential tilting p_i * exp(theta * s_i)): keeps the
        shape of a measured histogram while matching a published mean."""
        return _tilted(self, float(mean_bytes))

    def _tilted_to_mean(self, mean_bytes: float) -> SizeDist:
        if self.kind != "discrete":
            raise ConfigError("only a discrete size distribution can be tilted")
        s = np.asarray(self.sizes, dtype=float)
        logp = np.log(np.asarray(self.probs, dtype=float))
        support = logp > -np.inf
        if not s[support].min() < mean_bytes < s[support].max():
            raise ConfigError(
                f"target mean {mean_bytes} B outside the sizes' range "
                f"({s[support].min()}..{s[support].max()})"
            )
        x = s / s.max()

        def tilted(theta: float) -> np.ndarray:
            z = logp + theta * x
            w = np.exp(z - z[support].max())
            return w / w.sum()

        lo, hi = -2000.0, 2000.0
        for _ in range(200):  # bisection: the tilted mean is increasing in theta
            mid = 0.5 * (lo + hi)
            before = (lo, hi)
            if float(tilted(mid) @ s) < mean_bytes:
                lo = mid
            else:
                hi = mid
            if (lo, hi) == before:  # the bracket is two adjacent floats: it cannot move
                break
        return dataclasses.replace(self, probs=tuple(tilted(0.5 * (lo + hi)).tolist()))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` sizes in bytes (int64)."""
        if self.kind == "discrete":
            cdf = np.cumsum(self.probs)
            idx = np.searchsorted(cdf / cdf[-1], rng.random(n), side="right")
            return np.asarray(self.sizes, dtype=np.int64)[np.minimum(idx, len(self.sizes) - 1)]
        raw = self.median * np.exp(self.sigma * rng.standard_normal(n))
        sectors = np.ceil(raw / SECTOR).astype(np.int64)
        return np.clip(sectors * SECTOR, self.min_size, self.max_size)


@functools.lru_cache(maxsize=4096)
def _tilted(dist: SizeDist, mean_bytes: float) -> SizeDist:
    """:meth:`SizeDist.tilted_to_mean`, remembered: a fit draws the same phases' tilts of the
    same distributions over and over."""
    return dist._tilted_to_mean(mean_bytes)


# the spec's fields with one value per time slice (``phase_edges``)
_SLICED = (
    "new_address_weights",
    "phase_repeat_read_factors",
    "phase_repeat_write_factors",
    "phase_read_fractions",
    "phase_seq_read_factors",
    "phase_seq_write_factors",
    "phase_read_size_factors",
    "phase_write_size_factors",
    "phase_follow_read_size_factors",
    "phase_follow_write_size_factors",
    "phase_overlap_read_factors",
    "phase_overlap_write_factors",
    "phase_overlap_single_read_factors",
    "phase_overlap_single_write_factors",
)


@dataclass(frozen=True)
class SyntheticSpec:
    """Parameters of a synthetic block workload (see the module docstring).

    Skew: with ``zipf_exponent > 0`` the footprint is cut into extents of
    ``zipf_extent_bytes`` whose popularity follows a Zipf law (ranks scattered over
    the address space); else with ``hot_access_fraction > 0`` that share of the
    non-sequential requests goes to one contiguous hot region of
    ``hot_space_fraction`` of the footprint (at a seeded position) and the rest to
    the remainder; else addresses are uniform. Arrivals: exponential gaps of mean
    1/``iops``; with ``burst_fraction`` b > 0, each request joins the previous
    one's burst with probability b (gap exponential of mean ``burst_gap_ns``) and
    the other gaps are stretched so the long-run rate stays ``iops``.
    """

    name: str
    read_sizes: SizeDist
    write_sizes: SizeDist
    read_fraction: float
    seq_read_fraction: float = 0.0
    seq_write_fraction: float = 0.0
    footprint_bytes: int = 16 * GiB
    alignment_bytes: int = 4096
    hot_access_fraction: float = 0.0
    hot_space_fraction: float = 0.0
    zipf_exponent: float = 0.0
    zipf_extent_bytes: int = 1 << 20
    iops: float = 100.0
    burst_fraction: float = 0.0
    burst_gap_ns: float = 0.0
    # Temporal locality (all off by default, which keeps every preset's draws
    # bit-identical). A non-sequential read starts at the start of an earlier read with
    # probability ``reread_fraction``, of an earlier write with ``read_after_write_fraction``;
    # a non-sequential write likewise with ``write_after_read_fraction`` / ``rewrite_fraction``.
    # How far back (in requests) is drawn from the inverse CDF given by the knots
    # (``reuse_distance_levels``, ``reuse_distance_quantiles``), log-linear between knots
    # (empty: log-uniform on [1, 1000]). ``new_address_weights`` (empty: flat) makes the rate
    # of new addresses vary over the trace: in the k-th of its time slices (``phase_edges``),
    # the share of non-sequential requests that take a new address is scaled by the k-th
    # weight (mean 1).
    reread_fraction: float = 0.0
    read_after_write_fraction: float = 0.0
    write_after_read_fraction: float = 0.0
    rewrite_fraction: float = 0.0
    reuse_distance_levels: tuple[float, ...] = ()
    reuse_distance_quantiles: tuple[float, ...] = ()
    new_address_weights: tuple[float, ...] = ()
    # Sizes of the non-sequential requests that reuse an address (None: the type's sizes).
    reuse_read_sizes: SizeDist | None = None
    reuse_write_sizes: SizeDist | None = None
    # Sizes of the reads that reuse a write's address and of the writes that reuse a read's
    # (None: the type's reuse sizes): in app traces a file written is read back whole, in
    # requests much larger than the reads that re-read.
    reuse_read_of_write_sizes: SizeDist | None = None
    reuse_write_of_read_sizes: SizeDist | None = None
    # Sizes of the sequential requests that continue a run (None: the type's sizes). With
    # them the type's sizes are those of the run heads at a new address: in block traces a
    # file read or written whole comes in requests of other sizes than isolated ones.
    follow_read_sizes: SizeDist | None = None
    follow_write_sizes: SizeDist | None = None
    # Share of the reusing requests that start a run of one request, per type of the reusing
    # head (read, write; empty: no preference, a reused address is then as often continued
    # sequentially as a new one): in block traces a file is read again whole as often as it
    # was read, while a block rewritten is mostly rewritten alone.
    reuse_single_run_shares: tuple[float, ...] = ()
    # Share of a type's run heads that are runs of one (None: the sequential requests at
    # random positions, so runs are short and few heads stand alone). Block traces mix many
    # isolated requests with a few long sequential runs (files read or written whole).
    single_run_share: float | None = None
    # Mean requests of the runs of more than one request whose head reuses an address (None:
    # as those of any head): in block traces a reuse that goes on is short (a few blocks
    # rewritten or read again), the long runs are files written or read whole once.
    copy_run_requests: float | None = None
    # Of those runs, per type of the reusing run (read, write; empty: all go over), the share
    # that go over the pages their source's run touched (a file read or written again from
    # where it began); the others append: they copy the last request of a run at a new
    # address and go on past its end. A file read again goes over what was read, while a
    # file written again in block traces mostly appends (a log, a database's next pages).
    copy_run_old_shares: tuple[float, ...] = ()
    # This share of the read (write) run heads at a new address is placed over part of an
    # earlier request (a drawn reuse distance back) from another start page, with sizes
    # from ``overlap_read_sizes`` (None: the type's sizes): a read of part of a file read or
    # written earlier, a write next to or over earlier data, a request that shares its
    # first page with the one it continues at 512 B alignment. Such requests touch pages
    # touched before without sharing a start page, as many do in block traces, and the
    # footprint grows by their other pages only. ``overlap_written_shares`` (read heads,
    # write heads; empty: 1, 1) is the share placed over an earlier write (else a read);
    # ``overlap_page_counts`` / ``overlap_page_probs`` (empty: uniform up to the head's)
    # how many pages (OVERLAP_PAGE) a head shares with it.
    overlap_read_fraction: float = 0.0
    overlap_read_sizes: SizeDist | None = None
    overlap_write_fraction: float = 0.0
    overlap_written_shares: tuple[float, ...] = ()
    overlap_page_counts: tuple[int, ...] = ()
    overlap_page_probs: tuple[float, ...] = ()
    # Per time slice (empty: the same in every slice), the overlap share of the read
    # (write) heads over ``overlap_read_fraction`` (``overlap_write_fraction``), each slice's
    # at most 1: early in a trace little has been touched to overlap, late much.
    phase_overlap_read_factors: tuple[float, ...] = ()
    phase_overlap_write_factors: tuple[float, ...] = ()
    # The share of the overlapping read (write) heads that are runs of one request (empty:
    # as the type's heads at a new address), and per time slice that share over it
    # (empty: the same in every slice): a part of a file read again is mostly one request;
    # late in an app trace, files are read again whole.
    overlap_single_run_shares: tuple[float, ...] = ()
    phase_overlap_single_read_factors: tuple[float, ...] = ()
    phase_overlap_single_write_factors: tuple[float, ...] = ()
    # How far back (requests) the run an overlapping head continues lies: an inverse CDF as
    # the reuse distances' (empty: those).
    overlap_distance_levels: tuple[float, ...] = ()
    overlap_distance_quantiles: tuple[float, ...] = ()
    # Per type (read heads, write heads; empty: 0, 0): the share of the overlapping heads that
    # keep their overlap when it would start on the same page as another head's continuation
    # of the same run (they then count as a reuse of that page; the others take a new
    # address). The fit (skftl.traces.fitting) leaves it empty: a head finds a run of its own
    # (see overlap_sources), so none clashes.
    overlap_clash_shares: tuple[float, ...] = ()
    # Per type (read heads, write heads; empty: none), the share of the overlapping heads
    # whose run goes on that go over their source's pages (the head shares as many of the
    # source run's last pages as its own run has, so its run lies inside what the source
    # touched: a file read again from part way); the others share the drawn pages and go
    # on past the source's end.
    overlap_run_old_shares: tuple[float, ...] = ()
    # A reusing request copies an earlier request of its own power-of-two size class (the
    # same block range again: small metadata rewritten, a file read again whole), and this
    # share of them take its exact size too (the others keep a size from the reuse size
    # distribution, at most the bytes from the source to its run's end).
    copy_size_share: float = 0.0
    # This share of the requests repeat the request just before them exactly (same type,
    # offset and size), as half the reuses of the Pixel 6a traces do.
    repeat_fraction: float = 0.0
    # New addresses are fresh space: the runs that take a new address are laid out without
    # overlapping each other (random order, random free space between them) instead of
    # at independent uniform offsets, which collide once a trace has written a fair share
    # of the space. Block traces allocate new data in free space, so apart from the
    # explicit reuses above, a new run rewrites nothing.
    fresh_new_addresses: bool = False
    # Where in a page new runs start (empty: anywhere on the alignment grid, uniformly). With
    # ``fresh_new_addresses``, a new run starts at k alignment units past a multiple of
    # len(page_offset_probs) units with probability page_offset_probs[k]: a block trace
    # whose offsets are 512 B aligned may still start most requests on a 4 KiB page, and how
    # many pages a request touches (its footprint) follows from where it starts.
    page_offset_probs: tuple[float, ...] = ()
    # What is repeated (None: a uniformly picked request, so repeats have the trace's own mix
    # and sizes). Else this share of the repeats are writes and each repeats a request of
    # its type whose size is drawn from ``repeat_read_sizes`` / ``repeat_write_sizes`` (None:
    # any size): in block traces the requests issued twice in a row are mostly small (file
    # system metadata and journal blocks), not a sample of all requests.
    repeat_write_share: float | None = None
    repeat_read_sizes: SizeDist | None = None
    repeat_write_sizes: SizeDist | None = None
    # Phases (empty: none): block traces are not stationary (an app loads, then runs; a
    # server's mix shifts), and that is what bends their footprint growth. In the k-th of
    # len() time slices, ``phase_read_fractions[k]`` of the drawn requests are reads
    # (exact counts, scaled so the trace's read share stays ``read_fraction``) and the reads'
    # (writes') sizes at a new address are drawn with their mean scaled by
    # ``phase_read_size_factors[k]`` (``phase_write_size_factors[k]``): the type's size
    # distribution tilted (it must be discrete).
    phase_read_fractions: tuple[float, ...] = ()
    # Where the time slices of every per-slice field begin, as fractions of the drawn
    # requests (those that are not repeats; one more than the slices, from 0 to 1,
    # non-decreasing; a profile's ``phase_edges``: each slice holds an equal share of
    # requests and new pages). Empty: equal slices.
    phase_edges: tuple[float, ...] = ()
    # Per time slice, the repeats of reads (writes) per drawn request over the trace's
    # (empty: the repeats follow requests picked anywhere; both or neither, and with
    # ``repeat_write_share``): where a trace repeats requests, and which, is not where its
    # repeatable requests are.
    phase_repeat_read_factors: tuple[float, ...] = ()
    phase_repeat_write_factors: tuple[float, ...] = ()
    # The share of each type's requests that are sequential continuations, per time
    # slice, over the type's share (``seq_read_fraction``; empty: the same in every slice).
    # Exact in total as far as the slices allow (a slice's share is at most 1).
    phase_seq_read_factors: tuple[float, ...] = ()
    phase_seq_write_factors: tuple[float, ...] = ()
    phase_read_size_factors: tuple[float, ...] = ()
    phase_write_size_factors: tuple[float, ...] = ()
    # The same for the sequential continuations, when they have their own sizes
    # (``follow_read_sizes``; empty: no phases for them).
    phase_follow_read_size_factors: tuple[float, ...] = ()
    phase_follow_write_size_factors: tuple[float, ...] = ()
    # Inter-arrival gaps from a measured distribution (empty: the exponential / burst model
    # above): quantiles ``gap_quantiles`` (multiples of the mean gap 1/iops) at the levels
    # ``gap_levels``, log-linear between knots (linear from a knot of 0). A trace of n
    # requests takes the table's values at n evenly spaced levels in random order (a
    # stratified draw: the few long idle gaps that set a block trace's gap CV are then drawn
    # as often as the table says, not left to chance), scaled so the mean gap is 1/iops.
    gap_levels: tuple[float, ...] = ()
    gap_quantiles: tuple[float, ...] = ()
    n_requests: int = DEFAULT_N_REQUESTS
    source: str = "assumption"
    notes: str = ""
    targets: dict = field(default_factory=dict)  # published/measured values it should meet
    # What kind of number each parameter is (field name, or "mean_size" for the mean the size
    # distributions are tilted to -> "measured", "published" or "assumed"; the comments at
    # the presets and ``source`` / ``notes`` give the sources)
    basis: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in (
            "read_fraction",
            "seq_read_fraction",
            "seq_write_fraction",
            "hot_access_fraction",
            "hot_space_fraction",
            "reread_fraction",
            "read_after_write_fraction",
            "write_after_read_fraction",
            "rewrite_fraction",
            "copy_size_share",
            "overlap_read_fraction",
            "overlap_write_fraction",
        ):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"{self.name}: {name} must be in [0, 1], got {v}")
        if not 0.0 <= self.repeat_fraction < 1.0:
            raise ConfigError(
                f"{self.name}: repeat_fraction must be in [0, 1), got {self.repeat_fraction}"
            )
        if not 0.0 <= self.burst_fraction < 1.0:
            raise ConfigError(
                f"{self.name}: burst_fraction must be in [0, 1), got {self.burst_fraction}"
            )
        if self.alignment_bytes <= 0 or self.alignment_bytes % SECTOR:
            raise ConfigError(
                f"{self.name}: alignment must be a positive multiple of 512 B, "
                f"got {self.alignment_bytes}"
            )
        if self.footprint_bytes < 2 * self.alignment_bytes:
            raise ConfigError(f"{self.name}: footprint {self.footprint_bytes} B too small")
        if self.iops <= 0 or self.n_requests < 0 or self.zipf_exponent < 0:
            raise ConfigError(f"{self.name}: iops > 0, n_requests >= 0, zipf_exponent >= 0")
        for a, b in (
            ("reread_fraction", "read_after_write_fraction"),
            ("write_after_read_fraction", "rewrite_fraction"),
        ):
            if getattr(self, a) + getattr(self, b) > 1.0 + 1e-12:
                raise ConfigError(
                    f"{self.name}: {a} + {b} must be <= 1, got "
                    f"{getattr(self, a)} + {getattr(self, b)}"
                )
        self._check_table("reuse_distance", 1.0, ">= 1 and non-decreasing")
        self._check_table("overlap_distance", 1.0, ">= 1 and non-decreasing")
        self._check_table("gap", 0.0, ">= 0, non-decreasing and not all 0")
        r = self.phase_read_fractions
        if r and (min(r) < 0 or max(r) > 1 or not np.isfinite(r).all()):
            raise ConfigError(f"{self.name}: phase_read_fractions must be in [0, 1], got {r}")
        for name in (
            "phase_repeat_read_factors",
            "phase_repeat_write_factors",
            "phase_seq_read_factors",
            "phase_seq_write_factors",
            "phase_overlap_read_factors",
            "phase_overlap_write_factors",
            "phase_overlap_single_read_factors",
            "phase_overlap_single_write_factors",
        ):
            f = getattr(self, name)
            if f and (min(f) < 0 or not np.isfinite(f).all() or sum(f) <= 0):
                raise ConfigError(f"{self.name}: {name} must be >= 0 and not all 0, got {f}")
        for name, dist in (
            ("phase_read_size_factors", self.read_sizes),
            ("phase_write_size_factors", self.write_sizes),
        ):
            f = getattr(self, name)
            if f and (min(f) <= 0 or not np.isfinite(f).all()):
                raise ConfigError(f"{self.name}: {name} must be > 0, got {f}")
            if f and dist.kind != "discrete":
                raise ConfigError(f"{self.name}: {name} needs a discrete size distribution")
        for name, dist in (
            ("phase_follow_read_size_factors", self.follow_read_sizes),
            ("phase_follow_write_size_factors", self.follow_write_sizes),
        ):
            f = getattr(self, name)
            if f and (min(f) <= 0 or not np.isfinite(f).all()):
                raise ConfigError(f"{self.name}: {name} must be > 0, got {f}")
            if f and (dist is None or dist.kind != "discrete"):
                raise ConfigError(f"{self.name}: {name} needs discrete follow sizes")
        for name in (
            "repeat_write_share",
            "single_run_share",
        ):
            x = getattr(self, name)
            if x is not None and not 0.0 <= x <= 1.0:
                raise ConfigError(f"{self.name}: {name} must be in [0, 1], got {x}")
        repeats = (self.phase_repeat_read_factors, self.phase_repeat_write_factors)
        if any(repeats) and (not all(repeats) or self.repeat_write_share is None):
            raise ConfigError(
                f"{self.name}: phase_repeat_read_factors and phase_repeat_write_factors go "
                "together, with repeat_write_share"
            )
        self._check_edges()
        w = self.new_address_weights
        if w and (min(w) < 0 or not np.isfinite(w).all() or sum(w) <= 0):
            raise ConfigError(f"{self.name}: new_address_weights must be >= 0, sum > 0, got {w}")
        pc, pp = self.overlap_page_counts, self.overlap_page_probs
        for name in (
            "overlap_written_shares",
            "overlap_single_run_shares",
            "overlap_clash_shares",
            "copy_run_old_shares",
            "overlap_run_old_shares",
            "reuse_single_run_shares",
        ):
            x = getattr(self, name)
            if x and (len(x) != 2 or min(x) < 0 or max(x) > 1):
                raise ConfigError(f"{self.name}: {name} must be two shares, got {x}")
        if len(pc) != len(pp) or (pc and (min(pc) < 1 or min(pp) < 0 or sum(pp) <= 0)):
            raise ConfigError(
                f"{self.name}: overlap_page_counts (>= 1) and overlap_page_probs (>= 0) must "
                f"pair up, got {pc} and {pp}"
            )
        po = self.page_offset_probs
        if po and (min(po) < 0 or not np.isclose(sum(po), 1.0, atol=1e-6)):
            raise ConfigError(f"{self.name}: page_offset_probs must be >= 0 and sum to 1, got {po}")
        if self.hot_access_fraction > 0 and not 0 < self.hot_space_fraction < 1:
            raise ConfigError(f"{self.name}: a hot region needs 0 < hot_space_fraction < 1")
        if self.burst_fraction > 0 and self.burst_gap_ns * self.burst_fraction >= 1e9 / self.iops:
            raise ConfigError(f"{self.name}: burst gaps alone exceed the mean gap 1/iops")

    def _check_edges(self) -> None:
        """``phase_edges``: from 0 to 1, non-decreasing, one more than every per-slice field."""
        e = self.phase_edges
        if not e:
            return
        if len(e) < 2 or e[0] != 0.0 or e[-1] != 1.0 or np.any(np.diff(e) < 0):
            raise ConfigError(
                f"{self.name}: phase_edges must rise from 0 to 1 (non-decreasing), got {e}"
            )
        for name in _SLICED:
            if getattr(self, name) and len(getattr(self, name)) != len(e) - 1:
                raise ConfigError(
                    f"{self.name}: {name} has {len(getattr(self, name))} slices, "
                    f"phase_edges {len(e) - 1}"
                )

    def _check_table(self, kind: str, floor: float, rule: str) -> None:
        """The knots ``<kind>_levels`` / ``<kind>_quantiles`` of an inverse CDF: the same
        length, levels rising strictly from 0 to 1, quantiles non-decreasing and >= floor
        (and not all 0)."""
        lv, q = getattr(self, f"{kind}_levels"), getattr(self, f"{kind}_quantiles")
        if len(lv) != len(q):
            raise ConfigError(
                f"{self.name}: {kind}_levels and {kind}_quantiles need the same length, "
                f"got {len(lv)} and {len(q)}"
            )
        if not lv:
            return
        if len(lv) < 2 or lv[0] != 0.0 or lv[-1] != 1.0 or np.any(np.diff(lv) <= 0):
            raise ConfigError(
                f"{self.name}: {kind}_levels must rise strictly from 0 to 1, got {lv}"
            )
        if min(q) < floor or np.any(np.diff(q) < 0) or not np.isfinite(q).all() or max(q) <= 0:
            raise ConfigError(f"{self.name}: {kind}_quantiles must be {rule}, got {q}")

    @property
    def has_reuse(self) -> bool:
        """Any temporal-locality share is on (then addresses come from the reuse model)."""
        return (
            self.reread_fraction
            + self.read_after_write_fraction
            + self.write_after_read_fraction
            + self.rewrite_fraction
        ) > 0

    @property
    def located(self) -> bool:
        """Requests are laid out by the locality generator (reuse, repeats, fresh new
        addresses or phases), not by the plain independent draws."""
        return bool(
            self.has_reuse
            or self.repeat_fraction > 0
            or self.fresh_new_addresses
            or self.phase_read_fractions
            or self.phase_seq_read_factors
            or self.phase_seq_write_factors
            or self.phase_read_size_factors
            or self.phase_write_size_factors
        )

    @property
    def mean_size_bytes(self) -> float:
        r = self.read_fraction
        return r * self.read_sizes.mean_bytes + (1 - r) * self.write_sizes.mean_bytes


# ----------------------------------------------------------------------------- generator


def _rng(spec: SyntheticSpec, seed: int) -> np.random.Generator:
    # The preset name enters the seed so two presets with the same seed are independent.
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(spec.name.encode())])


def _exact_mask(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Boolean array of length n with exactly k True at uniform random positions."""
    flip = k > n // 2  # draw the smaller set: choice() without replacement costs O(k)
    mask = np.full(n, flip, dtype=np.bool_)
    m = n - k if flip else k
    if m > 0:
        mask[rng.choice(n, size=m, replace=False, shuffle=False)] = not flip
    return mask


def _zipf_ranks(rng: np.random.Generator, n_ranks: int, s: float, n: int) -> np.ndarray:
    """n draws of a rank in [0, n_ranks) with P(rank k) ~ (k+1)^-s, via the inverse CDF
    of the continuous power law on [1, n_ranks+1) (exact per unit interval up to the
    discretisation; O(1) per draw, unlike a binary search over n_ranks weights)."""
    u = rng.random(n)
    top = float(n_ranks + 1)
    if abs(s - 1.0) < 1e-12:
        x = np.power(top, u)
    else:
        a = 1.0 - s
        x = np.power(1.0 + u * (top**a - 1.0), 1.0 / a)
    return np.minimum(x.astype(np.int64) - 1, n_ranks - 1)


def _head_offsets(
    spec: SyntheticSpec, rng: np.random.Generator, run_bytes: np.ndarray
) -> np.ndarray:
    """Aligned start offsets for runs of ``run_bytes`` that end inside the footprint."""
    fp, al = spec.footprint_bytes, spec.alignment_bytes
    n = len(run_bytes)
    if spec.zipf_exponent > 0:
        ext = max(spec.zipf_extent_bytes, al)
        n_ext = max(fp // ext, 1)
        rank = _zipf_ranks(rng, n_ext, spec.zipf_exponent, n)
        extent = rng.permutation(n_ext)[rank]  # popular extents scattered over the space
        lo = extent * ext
        width = np.full(n, ext, dtype=np.int64)
    elif spec.hot_access_fraction > 0:
        hot = max(int(fp * spec.hot_space_fraction) // al * al, al)
        hot_start = int(rng.integers(0, (fp - hot) // al + 1)) * al
        is_hot = rng.random(n) < spec.hot_access_fraction
        # cold requests: uniform over the footprint outside the hot region
        cold_pos = (rng.random(n) * (fp - hot)).astype(np.int64)
        cold = np.where(cold_pos >= hot_start, cold_pos + hot, cold_pos)
        hot_pos = hot_start + (rng.random(n) * hot).astype(np.int64)
        lo = np.where(is_hot, hot_pos, cold)
        width = np.full(n, al, dtype=np.int64)
    else:
        lo = np.zeros(n, dtype=np.int64)
        width = np.full(n, fp, dtype=np.int64)
    start = lo + (rng.random(n) * width).astype(np.int64)
    start = start // al * al
    limit = (fp - run_bytes) // al * al  # latest aligned start that keeps the run inside
    return np.clip(start, 0, limit)


def _fresh_offsets(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    roots: np.ndarray,
    run_bytes: np.ndarray,
    room: np.ndarray,
    drawn: np.ndarray,
    work: np.ndarray,
    work2: np.ndarray,
) -> None:
    """Aligned start offsets (into ``drawn`` at the positions ``roots``, in place) for runs
    of ``run_bytes`` that overlap neither each other nor the footprint's end: the runs in
    random order, the free space split between them at uniform random points; each run
    starts ``spec.page_offset_probs`` into its first page (when given; else on any alignment
    unit). ``room`` (bytes per run) is kept free after a run, for the runs that will
    continue it. ``work`` and ``work2``: int64 work space of one element per run or more."""
    from skftl.traces.reuse_kernel import fresh_units, pick_into, place_fresh  # Numba

    m = len(roots)
    al = spec.alignment_bytes
    probs = spec.page_offset_probs
    grid = al * max(len(probs), 1)  # runs are laid out in units of this
    into = _NONE  # bytes into its first grid unit (none: 0)
    if probs:
        cdf = np.cumsum(probs)
        u = rng.random(m, out=work2[:m].view(np.float64))
        into = u.view(np.int64)  # each draw's unit in its place
        pick_into(cdf / cdf[-1], u, _NONE, into, _NONE)
        into *= al
    units = work[:m]
    total = fresh_units(run_bytes, into, room, grid, units)
    free = spec.footprint_bytes // grid - total
    if free < 0:
        raise ConfigError(
            f"{spec.name}: the new runs ({total * grid} B) do not fit the footprint "
            f"of {spec.footprint_bytes} B (fresh_new_addresses); enlarge footprint_bytes"
        )
    order = rng.permutation(m)
    cuts = rng.integers(0, free + 1, m)
    cuts.sort()
    place_fresh(roots, order, cuts, units, into, grid, drawn)


_NONE = np.zeros(0, dtype=np.int64)  # an empty index array: a kernel's "not given"


def _uniform(rng: np.random.Generator, m: int, scratch: np.ndarray | None) -> np.ndarray:
    """``rng.random(m)``, the same draws, into the memory of ``scratch`` (an 8-byte array of
    at least m elements, no longer needed) when given: a draw of millions of values in fresh
    memory costs more in page faults than in arithmetic."""
    if scratch is None or len(scratch) < m:
        return rng.random(m)
    return rng.random(m, out=scratch[:m].view(np.float64))


def _draw_into(
    dist: SizeDist,
    rng: np.random.Generator,
    out: np.ndarray,
    at: np.ndarray,
    scratch: np.ndarray | None = None,
) -> None:
    """``out[at] = dist.sample(rng, len(at))``: the same sizes from the same draws, a
    discrete distribution's inverse CDF searched and scattered by a Numba kernel (the draws
    in ``scratch``, see :func:`_uniform`)."""
    if dist.kind != "discrete":
        out[at] = dist.sample(rng, len(at))
        return
    from skftl.traces.reuse_kernel import pick_into  # Numba: locality on

    cdf = np.cumsum(dist.probs)
    values = np.asarray(dist.sizes, dtype=np.int64)
    pick_into(cdf / cdf[-1], _uniform(rng, len(at), scratch), values, out, at)


def _seq_mask(rng: np.random.Generator, n: int, seq_fraction: float) -> np.ndarray:
    """Which of a chain's n requests are sequential: an exact count at random positions
    (the first request cannot be sequential)."""
    k = min(round(seq_fraction * n), n - 1)
    seq = np.zeros(n, dtype=np.bool_)
    seq[1:] = _exact_mask(rng, n - 1, k)
    return seq


def _seq_slices(
    idx: np.ndarray, n: int, fraction: float, factors: tuple[float, ...], edges: tuple
) -> list[tuple[np.ndarray, float]]:
    """The chain ``idx`` (one type's positions in a trace of ``n``) cut into the time slices
    of ``factors`` (at ``edges``), each with its sequential share: ``fraction`` times the slice's
    factor, scaled so the chain's share stays ``fraction`` (each slice's at most 1). Without
    factors the chain whole."""
    if not len(idx):
        return []
    if not factors:
        return [(idx, fraction)]
    k = len(factors)
    bounds = np.searchsorted(idx, slice_starts(n, k, edges))
    count = np.diff(bounds).astype(np.float64)
    want = np.asarray(factors, dtype=np.float64) * count
    total = fraction * len(idx)
    share = np.zeros(k)
    free = count > 0
    # the total shared in proportion to the factors; a slice that would need more than all
    # its requests takes them all and the rest goes to the others (at most k rounds)
    for _ in range(k):
        left = total - (share * count)[~free].sum()
        weight = want[free].sum()
        if left <= 0 or weight <= 0:
            break
        share[free] = want[free] * (left / weight) / count[free]
        full = free & (share >= 1.0)
        if not full.any():
            break
        share[full] = 1.0
        free &= ~full
    return [(idx[bounds[i] : bounds[i + 1]], float(share[i])) for i in range(k) if count[i]]


def _run_mask(rng: np.random.Generator, n: int, seq_fraction: float, single: float) -> np.ndarray:
    """Per run head of a chain of n requests, how many sequential requests follow it: the
    same exact count of sequential requests as :func:`_seq_mask`, laid out so that
    ``single`` of the run heads start a run of one (as near as the counts allow) and the
    other heads share the sequential requests (each at least one; a uniform random split).
    (:func:`~skftl.traces.reuse_kernel.run_marks` lays them out: each head, then its
    followers.)"""
    k = min(round(seq_fraction * n), n - 1)
    heads = n - k
    multi = min(max(round((1.0 - single) * heads), 1 if k else 0), k)
    follow = np.zeros(heads, dtype=np.int64)
    if multi:
        cuts = np.sort(rng.choice(k - 1, multi - 1, replace=False)) + 1 if multi > 1 else []
        parts = np.diff(np.concatenate([[0], cuts, [k]]))
        follow[np.flatnonzero(_exact_mask(rng, heads, multi))] = parts
    return follow


def _runs(spec: SyntheticSpec, sizes: np.ndarray, seq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The run each request of a chain belongs to, and each run's length in bytes."""
    run = np.cumsum(~seq) - 1
    run_bytes = np.bincount(run, weights=sizes).astype(np.int64)
    if run_bytes.max() > spec.footprint_bytes - spec.alignment_bytes:
        raise ConfigError(
            f"{spec.name}: a sequential run of {int(run_bytes.max())} B does not fit the "
            f"footprint of {spec.footprint_bytes} B; enlarge footprint_bytes"
        )
    return run, run_bytes


def _nudge_clashes(spec: SyntheticSpec, head: np.ndarray, run_bytes: np.ndarray) -> None:
    """A run starting exactly where the chain's previous run ended would be counted
    sequential: move it by one alignment unit (away from the footprint's end) until none
    does (in place)."""
    al = spec.alignment_bytes
    for _ in range(_MAX_NUDGE_ROUNDS):
        clash = np.flatnonzero(head[1:] == head[:-1] + run_bytes[:-1]) + 1
        if len(clash) == 0:
            return
        fits = head[clash] + al + run_bytes[clash] <= spec.footprint_bytes
        head[clash] = np.where(fits, head[clash] + al, head[clash] - al)
    raise ConfigError(f"{spec.name}: could not avoid accidental sequential requests")


def _bytes_into_run(sizes: np.ndarray, seq: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Per request of a chain: bytes of its run before it."""
    before = np.cumsum(sizes) - sizes  # bytes of the chain before each request
    return before - before[np.flatnonzero(~seq)][run]


def _chain_offsets(
    spec: SyntheticSpec, rng: np.random.Generator, sizes: np.ndarray, seq_fraction: float
) -> np.ndarray:
    """Offsets for one request type's chain, without temporal locality."""
    if len(sizes) == 0:
        return np.zeros(0, dtype=np.int64)
    seq = _seq_mask(rng, len(sizes), seq_fraction)
    run, run_bytes = _runs(spec, sizes, seq)
    head = _head_offsets(spec, rng, run_bytes)
    _nudge_clashes(spec, head, run_bytes)
    return head[run] + _bytes_into_run(sizes, seq, run)


def _reuse_distances(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    below: np.ndarray,
    overlap: bool = False,
    scratch: np.ndarray | None = None,
) -> np.ndarray:
    """A reuse distance (requests, >= 1) for each run head at the trace positions ``below``,
    from the spec's log-linear inverse CDF (``overlap``: the overlap distances' table, where
    the spec has one), drawn below the head's position: its level a uniform draw (in
    ``scratch`` when given, see :func:`_uniform`) times the table's level at that position.
    A trace measures only the reuses that fall inside it, so the reuses of a head at
    position p are distributed as the table cut at p; the table's reach past a trace's start
    (a fit's detruncated tail) says how far back heads look when the trace is longer. A draw
    past the start would leave the head without a source, and the heads that would take its
    place run out where the shares are high (early in a trace, most draws reach past it)."""
    levels, quantiles = spec.reuse_distance_levels, spec.reuse_distance_quantiles
    if overlap and spec.overlap_distance_levels:
        levels, quantiles = spec.overlap_distance_levels, spec.overlap_distance_quantiles
    from skftl.traces.reuse_kernel import interp_into, round_at_least_one  # Numba: locality on

    levels = np.asarray(levels or (0.0, 1.0), dtype=np.float64)
    log_q = np.log(quantiles or (1.0, 1000.0))
    d = _uniform(rng, len(below), scratch)
    d *= np.interp(np.log(np.maximum(below, 1)), log_q, levels)
    interp_into(d, levels, log_q)  # np.interp's values
    np.exp(d, out=d)
    return round_at_least_one(d)


def _new_share_by_slice(q: float, weights: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """Per time slice, the share of a type's run heads that take a new address:
    min(1, q * c * weight), with c set (bisection) so that the share over all the type's
    heads (``heads`` per slice) stays q. So the weights move new addresses in time without
    changing how many there are."""
    if q <= 0 or q >= 1 or heads.sum() == 0:
        return np.full(len(weights), q)
    lo, hi = 0.0, 1.0 / (q * max(weights[heads > 0].min(), 1e-12))
    for _ in range(60):
        c = 0.5 * (lo + hi)
        if np.dot(heads, np.minimum(1.0, q * c * weights)) < q * heads.sum():
            lo = c
        else:
            hi = c
    return np.minimum(1.0, q * 0.5 * (lo + hi) * weights)


_NO_FACTOR = np.zeros(0)  # every run head's length weight 1


def _single_run_factor(
    spec: SyntheticSpec, heads: np.ndarray, is_write: np.ndarray, length: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The factor on each run head's reuse probability (``heads``: trace positions, their
    runs ``length`` requests long) that makes the share of single runs among the reusing
    heads ``spec.reuse_single_run_shares`` (per type, keeping the type's reuse share), and,
    among the heads of longer runs, the mean length of those that reuse
    ``spec.copy_run_requests`` (a weight length ** -b, b by bisection; none where that mean
    is not below theirs). As (the length weights, per head; per type, whether the single-run
    share applies, the factor of its single runs, and the factor on its other heads' weights),
    which :func:`~skftl.traces.reuse_kernel.choose_reuse` combines; the weights empty where
    all are 1."""
    from skftl.traces.reuse_kernel import head_counts, heads_of  # Numba: locality on

    factor = _NO_FACTOR
    target = spec.copy_run_requests
    if target is not None:
        for t in (False, True):
            multi = heads_of(heads, is_write, length, t, 2)  # heads whose run goes on
            if not len(multi):
                continue
            values, count = np.unique(length[multi], return_counts=True)
            ln = np.log(values.astype(np.float64))

            def mean_length(b: float, ln: np.ndarray = ln, count: np.ndarray = count) -> float:
                weight = count * np.exp(-b * (ln - ln.max()))
                return float(np.dot(weight, np.exp(ln)) / weight.sum())

            if mean_length(0.0) > target:
                lo, hi = 0.0, 8.0
                for _ in range(40):  # the weighted mean falls as b rises
                    mid = 0.5 * (lo + hi)
                    lo, hi = (mid, hi) if mean_length(mid) > target else (lo, mid)
                weight = np.exp(-0.5 * (lo + hi) * (np.log(length[multi]) - ln.max()))
                if factor is _NO_FACTOR:
                    factor = np.ones(len(heads))
                factor[multi] = weight / weight.mean()
    scaled = np.zeros(2, dtype=np.bool_)
    single_factor, other_factor = np.ones(2), np.ones(2)
    shares = spec.reuse_single_run_shares
    if not shares:
        return factor, scaled, single_factor, other_factor
    totals, singles = head_counts(heads, is_write, length)
    for t in (0, 1):
        total, n_single, x = int(totals[t]), int(singles[t]), shares[t]
        if 0 < n_single < total:
            scaled[t] = True
            single_factor[t], other_factor[t] = _single_run_weights(x, n_single, total)
    return factor, scaled, single_factor, other_factor


def _single_run_weights(
    share: float | np.ndarray, singles: int | np.ndarray, heads: int | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The factors on a chance, for the heads of runs of one and for the others, that make
    ``share`` of the heads it picks runs of one and keep its mean, where ``singles`` of the
    ``heads`` are (scalars or per-slice arrays; 1 and 1 where none or all are)."""
    mixed = (singles > 0) & (singles < heads)
    one = np.where(mixed, share * heads / np.where(mixed, singles, 1), 1.0)
    more = np.where(mixed, (1.0 - share) * heads / np.where(mixed, heads - singles, 1), 1.0)
    return one, more


def _reuse_choice(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    pos: np.ndarray,
    is_write: np.ndarray,
    single: np.ndarray,
    n: int,
    distance: np.ndarray,
    length: np.ndarray,
    scratch: np.ndarray | None = None,
) -> np.ndarray:
    """Per run head (trace position ``pos``): 0 new address, 1 reuse of a read's start, 2 of
    a write's (the draws in ``scratch``, see :func:`_uniform`). Each type's shares are the
    spec's on average over the trace; ``new_address_weights`` shift the new addresses
    between time slices. A head reuses only when its drawn ``distance`` reaches back into
    the trace (distance <= position); the heads that reach have their probability divided by
    the share that reach (per type and slice, at most 1), so the shares hold whatever the
    distances, and the distances reused are the table's below the position (as in a real
    trace, whose early requests reuse less: :func:`skftl.traces.fitting.detruncated_levels`)."""
    from skftl.traces.reuse_kernel import choose_reuse, reuse_cells  # Numba: locality on

    w = np.asarray(spec.new_address_weights or (1.0,), dtype=np.float64)
    shares = np.array(  # [type, source]: read then write
        [
            [spec.reread_fraction, spec.read_after_write_fraction],
            [spec.write_after_read_fraction, spec.rewrite_fraction],
        ]
    )
    reuse = shares.sum(axis=1)
    starts = slice_starts(max(n, 1), len(w), spec.phase_edges)
    heads, reach = reuse_cells(pos, is_write, distance, starts)
    # per [type, slice]: the scale turning the shares into this slice's reuse probabilities
    scale = np.zeros((2, len(w)))
    for i in (0, 1):
        if reuse[i] > 0:
            p_new = _new_share_by_slice(
                1.0 - reuse[i], w, heads.reshape(2, len(w))[i].astype(np.float64)
            )
            scale[i] = (1.0 - p_new) / reuse[i]
    first = shares[:, :1] * scale
    reached = reach.astype(np.float64) / np.maximum(heads, 1)
    factor, scaled, single_factor, other_factor = _single_run_factor(spec, pos, is_write, length)
    return choose_reuse(
        _uniform(rng, len(pos), scratch),
        pos,
        is_write,
        single,
        distance,
        starts,
        reached,
        factor,
        scaled,
        single_factor,
        other_factor,
        first,
        first + shares[:, 1:] * scale,
    )


_SOURCE_STEPS = 32


def _sources(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    pos: np.ndarray,
    choice: np.ndarray,
    is_write: np.ndarray,
    sizes: np.ndarray,
    distance: np.ndarray,
    seq: np.ndarray,
    single: np.ndarray,
    run_head: np.ndarray,
    work: np.ndarray,
    scratch: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(heads that copy, as indices into ``pos``; the trace position each copies; whether it
    takes its source's size; ``work``: int64 work space of one element per request,
    ``scratch`` memory for the draws, see :func:`_uniform`). The
    source is the latest request of the chosen type at or
    before its ``distance`` that no earlier head copies: each request is copied at most once
    (a head steps back to the type's previous request, up to _SOURCE_STEPS times, else takes
    a new address). So a copy's source is the latest earlier use of that address, and the
    distance drawn is, up to those steps, the distance a profile measures. Every head copies
    a request of its own power-of-two size class (the candidate nearest the drawn distance:
    a class may be sparse), and a share ``copy_size_share`` of them then take its size: in
    block traces what is reused is a block range of its own size (small metadata rewritten,
    a file read again whole), so a copy touches pages its source touched, and the requests
    reused are the sizes that are reused, not a sample of all. A head that goes on in a
    sequential run either goes over an earlier run (``copy_run_old_shares``: it copies the
    head of a run that went on too, a file read or written again from where it began) or
    appends to one (it copies the last request of a run at a new address and goes on past
    its end, the last block of a file rewritten and more written after it); see
    :func:`~skftl.traces.reuse_kernel.claim_sources`."""
    from skftl.traces.reuse_kernel import claim_sources  # Numba: locality on

    want = np.flatnonzero(choice > 0)
    sized = _uniform(rng, len(want), scratch) < spec.copy_size_share
    old = 1.0  # per the copy's type
    if spec.copy_run_old_shares:
        old = np.asarray(spec.copy_run_old_shares)[is_write[pos[want]].astype(np.int64)]
    over = _uniform(rng, len(want), scratch) < old
    n = len(is_write)
    source = np.empty(len(want), dtype=np.int64)
    claim_sources(
        want, pos, choice, distance, is_write, sizes, seq, single, run_head, over, _SOURCE_STEPS,
        np.empty(n, dtype=np.int16), np.empty(n, dtype=np.uint8), work, source,
    )  # fmt: skip
    ok = source >= 0
    return want[ok], source[ok], sized[ok]


def _located_offsets(
    spec: SyntheticSpec, rng: np.random.Generator, is_write: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, offsets) with temporal locality: each run head either takes a new address
    or the start of an earlier request of the chosen type, a drawn distance back (and its
    size from the reuse size distribution, when the spec has one). The draws are numpy's;
    what follows from them runs in passes over the trace (Numba kernels, O(n)), and the
    offsets resolve in one pass in trace order, since a copy's source always precedes it.
    The arrays of one element per request are few and reused where one is done with (a
    10 M-request trace spends more on fresh memory than on arithmetic)."""
    from skftl.traces.reuse_kernel import (  # Numba: locality on
        clip_copies,
        continuation_room,
        copy_sizes,
        copy_spill,
        heads_at_new_address,
        mark_heads,
        new_runs,
        resolve_offsets_into,
        run_bytes_into,
        run_marks,
        run_structure,
        size_groups,
    )

    n = len(is_write)
    seq = np.zeros(n, dtype=np.bool_)
    for w, fraction, factors in (
        (False, spec.seq_read_fraction, spec.phase_seq_read_factors),
        (True, spec.seq_write_fraction, spec.phase_seq_write_factors),
    ):
        idx = np.flatnonzero(is_write == w)
        for part, share in _seq_slices(idx, n, fraction, factors, spec.phase_edges):
            if spec.single_run_share is None:
                seq[part] = _seq_mask(rng, len(part), share)
            else:
                run_marks(_run_mask(rng, len(part), share, spec.single_run_share), part, seq)
        del idx
    pos = np.flatnonzero(~seq)  # run heads in trace order
    # trace positions and counts that only kernels read are stored in 4 bytes where they fit
    index = np.int32 if n < 2**31 else np.int64
    run_head = np.empty(n, dtype=index)
    single = np.empty(n, dtype=np.bool_)
    length = np.empty(len(pos), dtype=index)  # requests per run
    run_structure(is_write, seq, run_head, single, length)
    # the bytes of each run and of each run before a request come later: their memory holds
    # the draws until then (the distances until the sources are found)
    run_bytes = np.empty(n, dtype=np.int64)
    into = np.empty(n, dtype=np.int64)
    distance = _reuse_distances(spec, rng, pos, scratch=run_bytes)
    choice = _reuse_choice(spec, rng, pos, is_write, single, n, distance, length, into)
    del length
    # bit 1: a reusing head; bit 2: an overlapping one; bit 4: reusing the other type's address
    marks = np.zeros(n, dtype=np.uint8)
    mark_heads(pos, choice, is_write, marks)
    for w, fraction in ((False, spec.overlap_read_fraction), (True, spec.overlap_write_fraction)):
        if fraction > 0:  # run heads at a new address
            heads = heads_at_new_address(pos, choice, is_write, w)
            chance = _overlap_chances(spec, w, fraction, heads, single[heads], n)
            marks[heads[rng.random(len(heads)) < chance]] |= 2
    work = np.empty(n, dtype=np.int64)  # the requests of each size distribution, then more
    start = size_groups(
        is_write,
        seq,
        marks,
        np.array([spec.reuse_read_sizes is not None, spec.reuse_write_sizes is not None]),
        np.array([spec.follow_read_sizes is not None, spec.follow_write_sizes is not None]),
        spec.overlap_read_sizes is not None,
        np.array(
            [spec.reuse_read_of_write_sizes is not None, spec.reuse_write_of_read_sizes is not None]
        ),
        work,
    )
    group = [work[start[k] : start[k + 1]] for k in range(len(start) - 1)]  # per label
    sizes = np.empty(n, dtype=np.int64)
    for t, dist, again, other, follow, phases, follow_phases in (
        (
            0,
            spec.read_sizes,
            spec.reuse_read_sizes,
            spec.reuse_read_of_write_sizes,
            spec.follow_read_sizes,
            spec.phase_read_size_factors,
            spec.phase_follow_read_size_factors,
        ),
        (
            1,
            spec.write_sizes,
            spec.reuse_write_sizes,
            spec.reuse_write_of_read_sizes,
            spec.follow_write_sizes,
            spec.phase_write_size_factors,
            spec.phase_follow_write_size_factors,
        ),
    ):
        if t == 0 and spec.overlap_read_sizes is not None:
            _draw_into(spec.overlap_read_sizes, rng, sizes, group[3], into)
        parts = [(4 * t, dist, phases)]
        if follow is not None:
            parts.append((4 * t + 1, follow, follow_phases))
        for label, part_dist, part_phases in parts:
            if part_phases:
                _phase_sizes(
                    part_phases, spec.phase_edges, part_dist, rng, group[label], n, sizes, into
                )
            else:
                _draw_into(part_dist, rng, sizes, group[label], into)
        if again is not None:
            _draw_into(again, rng, sizes, group[4 * t + 2], into)
        if other is not None:
            _draw_into(other, rng, sizes, group[8 + t], into)
    del group
    copier, src, same = _sources(
        spec, rng, pos, choice, is_write, sizes, distance, seq, single, run_head, work, into
    )
    del distance, single, choice
    if same.any():  # in trace order: a copy of a copy takes the first one's size
        copy_sizes(sizes, pos[copier[same]], src[same])
    _check_runs(spec, run_bytes_into(is_write, seq, sizes, run_head, run_bytes, into))
    # a reuse stays inside what its source's run touched (in block traces a request that
    # starts where an earlier one did and is larger covers the pages that run went on to
    # touch, not new ones): its size at most the bytes from the source to its run's end
    copies = pos[copier]
    if clip_copies(copies, src, sizes, run_bytes, run_head, into):
        _check_runs(spec, run_bytes_into(is_write, seq, sizes, run_head, run_bytes, _NONE))
    # per request its source; per copy the bytes of its run past its source's run (where the
    # size groups and the sources' search were)
    source = np.empty(n, dtype=index)
    spill = work
    copy_spill(copies, src, run_bytes, run_head, into, source, spill)
    del copies, src, copier, same
    share = np.zeros(n, dtype=index)
    overlapping = np.flatnonzero((marks & 2).astype(np.bool_) & (source < 0))
    del marks
    offsets = np.empty(n, dtype=np.int64)  # work space, then the drawn offsets, then all
    new = np.empty(len(pos), dtype=np.bool_)
    if len(overlapping):
        new_runs(pos, source, share, False, new)
        _overlaps(spec, rng, overlapping, pos[new], is_write, sizes, run_bytes, source, share,
                  into, offsets)  # fmt: skip
    del overlapping
    new_runs(pos, source, share, True, new)  # an overlap may fall back to new space
    roots = pos[new]
    del pos, new
    if spec.fresh_new_addresses:
        own, room = np.empty(len(roots), dtype=np.int64), np.empty(len(roots), dtype=np.int64)
        continuation_room(
            roots, source, share, run_head, run_bytes, spill, OVERLAP_PAGE, into, offsets, own,
            room,
        )  # fmt: skip
        del spill, run_head
        offsets.fill(0)
        _fresh_offsets(spec, rng, roots, own, room, offsets, into, work)
        del own, room
    else:
        del spill, run_head
        offsets.fill(0)
        offsets[roots] = _head_offsets(spec, rng, run_bytes[roots])
    del roots, into, work
    resolve_offsets_into(
        is_write,
        seq,
        sizes,
        source,
        offsets,
        run_bytes,
        spec.footprint_bytes,
        spec.alignment_bytes,
        share,
        OVERLAP_PAGE,
        offsets,
    )
    return sizes, offsets


OVERLAP_PAGE = 4096  # the page an overlapping head shares with its source (a logical page)


def _check_runs(spec: SyntheticSpec, longest: int) -> None:
    """A run (``longest``: the bytes of the longest) that does not fit the footprint cannot
    be laid out: ConfigError."""
    if longest > spec.footprint_bytes - spec.alignment_bytes:
        raise ConfigError(
            f"{spec.name}: a sequential run of {int(longest)} B does not fit the "
            f"footprint of {spec.footprint_bytes} B; enlarge footprint_bytes"
        )


def _overlaps(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    heads: np.ndarray,
    runs: np.ndarray,
    is_write: np.ndarray,
    sizes: np.ndarray,
    run_bytes: np.ndarray,
    source: np.ndarray,
    share: np.ndarray,
    work: np.ndarray,
    work2: np.ndarray,
) -> None:
    """Sources of the overlapping ``heads`` (``work``, ``work2``: int64 work space of one
    element per run or more; in place: ``source``, one of the ``runs`` at a
    new address, of the drawn type; ``share``, the pages the
    head's run shares with the end of that run, from ``overlap_page_counts``, else uniform up
    to the head's pages; at most the run's pages less one). The run is the one nearest the
    drawn distance back (the overlap distances' table) among those about as long as the
    pages shared: a head starts that many pages before the run's end and its run goes on
    past it (see
    :func:`skftl.traces.reuse_kernel.resolve_offsets`), as a file read again from part way
    or extended later is, or a request at 512 B alignment that starts in the page the one
    before it ended in. Where no run of the type lies before, a head keeps its new address."""
    from skftl.traces.reuse_kernel import (  # Numba: locality on
        found_overlaps,
        keep_overlaps,
        lift_shared_pages,
        overlap_sources,
        packed_keys,
        pick_into,
    )

    m = len(heads)
    written = np.asarray(spec.overlap_written_shares or (1.0, 1.0), dtype=np.float64)
    u = rng.random(m)  # a write's run continued where below the head's type's written share
    distance = _reuse_distances(spec, rng, heads, overlap=True)
    if spec.overlap_page_counts:
        p = np.cumsum(spec.overlap_page_probs)
        counts = np.asarray(spec.overlap_page_counts, dtype=np.int64)
        drawn = rng.random(m)
        pages = drawn.view(np.int64)  # each draw's count in its place
        pick_into(p / p[-1], drawn, counts, pages, _NONE)
    else:
        most = np.maximum(-(-sizes[heads] // OVERLAP_PAGE), 1)
        pages = 1 + (rng.random(m) * most).astype(np.int64)
    if spec.overlap_run_old_shares:
        # a head whose run goes over its source shares all its run's pages with it (a
        # source of that many pages and one more is then sought)
        old = np.asarray(spec.overlap_run_old_shares)[is_write[heads].astype(np.int64)]
        over = (rng.random(m) < old) & (run_bytes[heads] > sizes[heads])
        pages[over] = np.maximum(pages[over], -(-run_bytes[heads[over]] // OVERLAP_PAGE))
    # a run about as long as the pages shared and one more (the same power-of-two class),
    # else (none of that class free before the head) any run of the type; one head of each
    # type per run (overlap_sources)
    src = np.empty(m, dtype=np.int64)
    overlap_sources(runs, run_bytes, is_write, pages, u, written, distance, heads, OVERLAP_PAGE,
                    work[: len(runs)], work2[: len(runs)], np.zeros(len(is_write), np.uint8),
                    _SOURCE_STEPS, src)  # fmt: skip
    # the heads that found one (to the front); as many pages as the run can share from
    # another page (``most``, where the draws ``u`` were)
    most = u.view(np.int64)
    k, top = found_overlaps(heads, src, pages, run_bytes, OVERLAP_PAGE, most)
    heads, src, pages, most = heads[:k], src[:k], pages[:k], most[:k]
    # heads continuing one run share different numbers of its pages: within a run, the
    # numbers in order, each at least one more than the one before (sorted by run, pages and
    # head: packed into one key where they fit, where the distances were)
    top += 2
    if k and (len(is_write) * top + top) * k < 2**62:
        order = distance[:k]
        packed_keys(src, pages, top, order)
        order.sort()
        order %= k
    else:
        order = np.argsort(src * top + pages, kind="stable")
    lift_shared_pages(src, pages, order)
    kept = np.asarray(spec.overlap_clash_shares or (0.0, 0.0), dtype=np.float64)
    # a head that shares more than its run can from another start page keeps its overlap
    # where its draw is below its type's clash share
    keep_overlaps(heads, src, pages, most, rng.random(k, out=work[:k].view(np.float64)),
                  is_write, kept, source, share)  # fmt: skip


def _overlap_chances(
    spec: SyntheticSpec,
    write: bool,
    fraction: float,
    heads: np.ndarray,
    single: np.ndarray,
    n: int,
) -> float | np.ndarray:
    """Per run head at a new address of the type ``write`` (``heads``: trace positions in a
    trace of ``n``; ``single``: its run is of one request), the chance that it overlaps: the
    type's ``fraction`` times its time slice's overlap factor, times the factor that makes
    the slice's overlapping heads runs of one at the spec's share (times its slice factor;
    the heads of the slice keep their mean chance). ``fraction`` itself where the spec sets
    neither."""
    t = int(write)
    chance: float | np.ndarray = fraction
    factors = (spec.phase_overlap_read_factors, spec.phase_overlap_write_factors)[t]
    if factors:
        chance = (
            fraction
            * np.asarray(factors)[
                time_slice(heads, slice_starts(n, len(factors), spec.phase_edges))
            ]
        )
    if not spec.overlap_single_run_shares:
        return chance
    single_factors = (
        spec.phase_overlap_single_read_factors,
        spec.phase_overlap_single_write_factors,
    )[t] or (1.0,)
    k = len(single_factors)
    slice_of = time_slice(heads, slice_starts(n, k, spec.phase_edges))
    share = np.clip(spec.overlap_single_run_shares[t] * np.asarray(single_factors), 0.0, 1.0)
    one, more = _single_run_weights(
        share, np.bincount(slice_of[single], minlength=k), np.bincount(slice_of, minlength=k)
    )
    return chance * np.where(single, one[slice_of], more[slice_of])


def _phase_sizes(
    factors: tuple,
    edges: tuple,
    dist: SizeDist,
    rng: np.random.Generator,
    idx: np.ndarray,
    n: int,
    out: np.ndarray,
    scratch: np.ndarray | None = None,
) -> None:
    """Sizes of the requests ``idx`` (ascending trace positions of n): in the k-th of the
    time slices (at ``edges``), from ``dist`` tilted to its mean times ``factors[k]`` (kept inside
    the sizes' range), in place into ``out``. The factors are first scaled so that their
    mean over these requests is 1: the phases move sizes in time, ``dist`` keeps the mean
    (however many of the requests fall in each slice)."""
    lo, hi, mean = min(dist.sizes), max(dist.sizes), dist.mean_bytes
    bounds = np.searchsorted(idx, slice_starts(n, len(factors), edges))
    count = np.diff(bounds)
    weighted = float(np.dot(count, factors))
    if weighted > 0:
        factors = np.asarray(factors) * count.sum() / weighted
    for k, f in enumerate(factors):
        target = float(np.clip(f * mean, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo)))
        d = dist.tilted_to_mean(target) if lo < hi and abs(target - mean) > 1e-9 * mean else dist
        _draw_into(d, rng, out, idx[bounds[k] : bounds[k + 1]], scratch)


def _phase_writes(spec: SyntheticSpec, rng: np.random.Generator, n: int, writes: int):
    """Write mask of n drawn requests with ``writes`` writes, spread over the time slices
    as ``spec.phase_read_fractions`` say (largest remainders; exact in total)."""
    k = len(spec.phase_read_fractions)
    # without edges the read share's slices start at i * n // k, rounded down where the
    # others round up: the pinned preset draws were made so
    if spec.phase_edges:
        starts = slice_starts(n, k, spec.phase_edges)
    else:
        starts = np.arange(k + 1) * n // k
    length = np.diff(starts)
    count = _apportion(writes, (1.0 - np.asarray(spec.phase_read_fractions)) * length, length)
    return np.concatenate(
        [_exact_mask(rng, int(m), int(c)) for m, c in zip(length, count, strict=True)]
    )


def _apportion(total: int, weights: np.ndarray, room: np.ndarray) -> np.ndarray:
    """``total`` split over slices in proportion to ``weights`` (where they are all 0, to
    ``room``), by largest remainders, a slice getting at most its ``room``: exactly
    ``total`` in all (the room must hold it)."""
    if total <= 0:
        return np.zeros(len(room), dtype=np.int64)
    want = weights * total / weights.sum() if weights.sum() > 0 else room * total / room.sum()
    count = np.minimum(np.floor(want).astype(np.int64), room)
    for j in np.argsort(-(want - count), kind="stable"):  # the remainder, one each
        if count.sum() >= total:
            break
        if count[j] < room[j]:
            count[j] += 1
    while count.sum() < total:  # slices full at their share: fill where there is room
        j = int(np.argmax(room - count))
        count[j] += min(total - count.sum(), room[j] - count[j])
    return count


def table_quantiles(
    u: np.ndarray, levels: tuple, quantiles: tuple, out: np.ndarray | None = None
) -> np.ndarray:
    """The inverse CDF given by knots (``levels``, ``quantiles``) at ``u`` (ascending):
    log-linear between two positive knots, linear in a segment that starts at 0 (into
    ``out``, which may be ``u`` itself)."""
    lv, q = np.asarray(levels, dtype=np.float64), np.asarray(quantiles, dtype=np.float64)
    bounds = np.concatenate([[0], np.searchsorted(u, lv[1:-1], side="left"), [len(u)]])
    out = np.empty(len(u), dtype=np.float64) if out is None else out
    for k in range(len(lv) - 1):  # one slice of u per segment: no per-value search
        a, b = bounds[k], bounds[k + 1]
        t = (u[a:b] - lv[k]) / (lv[k + 1] - lv[k])
        if q[k] > 0:
            np.exp(np.log(q[k]) + t * np.log(q[k + 1] / q[k]), out=out[a:b])
        else:
            np.multiply(t, q[k + 1], out=out[a:b])
    return out


def stratified_gaps(levels: tuple, quantiles: tuple, n: int, u: np.ndarray | None = None):
    """n gaps (mean 1) from a gap table: its values at the levels (i + 1/2) / n, in the
    order of ``u`` (a permutation of range(n); None: ascending)."""
    gaps = table_quantiles((np.arange(n, dtype=np.float64) + 0.5) / n, levels, quantiles)
    mean = gaps.mean() if n else 0.0
    if mean > 0:
        gaps /= mean
    return gaps if u is None else gaps[u]


def _arrivals(spec: SyntheticSpec, rng: np.random.Generator, n: int) -> np.ndarray:
    mean_gap = 1e9 / spec.iops
    b = spec.burst_fraction
    if spec.gap_levels:  # n - 1 gaps after the first request, at time 0
        from skftl.traces.reuse_kernel import arrival_times  # Numba: locality on

        # stratified_gaps(levels, quantiles, m, order), scaled to the mean gap and summed
        # in one pass
        m = max(n - 1, 0)
        order = rng.permutation(m)
        gaps = np.arange(m, dtype=np.float64)  # the stratified levels (i + 1/2) / m
        gaps += 0.5
        gaps /= m
        table_quantiles(gaps, spec.gap_levels, spec.gap_quantiles, out=gaps)
        out = np.empty(n, dtype=np.int64)
        arrival_times(gaps, float(gaps.mean()) if m else 0.0, order, mean_gap, out)
        return out
    gaps = rng.standard_exponential(n)
    if b > 0:
        base = (mean_gap - b * spec.burst_gap_ns) / (1 - b)
        gaps *= np.where(rng.random(n) < b, spec.burst_gap_ns, base)
    else:
        gaps *= mean_gap
    gaps[:1] = 0.0  # times are relative to the first request
    np.cumsum(gaps, out=gaps)
    return gaps.astype(np.int64)


def _located_requests(
    spec: SyntheticSpec, rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(is_write, sizes, offsets) with temporal locality: ``n - k`` requests drawn by
    :func:`_located_offsets`, then k = round(repeat_fraction * n) exact repeats, each
    right after a request picked uniformly (with replacement), in each time slice as many
    as ``phase_repeat_read_factors`` / ``phase_repeat_write_factors`` say."""
    k = round(spec.repeat_fraction * n)
    base = n - k
    if spec.repeat_write_share is None:
        is_write = _draw_writes(spec, rng, base, round((1.0 - spec.read_fraction) * base))
        sizes, offsets = _located_offsets(spec, rng, is_write)
        if k == 0 or base == 0:
            return is_write, sizes, offsets
        k_w = None
    else:  # the drawn requests carry the writes the repeats do not, so read % stays exact
        k_w = round(spec.repeat_write_share * k)
        writes = int(np.clip(round((1.0 - spec.read_fraction) * n) - k_w, 0, base))
        is_write = _draw_writes(spec, rng, base, writes)
        sizes, offsets = _located_offsets(spec, rng, is_write)
        if k == 0 or base == 0:
            return is_write, sizes, offsets
    if k_w is None:
        originals = rng.integers(0, base, k)
    else:
        originals = _sliced_originals(spec, rng, is_write, sizes, k, k_w)
    copies = 1 + np.bincount(originals, minlength=base)
    return tuple(np.repeat(a, copies) for a in (is_write, sizes, offsets))


def _draw_writes(spec: SyntheticSpec, rng: np.random.Generator, n: int, writes: int):
    """Which of n drawn requests are writes: exactly ``writes``, in phases if the spec has."""
    if spec.phase_read_fractions and n > 0:
        return _phase_writes(spec, rng, n, writes)
    return _exact_mask(rng, n, writes)


def _sliced_originals(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    is_write: np.ndarray,
    sizes: np.ndarray,
    k: int,
    k_w: int,
) -> np.ndarray:
    """The originals of k repeats, k_w of them writes, as :func:`_repeat_originals` picks
    them, but in each time slice of the drawn requests as many of each type as its length
    times its ``phase_repeat_read_factors`` (``phase_repeat_write_factors``) say (largest
    remainders; without them the trace is one slice). A slice without requests of a type
    gets none of that type's repeats unless no slice has any (then, as
    :func:`_repeat_originals` does, any request)."""
    read_factors = spec.phase_repeat_read_factors or (1.0,)
    starts = slice_starts(len(sizes), len(read_factors), spec.phase_edges)
    length = np.diff(starts).astype(np.float64)
    counts = []
    for total, factors, typed in (
        (k - k_w, read_factors, ~is_write),
        (k_w, spec.phase_repeat_write_factors or (1.0,), is_write),
    ):
        has = np.diff(np.r_[0, np.cumsum(typed)][starts]) > 0
        room = np.where(has, total, 0) if has.any() else np.where(length > 0, total, 0)
        counts.append(_apportion(total, np.asarray(factors) * length * (room > 0), room))
    out = []
    for j in np.flatnonzero(counts[0] + counts[1]):
        lo, hi = starts[j], starts[j + 1]
        picked = _repeat_originals(
            spec, rng, is_write[lo:hi], sizes[lo:hi], int(counts[0][j] + counts[1][j]),
            int(counts[1][j]),
        )  # fmt: skip
        out.append(lo + picked)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _repeat_originals(
    spec: SyntheticSpec,
    rng: np.random.Generator,
    is_write: np.ndarray,
    sizes: np.ndarray,
    k: int,
    k_w: int,
) -> np.ndarray:
    """The request each of k repeats (k_w of them writes) repeats: one of its type with a
    size drawn from the type's repeat sizes, picked uniformly among those; where no request
    has that size, the next larger one of the type (the largest when none is larger);
    where the type has none, any request."""
    rep_w = _exact_mask(rng, k, k_w)
    want = np.zeros(k, dtype=np.int64)
    for w, dist in ((False, spec.repeat_read_sizes), (True, spec.repeat_write_sizes)):
        if dist is not None:
            _draw_into(dist, rng, want, np.flatnonzero(rep_w == w))
    span = int(sizes.max()) + 1 if len(sizes) else 1
    rep = rep_w.astype(np.int64)
    x = np.minimum(want, span - 1)  # the size looked for, in bytes
    # (type, size) as one sortable key; sizes in sectors where they all are whole sectors
    unit = SECTOR if not len(sizes) or not np.any(sizes % SECTOR) else 1
    width = (span - 1) // unit + 1  # key values per type
    if (not len(sizes) or sizes.min() >= 0) and 2 * width <= DENSE_KEYS:
        from skftl.traces.reuse_kernel import dense_order  # Numba: locality on

        # the stable order by counting, and per key value the keys below it: where the
        # searches of the sorted keys would land (the sizes below x, at most x, of the type)
        order = np.empty(len(sizes), dtype=np.int64)
        below = dense_order(is_write, sizes, unit, width, order)
        lo = below[rep * width + -(-x // unit)]
        hi = below[rep * width + x // unit + 1]
        type_lo, type_hi = below[rep * width], below[(rep + 1) * width]
    else:
        key = is_write.astype(np.int64) * span + sizes
        order = np.argsort(key, kind="stable")
        keys = key[order]
        lo = np.searchsorted(keys, rep * span + x, side="left")
        hi = np.searchsorted(keys, rep * span + x, side="right")
        type_lo = np.searchsorted(keys, rep * span, side="left")
        type_hi = np.searchsorted(keys, (rep + 1) * span, side="left")
        del key, keys
    any_size = want == 0
    lo, hi = np.where(any_size, type_lo, lo), np.where(any_size, type_hi, hi)
    u = rng.random(k)
    pick = lo + (u * (hi - lo)).astype(np.int64)  # exact (type, size) matches
    none = hi <= lo
    pick = np.where(none, np.minimum(lo, type_hi - 1), pick)  # next larger of the type
    empty = type_hi <= type_lo
    pick = np.where(empty, (u * len(sizes)).astype(np.int64), pick)
    return order[np.clip(pick, 0, len(sizes) - 1)]


DENSE_KEYS = 1 << 25  # (type, size) keys counted in a table up to this many values


def generate(spec: SyntheticSpec | str, n_requests: int | None = None, seed: int = 0) -> Requests:
    """Draw a trace from ``spec`` (or the preset of that name). Same (spec, n,
    seed) -> identical arrays; ``meta.synthetic`` is True and ``meta.label`` says so."""
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ConfigError(f"no synthetic preset {spec!r}; known: {', '.join(PRESETS)}")
        spec = PRESETS[spec]
    n = spec.n_requests if n_requests is None else int(n_requests)
    if n < 0:
        raise ConfigError(f"n_requests must be >= 0, got {n}")
    rng = _rng(spec, seed)
    if spec.located:
        is_write, sizes, offsets = _located_requests(spec, rng, n)
    else:
        is_write = _exact_mask(rng, n, round((1.0 - spec.read_fraction) * n))
        sizes = np.empty(n, dtype=np.int64)
        offsets = np.empty(
            n, dtype=np.int64
        )  # the draw order every preset's traces were made with (kept bit-identical)
        for mask, dist, seq_fraction in (
            (~is_write, spec.read_sizes, spec.seq_read_fraction),
            (is_write, spec.write_sizes, spec.seq_write_fraction),
        ):
            s = dist.sample(rng, int(np.count_nonzero(mask)))
            sizes[mask] = s
            offsets[mask] = _chain_offsets(spec, rng, s, seq_fraction)
    meta = TraceMeta(
        name=spec.name,
        format="synthetic",
        source=spec.source,
        lines=n,
        synthetic=True,
        extra={"seed": int(seed), "n_requests": n, "spec": dataclasses.asdict(spec)},
    )
    return Requests(_arrivals(spec, rng, n), offsets, sizes, is_write, meta)


# ----------------------------------------------------------------------------- presets
# Sizes are written in 512 B sectors. "Table III" = LPMT paper (../shared/papers/
# lpmt_dram-address-mapping.md), Table III. "Measured" = skftl.traces.stats on the
# shared real excerpts (../shared/traces, see MANIFEST.tsv), rounded as printed.


def _kb(x: float) -> float:
    return x * KB


BASIS_FIELDS = (
    "read_sizes",
    "write_sizes",
    "mean_size",
    "read_fraction",
    "seq_read_fraction",
    "seq_write_fraction",
    "footprint_bytes",
    "alignment_bytes",
    "skew",  # hot_access_fraction, hot_space_fraction, zipf_exponent, zipf_extent_bytes
    "iops",
    "bursts",  # burst_fraction, burst_gap_ns
)


def _basis(published: tuple[str, ...] = (), measured: tuple[str, ...] = ()) -> dict[str, str]:
    """Every parameter of BASIS_FIELDS: published, measured, else assumed."""
    out = dict.fromkeys(BASIS_FIELDS, "assumed")
    out.update(dict.fromkeys(measured, "measured"))
    out.update(dict.fromkeys(published, "published"))
    return out


_TABLE3_CELLS = ("mean_size", "read_fraction", "seq_read_fraction", "seq_write_fraction")


def _overall(
    read_dist: SizeDist, write_dist: SizeDist, read_fraction: float, mean_kb: float
) -> tuple[SizeDist, SizeDist]:
    """Tilt the read distribution so the all-request mean is ``mean_kb`` while the
    write distribution keeps its own mean (used where only writes are few)."""
    w_mean = write_dist.mean_bytes
    r_target = (_kb(mean_kb) - (1 - read_fraction) * w_mean) / read_fraction
    return read_dist.tilted_to_mean(r_target), write_dist


# WebSearch: request-size shape of the reads in wsrch-small (a 60 s prefix of a UMass
# WebSearch trace; measured: 8 KB 60.08 %, 32 KB 19.81 %, 16 KB 12.24 %, 24 KB 7.76 %,
# 0.5 KB 0.10 %, one 1.1 MB outlier dropped), tilted to each trace's Table III mean;
# its 4 writes are all 8 KB. Uniform addresses (the excerpt shows no page re-use).
# Footprint: measured highest LBA of ASUs 0-2 in the excerpt (~35.0 M sectors each,
# so 3 x 16.7 GiB = 50 GiB). 412.6 IOPS measured (gap CV 1.33: near Poisson).
_WS_READ = SizeDist.discrete({16: 0.6008, 64: 0.1981, 32: 0.1224, 48: 0.0776, 1: 0.0010})
_WS_WRITE = SizeDist.discrete({16: 1.0})

# Financial (UMass OLTP): Table III gives only the mean size, read % and sequential %.
# Size shape ASSUMED (OLTP: many 0.5-4 KB requests, few large), the same for reads and
# writes, tilted to the Table III mean. Footprint: the LPMT paper says financial1
# "includes 700,873 files" and sizes its table for it; we read "files" as distinct
# 4 KiB logical pages (assumption) -> 700,873 x 4 KiB; Financial2 assumed half of it
# (the paper says Financial1 is the largest). Skew 80 % of accesses to 20 % of the
# space: assumption. Rates: the commonly reported request counts (Financial1
# 5,334,987, Financial2 3,699,194) over ~12 h -> ~122 and ~90 IOPS (assumption).
_FIN_SHAPE = SizeDist.discrete(
    {1: 0.35, 2: 0.10, 4: 0.10, 6: 0.05, 8: 0.30, 16: 0.05, 32: 0.03, 64: 0.015, 128: 0.005}
)
_FIN1_FOOTPRINT = 700_873 * 4096

# MSR Cambridge web_0: measured on msr_cambridge/web_1.csv.gz (100,000 records of
# the web_0 volume): 61.55 % reads, mean read 33.82 KB, mean write 9.35 KB, 9.85 %
# sequential reads, 4.53 % sequential writes, 7.24 IOPS with bursts (CV of gaps 6.5,
# 50 % of gaps < 1 ms), offsets 512 B aligned (1.5 % 4 KiB aligned), highest byte
# 33.9 GiB, 512,972 distinct 4 KiB pages touched (2.0 GiB). Size shapes: the 12
# commonest sizes per type (88.5 % of reads, 98.2 % of writes), tilted back to the
# measured means.
_WEB0_READ = SizeDist.discrete(
    {
        128: 0.3403,
        8: 0.2651,
        32: 0.0833,
        64: 0.0387,
        96: 0.0258,
        16: 0.0226,
        88: 0.0220,
        80: 0.0195,
        56: 0.0183,
        48: 0.0173,
        72: 0.0163,
        24: 0.0160,
    }
)
_WEB0_WRITE = SizeDist.discrete(
    {
        8: 0.5605,
        16: 0.1353,
        1: 0.0816,
        32: 0.0638,
        128: 0.0518,
        6: 0.0289,
        64: 0.0212,
        56: 0.0134,
        17: 0.0112,
        24: 0.0066,
        3: 0.0055,
        4: 0.0026,
    }
)
_WEB0_ALL = SizeDist.discrete(  # web_0 excerpt, all requests (10 commonest sizes)
    {
        8: 0.3787,
        128: 0.2294,
        32: 0.0758,
        16: 0.0659,
        1: 0.0352,
        64: 0.0320,
        56: 0.0164,
        96: 0.0161,
        88: 0.0138,
        24: 0.0124,
    }
)
_WEB0_COMMON = dict(
    footprint_bytes=34 * GiB,
    alignment_bytes=SECTOR,
    zipf_exponent=0.8,
    zipf_extent_bytes=1 << 20,
    iops=7.24,
    burst_fraction=0.5,
    burst_gap_ns=200_000.0,
)

# Mobile (Nexus 5, BNVM paper traces A-F). The BNVM paper (Sec. IV-B) only says:
# A = music + Twitter, write-intensive; B = write commands from multiple copy
# operations; C, D, E = reads and writes from OS installation, Facebook, Google Maps;
# F = reads and writes from several web-browser activities; for trace C its static
# mapping issued 67,595 parallel clean + 38,714 parallel dirty writes on 4 chips. No
# request counts, read shares or sizes are given: every number below is an
# ASSUMPTION in the spirit of those descriptions. 4 KiB alignment and a 4 KiB-heavy
# size mix are supported by the Pixel 6a excerpts (100 % 4 KiB aligned; 4 KiB is
# 31-62 % of requests), a different device. Footprint 12 GiB (user partition of a
# 16 GB Nexus 5, assumption).
_MOBILE_MIX = SizeDist.discrete(
    {8: 0.55, 16: 0.12, 32: 0.08, 64: 0.07, 128: 0.06, 256: 0.06, 512: 0.03, 1024: 0.03}
)
_COPY_WRITES = SizeDist.discrete({8: 0.05, 256: 0.10, 1024: 0.85})
_MOBILE_COMMON = dict(
    footprint_bytes=12 * GiB,
    alignment_bytes=4096,
    hot_access_fraction=0.7,
    hot_space_fraction=0.05,
    iops=50.0,
    burst_fraction=0.6,
    burst_gap_ns=100_000.0,
    source="BNVM paper (Nexus 5 traces A-F, SNIA IOTTA), Sec. IV-B; numbers assumed",
    basis=_basis(),
)


def _spc(
    name: str,
    mean_kb: float,
    read_pct: float,
    seq_r: float,
    seq_w: float,
    read: SizeDist,
    write: SizeDist,
    **kw: object,
) -> SyntheticSpec:
    rf = read_pct / 100
    r, w = _overall(read, write, rf, mean_kb)
    return SyntheticSpec(
        name=name,
        read_sizes=r,
        write_sizes=w,
        read_fraction=rf,
        seq_read_fraction=seq_r / 100,
        seq_write_fraction=seq_w / 100,
        targets={
            "mean_size_kb": mean_kb,
            "read_pct": read_pct,
            "seq_read_pct": seq_r,
            "seq_write_pct": seq_w,
        },
        **kw,
    )


def _fin(
    name: str,
    mean_kb: float,
    read_pct: float,
    seq_r: float,
    seq_w: float,
    footprint: int,
    iops: float,
) -> SyntheticSpec:
    shape = _FIN_SHAPE.tilted_to_mean(_kb(mean_kb))
    return _spc(
        name,
        mean_kb,
        read_pct,
        seq_r,
        seq_w,
        shape,
        shape,
        footprint_bytes=footprint,
        alignment_bytes=SECTOR,
        hot_access_fraction=0.8,
        hot_space_fraction=0.2,
        iops=iops,
        source="LPMT paper Table III (size, read %, sequential %); rest assumed",
        notes="UMass SPC Financial (OLTP); see the Financial comment in synthetic.py",
        basis=_basis(published=_TABLE3_CELLS),
    )


def _ws(
    name: str, mean_kb: float, read_pct: float, alignment: int, notes: str, aligned: bool
) -> SyntheticSpec:
    return _spc(
        name,
        mean_kb,
        read_pct,
        0.0,
        0.0,
        _WS_READ,
        _WS_WRITE,
        footprint_bytes=50 * GiB,
        alignment_bytes=alignment,
        iops=412.6,
        source="LPMT paper Table III (size, read %, sequential %); size shape, "
        "footprint and rate measured on wsrch-small",
        notes=notes,
        basis=_basis(
            published=(*_TABLE3_CELLS, *(("alignment_bytes",) if aligned else ())),
            measured=("read_sizes", "write_sizes", "footprint_bytes", "skew", "iops"),
        ),
    )


def _mobile(
    name: str,
    what: str,
    read_fraction: float,
    seq_r: float,
    seq_w: float,
    write_sizes: SizeDist = _MOBILE_MIX,
) -> SyntheticSpec:
    return SyntheticSpec(
        name=name,
        read_sizes=_MOBILE_MIX,
        write_sizes=write_sizes,
        read_fraction=read_fraction,
        seq_read_fraction=seq_r,
        seq_write_fraction=seq_w,
        notes=what,
        **_MOBILE_COMMON,
    )


PRESETS: dict[str, SyntheticSpec] = {
    "Financial1": _fin("Financial1", 3.38, 23.16, 1.61, 0.01, _FIN1_FOOTPRINT, 122.0),
    "Financial2": _fin("Financial2", 2.39, 82.35, 0.94, 0.22, _FIN1_FOOTPRINT // 2, 90.0),
    # WebSearch1: the paper does not say its addresses are multiples of 4 sectors
    # (it says so of 2 and 3) -> 512 B alignment (assumption).
    "WebSearch1": _ws(
        "WebSearch1",
        15.15,
        99.98,
        SECTOR,
        "alignment 512 B (assumption: the paper names only WS2/3 as 4-sector)",
        aligned=False,
    ),
    # WebSearch2/3: "the addresses in the two workloads are all multiples of four"
    # (LPMT paper, Sec. 3) -> 4 sectors = 2 KiB alignment. (wsrch-small, 15.06 KB
    # mean, is probably WebSearch2; all its LBAs are even multiples of 8 sectors.)
    "WebSearch2": _ws(
        "WebSearch2", 15.07, 99.98, 4 * SECTOR, "alignment 4 sectors (paper)", aligned=True
    ),
    "WebSearch3": _ws(
        "WebSearch3", 15.41, 99.97, 4 * SECTOR, "alignment 4 sectors (paper)", aligned=True
    ),
    # Table III "MSR" row: the volume is not named. Shape of web_0's all-request sizes
    # tilted to 29.812 KB for both types; web_0's footprint, skew and arrivals (assumption).
    "MSR": _spc(
        "MSR",
        29.812,
        34.0,
        0.0,
        0.0,
        _WEB0_ALL.tilted_to_mean(_kb(29.812)),
        _WEB0_ALL.tilted_to_mean(_kb(29.812)),
        source="LPMT paper Table III row 'MSR' (size, read %, sequential %); "
        "shape and timing from the web_0 excerpt (assumption)",
        notes="the MSR volume behind Table III is not named in the paper",
        basis=_basis(published=_TABLE3_CELLS),
        **_WEB0_COMMON,
    ),
    "msr_web": SyntheticSpec(
        name="msr_web",
        read_sizes=_WEB0_READ.tilted_to_mean(_kb(33.82)),
        write_sizes=_WEB0_WRITE.tilted_to_mean(_kb(9.35)),
        read_fraction=0.6155,
        seq_read_fraction=0.0985,
        seq_write_fraction=0.0453,
        source="measured on msr_cambridge/web_1.csv.gz (web_0 volume, 100k records)",
        notes="skew: Zipf(0.8) over 1 MiB extents, chosen to match the excerpt's page "
        "re-use: 100k requests touch 535k distinct 4 KiB pages (excerpt 513k) and the "
        "hottest 1/5/10/20 % of touched pages take 11/21/29/39 % of page accesses "
        "(excerpt 14/23/30/42 %). Bursts give a gap CV of ~1.7 (excerpt 6.5).",
        targets={
            "mean_read_size_kb": 33.82,
            "mean_write_size_kb": 9.35,
            "read_pct": 61.55,
            "seq_read_pct": 9.85,
            "seq_write_pct": 4.53,
        },
        # the Zipf skew is fitted to the excerpt's page re-use (measured); the bursts are not
        basis=_basis(measured=tuple(f for f in BASIS_FIELDS if f != "bursts")),
        **_WEB0_COMMON,
    ),
    # MSR media server (mds_0/mds_1). ASSUMPTION: no characterisation of mds_0 is
    # available offline. Write-dominated (88 % writes), mean read ~24 KB, mean write
    # ~7 KB and ~2 IOPS (about 1.2 M requests in the 7-day trace) are recollections of
    # secondary literature, not verified here; sequential shares, skew and footprint
    # are guesses; skew as fitted to web_0. Replace with measured values once msr_mds_0
    # is fetched.
    "msr_media": SyntheticSpec(
        name="msr_media",
        read_sizes=_WEB0_READ.tilted_to_mean(_kb(24.0)),
        write_sizes=_WEB0_WRITE.tilted_to_mean(_kb(7.2)),
        read_fraction=0.12,
        seq_read_fraction=0.10,
        seq_write_fraction=0.05,
        footprint_bytes=34 * GiB,
        alignment_bytes=SECTOR,
        zipf_exponent=0.8,
        zipf_extent_bytes=1 << 20,
        iops=2.0,
        burst_fraction=0.5,
        burst_gap_ns=200_000.0,
        source="assumption (mds_0 figures recalled, unverified); shapes from web_0 excerpt",
        basis=_basis(),
    ),
    "nexus5_A": _mobile("nexus5_A", "music + Twitter, write-intensive (paper)", 0.15, 0.3, 0.3),
    "nexus5_B": _mobile(
        "nexus5_B",
        "multiple copy operations, writes (paper)",
        0.0,
        0.0,
        0.9,
        write_sizes=_COPY_WRITES,
    ),
    "nexus5_C": _mobile("nexus5_C", "OS installation, reads and writes (paper)", 0.5, 0.6, 0.5),
    "nexus5_D": _mobile("nexus5_D", "Facebook app, reads and writes (paper)", 0.4, 0.2, 0.2),
    "nexus5_E": _mobile("nexus5_E", "Google Maps, reads and writes (paper)", 0.45, 0.3, 0.2),
    "nexus5_F": _mobile("nexus5_F", "web browsing, reads and writes (paper)", 0.35, 0.2, 0.2),
    # SK-FTL paper: "a self-collected trace that collected one-month I/O behavior of a
    # personal computer"; nothing else is published. Every number is an ASSUMPTION
    # (desktop: write-leaning, 4 KiB aligned, mixed sizes, moderate sequentiality).
    "pc_desktop": SyntheticSpec(
        name="pc_desktop",
        read_sizes=SizeDist.discrete(
            {8: 0.5, 16: 0.1, 32: 0.08, 64: 0.07, 128: 0.1, 256: 0.1, 512: 0.05}
        ),
        write_sizes=SizeDist.discrete({8: 0.6, 16: 0.1, 32: 0.08, 64: 0.07, 128: 0.1, 256: 0.05}),
        read_fraction=0.4,
        seq_read_fraction=0.3,
        seq_write_fraction=0.2,
        footprint_bytes=256 * GiB,
        alignment_bytes=4096,
        hot_access_fraction=0.8,
        hot_space_fraction=0.1,
        iops=20.0,
        burst_fraction=0.6,
        burst_gap_ns=100_000.0,
        source="SK-FTL paper (self-collected one-month PC trace, unpublished); all assumed",
        basis=_basis(),
    ),
}
