"""Claims of the `ftl` study: Desnoyers' analytic model of greedy garbage collection
(SYSTOR'12), which the NAND/FTL kernel must reproduce under its own workload (uniform random
single-page overwrites of a full device, workload kind ``same``).

- Eq. 12 at every (pages per block, spare factor) of the default sweep: the model's WAF is the
  "paper" number (computed from the formula, not typed in), ours the simulated WAF.
- The model's directions: WAF falls as the spare factor grows, and greedy cleaning writes less
  than LRU/FIFO cleaning (Eq. 4) at the same spare factor.
"""

from __future__ import annotations

import xarray as xr

from skftl.nand.analytic import waf_greedy, waf_lru
from skftl.studies.claims import Claim, Order, Readings, Relation, Value, sel, var

# the default sweep of config/config.yaml (ftl.waf); a run without a point says "not evaluated"
PAGES_PER_BLOCK = (64, 256)
SPARE_FACTORS = (0.05, 0.07, 0.10, 0.15, 0.20, 0.30)

READINGS = Readings(
    options={
        "reserve_inside": "the spare factor counts every spare page, the GC's reserved free "
        "blocks and the open block included (Desnoyers adds the reserve on top)",
    },
    default="reserve_inside",
)


def _measured(ds: xr.Dataset, ppb: int, sf: float) -> float:
    m = sel(var(ds, "waf_measured"), gc_policy="greedy", pages_per_block=ppb)
    # spare factors are floats: match to the sweep's own value
    match = [float(x) for x in m["spare_factor"].values if abs(float(x) - sf) < 1e-9]
    return float(sel(m, spare_factor=match or [sf]).squeeze())


def _eq12(ppb: int, sf: float) -> Claim:
    return Claim(
        id=f"eq12.np{ppb}.sf{sf:.2f}",
        where="Desnoyers SYSTOR'12, Eq. 12",
        statement=f"greedy GC write amplification, Np = {ppb}, Sf = {sf:.2f}",
        paper=Value(value=round(waf_greedy(sf, ppb), 4)),
        ours=lambda ds, reading: _measured(ds, ppb, sf),
        workload="same",
        basis="prediction",
        readings=("reserve_inside",),
        note="the simulator keeps its GC reserve inside the spare factor, so it sits a little "
        "above the model where blocks are big and spare is small",
    )


def _falls(ppb: int) -> Claim:
    keys = tuple(f"Sf={sf:.2f}" for sf in reversed(SPARE_FACTORS))
    return Claim(
        id=f"eq12.np{ppb}.falls_with_spare",
        where="Desnoyers SYSTOR'12, Eq. 12 / Fig. 6",
        statement=f"Np = {ppb}: the more spare, the less write amplification",
        paper=Order(keys=keys),
        ours=lambda ds, reading: {
            f"Sf={sf:.2f}": _measured(ds, ppb, sf) for sf in reversed(SPARE_FACTORS)
        },
        workload="same",
        basis="prediction",
    )


def _below_lru(ppb: int, sf: float) -> Claim:
    return Claim(
        id=f"eq12.np{ppb}.sf{sf:.2f}.greedy_below_lru",
        where="Desnoyers SYSTOR'12, Eqs. 4 and 12",
        statement=f"Np = {ppb}, Sf = {sf:.2f}: greedy cleaning writes less than LRU (FIFO)",
        paper=Relation(op="<", ref=1.0, unit="(greedy / LRU WAF)"),
        ours=lambda ds, reading: _measured(ds, ppb, sf) / waf_lru(sf),
        workload="same",
        basis="prediction",
    )


CLAIMS: tuple[Claim, ...] = (
    *(_eq12(ppb, sf) for ppb in PAGES_PER_BLOCK for sf in SPARE_FACTORS),
    *(_falls(ppb) for ppb in PAGES_PER_BLOCK),
    *(
        _below_lru(ppb, sf)
        for ppb in PAGES_PER_BLOCK
        for sf in (SPARE_FACTORS[0], SPARE_FACTORS[-1])
    ),
)
