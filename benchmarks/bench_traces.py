"""Trace ingestion throughput: cold parse of an MSR-format file and cache loads.

    PYTHONPATH=. python benchmarks/bench_traces.py [--lines 10000000] [--gzip] [--dir DIR]

Writes a synthetic MSR Cambridge CSV (random offsets/sizes, increasing FILETIME stamps)
to a temporary folder, then runs each phase in its own process so each peak RSS
(ru_maxrss) is the phase's own. Rates are given per wall second and per CPU second
(user + system, all threads): on a shared machine the second is the steadier figure.

- parse: ``read_trace`` with the sha256 given (pure parse + conversion);
- cold load: ``load_trace`` on an empty cache (hash + parse + cache write);
- cache load: ``load_trace`` again (stat index + memory-mapped Arrow file), then one pass
  over every column (so the figure includes bringing the data in, not just mapping it).

Targets: >= 1 M lines/s cold, >= 20 M requests/s from the cache.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

_CHUNK = 1_000_000


def write_msr(path: Path, lines: int, gzip: bool, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    t0 = 128166385365934025
    kinds = pa.array(["Read", "Write"])
    host = pa.array(["web"])
    compression = "gzip" if gzip else None
    with pa.output_stream(path, compression=compression) as out:
        for start in range(0, lines, _CHUNK):
            n = min(_CHUNK, lines - start)
            t = t0 + np.cumsum(rng.integers(1, 20_000, n)) + start * 10_000
            table = pa.table(
                {
                    "t": t,
                    "h": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), host),
                    "d": np.zeros(n, np.int64),
                    "ty": pa.DictionaryArray.from_arrays(
                        (rng.random(n) < 0.4).astype(np.int32), kinds
                    ),
                    "o": rng.integers(0, 2**25, n) * 512,
                    "s": rng.integers(1, 129, n) * 512,
                    "r": rng.integers(1_000, 200_000, n),
                }
            )
            pacsv.write_csv(
                table,
                out,
                pacsv.WriteOptions(include_header=False, quoting_style="none"),
            )


def _phase(name: str, path: Path, cache_dir: Path, sha256: str) -> dict:
    from skftl.traces import load_trace, read_trace

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    if name == "parse":
        req = read_trace(path, "msr", sha256=sha256)
    else:
        req = load_trace(path, "msr", cache_dir=cache_dir)
        if name == "cached":  # touch every byte: a mapped file is otherwise read lazily
            _ = (
                req.time_ns.sum(),
                req.offset_bytes.sum(),
                req.size_bytes.sum(),
                req.is_write.sum(),
            )
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu0
    peak_mib = usage.ru_maxrss / 1024
    return {"n": len(req), "seconds": seconds, "cpu_seconds": cpu, "peak_rss_mib": peak_mib}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--gzip", action="store_true", help="gzip the generated file")
    ap.add_argument("--dir", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    ap.add_argument("--cache-dir", help=argparse.SUPPRESS)
    ap.add_argument("--sha256", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:  # child process
        print(json.dumps(_phase(args.phase, Path(args.path), Path(args.cache_dir), args.sha256)))
        return

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / ("msr.csv.gz" if args.gzip else "msr.csv")
        start = time.perf_counter()
        write_msr(path, args.lines, args.gzip)
        print(
            f"generated {args.lines:,} MSR lines ({path.stat().st_size / 2**20:,.0f} MiB"
            f"{', gzip' if args.gzip else ''}) in {time.perf_counter() - start:.1f} s"
        )
        from skftl.traces.textio import file_digest

        start = time.perf_counter()
        sha = file_digest(path)
        hash_s = time.perf_counter() - start
        print(f"sha256 of the file: {path.stat().st_size / 2**20 / hash_s:,.0f} MiB/s")
        cache_dir = Path(tmp) / "cache"
        for phase, label, unit in [
            ("parse", "cold parse (read_trace)", "lines"),
            ("cold", "cold load (hash+parse+cache)", "lines"),
            ("cached", "cache load (load_trace)", "requests"),
        ]:
            cmd = [sys.executable, __file__, "--phase", phase, "--path", str(path)]
            cmd += ["--cache-dir", str(cache_dir), "--sha256", sha]
            res = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
            assert res["n"] == args.lines, res
            rate = res["n"] / res["seconds"] / 1e6
            cpu_rate = res["n"] / res["cpu_seconds"] / 1e6
            print(
                f"{label:<30} {rate:7.2f} M {unit}/s wall ({res['seconds']:.2f} s), "
                f"{cpu_rate:7.2f} M/s per CPU-second, peak RSS {res['peak_rss_mib']:,.0f} MiB"
            )


if __name__ == "__main__":
    main()
