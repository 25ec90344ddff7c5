"""``skftl replay``: one trace through one device, as a researcher times a simulator.

Loads a trace (registered name or path, through the columnar cache), builds the FTL from a
device preset, optionally preconditions it, replays the trace and prints (or writes as JSON)
the request latencies and flash counters. It is the whole-process path the benchmarks time
against other simulators, so it imports only numpy, Numba and the trace loader: no xarray,
pandas or matplotlib (``tests/test_startup.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skftl.traces.requests import Requests

PRECONDITIONS = ("none", "fill", "fill-random")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "replay", help="replay one trace through one device preset; latencies and counters"
    )
    p.add_argument("trace", metavar="NAME_OR_PATH")
    p.add_argument("--format", dest="fmt", default=None, help="trace format (default: detect)")
    p.add_argument("--preset", default="mqsim", help="device preset (skftl.nand.presets)")
    p.add_argument("--spare-factor", type=float, default=0.07, help="over-provisioning")
    p.add_argument(
        "--capacity-gib", type=float, default=None, help="device capacity (default: the preset's)"
    )
    p.add_argument(
        "--wrap", action="store_true", help="fold addresses beyond the device's logical pages"
    )
    p.add_argument(
        "--precondition",
        choices=PRECONDITIONS,
        default="none",
        help="none: fresh device; fill: every logical page written once in order; "
        "fill-random: fill, then every logical page overwritten once in a seeded random "
        "order (an aged device in GC steady state)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the fill-random order")
    p.add_argument(
        "--policy",
        default="page",
        help="allocation policy: page | sk-ftl | ppb | ppb_split | ppb_sk, a module name or "
        "a .py file of hooks (skftl/nand/hooks.py; notebooks/20_your_own_policy.ipynb)",
    )
    p.add_argument(
        "--streams", type=int, default=1, help="write points per chip the policy may use"
    )
    p.add_argument("--json", dest="json_out", default=None, help="write the summary here")
    p.set_defaults(func=_cmd_replay)


def replay_summary(
    trace: str | Path | Requests,
    *,
    fmt: str | None = None,
    preset: str = "mqsim",
    spare_factor: float = 0.07,
    precondition: str = "none",
    seed: int = 1,
    cache_dir: str | Path | None = None,
    policy: str = "page",
    streams: int = 1,
    capacity_gib: float | None = None,
    wrap: bool = False,
) -> dict[str, Any]:
    """Replay ``trace`` (a name, a path or loaded requests) on a fresh or preconditioned
    ``preset`` device under ``policy`` (``skftl.nand.policy.load``) with ``streams`` write
    points per chip (``capacity_gib``: the device's capacity instead of the preset's;
    ``wrap``: fold addresses beyond it): latency mean and p99 per direction (us), counters of
    the replay alone, and the wall time of each phase."""
    import numpy as np

    from skftl.nand import Ftl
    from skftl.traces.loader import load_trace
    from skftl.traces.requests import Requests

    if precondition not in PRECONDITIONS:
        raise ValueError(f"precondition must be one of {PRECONDITIONS}, got {precondition!r}")
    phases: dict[str, float] = {}
    startup = process_age_s()
    if startup is not None:
        phases["startup_s"] = startup
    t = time.perf_counter()
    req = trace if isinstance(trace, Requests) else load_trace(trace, fmt, cache_dir=cache_dir)
    phases["load_trace_s"] = time.perf_counter() - t
    nand: dict[str, Any] = {"preset": preset}
    if capacity_gib is not None:
        nand["capacity_gib"] = capacity_gib
    # a GC pass may open a block per stream before it erases its victim (FtlConfig)
    ftl_section = {
        "spare_factor": spare_factor,
        "policy": str(policy),
        "n_streams": streams,
        "gc_low_blocks": max(2, streams + 1),
        "gc_high_blocks": max(3, streams + 2),
    }
    t = time.perf_counter()
    _load_kernels(nand, ftl_section)
    phases["kernel_load_s"] = time.perf_counter() - t
    t = time.perf_counter()
    ftl = Ftl.from_config(nand, ftl_section)
    phases["allocate_s"] = time.perf_counter() - t
    t = time.perf_counter()
    if precondition != "none":
        ftl.fill()
    if precondition == "fill-random":
        lpn = np.random.default_rng(seed).permutation(ftl.n_lpn).astype(np.int32)
        ftl.run_pages(lpn, np.ones(len(lpn), np.int8))
        ftl.reset_timelines()
    phases["precondition_s"] = time.perf_counter() - t
    t = time.perf_counter()
    res = ftl.replay(req, wrap=wrap)
    phases["replay_s"] = time.perf_counter() - t
    lat_us = res.latency_ns / 1e3
    out: dict[str, Any] = {
        "trace": req.meta.label if isinstance(trace, Requests) else str(trace),
        "requests": len(req),
        "preset": preset,
        "spare_factor": spare_factor,
        "precondition": precondition,
        "policy": ftl.policy.name,
    }
    for direction, mask in (("read", ~res.is_write), ("write", res.is_write)):
        x = lat_us[mask]
        out[f"{direction}_requests"] = int(mask.sum())
        out[f"{direction}_latency_mean_us"] = float(x.mean()) if len(x) else float("nan")
        out[f"{direction}_latency_p99_us"] = float(np.quantile(x, 0.99)) if len(x) else float("nan")
    for key in ("host_reads", "host_writes", "unmapped_reads", "gc_copies", "erases"):
        out[key] = int(res.counters[key])
    out["waf"] = res.waf
    out.update(phases)
    return out


def process_age_s() -> float | None:
    """Seconds since this process started (interpreter start-up and imports, when called
    first thing), from /proc at its 10 ms resolution; None where /proc is absent."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))


def _load_kernels(nand: dict[str, Any], ftl_section: dict[str, Any]) -> None:
    """Set Numba up and load the allocation and replay kernels from its cache (compiling
    them if absent) on one channel of the device with 64 blocks per plane: the same types,
    so the real device reuses them, and the phase split shows this cost apart from the
    allocation and the replay."""
    import dataclasses

    import numpy as np

    from skftl.nand import Ftl, FtlConfig, Geometry, Timing
    from skftl.nand.presets import resolve_nand

    section = resolve_nand(nand)
    geo = Geometry.from_config(section)
    small = dataclasses.replace(geo, channels=1, blocks_per_plane=64)
    # half the small device spare, so any GC reserve the config's streams need fits
    config = FtlConfig.from_config({**ftl_section, "spare_factor": 0.5})
    ftl = Ftl(small, Timing.from_config(section), config)
    ftl.run_pages(np.zeros(1, np.int32), np.ones(1, np.int8))


def _cmd_replay(args: argparse.Namespace) -> int:
    from skftl.errors import ConfigError
    from skftl.io import writable_or_raise, write_text

    if args.json_out:  # checked before the replay, not after it
        if Path(args.json_out).is_dir():
            raise ConfigError(f"--json {args.json_out} is a folder; name a file")
        writable_or_raise(Path(args.json_out).parent)
    summary = replay_summary(
        args.trace,
        fmt=args.fmt,
        preset=args.preset,
        spare_factor=args.spare_factor,
        precondition=args.precondition,
        seed=args.seed,
        cache_dir=args.cache_dir,
        policy=args.policy,
        streams=args.streams,
        capacity_gib=args.capacity_gib,
        wrap=args.wrap,
    )
    if args.json_out:
        write_text(json.dumps(summary, indent=1) + "\n", args.json_out)
    for key, value in summary.items():
        print(f"{key}: {value:,.3f}" if isinstance(value, float) else f"{key}: {value}")
    if _is_program():
        # the summary is out (JSON closed, streams flushed): skip the interpreter's
        # finalisation, where tearing down Numba's loaded kernels took 0.6-1.1 s of a
        # whole-process run (benchmarks/bench_ftl.py --mode whole)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def _is_program() -> bool:
    """Whether this process is the ``skftl`` program (``python -m skftl`` or the console
    script), not a caller that goes on after ``skftl.cli.main`` returns (tests, scripts)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return (spec is not None and spec.name == "skftl.__main__") or Path(sys.argv[0]).name == "skftl"
