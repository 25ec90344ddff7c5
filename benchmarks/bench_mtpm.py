"""Speed of the power-management simulator (skftl.power) on 8 chips, per scheme and read mix,
and the wall time of the whole default mtpm study.

Run: PYTHONPATH=. python benchmarks/bench_mtpm.py [--n 50000] [--scheme KMTPM_SA] [--mix 50]
     [--study] [--workers 1 2]
Per cell: protocol events per second with the 40 ns current accounting included (kernel
events: operation arrivals, chip events, packet arrivals; target >= 20 M/s, issue #15), NAND
ops/s (wall clock, and per CPU second for a shared machine), atomic operations started per s,
events per NAND operation (of which packet arrivals), 40 ns samples accounted per s and peak
memory. The first call compiles (cached afterwards); it is not timed. Each cell is the best
of at least --repeat runs and of as many as fit in --min-seconds. ``--study`` also times the
default study (config/config.yaml) with each --workers count and prints the speed-up.
"""

from __future__ import annotations

import argparse
import resource
import time

from skftl.config import load_config
from skftl.power.device import Device
from skftl.power.profiles import load_profiles
from skftl.power.sim import build_tables, simulate
from skftl.power.tokens import TokenModel
from skftl.power.variants import device_profiles
from skftl.power.workload import from_nand_ops
from skftl.studies import mtpm
from skftl.traces.nand_ops import mtpm_ops


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


TARGET_EVENTS_PER_S = 20_000_000  # issue #15: protocol events per second, 40 ns accounting


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
    ap.add_argument("--study", action="store_true", help="also time the default study")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="for --study")
    args = ap.parse_args()
    dev, tok = Device(xfer_program_ns=40_960, xfer_read_ns=40), TokenModel(4, 4)
    prof = device_profiles(load_profiles(), dev)
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
            eps = st["events"] / best
            if eps < TARGET_EVENTS_PER_S:
                below.append(f"R{mix} {sch} {eps / 1e6:,.1f} M")
            print(
                f"R{mix:<3d} {sch:9s} {eps / 1e6:7.1f} M events/s"
                f" ({st['events'] / cpu / 1e6:5.1f} M per CPU s)"
                f" {len(ops):7,d} ops in {best:6.3f} s ="
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
    print(f"target {TARGET_EVENTS_PER_S / 1e6:g} M events/s: met in {met} of {cells} cells", end="")
    print(f"; below: {', '.join(below)}" if below else "")
    if args.study:
        time_study(args.workers)


def time_study(workers: list[int]) -> None:
    """Wall time of the default study (config/config.yaml) per worker count, and the
    speed-up over the first; the datasets must be identical."""
    cfg = load_config()
    walls, first = [], None
    for w in workers:
        cfg["mtpm"]["workers"] = w
        t0 = time.perf_counter()
        ds = mtpm.run(cfg, progress=False)
        walls.append(time.perf_counter() - t0)
        same = "" if first is None else f", dataset identical: {first.identical(ds)}"
        first = ds if first is None else first
        print(f"default study, {w} worker(s): {walls[-1]:6.1f} s wall{same}", flush=True)
    for w, t in zip(workers[1:], walls[1:], strict=True):
        print(f"speed-up {workers[0]} -> {w} workers: {walls[0] / t:.2f}x (shared machine)")


if __name__ == "__main__":
    main()
