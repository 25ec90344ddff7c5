"""Throughput of the synthetic trace generator (and of the characterisation).

Run: PYTHONPATH=. python benchmarks/bench_synthetic.py [--n 10000000] [--preset msr_web]
[--locality] [--like TRACE ...]. Prints requests generated per second, characterised per
second, and peak memory. ``--like TRACE`` (repeatable) times what ``skftl traces synth --like
TRACE -n N -o FILE`` does instead, step by step: load the trace, profile it, fit the spec,
generate N requests, write them as an MQSim trace (to a temporary file, removed).
``--locality`` turns every temporal-locality parameter of issue #19 on (the shares
and distances of the web_0 excerpt, new-address weights, reuse sizes, single-run preference,
copied sizes, immediate repeats) and the second round's (measured gap table, fresh space
for new runs, long runs among isolated requests, short reusing runs, typed and sized
repeats, overlapping reads, phases; ``--round1`` leaves those off).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skftl.traces.stats import characterise
from skftl.traces.synthetic import PRESETS, SizeDist, generate

# Rounded from the web_0 excerpt's profile (skftl.traces.locality.profile).
LOCALITY_ON = dict(
    reread_fraction=0.09,
    read_after_write_fraction=0.03,
    write_after_read_fraction=0.06,
    rewrite_fraction=0.76,
    reuse_distance_levels=(0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0),
    reuse_distance_quantiles=(1.0, 1.0, 2.0, 8.0, 59.0, 796.0, 7944.0, 34692.0, 99877.0),
    new_address_weights=(0.3, 0.6, 1.0, 1.4, 1.7),
    reuse_single_run_shares=(0.9, 0.9),
    copy_size_share=0.5,
    repeat_fraction=0.05,
)
# The mechanisms of issue #19's second round (``--locality`` adds them): the web_0 excerpt's
# gap table (as spec_like fits it, rounded), fresh space for new runs, long runs among
# isolated requests, short reusing runs, repeats of small writes, reads over part of
# earlier writes, and its phases (read share and size ratios per slice).
LOCALITY_ROUND2 = dict(
    gap_levels=(0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995)
    + (0.9999, 0.99995, 0.99999, 1.0),
    gap_quantiles=(0.0, 7.24e-07, 3.62e-06, 1.88e-05, 0.000852, 0.00719, 0.061, 0.113, 0.657)
    + (43.5, 44.7, 78.7, 96.3, 107.0, 113.0, 115.0, 117.0),
    fresh_new_addresses=True,
    footprint_bytes=1 << 40,  # fresh space for 10 M requests' new runs
    copy_run_requests=2.3,
    single_run_share=0.93,
    repeat_write_share=0.77,
    repeat_write_sizes=SizeDist.discrete({1: 0.19, 6: 0.16, 8: 0.03, 16: 0.45, 32: 0.17}),
    overlap_read_fraction=0.04,
    overlap_read_sizes=SizeDist.discrete({8: 0.5, 16: 0.3, 64: 0.2}),
    phase_read_fractions=(0.02, 0.03, 0.01, 0.35, 0.19, 0.21, 0.96, 0.31, 0.27, 0.76)
    + (0.9, 0.9, 0.88, 0.92, 0.92, 0.99, 0.99, 0.99, 0.93, 0.77),
    phase_read_size_factors=(0.42, 0.43, 0.54, 0.19, 0.52, 0.59, 0.21, 0.68, 0.38, 0.61)
    + (1.21, 1.42, 0.93, 1.34, 1.42, 1.4, 1.38, 1.03, 0.97, 0.76),
    phase_write_size_factors=(0.76, 0.76, 0.76, 3.31, 0.49, 0.95, 0.63, 1.15, 0.67, 1.11)
    + (0.55, 0.83, 1.03, 0.65, 0.74, 0.88, 0.75, 0.94, 0.63, 0.71),
)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def time_like(source: str, n: int) -> None:
    """The steps of ``skftl traces synth --like SOURCE -n N`` (default seed, calibration and
    format), each timed: wall clock and CPU (user + system) seconds, and the load average
    when it ends (the machine may be shared: a wall clock means little without it)."""
    from skftl.traces import load_trace
    from skftl.traces.export import export_trace
    from skftl.traces.profile import profile_trace, spec_from_profile

    steps = {}
    cpu = {}

    def timed(step: str, run: Callable[[], Any]) -> Any:
        t, c = time.perf_counter(), _cpu_s()
        out = run()
        steps[step], cpu[step] = time.perf_counter() - t, _cpu_s() - c
        return out

    req = timed("load", lambda: load_trace(source))
    preset = timed("profile", lambda: profile_trace(req))
    spec = timed("fit", lambda: spec_from_profile(preset, n))
    out = timed("generate", lambda: generate(spec, n, seed=0))
    with tempfile.TemporaryDirectory() as tmp:
        timed("write", lambda: export_trace(out, Path(tmp) / "like.trace"))
    parts = "  ".join(f"{k} {v:5.2f} s (cpu {cpu[k]:5.2f})" for k, v in steps.items())
    print(
        f"synth --like {source} n={n:,}: {parts}  total {sum(steps.values()):6.2f} s"
        f" (cpu {sum(cpu.values()):6.2f})  peak RSS {peak_rss_mib():,.0f} MiB"
        f"  load {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=10_000_000, help="requests per trace")
    ap.add_argument(
        "--preset",
        action="append",
        choices=list(PRESETS),
        help="preset(s) to time (default: Financial1, WebSearch1, msr_web)",
    )
    ap.add_argument("--locality", action="store_true", help="all locality parameters on")
    ap.add_argument(
        "--round1",
        action="store_true",
        help="with --locality: only the first round's parameters (LOCALITY_ON), as timed before",
    )
    ap.add_argument(
        "--like",
        action="append",
        metavar="TRACE",
        help="time `skftl traces synth --like TRACE -n N` step by step instead (repeatable)",
    )
    args = ap.parse_args()
    if args.like:
        for source in args.like:
            time_like(source, args.n)
        return
    for name in args.preset or ["Financial1", "WebSearch1", "msr_web"]:
        spec = PRESETS[name]
        if args.locality:
            extra = {} if args.round1 else LOCALITY_ROUND2
            spec = dataclasses.replace(
                spec, **LOCALITY_ON, **extra, reuse_write_sizes=spec.write_sizes
            )
        t0 = time.perf_counter()
        req = generate(spec, args.n, seed=0)
        t1 = time.perf_counter()
        characterise(req)
        t2 = time.perf_counter()
        print(
            f"{name:12s} locality={'on ' if args.locality else 'off'} n={args.n:,}"
            f"  generate {t1 - t0:6.2f} s"
            f" = {args.n / (t1 - t0):12,.0f} req/s"
            f"  characterise {t2 - t1:6.2f} s = {args.n / (t2 - t1):12,.0f} req/s"
            f"  peak RSS {peak_rss_mib():,.0f} MiB"
        )
        del req


if __name__ == "__main__":
    main()
