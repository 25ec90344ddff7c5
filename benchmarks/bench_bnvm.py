"""Throughput of the PCM SSD kernel: host page writes per second per mapping scheme, and
peak memory. Target: >= 10 M page writes/s.

Run: PYTHONPATH=. python benchmarks/bench_bnvm.py [--pages N]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from skftl.pcm import SCHEMES, PCMDevice, simulate
from skftl.pcm.simulate import paged_from_lpns


def workload(n: int, seed: int = 1) -> tuple:
    """Mobile-like page stream: sequential runs of 1-64 pages over a 4 GB space, a hot set
    of rewritten pages, 20 % reads, bursty arrivals."""
    rng = np.random.default_rng(seed)
    n_runs = n // 16 + 1
    lengths = rng.integers(1, 64, n_runs)
    hot = rng.random(n_runs) < 0.3
    starts = np.where(hot, rng.integers(0, 4096, n_runs), rng.integers(0, 1 << 20, n_runs))
    lpn = (
        np.repeat(starts, lengths)
        + np.arange(lengths.sum())
        - np.repeat(np.cumsum(lengths) - lengths, lengths)
    )[:n]
    req = np.repeat(np.arange(n_runs), lengths)[:n]
    writes = np.repeat(rng.random(n_runs) < 0.8, lengths)[:n]
    t = np.repeat(np.cumsum(rng.exponential(2e5, n_runs)).astype(np.int64), lengths)[:n]
    return lpn, writes, req, t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=10_000_000)
    args = ap.parse_args()
    dev = PCMDevice()
    pages = paged_from_lpns(*workload(args.pages), dev)
    n_writes = int(pages.is_write.sum())
    simulate(paged_from_lpns(*workload(1000), dev), dev, "static")  # compile / load cache
    print(f"{len(pages):,} page ops ({n_writes:,} writes), footprint {pages.n_lpn:,} pages")
    # wall-clock and CPU time: on a shared machine the CPU time shows the kernel's own speed
    for scheme in SCHEMES:
        wall = cpu = np.inf
        for _ in range(2):
            w0, c0 = time.perf_counter(), time.process_time()
            simulate(pages, dev, scheme, idle_cap_s=1.0)  # as the study runs it
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        print(
            f"{scheme:12s} {n_writes / wall / 1e6:7.1f} M page writes/s wall "
            f"({n_writes / cpu / 1e6:.1f} M per CPU-second; "
            f"{len(pages) / wall / 1e6:.1f} M page ops/s wall)"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
