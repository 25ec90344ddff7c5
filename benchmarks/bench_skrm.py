"""Throughput of the SK-RM cost model (skftl.skrm.kernel): entry updates per second.

Run: PYTHONPATH=. python benchmarks/bench_skrm.py [--updates N] [--entries N]

A stream of ``--updates`` L2P entry updates (lpn, old_ppn, new_ppn) over the full table of
a 64 GB / 16 KB-page device (3.9 M entries): Zipf-skewed LPNs over the table, new PPNs
drawn like a write frontier (sequential pages in a few hundred open blocks), 2 % trims.
Each scheme (FTL, PW FTL, SK-FTL with vertical reach 1) is timed on its own over the whole
stream (after a warm-up call that compiles the kernel); prints updates/s (wall and CPU)
and peak memory. Target: >= 20 M updates/s.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from skftl.skrm import PAPER_SCHEMES, CostModel, Layout


def make_stream(n: int, n_entries: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    lpn = (rng.zipf(1.2, n) - 1) % n_entries
    lpn = rng.permutation(n_entries)[lpn]  # hot entries scattered over the table
    new = (rng.integers(0, 16384, n) * 256 + (np.arange(n) // 512) % 256).astype(np.int64)
    new[rng.random(n) < 0.02] = -1
    cur = np.full(n_entries, -1, np.int64)
    old = np.empty(n, np.int64)
    # old = the entry's previous value (vectorised: last write before i of the same lpn)
    order = np.argsort(lpn, kind="stable")
    sl, sn = lpn[order], new[order]
    prev = np.full(n, -1, np.int64)
    same = sl[1:] == sl[:-1]
    prev[1:][same] = sn[:-1][same]
    old[order] = prev
    # a trim of an unmapped entry is no update: drop those
    keep = ~((new < 0) & (old < 0))
    del cur
    return lpn[keep].astype(np.int64), old[keep], new[keep]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--updates", type=int, default=20_000_000)
    ap.add_argument("--entries", type=int, default=3_900_000)
    a = ap.parse_args()
    lpn, old, new = make_stream(a.updates, a.entries)
    lay = Layout(entry_bits=32, entries_per_track=16, vertical_reach=1)
    for scheme in PAPER_SCHEMES:
        CostModel(lay, scheme, a.entries).update(lpn[:1000], old[:1000], new[:1000])  # compile
        m = CostModel(lay, scheme, a.entries)
        w0, c0 = time.perf_counter(), time.process_time()
        m.update(lpn, old, new)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        print(
            f"{scheme.name:8s} {len(lpn) / wall / 1e6:7.1f} M updates/s wall, "
            f"{len(lpn) / cpu / 1e6:7.1f} M/s CPU  ({len(lpn):,} updates)"
        )
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")


if __name__ == "__main__":
    main()
