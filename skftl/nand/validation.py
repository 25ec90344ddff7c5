"""Steady-state write amplification under uniform random single-page overwrites of a full
device: the experiment behind Desnoyers' model (``skftl.nand.analytic``)."""

from __future__ import annotations

import numpy as np

from skftl.nand.analytic import waf_greedy, waf_lru
from skftl.nand.ftl import Ftl, FtlConfig
from skftl.nand.geometry import Geometry
from skftl.nand.timing import Timing

# timing does not affect write amplification
_NO_TIME = Timing(0, 0, 0, 1.0)


def uniform_waf(
    spare_factor: float,
    pages_per_block: int,
    n_blocks: int,
    *,
    seed: int,
    warmup_passes: float = 3.0,
    measure_passes: float = 2.0,
    gc_policy: str = "greedy",
    gc_low_blocks: int = 2,
    gc_high_blocks: int = 2,
) -> dict[str, float]:
    """Fill a one-chip device of ``n_blocks`` blocks in random order, overwrite uniformly at
    random for ``warmup_passes`` x the logical pages, then measure WAF over
    ``measure_passes`` x the logical pages. Returns measured and analytic WAF; the spare
    factor is (physical - logical) / physical, the free-block reserve included in it."""
    geo = Geometry(1, 1, 1, n_blocks, pages_per_block, 4096)
    cfg = FtlConfig(
        spare_factor=spare_factor,
        gc_policy=gc_policy,
        gc_low_blocks=gc_low_blocks,
        gc_high_blocks=gc_high_blocks,
    )
    ftl = Ftl(geo, _NO_TIME, cfg)
    rng = np.random.default_rng(seed)
    ftl.fill(seed=int(rng.integers(2**31)))
    n = ftl.n_lpn

    def overwrite(passes: float) -> dict[str, int]:
        k = int(passes * n)
        before = ftl.counters()
        ftl.run_pages(rng.integers(0, n, k, dtype=np.int32), np.ones(k, np.int8))
        after = ftl.counters()
        return {key: after[key] - before[key] for key in ("host_writes", "gc_copies")}

    overwrite(warmup_passes)
    d = overwrite(measure_passes)
    measured = (d["host_writes"] + d["gc_copies"]) / d["host_writes"]
    return {
        "measured": measured,
        "analytic_greedy": waf_greedy(spare_factor, pages_per_block),
        "analytic_lru": waf_lru(spare_factor),
        "logical_pages": n,
    }
