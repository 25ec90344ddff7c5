"""Speed of the power-management simulator (skftl.power): simulated NAND operations per
second with 40 ns current accounting on 8 chips, per scheme and read mix.

Run: PYTHONPATH=. python benchmarks/bench_mtpm.py [--n 50000] [--scheme KMTPM_SA] [--mix 50]
Prints NAND ops/s (wall clock, and per CPU second for a shared machine), atomic operations
started per s, kernel events per NAND operation (of which packet arrivals) and CPU ns per
event, 40 ns current samples accounted per s, and peak memory. The first call compiles
(cached afterwards); it is not timed. Each cell is the best of at least --repeat runs and of
as many as fit in --min-seconds (one R100 run takes only milliseconds).
"""

from __future__ import annotations

import argparse
import resource
import time

from skftl.power.device import Device
from skftl.power.profiles import load_profiles
from skftl.power.sim import build_tables, simulate
from skftl.power.tokens import TokenModel
from skftl.power.workload import from_nand_ops
from skftl.traces.nand_ops import mtpm_ops


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


TARGET_OPS_PER_S = 1_000_000  # issue #6: NAND operations per second, 40 ns accounting, 8 chips


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=50_000, help="NAND operations per run")
    ap.add_argument("--scheme", action="append", help="default: NPM PPM DCC MTPM KMTPM_A KMTPM_SA")
    ap.add_argument("--mix", action="append", type=int, help="read %% (default: 0 50 100)")
    ap.add_argument("--repeat", type=int, default=3, help="best of at least N runs")
    ap.add_argument(
        "--min-seconds",
        type=float,
        default=0.5,
        help="repeat a cell until its runs took this long (short R100 runs are noisy)",
    )
    args = ap.parse_args()
    prof, dev, tok = (
        load_profiles(),
        Device(xfer_program_ns=40_960, xfer_read_ns=40),
        TokenModel(4, 4),
    )
    tables = build_tables(prof, dev, tok)
    schemes = args.scheme or ["NPM", "PPM", "DCC", "MTPM", "KMTPM_A", "KMTPM_SA"]
    simulate(from_nand_ops(mtpm_ops(50, n_ops=200)), "KMTPM_SA", prof, dev, tok, tables=tables)
    below = []
    cells = 0
    for mix in args.mix or [0, 50, 100]:
        ops = from_nand_ops(mtpm_ops(mix, n_ops=args.n))
        for sch in schemes:
            best = cpu = float("inf")
            runs, spent = 0, 0.0
            while runs < args.repeat or spent < args.min_seconds:
                t0, c0 = time.perf_counter(), time.process_time()
                res = simulate(ops, sch, prof, dev, tok, tables=tables)
                wall = time.perf_counter() - t0
                best = min(best, wall)
                runs, spent = runs + 1, spent + wall
                cpu = min(cpu, time.process_time() - c0)
            st = res.stats
            cells += 1
            if len(ops) / best < TARGET_OPS_PER_S:
                below.append(f"R{mix} {sch} {len(ops) / best / 1e3:,.0f} k")
            print(
                f"R{mix:<3d} {sch:9s} {len(ops):7,d} ops in {best:6.3f} s ="
                f" {len(ops) / best:11,.0f} NAND ops/s (CPU time: {len(ops) / cpu:11,.0f})"
                f" {st['atomic_starts'] / best:12,.0f} atomic ops/s"
                f" {st['events'] / len(ops):6.1f} events/op"
                f" ({st['packet_arrivals'] / len(ops):5.1f} packet)"
                f" ({cpu / st['events'] * 1e9:4.0f} ns each)"
                f" {st['flushed_samples'] / best / 1e6:8,.0f} M samples/s"
                f" (simulated {res.makespan_ns / 1e6:8.1f} ms)  peak RSS {peak_rss_mib():,.0f} MiB",
                flush=True,
            )
    met = cells - len(below)
    print(f"target {TARGET_OPS_PER_S:,} NAND ops/s: met in {met} of {cells} cells", end="")
    print(f"; below: {', '.join(below)}" if below else "")


if __name__ == "__main__":
    main()
