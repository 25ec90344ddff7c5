"""Speed of the power-management simulator (skftl.power) on 8 chips, per scheme and read mix,
and the wall time of the whole default mtpm study.

Run: PYTHONPATH=. python benchmarks/bench_mtpm.py [--n 50000] [--scheme KMTPM_SA] [--mix 50]
     [--study] [--workers 1 2] [--against OTHER_TREE --pairs 3]
Per cell: protocol events per second with the 40 ns current accounting included (kernel
events: operation arrivals, chip events, packet arrivals; target >= 20 M/s), NAND ops/s (wall
clock, and per CPU second for a shared machine), atomic operations started per s, events per
NAND operation (of which packet arrivals), 40 ns samples accounted per s and peak memory. The
first call compiles (cached afterwards); it is not timed. Each cell is the best of at least
--repeat runs and of as many as fit in --min-seconds. ``--study`` also times the default study
(config/config.yaml) with each --workers count and prints the speed-up.

``--against OTHER_TREE`` compares with another version of the package: a directory holding a
``skftl/`` (e.g. ``git worktree add /tmp/old REV``). The benchmark runs --pairs times in a
child process per tree, the two alternating, and prints per cell the ratio of events per CPU
second (this tree over the other; median of the pairs) and whether the outputs agreed: on a
shared machine two runs minutes apart differ by tens of per cent per cell, alternated runs by
a few. Measurements belong in docs/power.md ("Speed"), not here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from skftl.config import load_config
from skftl.power.device import Device
from skftl.power.profiles import load_profiles
from skftl.power.sim import SimResult, build_tables, simulate
from skftl.power.tokens import TokenModel
from skftl.power.variants import device_profiles
from skftl.power.workload import from_nand_ops
from skftl.studies import mtpm
from skftl.traces.nand_ops import mtpm_ops

TARGET_EVENTS_PER_S = 20_000_000  # protocol events per second, 40 ns accounting included
OUTPUTS = ("op_issue", "op_start", "op_done", "wait_ns", "wait_count")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


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
    ap.add_argument("--against", help="another tree holding skftl/: alternated comparison")
    ap.add_argument("--pairs", type=int, default=3, help="for --against: runs per tree")
    ap.add_argument("--json", action="store_true", help="print the cells as one JSON line")
    args = ap.parse_args()
    if args.against:
        compare_trees(args)
        return
    cells = run_cells(args)
    if args.json:
        print(json.dumps(cells))
        return
    below = [f"{k} {c['events_per_s'] / 1e6:,.1f} M" for k, c in cells.items()
             if c["events_per_s"] < TARGET_EVENTS_PER_S]  # fmt: skip
    met = len(cells) - len(below)
    target = f"target {TARGET_EVENTS_PER_S / 1e6:g} M events/s"
    print(f"{target}: met in {met} of {len(cells)} cells", end="")
    print(f"; below: {', '.join(below)}" if below else "")
    if args.study:
        time_study(args.workers)


def run_cells(args: argparse.Namespace) -> dict[str, dict]:
    """Every scheme on every mix: the best run's figures (printed unless ``--json``)."""
    dev, tok = Device(xfer_program_ns=40_960, xfer_read_ns=40), TokenModel(4, 4)
    prof = device_profiles(load_profiles(), dev)
    tables = build_tables(prof, dev, tok)
    schemes = args.scheme or ["NPM", "PPM", "DCC", "MTPM", "KMTPM_A", "KMTPM_SA"]
    simulate(from_nand_ops(mtpm_ops(50, n_ops=200)), "KMTPM_SA", prof, dev, tok, tables=tables)
    cells = {}
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
            cell = {
                "events_per_s": st["events"] / best,
                "events_per_cpu_s": st["events"] / cpu,
                "outputs": _digest(res),
            }
            cells[f"R{mix} {sch}"] = cell
            if args.json:
                continue
            print(
                f"R{mix:<3d} {sch:9s} {cell['events_per_s'] / 1e6:7.1f} M events/s"
                f" ({cell['events_per_cpu_s'] / 1e6:5.1f} M per CPU s)"
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
    return cells


def _digest(res: SimResult) -> str:
    """A digest of a run's outputs, to tell whether two trees agree."""
    h = hashlib.sha256()
    for f in OUTPUTS:
        h.update(np.ascontiguousarray(getattr(res, f)).tobytes())
    return h.hexdigest()[:16]


def compare_trees(args: argparse.Namespace) -> None:
    """Run the cells in a child process with this tree and with ``args.against`` in turn,
    ``args.pairs`` times, and print per cell the median ratio of events per CPU second."""
    here = Path(__file__).resolve().parent.parent
    other = Path(args.against).resolve()
    passed = ["--n", str(args.n), "--repeat", str(args.repeat), "--min-seconds",
              str(args.min_seconds), "--json"]  # fmt: skip
    for sch in args.scheme or []:
        passed += ["--scheme", sch]
    for mix in args.mix or []:
        passed += ["--mix", str(mix)]
    runs: dict[str, list[dict]] = {"this": [], "other": []}
    loads = []
    for i in range(args.pairs):
        for side in ("this", "other") if i % 2 == 0 else ("other", "this"):
            tree = here if side == "this" else other
            env = {**os.environ, "PYTHONPATH": str(tree)}
            loads.append(os.getloadavg()[0])
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), *passed],
                env=env, cwd=tree, capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            runs[side].append(json.loads(out.strip().splitlines()[-1]))
            print(f"pair {i + 1} {side}: done, load {loads[-1]:.1f}", flush=True)
    print("cell           other M ev/CPU s  this   ratio this/other (median, min-max)  same")
    ratios = []
    for cell in runs["this"][0]:
        r = [t[cell]["events_per_cpu_s"] / o[cell]["events_per_cpu_s"]
             for t, o in zip(runs["this"], runs["other"], strict=True)]  # fmt: skip
        ratios.append(statistics.median(r))
        same = all(t[cell]["outputs"] == runs["other"][0][cell]["outputs"] for t in runs["this"])
        theirs = statistics.median(o[cell]["events_per_cpu_s"] for o in runs["other"])
        ours = statistics.median(t[cell]["events_per_cpu_s"] for t in runs["this"])
        print(
            f"{cell:14s} {theirs / 1e6:8.1f} {ours / 1e6:8.1f}"
            f"   {ratios[-1]:.3f} ({min(r):.3f}-{max(r):.3f})   {same}"
        )
    print(
        f"all cells: geometric mean ratio {statistics.geometric_mean(ratios):.3f};"
        f" {args.pairs} pairs, load average {min(loads):.1f}-{max(loads):.1f}"
    )


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
