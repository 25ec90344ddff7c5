"""Python side of the page-mapped FTL: configuration, state set-up, chunked replay of a
trace through the Numba kernel, and results as an ``xarray.Dataset``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from skftl.errors import ConfigError
from skftl.nand import core
from skftl.nand.geometry import Geometry
from skftl.nand.policy import Policy, kernels, load
from skftl.nand.presets import resolve_nand
from skftl.nand.timing import Timing
from skftl.traces.pages import expand_to_pages
from skftl.traces.requests import Requests

if TYPE_CHECKING:
    import xarray as xr

GC_POLICIES = {"greedy": core.GC_GREEDY, "cost_benefit": core.GC_COST_BENEFIT}
CHIP_ALLOCS = {"static": core.CHIP_STATIC, "dynamic": core.CHIP_DYNAMIC}
LATENCY_QUANTILES = (0.5, 0.9, 0.99, 0.999)
# counters that are state, not events, and make no sense as a difference
_STATE_COUNTERS = ("clock", "log_entries", "error", "prefetch_sink", "flash_log_entries")

# on_log(lpn, old_ppn, new_ppn, kind): views of the drained mapping-update log; with
# ``log_ops=True`` a fifth array follows: the index of the host page op (in the replayed
# page-op arrays) each entry belongs to (GC copies: the write that triggered the burst)
LogSink = Callable[..., None]
# on_flash(chip, kind, page, time_ns, origin): views of the drained flash-operation log;
# kind core.FLASH_READ / FLASH_PROGRAM / FLASH_ERASE, page the index in its block (-1 for an
# erase), time_ns the issue time (the host operation's arrival; GC operations carry that of
# the write that triggered them), origin core.ORIGIN_HOST / ORIGIN_GC / ORIGIN_MIGRATE (the
# program of a policy's migration); in issue order
FlashSink = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


@dataclass(frozen=True)
class FtlConfig:
    spare_factor: float = 0.07  # (physical - logical) / physical pages
    gc_policy: str = "greedy"  # greedy | cost_benefit
    gc_low_blocks: int = 2  # per chip: GC starts below this many free blocks
    gc_high_blocks: int = 3  # per chip: ... and stops at this many
    chip_alloc: str = "static"  # static (LPN striping) | dynamic (least-busy chip)
    n_streams: int = 1  # write points per chip
    # allocation policy: a built-in name (skftl.nand.policy.BUILTIN), a module name or a
    # path to a .py file of hooks (skftl.nand.hooks)
    policy: str = "page"
    n_free_lists: int = 1  # free-block classes per chip (policy-defined)

    def __post_init__(self) -> None:
        if not 0.0 < self.spare_factor < 1.0:
            raise ConfigError(f"ftl: spare_factor must be in (0, 1), got {self.spare_factor}")
        for name, table in (("gc_policy", GC_POLICIES), ("chip_alloc", CHIP_ALLOCS)):
            if getattr(self, name) not in table:
                raise ConfigError(
                    f"ftl: {name} must be one of {sorted(table)}, got {getattr(self, name)!r}"
                )
        if not 1 <= self.n_streams <= 127:
            raise ConfigError(f"ftl: n_streams must be in 1..127, got {self.n_streams}")
        # a GC pass may open one block per stream before it erases its victim
        if self.gc_low_blocks < self.n_streams + 1:
            raise ConfigError(
                f"ftl: gc_low_blocks ({self.gc_low_blocks}) must be at least n_streams + 1 "
                f"({self.n_streams + 1}) so that GC always has a free block to copy into"
            )
        if self.gc_high_blocks < self.gc_low_blocks:
            raise ConfigError("ftl: gc_high_blocks must be >= gc_low_blocks")

    @classmethod
    def from_config(cls, section: dict) -> FtlConfig:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in (section or {}).items() if k in known})


@dataclass
class RunResult:
    """One replay: per-request latency and the counters it added."""

    latency_ns: np.ndarray  # int64 per request: last page's completion - arrival
    is_write: np.ndarray  # bool per request
    counters: dict[str, int]
    span_ns: int  # first arrival to last completion
    label: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def waf(self) -> float:
        """Flash programs (host + GC) per host page write (a write cache absorbs some)."""
        w = self.counters["host_writes"]
        return self.counters["flash_programs"] / w if w else float("nan")


class Ftl:
    """A page-mapped SSD: ``Ftl(geometry, timing, config)``; ``replay(requests)``."""

    def __init__(
        self,
        geometry: Geometry,
        timing: Timing,
        config: FtlConfig | None = None,
        *,
        log_capacity: int = 0,
        pstate: np.ndarray | None = None,
        flash_log_capacity: int = 0,
        policy: str | Path | ModuleType | Policy | None = None,
    ) -> None:
        self.geometry = g = geometry
        self.timing = timing
        self.config = c = config or FtlConfig()
        # the policy: ``policy`` when given (a name, module, path or loaded Policy), else
        # the config's; the replay kernel is the one built for it alone
        self.policy = pol = load(c.policy if policy is None else policy)
        self._kernels = kernels(pol)
        self.n_lpn = int(g.n_pages * (1.0 - c.spare_factor))
        # multi-plane write points (conventional block choice): one open block per plane
        plane_wps = timing.multi_plane and pol.plane_write_points
        open_blocks = c.n_streams * (g.planes_per_chip if plane_wps else 1)
        plane_low, plane_high = timing.plane_gc_blocks(g.blocks_per_plane)
        # blocks a chip can never fill with user data: the free reserve and the open blocks
        kept_free = max(c.gc_high_blocks, g.planes_per_chip * plane_high)
        reserve = g.n_chips * (kept_free + open_blocks) * g.pages_per_block
        if self.n_lpn > g.n_pages - reserve or self.n_lpn <= 0:
            raise ConfigError(
                f"ftl: spare_factor {c.spare_factor} leaves {g.n_pages - self.n_lpn} spare pages, "
                f"fewer than the GC reserve of {reserve} "
                "(gc_high_blocks, or planes x the per-plane high watermark, + open blocks per "
                "chip)"
            )
        # free FIFOs per chip: what the config asks and what the policy's free_list_of needs
        n_free_lists = max(c.n_free_lists, pol.min_free_lists(g))
        dies = timing.dies_per_chip if timing.die_model == "shared_chip" else 0
        if dies and g.chips_per_channel % dies:
            raise ConfigError(
                f"nand: dies_per_chip {dies} must divide chips_per_channel "
                f"{g.chips_per_channel} (the dies of a chip share its channel)"
            )
        cache_pages = timing.cache_pages(g.page_size)
        if timing.write_cache_mib > 0 and cache_pages == 0:
            raise ConfigError(
                f"nand: write_cache.capacity_mib {timing.write_cache_mib} holds no whole "
                f"page of {g.page_size} B"
            )
        S = core.allocate(
            self.n_lpn,
            g.n_chips,
            g.channels,
            g.blocks_per_chip,
            g.pages_per_block,
            c.n_streams,
            max(n_free_lists, g.planes_per_chip if plane_wps else 1),
            log_capacity,
            1 if pstate is None else len(pstate),
            flash_log_capacity,
            g.n_chips // dies if dies else 0,
            cache_pages,
            planes=g.planes_per_chip,
            multi_plane=timing.multi_plane,
        )
        if pstate is not None:
            S.pstate[:] = pstate
        p = S.prm
        p[core.P_NP] = g.pages_per_block
        p[core.P_NCHIPS] = g.n_chips
        p[core.P_NCHAN] = g.channels
        p[core.P_BPC] = g.blocks_per_chip
        p[core.P_NSTREAMS] = c.n_streams
        p[core.P_NLISTS] = len(S.free_head) // g.n_chips
        p[core.P_GC_LOW] = c.gc_low_blocks
        p[core.P_GC_HIGH] = c.gc_high_blocks
        p[core.P_GC_POLICY] = GC_POLICIES[c.gc_policy]
        p[core.P_CHIP_ALLOC] = CHIP_ALLOCS[c.chip_alloc]
        p[core.P_COPYBACK] = int(timing.copyback)
        p[core.P_XFER] = timing.transfer_ns(g.page_size)
        p[core.P_ERASE] = timing.t_erase_ns
        p[core.P_LOG_CAP] = log_capacity
        if 0 < log_capacity <= self._kernels.log_reserve(S):
            raise ConfigError(
                f"ftl: log_capacity {log_capacity} must exceed the largest GC burst, "
                f"{self._kernels.log_reserve(S)} entries (1 + blocks per chip x pages per block)"
            )
        if 0 < flash_log_capacity <= self._kernels.flash_log_reserve(S):
            raise ConfigError(
                f"ftl: flash_log_capacity {flash_log_capacity} must be 0 (off) or exceed the "
                f"largest GC burst, {self._kernels.flash_log_reserve(S)} operations "
                "(1 + blocks per chip x (2 x pages per block + 1))"
            )
        p[core.P_FLOG_CAP] = flash_log_capacity
        p[core.P_NLPN] = self.n_lpn
        p[core.P_DIES] = dies
        p[core.P_UNMAPPED] = int(timing.unmapped_read == "array_read")
        p[core.P_WC_CAP] = cache_pages
        p[core.P_WC_POLICY] = core.WC_FIFO if timing.write_cache_policy == "fifo" else core.WC_LRU
        p[core.P_PLANES] = g.planes_per_chip
        p[core.P_BPP] = g.blocks_per_plane
        p[core.P_MULTI_PLANE] = int(timing.multi_plane)
        p[core.P_PLANE_GC_LOW] = plane_low
        p[core.P_PLANE_GC_HIGH] = plane_high
        for key, value in (
            (core.P_NP_SHIFT, g.pages_per_block),
            (core.P_BPC_SHIFT, g.blocks_per_chip),
            (core.P_NCHAN_SHIFT, g.channels),
            (core.P_NCHIPS_SHIFT, g.n_chips),
        ):
            p[key] = value.bit_length() - 1 if (value & (value - 1)) == 0 else -1
        S.read_ns[:], S.prog_ns[:] = timing.page_tables(g.pages_per_block)
        if pstate is None:
            self.state = S  # what the policy's init_state may read: geometry, n_lpn, config
            own = pol.init_state(self)
            if own is not None:
                S = S._replace(pstate=own)
        self._kernels.init_free_lists(S)
        self.state = S

    @classmethod
    def from_config(cls, nand: dict, ftl: dict, **kwargs) -> Ftl:
        """From a ``nand`` section (presets allowed) and an ``ftl`` section."""
        nand = resolve_nand(nand)
        return cls(
            Geometry.from_config(nand),
            Timing.from_config(nand),
            FtlConfig.from_config(ftl),
            **kwargs,
        )

    # --- state helpers ------------------------------------------------------------------
    def counters(self) -> dict[str, int]:
        c = {n: int(v) for n, v in zip(core.COUNTER_NAMES, self.state.ctr, strict=True)}
        # every host read that misses the write cache and is mapped (or, with array reads of
        # unmapped pages, every one) and every GC copy reads one page; the clock counts
        # programs
        c["flash_reads"] = c["host_reads"] - c["cache_read_hits"] + c["gc_copies"]
        if self.timing.unmapped_read != "array_read":
            c["flash_reads"] -= c["unmapped_reads"]
        c["flash_programs"] = c["clock"]
        return c

    def reset_timelines(self) -> None:
        """Make every chip and channel idle at t = 0 (e.g. after preconditioning)."""
        self.state.chip_free[:] = 0
        self.state.chan_res[:] = core.NO_TIME
        self.state.chan_head[:] = 0
        self.state.pkg_free[:] = 0
        self.state.pkg_start[:] = core.NO_TIME
        self.state.pkg_kind[:] = -1
        self.state.pkg_mask[:] = 0
        self.state.die_start[:] = core.NO_TIME
        self.state.die_kind[:] = -1
        self.state.die_page[:] = -1
        self.state.die_mask[:] = 0

    def _timelines(self) -> list[np.ndarray]:
        S = self.state
        return [S.chip_free, S.chan_res, S.chan_head, S.pkg_free, S.pkg_start, S.pkg_kind,
                S.pkg_mask, S.die_start, S.die_kind, S.die_page, S.die_mask]  # fmt: skip

    def fill(self, seed: int | None = None) -> None:
        """Precondition: write every logical page once to flash (in order, or in a seeded
        random order; past any write cache), then reset the timelines. Counters keep
        counting."""
        lpn = np.arange(self.n_lpn, dtype=np.int32)
        if seed is not None:
            np.random.default_rng(seed).shuffle(lpn)
        with self._bypass(core.P_WC_CAP):
            self.run_pages(lpn, np.full(len(lpn), core.OP_WRITE, np.int8))
        self.reset_timelines()

    @contextmanager
    def _bypass(self, *keys: int):
        """Switch the kernel features at ``prm[keys]`` off (a capacity of 0) meanwhile."""
        p = self.state.prm
        saved = [int(p[k]) for k in keys]
        p[list(keys)] = 0
        try:
            yield
        finally:
            p[list(keys)] = saved

    def premap(self, lpn: np.ndarray, op: np.ndarray) -> int:
        """``unmapped_read: premapped`` (SSDsim): write the pages that ``op`` reads before
        anything writes them and that are unmapped (and not cached) to flash first, without
        time (the timelines are restored), logs or write cache; they count as ``premapped``,
        not host writes (their programs and any GC they cause count as such). Returns their
        number."""
        if not len(lpn):
            return 0
        lpn = np.asarray(lpn)
        first = np.unique(lpn, return_index=True)[1]
        S = self.state
        todo = lpn[first[np.asarray(op)[first] == core.OP_READ]].astype(np.int32)
        todo = todo[S.l2p[todo] < 0]
        if S.prm[core.P_WC_CAP]:
            todo = todo[S.wc_slot[todo] < 0]
        if not len(todo):
            return 0
        saved = [a.copy() for a in self._timelines()]
        writes = int(S.ctr[core.C_HOST_WRITES])
        with self._bypass(core.P_WC_CAP, core.P_LOG_CAP, core.P_FLOG_CAP):
            self.run_pages(np.sort(todo), np.full(len(todo), core.OP_WRITE, np.int8))
        for a, b in zip(self._timelines(), saved, strict=True):
            a[:] = b
        S.ctr[core.C_HOST_WRITES] = writes
        S.ctr[core.C_PREMAPPED] += len(todo)
        return len(todo)

    # --- replay ---------------------------------------------------------------------------
    def run_pages(
        self,
        lpn: np.ndarray,
        op: np.ndarray,
        *,
        stream: np.ndarray | None = None,
        request: np.ndarray | None = None,
        time_ns: np.ndarray | None = None,
        n_requests: int | None = None,
        on_log: LogSink | None = None,
        log_ops: bool = False,
        on_flash: FlashSink | None = None,
        chunk: int = 1 << 22,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Replay page operations (``op``: 0 read, 1 write, 2 trim); returns each request's
        completion time (ns). Without ``request``, every page op is its own request; without
        ``time_ns`` all arrive at t = 0."""
        n = len(lpn)
        lpn = np.ascontiguousarray(lpn, dtype=np.int32)
        op = np.ascontiguousarray(op, dtype=np.int8)
        if n and (lpn.min() < 0 or lpn.max() >= self.n_lpn):
            bad = int(lpn.max()) if lpn.max() >= self.n_lpn else int(lpn.min())
            raise ConfigError(f"ftl: logical page {bad} outside the device's 0..{self.n_lpn - 1}")
        stream = np.zeros(n, np.int8) if stream is None else np.ascontiguousarray(stream, np.int8)
        if n and (stream.min() < 0 or stream.max() >= self.config.n_streams):
            raise ConfigError(f"ftl: stream ids must be in 0..{self.config.n_streams - 1}")
        if request is None:
            request = np.arange(n, dtype=np.int64)
            n_requests = n
        request = np.ascontiguousarray(request, dtype=np.int64)
        n_requests = int(request.max()) + 1 if n_requests is None else n_requests
        time_ns = (
            np.zeros(n, np.int64) if time_ns is None else np.ascontiguousarray(time_ns, np.int64)
        )
        done = np.full(n_requests, np.iinfo(np.int64).min, np.int64)
        S = self.state
        i = 0
        while i < n:
            j = self._kernels.replay(
                S, lpn, op, stream, request, time_ns, done, i, min(n, i + chunk)
            )
            if S.ctr[core.C_ERROR]:
                raise ConfigError(self._error_message(int(S.ctr[core.C_ERROR]), j))
            if S.prm[core.P_LOG_CAP]:
                self.drain_log(on_log, log_ops)
            if S.prm[core.P_FLOG_CAP]:
                self.drain_flash_log(on_flash)
            if progress is not None:
                progress(j - i)
            i = j
        return done

    def drain_log(self, on_log: LogSink | None, log_ops: bool = False) -> None:
        S = self.state
        k = int(S.ctr[core.C_LOG_N])
        if on_log is not None and k:
            ops = (S.log_op[:k],) if log_ops else ()
            on_log(S.log_lpn[:k], S.log_old[:k], S.log_new[:k], S.log_kind[:k], *ops)
        S.ctr[core.C_LOG_N] = 0

    def drain_flash_log(self, on_flash: FlashSink | None) -> None:
        S = self.state
        k = int(S.ctr[core.C_FLOG_N])
        if k > len(S.flog_chip):  # a GC burst beyond the reserve (kernel bug)
            raise RuntimeError(f"ftl: flash-operation log overflow ({k} > {len(S.flog_chip)})")
        if on_flash is not None and k:
            on_flash(S.flog_chip[:k], S.flog_kind[:k], S.flog_page[:k], S.flog_time[:k],
                     S.flog_origin[:k])  # fmt: skip
        S.ctr[core.C_FLOG_N] = 0

    def _error_message(self, code: int, at: int) -> str:
        what = {
            core.ERR_DEVICE_FULL: "a chip has no free block and nothing to reclaim",
            core.ERR_NO_FREE_BLOCK: "an allocation found no free block",
            core.ERR_LOG_FULL: "the mapping-update log overflowed in one GC burst "
            "(raise log_capacity)",
        }.get(code, f"error {code}")
        return (
            f"ftl: {what} at page operation {at}; raise spare_factor or the GC watermarks "
            f"(dynamic chip allocation can overfill one chip)"
        )

    def replay(
        self,
        requests: Requests,
        *,
        stream: np.ndarray | None = None,
        wrap: bool = False,
        on_log: LogSink | None = None,
        log_ops: bool = False,
        on_flash: FlashSink | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> RunResult:
        """Replay block requests (``stream``: optional stream id per request). Addresses past
        the logical capacity raise, or fold modulo the capacity when ``wrap`` is True."""
        ops = expand_to_pages(requests, self.geometry.page_size)
        lpn = ops.lpn
        if wrap:
            lpn = lpn % self.n_lpn
        elif len(lpn) and lpn.max() >= self.n_lpn:
            k = int(np.argmax(lpn >= self.n_lpn))
            raise ConfigError(
                f"trace {requests.meta.name!r}: request {int(ops.request[k])} reaches logical page "
                f"{int(lpn[k])}, beyond the device's {self.n_lpn} pages (use wrap=True to fold)"
            )
        arrival = requests.monotonic_time_ns()
        op = ops.is_write.astype(np.int8)
        # premapped pages are written before the replay: outside its counters but reported
        premapped = self.premap(lpn, op) if self.timing.unmapped_read == "premapped" else 0
        before = self.counters()
        done = self.run_pages(
            lpn,
            op,
            stream=None if stream is None else np.asarray(stream)[ops.request],
            request=ops.request,
            time_ns=arrival[ops.request],
            n_requests=len(requests),
            on_log=on_log,
            log_ops=log_ops,
            on_flash=on_flash,
            progress=progress,
        )
        after = self.counters()
        after["premapped"] += premapped
        latency = done - arrival
        span = int(done.max() - arrival.min()) if len(done) else 0
        return RunResult(
            latency_ns=latency,
            is_write=requests.is_write.copy(),
            counters={k: after[k] - before[k] for k in after if k not in _STATE_COUNTERS},
            span_ns=span,
            label=requests.meta.label,
        )


def result_dataset(result: RunResult, ftl: Ftl) -> xr.Dataset:
    """Counters, latency mean/percentiles per direction, throughput and the erase-count
    distribution of one replay, with units."""
    import xarray as xr  # here, not at the top: the replay path does without it

    c = result.counters
    data: dict[str, tuple] = {}

    def scalar(name: str, value: float, units: str, long_name: str) -> None:
        data[name] = ((), value, {"units": units, "long_name": long_name})

    for key, long_name in (
        ("host_reads", "host page reads"),
        ("host_writes", "host page writes"),
        ("trims", "trimmed pages"),
        ("unmapped_reads", "host reads of unmapped pages"),
        ("gc_copies", "pages copied by garbage collection"),
        ("erases", "block erases"),
        ("flash_reads", "flash page reads (host + GC)"),
        ("flash_programs", "flash page programs (host + GC)"),
    ):
        scalar(key, c[key], "pages" if key != "erases" else "blocks", long_name)
    scalar("waf", result.waf, "1", "write amplification (host writes + GC copies) / host writes")
    lat_us = result.latency_ns / 1e3
    q = np.array(LATENCY_QUANTILES)
    for direction, mask in (("read", ~result.is_write), ("write", result.is_write)):
        x = lat_us[mask]
        scalar(
            f"{direction}_latency_mean",
            float(x.mean()) if len(x) else np.nan,
            "us",
            f"mean {direction} request response time",
        )
        data[f"{direction}_latency_quantile"] = (
            ("quantile",),
            np.quantile(x, q) if len(x) else np.full(len(q), np.nan),
            {"units": "us", "long_name": f"{direction} request response time quantile"},
        )
        scalar(f"{direction}_requests", int(mask.sum()), "requests", f"{direction} requests")
    span_s = result.span_ns / 1e9
    n_req = len(result.latency_ns)
    scalar(
        "throughput_requests",
        n_req / span_s if span_s > 0 else np.nan,
        "requests/s",
        "requests completed per simulated second",
    )
    moved = (c["host_reads"] - c["unmapped_reads"] + c["host_writes"]) * ftl.geometry.page_size
    scalar(
        "throughput_bytes",
        moved / span_s / 1e6 if span_s > 0 else np.nan,
        "MB/s",
        "host data moved per simulated second",
    )
    ec = ftl.state.erase_count
    hist = np.bincount(ec)
    data["erase_count_blocks"] = (
        ("erase_count",),
        hist,
        {"units": "blocks", "long_name": "blocks with this erase count (device lifetime)"},
    )
    return xr.Dataset(
        {k: xr.Variable(dims, np.asarray(v), attrs) for k, (dims, v, attrs) in data.items()},
        coords={
            "quantile": ("quantile", q, {"units": "1", "long_name": "latency quantile"}),
            "erase_count": (
                "erase_count",
                np.arange(len(hist)),
                {"units": "erases", "long_name": "erase count"},
            ),
        },
        attrs={"label": result.label},
    )


def log_reserve(geo: Geometry) -> int:
    """Entries a mapping-update log must exceed on ``geo`` (the largest GC burst)."""
    return int(core.log_reserve_for(geo.blocks_per_chip, geo.pages_per_block))


def flash_log_reserve(geo: Geometry) -> int:
    """Entries a flash-operation log must exceed on ``geo`` (the largest GC burst)."""
    return int(core.flash_log_reserve_for(geo.blocks_per_chip, geo.pages_per_block))
