"""Cold compile time of every Numba kernel of the package.

Run: PYTHONPATH=. python benchmarks/bench_compile.py [--studies ftl ppb ...] [--config ...]

Each study runs at tiny scale (``config/tiny.yaml``) in its own child process against one
empty temporary ``NUMBA_CACHE_DIR`` shared by the children in turn, so a kernel two studies
use is compiled (and counted) once, by the first. Inside each child, Numba's own
``numba:compile`` events, which fire on cache misses only, are timed (wall and CPU of the
outermost event: a kernel's compile includes the helpers it compiles on the way). Prints each
kernel's cold compile seconds, the sum per kernel module and the total, beside each child's
whole wall and CPU time (compile + the tiny run + imports). CPU-heavy: run it alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# the kernel families: the nand replay kernel (ftl), PPB's hotness filter and page placement
# (ppb), the SK-RM cost model (skrm), the MTPM power-token simulator (mtpm), the BNVM PCM
# device (bnvm) and the LPMT DRAM table (lpmt)
STUDIES = ("ftl", "ppb", "skrm", "mtpm", "bnvm", "lpmt")
# CPU seconds, cold cache: every kernel of every study together, and one FTL policy's replay
# kernel (what a researcher waits for after editing a policy)
TARGET_ALL_S, TARGET_POLICY_S = 150.0, 30.0

# runs in the child: time Numba's compile events around a tiny study run, print them as JSON
CHILD = """
import json, sys, time
from numba.core import event
from skftl.numba_cache import VARIANT_KEY

class Timer(event.Listener):
    def __init__(self):
        self.depth, self.open, self.done = 0, None, []

    def on_start(self, ev):
        if self.depth == 0:
            d = ev.data["dispatcher"]
            name = f"{d.py_func.__module__}:{d.py_func.__qualname__}"
            variant = d.py_func.__globals__.get(VARIANT_KEY)
            if variant:
                name += f" [{variant[:24]}]"
            self.open = (name, time.perf_counter(), time.process_time())
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            name, w, c = self.open
            self.done.append((name, time.perf_counter() - w, time.process_time() - c))

timer = Timer()
event.register("numba:compile", timer)
import skftl.cli
code = skftl.cli.main(["--config", sys.argv[1], "run", sys.argv[2], "--out", sys.argv[3]])
print("COMPILES " + json.dumps(timer.done))
sys.exit(code)
"""


def compile_child(study: str, config: Path, cache: Path, out: Path) -> tuple[list, float, float]:
    """(compile events [(kernel, wall s, CPU s)], child wall s, child CPU s) of one study."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    w = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(config), study, str(out)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    stdout = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)  # this child's own rusage
    wall = time.perf_counter() - w
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, study, stdout)
    line = next(x for x in stdout.splitlines() if x.startswith("COMPILES "))
    return json.loads(line[len("COMPILES ") :]), wall, ru.ru_utime + ru.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--studies", nargs="+", choices=STUDIES, default=list(STUDIES))
    ap.add_argument("--config", type=Path, default=REPO / "config" / "tiny.yaml")
    args = ap.parse_args()
    per_module: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    with tempfile.TemporaryDirectory(prefix="skftl_compile_") as tmp:
        cache = Path(tmp) / "numba"
        cache.mkdir()
        print(f"cold compile, empty NUMBA_CACHE_DIR, tiny-scale study runs ({args.config.name})")
        for study in args.studies:
            events, wall, cpu = compile_child(study, args.config, cache, Path(tmp) / study)
            print(
                f"{study}: child process {wall:.1f} s wall, {cpu:.1f} s CPU; "
                f"{len(events)} kernels compiled"
            )
            for name, w, c in events:
                print(f"  {name}: {w:.1f} s wall, {c:.1f} s CPU")
                acc = per_module[name.split(":", 1)[0]]
                acc[0] += w
                acc[1] += c
    print("per kernel module (each kernel counted once, by the first study that compiles it):")
    for module, (w, c) in sorted(per_module.items(), key=lambda kv: -kv[1][1]):
        print(f"  {module}: {w:.1f} s wall, {c:.1f} s CPU")
    total_w = sum(w for w, _ in per_module.values())
    total_c = sum(c for _, c in per_module.values())
    print(
        f"total cold compile: {total_w:.1f} s wall, {total_c:.1f} s CPU "
        f"(target: <= {TARGET_ALL_S:.0f} s; each policy's replay kernel <= {TARGET_POLICY_S:.0f} s)"
    )


if __name__ == "__main__":
    main()
