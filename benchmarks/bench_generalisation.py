"""Generalisation of `traces synth --like` over seeds (issue 37): protocols (a) split half
and (b) leave one out (``skftl.traces.generalisation``) on every registered trace found in
the trace folder, whole, for each seed; per measure the traces within target, the mean over
the seeds and its range, and the persistence bound of (a) (the fitted half itself against
the held half: what no generator fitted on the first half can beat on a trace whose halves
differ).

Run: PYTHONPATH=. python benchmarks/bench_generalisation.py [--trace-dir ../shared/traces]
[--seeds 5] [--max-requests N] [--out DIR]

``--out`` also writes the long tables (a.csv, b.csv: every trace, measure and seed).
docs/generalisation.md has the table before and after issue 37's generator changes.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from skftl.traces import generalisation, load_trace, registry


def _names(trace_dir: Path) -> list[str]:
    return [e.name for e in registry.list_known() if registry.locate(e.name, [trace_dir])]


def _summary(frames: dict[str, pd.DataFrame], column: str) -> pd.Series:
    """Per measure: 'mean [min-max]' over seeds of the traces within target."""
    per_seed = pd.concat(
        {s: generalisation.within_target(t, column)["within"] for s, t in frames.items()}, axis=1
    )
    total = per_seed.sum()
    per_seed.loc["TOTAL"] = total
    return per_seed.apply(lambda r: f"{r.mean():.1f} [{r.min()}-{r.max()}]", axis=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace-dir", type=Path, default=Path("../shared/traces"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--max-requests", type=int, default=0, help="a prefix per trace (0: whole)")
    ap.add_argument("--out", type=Path, help="folder for the long tables")
    args = ap.parse_args()
    names = _names(args.trace_dir) if args.trace_dir.is_dir() else []
    if not names:  # `make bench` runs every benchmark: this one needs the real traces
        print(f"skipped: no registered trace found in {args.trace_dir}")
        return
    traces = {n: load_trace(n, trace_dirs=[args.trace_dir]) for n in names}
    print(f"{len(names)} traces, seeds 0-{args.seeds - 1}, load average {os.getloadavg()}")
    split, loo = {}, {}
    w = time.perf_counter()
    for seed in range(args.seeds):
        kw = {"max_requests": args.max_requests or None, "seed": seed}
        split[seed] = generalisation.run(generalisation.split_half, names, traces.get, **kw)
        loo[seed] = generalisation.run(generalisation.leave_one_out, names, traces.get, **kw)
        print(f"seed {seed} done, {time.perf_counter() - w:.0f} s")
    table = pd.DataFrame(
        {
            "(a) look-alike": _summary(split, "holds"),
            "(a) persistence": _summary(split, "persistence_holds"),
            "(b) look-alike": _summary(loo, "holds"),
        }
    )
    print(f"traces within target of {len(names)}, mean over seeds [min-max]:")
    print(table.to_string())
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for label, frames in (("a", split), ("b", loo)):
            long = pd.concat([t.assign(seed=s) for s, t in frames.items()], ignore_index=True)
            long.to_csv(args.out / f"{label}.csv", index=False)


if __name__ == "__main__":
    main()
