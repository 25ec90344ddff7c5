"""Time of the explore panels' redraws (issue #40 item 1: target <= 3 s edit-to-figure).

Run: PYTHONPATH=. python benchmarks/bench_explore.py [--studies lpmt ...] [--cold] [--config ...]

Each study in its own child process: the first draw (imports, the small input loaded, the
kernels loaded from Numba's cache, or compiled with ``--cold``: an empty temporary
``NUMBA_CACHE_DIR``, the study's kernels' cold compile), then each knob change of
``CHANGES`` in turn (compute + draw to PNG, the work a panel does per change; a first value
of a knob may load or build an input, which the table shows). The browser adds the widget
round trip: ``tests/test_explore_browser.py`` measures edit-to-figure in JupyterLab.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# knob changes per study, each applied on top of the previous
CHANGES = {
    "lpmt": [{"n_banks": 8}, {"n_banks": 4}, {"placement": "set_per_bank"}, {"hash": "xxhash"},
             {"workload": "MSR"}, {"n_banks": 8}],
    "mtpm": [{"alpha": 6}, {"alpha": 4}, {"tg": 3}, {"scheme": "MTPM"}, {"mix": "R100"},
             {"alpha": 2}],
    "ppb": [{"speed_ratio": 4.0}, {"speed_ratio": 2.0}, {"page_size": 8192},
            {"speed_ratio": 3.0}, {"setup": "none"}, {"speed_ratio": 5.0}],
    "bnvm": [{"n_chips": 8}, {"n_chips": 4}, {"trace": "C"}, {"n_chips": 8},
             {"t_refresh_ms": 1.0}, {"grouping": "stream"}],
}  # fmt: skip

CHILD = """
import json, sys, time
t0 = time.perf_counter()
from skftl.config import load_config
from skftl.explore import explore_module, png_bytes
study, config, changes = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
cfg = load_config(config)
mod = explore_module(study)
values = mod.defaults(cfg)
png_bytes(mod.figure(mod.compute(cfg, **values)))
rows = [{"change": "first draw", "seconds": time.perf_counter() - t0}]
for change in changes:
    values = {**values, **change}
    t = time.perf_counter()
    result = mod.compute(cfg, **values)
    t1 = time.perf_counter()
    png_bytes(mod.figure(result))
    rows.append({"change": change, "compute": t1 - t, "seconds": time.perf_counter() - t})
print("ROWS " + json.dumps(rows))
"""


def run_child(study: str, config: Path, env: dict[str, str]) -> list[dict]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, study, str(config), json.dumps(CHANGES[study])],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    line = next(x for x in out.stdout.splitlines() if x.startswith("ROWS "))
    return json.loads(line[len("ROWS ") :])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--studies", nargs="+", choices=list(CHANGES), default=list(CHANGES))
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--cold", action="store_true", help="empty Numba cache: time the compile")
    args = ap.parse_args()
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryDirectory(prefix="skftl_explore_") as tmp:
        env = {**os.environ, "PYTHONPATH": path}
        if args.cold:
            env["NUMBA_CACHE_DIR"] = tmp
        print(f"explore panels, {args.config.name}, Numba cache {'cold' if args.cold else 'warm'}"
              f", load {os.getloadavg()[0]:.2f}")  # fmt: skip
        for study in args.studies:
            rows = run_child(study, args.config, env)
            print(f"{study}: first draw {rows[0]['seconds']:.2f} s (new process)")
            for r in rows[1:]:
                print(f"  {json.dumps(r['change'])}: {r['seconds']:.2f} s "
                      f"(compute {r['compute']:.2f} s)")  # fmt: skip
            later = [r["seconds"] for r in rows[1:]]
            print(f"  redraws: median {sorted(later)[len(later) // 2]:.2f} s, "
                  f"max {max(later):.2f} s")  # fmt: skip
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
