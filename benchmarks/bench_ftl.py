"""Throughput and memory of the page-mapped FTL kernel (skftl.nand).

Run: PYTHONPATH=. python benchmarks/bench_ftl.py [--mode all|whole|steady|mqsim|1tb]

* ``whole``: the whole process, as researchers time peer simulators: the issue #20 trace
  (``--requests``, default 1 M, of 4 KiB, 70 % writes, uniform over 16 GiB, one every 10 us,
  seeded) is generated once into ``--trace-dir`` as an MQSim-format text trace, then
  ``python -m skftl replay <trace> --format mqsim --preset mqsim`` runs as a child process:
  once to warm the Numba and trace caches (not timed), then ``--repeats`` timed runs. Prints
  each run's wall time, CPU time (user + sys of the child) and peak RSS of the child, and the
  replay's own phase split (start-up, trace load, kernel load, allocation, replay; ``--json``).
* ``steady``: uniform random 4 KB writes on a full 64 GiB device (4 KB pages, 256 pages
  per block, 8 channels x 4 chips) with 7 % spare factor: filled, then overwritten
  ``--warmup`` times its logical size to reach GC steady state, then timed over
  ``--passes`` more. Prints flash page operations per second (host writes + GC copies),
  host requests per second, WAF and peak memory.
* ``mqsim`` (kernel only): the issue #20 workload (1 M requests of 4 KB, 70 % writes,
  uniform random over 16 GiB, one every 10 us, seeded) on 64 GiB of 8 channels x 8 chips (MQSim's
  4 chips x 2 dies), after preconditioning the 16 GiB with one sequential write pass
  (timed separately). Kernel-only figures: no ratio against another simulator's constant;
  peers are compared as whole processes, side by side.
* ``1tb``: a 1 TB (1 TiB raw) device of 4 KB pages: allocates the full state and writes
  ``--tb-writes`` random pages; prints the state size and peak memory (target: < 8 GB).

``all`` runs each mode in its own process so each peak-memory figure is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from skftl.nand import Ftl, FtlConfig, Geometry, Timing
from skftl.nand.geometry import GIB
from skftl.traces.requests import Requests, TraceMeta

# PPB paper timing (Samsung V-NAND), 4 KB pages on a 533 MB/s channel
TIMING = Timing(t_read_ns=49_000, t_prog_ns=600_000, t_erase_ns=4_000_000, channel_mb_s=533.0)
CHUNK = 1 << 23


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # Linux: KiB


def device(capacity_gib: int, spare: float = 0.07, chips_per_channel: int = 4) -> Ftl:
    geo = Geometry.from_capacity(
        capacity_gib * GIB, 4096, 256, channels=8, chips_per_channel=chips_per_channel
    )
    return Ftl(geo, TIMING, FtlConfig(spare_factor=spare))


def state_gb(ftl: Ftl) -> float:
    return sum(a.nbytes for a in ftl.state) / 1e9


def random_writes(ftl: Ftl, n: int, rng: np.random.Generator, t0: int = 0) -> tuple[float, float]:
    """Write ``n`` uniformly random pages, one every microsecond; returns (wall, CPU) seconds
    of the replay alone (CPU time is the fair figure on a machine shared with other jobs)."""
    wall = cpu = 0.0
    ones = np.ones(CHUNK, np.int8)
    for start in range(0, n, CHUNK):
        k = min(CHUNK, n - start)
        lpn = rng.integers(0, ftl.n_lpn, k, dtype=np.int32)
        t = t0 + (start + np.arange(k, dtype=np.int64)) * 1000
        w, c = time.perf_counter(), time.process_time()
        ftl.run_pages(lpn, ones[:k], time_ns=t)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
    return wall, cpu


def steady(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    ftl = device(64)
    w = time.perf_counter()
    ftl.fill()
    fill_s = time.perf_counter() - w
    warm_s, _ = random_writes(ftl, int(args.warmup * ftl.n_lpn), rng)
    c0 = ftl.counters()
    n = int(args.passes * ftl.n_lpn)
    wall, cpu = random_writes(ftl, n, rng)
    c1 = ftl.counters()
    hw = c1["host_writes"] - c0["host_writes"]
    gc = c1["gc_copies"] - c0["gc_copies"]
    print(
        f"steady: 64 GiB, 4 KB pages, 7 % spare, {ftl.n_lpn:,} logical pages "
        f"(fill {fill_s:.1f} s, warm-up {args.warmup} x = {warm_s:.1f} s)"
    )
    print(
        f"  timed {hw:,} host writes + {gc:,} GC copies in {wall:.2f} s: WAF {(hw + gc) / hw:.3f}"
    )
    print(
        f"  flash page operations/s: {(hw + gc) / cpu:,.0f} per CPU second "
        f"({(hw + gc) / wall:,.0f} per wall second)"
    )
    print(
        f"  host requests/s:         {hw / cpu:,.0f} per CPU second "
        f"({hw / wall:,.0f} per wall second)"
    )
    print(f"  FTL state {state_gb(ftl):.2f} GB, peak RSS {peak_rss_gb():.2f} GB")


def issue_trace(n: int, seed: int, every_us: int = 10, name: str = "mqsim_uniform_70w") -> Requests:
    """The issue #20 trace: ``n`` requests of 4 KiB, 70 % writes, uniform over 16 GiB, one
    every ``every_us`` us (also benchmarks/compare_mqsim.py's uniform traces)."""
    rng = np.random.default_rng(seed)
    span_pages = 16 * GIB // 4096
    return Requests(
        time_ns=np.arange(n, dtype=np.int64) * every_us * 1000,
        offset_bytes=rng.integers(0, span_pages, n) * 4096,
        size_bytes=np.full(n, 4096),
        is_write=rng.random(n) < 0.7,
        meta=TraceMeta(name=name, format="synthetic", synthetic=True),
    )


def timed_child(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, user + sys CPU s, peak RSS GiB) of one child process (its own rusage,
    from wait4, not the running maximum over all children)."""
    w = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024 / 2**30  # Linux: KiB


def whole(args: argparse.Namespace) -> None:
    from skftl.traces import write_mqsim

    folder = Path(args.trace_dir)
    folder.mkdir(parents=True, exist_ok=True)
    trace = folder / f"uniform70w_{args.requests}_{args.seed}.trace"
    if not trace.exists():  # written once; later runs reuse it (and its columnar cache)
        tmp = trace.with_suffix(".part")
        write_mqsim(issue_trace(args.requests, args.seed), tmp)
        tmp.replace(trace)
    summary = folder / "summary.json"
    cmd = [sys.executable, "-m", "skftl", "--cache-dir", str(folder / "cache"), "replay",
           str(trace), "--format", "mqsim", "--preset", "mqsim",
           "--json", str(summary)]  # fmt: skip
    timed_child(cmd)  # warm the Numba cache and the trace cache
    print(
        f"whole process: `skftl replay` of {args.requests:,} x 4 KiB, 70 % writes, uniform over "
        f"16 GiB, every 10 us, on preset mqsim (fresh device; trace and Numba caches warm)"
    )
    for run in range(args.repeats):
        wall, cpu, rss = timed_child(cmd)
        s = json.loads(summary.read_text())
        split = ", ".join(f"{k[:-2]} {v:.2f}" for k, v in s.items() if k.endswith("_s"))
        print(f"  run {run + 1}: wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {rss:.2f} GiB "
              f"(phases, s: {split})")  # fmt: skip
    print(
        f"  read latency mean {s['read_latency_mean_us']:.1f} us, write "
        f"{s['write_latency_mean_us']:.1f} us; GC copies {s['gc_copies']:,}"
    )


def mqsim(args: argparse.Namespace) -> None:
    n = 1_000_000
    reqs = issue_trace(n, args.seed)
    span_pages = 16 * GIB // 4096
    # MQSim's default SSD has 8 channels x 4 chips x 2 dies: 64 units that each run one
    # operation at a time, which is what a "chip" is here (planes are not modelled)
    ftl = device(64, chips_per_channel=8)
    lpn = np.arange(span_pages, dtype=np.int32)
    w = time.perf_counter()
    ftl.run_pages(lpn, np.ones(span_pages, np.int8))  # precondition the 16 GiB once
    ftl.reset_timelines()
    pre_s = time.perf_counter() - w
    w, c = time.perf_counter(), time.process_time()
    res = ftl.replay(reqs)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    lat = res.latency_ns / 1e3
    print(
        f"mqsim workload: 1 M x 4 KB, 70 % writes, uniform over 16 GiB, every 10 us "
        f"(precondition {span_pages:,} pages: {pre_s:.2f} s)"
    )
    print(
        f"  kernel only: replay {wall:.3f} s wall, {cpu:.3f} s CPU = {n / cpu:,.0f} requests "
        f"per CPU second ({n / wall:,.0f} per wall second); not a whole-process figure"
    )
    print(
        f"  mean latency read {lat[~res.is_write].mean():.1f} us, "
        f"write {lat[res.is_write].mean():.1f} us; GC copies {res.counters['gc_copies']:,}"
    )
    print(f"  peak RSS {peak_rss_gb():.2f} GB")


def one_tb(args: argparse.Namespace) -> None:
    ftl = device(1024)
    print(
        f"1tb: {ftl.geometry.n_pages:,} physical pages of 4 KB, {ftl.n_lpn:,} logical; "
        f"FTL state {state_gb(ftl):.2f} GB"
    )
    wall, _ = random_writes(ftl, args.tb_writes, np.random.default_rng(args.seed))
    print(
        f"  {args.tb_writes:,} random writes in {wall:.2f} s; peak RSS {peak_rss_gb():.2f} GB "
        f"(target < 8 GB)"
    )


MODES = {"whole": whole, "steady": steady, "mqsim": mqsim, "1tb": one_tb}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mode", choices=["all", *MODES], default="all")
    ap.add_argument("--warmup", type=float, default=2.0, help="steady: warm-up passes")
    ap.add_argument("--passes", type=float, default=1.0, help="steady: timed passes")
    ap.add_argument("--tb-writes", type=int, default=20_000_000)
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--requests", type=int, default=1_000_000, help="whole: trace length")
    ap.add_argument("--repeats", type=int, default=3, help="whole: timed runs")
    ap.add_argument(
        "--trace-dir",
        default=os.path.join(tempfile.gettempdir(), "skftl_bench_ftl"),
        help="whole: where the trace and its cache are kept between runs",
    )
    args = ap.parse_args()
    if args.mode != "all":
        MODES[args.mode](args)
        return
    for mode in MODES:
        subprocess.run([sys.executable, __file__, *sys.argv[1:], "--mode", mode], check=True)


if __name__ == "__main__":
    main()
