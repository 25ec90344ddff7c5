"""Synthetic NAND-operation traces of the MTPM paper (R0, R25, R50, R75, R100).

What the paper says (../shared/papers/mtpm_multi-token-power-management.md,
Sec. IV-A): "We use a synthetic trace because power violation occurs when chips
process the burst operations. A trace consists of 5000 operations and one erase is
inserted every 500 program operations. We vary the ratio of reads and programs ...
with the interval of 25 % from 0 %, which generates 5 traces (R0 ... R100)." The
device is 1 channel x 8 ways (Table IV); the NAND controller "delivers commands to
each chip according to the address"; both LSB and MSB programs are modelled; and
(Sec. III-F) "the FTL distributes operations evenly through channel interleaving".

What it does not say, and what we chose (all parameters of :func:`mtpm_ops`):

* The 5000 operations are reads and programs (``read_pct`` % reads, exact count, in
  a seeded random order); erases are *inserted* after every ``erase_every``-th
  program, so R0 has 5000 + 10 operations and R100 has no erase.
* Chips: operations are interleaved round-robin over the ``n_chips`` chips in trace
  order (operation i goes to chip i mod n_chips), the even distribution the paper
  attributes to the FTL.
* Page type: each chip's programs alternate LSB, MSB, LSB, ... (2-bit MLC programs
  a word line's LSB page before its MSB page; half the programs are of each type).
* Arrivals: operations arrive in bursts of ``burst_size`` (default one per chip)
  every ``burst_gap_ns``; the default gap 0 issues every operation at t = 0, i.e. a
  saturated backlog -- the paper reports throughput, so the device is never idle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError

READ, PROGRAM, ERASE = 0, 1, 2
LSB, MSB, NO_PAGE = 0, 1, -1

# Trace name -> read percentage (MTPM paper, Sec. IV-A).
MTPM_TRACES: dict[str, int] = {"R0": 0, "R25": 25, "R50": 50, "R75": 75, "R100": 100}


@dataclass(frozen=True)
class NandOps:
    """One row per NAND operation, in issue order (structure of arrays)."""

    kind: np.ndarray  # int8: READ, PROGRAM or ERASE
    chip: np.ndarray  # int16 target chip
    page_type: np.ndarray  # int8: LSB or MSB for programs, NO_PAGE otherwise
    arrival_ns: np.ndarray  # int64 arrival time
    name: str = ""

    def __len__(self) -> int:
        return len(self.kind)

    def count(self, kind: int) -> int:
        return int(np.count_nonzero(self.kind == kind))


def mtpm_ops(
    read_pct: int,
    n_ops: int = 5000,
    erase_every: int = 500,
    n_chips: int = 8,
    seed: int = 0,
    burst_size: int | None = None,
    burst_gap_ns: int = 0,
) -> NandOps:
    """The MTPM synthetic trace ``R<read_pct>`` (see the module docstring for the
    choices the paper leaves open)."""
    if not 0 <= read_pct <= 100:
        raise ConfigError(f"read_pct must be in 0..100, got {read_pct}")
    if n_ops < 0 or erase_every <= 0 or n_chips <= 0 or burst_gap_ns < 0:
        raise ConfigError(
            f"need n_ops >= 0, erase_every > 0, n_chips > 0, burst_gap_ns >= 0 "
            f"(got {n_ops}, {erase_every}, {n_chips}, {burst_gap_ns})"
        )
    burst = n_chips if burst_size is None else burst_size
    if burst <= 0:
        raise ConfigError(f"burst_size must be positive, got {burst}")
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(read_pct)])
    n_reads = round(n_ops * read_pct / 100)
    kind = np.full(n_ops, PROGRAM, dtype=np.int8)
    kind[rng.choice(n_ops, size=n_reads, replace=False)] = READ
    program_no = np.cumsum(kind == PROGRAM)
    after = np.flatnonzero((kind == PROGRAM) & (program_no % erase_every == 0))
    kind = np.insert(kind, after + 1, np.int8(ERASE))
    n = len(kind)
    chip = (np.arange(n) % n_chips).astype(np.int16)
    page_type = np.full(n, NO_PAGE, dtype=np.int8)
    for c in range(n_chips):  # per chip: k-th program is LSB for even k, MSB for odd k
        progs = np.flatnonzero((chip == c) & (kind == PROGRAM))
        page_type[progs] = np.arange(len(progs)) % 2
    arrival = (np.arange(n, dtype=np.int64) // burst) * int(burst_gap_ns)
    return NandOps(kind, chip, page_type, arrival, name=f"R{read_pct}")


def mtpm_trace(name: str, **kwargs: int) -> NandOps:
    """``mtpm_trace("R50")`` = ``mtpm_ops(50, ...)``."""
    if name not in MTPM_TRACES:
        raise ConfigError(f"unknown MTPM trace {name!r}; known: {', '.join(MTPM_TRACES)}")
    return mtpm_ops(MTPM_TRACES[name], **kwargs)
