"""Replay speed of the PPB policies against the plain page-mapped FTL kernel (target: PPB
and PPB-SK at least 0.7x the plain kernel's page operations per CPU second).

Run: PYTHONPATH=. python benchmarks/bench_ppb.py [--policy all|page|ppb|ppb_split|ppb_sk]
[--rounds N]

Device: Table 1 of the PPB paper (64 GiB, 16 KB pages, 384 pages per block, 8 x 4 chips,
charge-trap speed profile at 3x), 7 % spare. Each policy: fill every logical page once
(cold), then ``--ops`` page operations (50 % reads, 50 % writes, 30 % of writes first-stage
hot) over a Zipf-skewed set of logical pages, one every 2 us, which keeps GC running. Prints
page operations per CPU second (host ops + GC copies), the ratio to the plain kernel, and
peak memory; ``all`` runs each policy in its own process so each peak is its own, and
``--rounds N`` does that N times, each round's ratios against the same round's plain kernel
(paired: a slow spell of the machine hits both), then prints the median ratio per policy and
the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

from skftl.nand import Ftl, FtlConfig, Geometry, Timing, policies_ppb, policies_ppb_sk
from skftl.nand.geometry import GIB
from skftl.nand.policies_skftl import block_bits

TARGET = 0.7  # page ops per CPU second of PPB and PPB-SK / of the plain kernel
POLICIES = ("page", "ppb", "ppb_split", "ppb_sk")
TIMING = Timing(49_000, 600_000, 4_000_000, 533.0, page_speed="charge_trap_3d", speed_ratio=3.0)


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def bench(policy: str, n_ops: int, seed: int) -> float:
    geo = Geometry.from_capacity(64 * GIB, 16384, 384, channels=8, chips_per_channel=4)
    lists = block_bits(geo.n_blocks) + 1 if policy == "ppb_sk" else 1
    cfg = FtlConfig(
        gc_low_blocks=5, gc_high_blocks=6, n_streams=4, policy=policy, n_free_lists=lists
    )
    ftl = Ftl(geo, TIMING, cfg)
    if policy != "page":
        (policies_ppb_sk.attach if policy == "ppb_sk" else policies_ppb.attach)(ftl)
    # the fill also compiles the kernel (cached after the first run)
    w = time.perf_counter()
    ftl.fill()
    fill_s = time.perf_counter() - w
    rng = np.random.default_rng(seed)
    lpn = (rng.zipf(1.2, n_ops) * 7919 % ftl.n_lpn).astype(np.int32)
    op = (rng.random(n_ops) < 0.5).astype(np.int8)
    hot = ((rng.random(n_ops) < 0.3) & (op == 1)).astype(np.int8)
    t = np.arange(n_ops, dtype=np.int64) * 2000
    stream = None if policy == "page" else hot
    c0 = ftl.counters()
    w, c = time.perf_counter(), time.process_time()
    ftl.run_pages(lpn, op, stream=stream, time_ns=t)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    c1 = ftl.counters()
    gc = c1["gc_copies"] - c0["gc_copies"]
    rate = (n_ops + gc) / cpu
    print(
        f"{policy:>9}: fill {fill_s:.1f} s; {n_ops:,} ops + {gc:,} GC copies in {cpu:.2f} s CPU "
        f"({wall:.2f} s wall) = {rate:,.0f} page ops per CPU second, "
        f"{n_ops / cpu:,.0f} host ops/s; peak RSS {peak_rss_gb():.2f} GB"
    )
    return rate


def bench_study_replay(config: str) -> None:
    """The study's measured replay of the web trace (whole) at the default set-up: the
    kernel plus the mapping and flash-operation logs and the measures drawn from them
    (positions, GC-stalled reads, all-programs time), per policy; at the first speed ratio
    of a series (placement drawn from the mapping log) and at a further one (reused)."""
    from skftl.config import load_config
    from skftl.nand.hotness import identify
    from skftl.studies.ppb import simulate as sim
    from skftl.studies.ppb.setups import prepare
    from skftl.traces import expand_to_pages

    cfg = load_config(config)
    section = sim.settings(cfg)
    req = sim.load_traces(cfg, {**section, "extra_traces": []})["web"]
    for v in sim.variants({**section, "beyond": {}}):
        ftl = sim.make_ftl(section, 16384, v)
        mapped = sim.map_addresses(req, 16384, section)
        stream = identify(req, 16384, v.identifier, section) if v.policy != "page" else None
        prepare(ftl, "fill", section, int(cfg["seed"]))
        snap = ftl.state
        sim._replay(ftl, snap, mapped, stream)  # compiles
        n = len(expand_to_pages(mapped, 16384).lpn)
        placed = None  # the first speed ratio logs the placement, the others reuse it
        for what in ("first ratio", "next ratio"):
            w, c = time.perf_counter(), time.process_time()
            _, placed = sim._replay(ftl, snap, mapped, stream, placed)
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            print(
                f"study replay {v.name:>9}, {what}: {len(req):,} requests ({n:,} page ops) in "
                f"{cpu:.2f} s CPU ({wall:.2f} s wall) = {n / cpu:,.0f} page ops per CPU second"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--policy", default="all", choices=["all", "page", "ppb", "ppb_split", "ppb_sk"]
    )
    ap.add_argument("--ops", type=int, default=48_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--study", metavar="CONFIG", help="instead: time the study's replay of the web trace"
    )
    args = ap.parse_args()
    if args.study:
        bench_study_replay(args.study)
        return
    if args.policy != "all":
        print(f"RATE {bench(args.policy, args.ops, args.seed)}")
        return
    print(f"load average before: {os.getloadavg()}")
    ratios: dict[str, list[float]] = {pol: [] for pol in POLICIES[1:]}
    for r in range(args.rounds):
        rates = {}
        for pol in POLICIES:
            out = subprocess.run(
                [sys.executable, __file__, "--policy", pol, "--ops", str(args.ops)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            print(f"round {r + 1}: {out.splitlines()[0]}")
            rates[pol] = float(out.split("RATE ")[1])
        for pol in POLICIES[1:]:
            ratios[pol].append(rates[pol] / rates["page"])
        print(f"round {r + 1} ratios: " + ", ".join(f"{p} {v[-1]:.2f}" for p, v in ratios.items()))
    print(f"load average after: {os.getloadavg()}")
    for pol, v in ratios.items():
        med = statistics.median(v)
        verdict = "meets" if med >= TARGET else "does NOT meet"
        print(
            f"{pol} / page kernel: median {med:.2f} over {len(v)} rounds "
            f"({', '.join(f'{x:.2f}' for x in v)}); {verdict} the {TARGET}x target"
        )


if __name__ == "__main__":
    main()
