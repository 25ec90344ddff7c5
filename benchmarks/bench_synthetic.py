"""Throughput of the synthetic trace generator (and of the characterisation).

Run: PYTHONPATH=. python benchmarks/bench_synthetic.py [--n 10000000] [--preset msr_web]
Prints requests generated per second, characterised per second, and peak memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import time

from skftl.traces.stats import characterise
from skftl.traces.synthetic import PRESETS, generate


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10_000_000, help="requests per trace")
    ap.add_argument(
        "--preset",
        action="append",
        choices=list(PRESETS),
        help="preset(s) to time (default: Financial1, WebSearch1, msr_web)",
    )
    ap.add_argument(
        "--rewrite", type=float, default=0.0, help="rewrite_fraction to set (issue #19 locality)"
    )
    args = ap.parse_args()
    for name in args.preset or ["Financial1", "WebSearch1", "msr_web"]:
        spec = dataclasses.replace(PRESETS[name], rewrite_fraction=args.rewrite)
        t0 = time.perf_counter()
        req = generate(spec, args.n, seed=0)
        t1 = time.perf_counter()
        characterise(req)
        t2 = time.perf_counter()
        print(
            f"{name:12s} rewrite={args.rewrite} n={args.n:,}  generate {t1 - t0:6.2f} s"
            f" = {args.n / (t1 - t0):12,.0f} req/s"
            f"  characterise {t2 - t1:6.2f} s = {args.n / (t2 - t1):12,.0f} req/s"
            f"  peak RSS {peak_rss_mib():,.0f} MiB"
        )
        del req


if __name__ == "__main__":
    main()
