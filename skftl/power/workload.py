"""NAND operation streams for the power study: the paper's synthetic R0-R100 traces
(``skftl.traces.nand_ops``) and block traces mapped onto chips by address."""

from __future__ import annotations

import numpy as np

from skftl.power.device import OP_ERASE, OP_PROGRAM, OP_READ
from skftl.power.sim import OpStream
from skftl.traces.nand_ops import MSB, NandOps
from skftl.traces.pages import expand_to_pages
from skftl.traces.requests import Requests


def from_nand_ops(ops: NandOps) -> OpStream:
    """Adapt a ``skftl.traces.nand_ops`` trace."""
    return OpStream(
        ops.kind, ops.chip, (ops.page_type == MSB).astype(np.int64), ops.arrival_ns, ops.name
    )


def ops_from_requests(
    req: Requests,
    *,
    n_chips: int,
    page_size: int,
    n_ops: int,
    erase_every: int,
    time_scale: float = 0.0,
    label: str = "",
) -> OpStream:
    """Map block requests to NAND operations the way the paper's controller does ("delivers
    commands to each chip according to the address"): every logical page a request touches
    is one read or program on chip ``lpn mod n_chips`` (page interleaving, no FTL). Each
    chip's programs alternate LSB / MSB pages; one erase follows every ``erase_every``-th
    program (as in the synthetic traces; without an FTL there is no real GC). Arrival is
    the request time times ``time_scale``; 0 issues everything at t = 0 (a saturated
    backlog, so throughput measures the device, as for the synthetic traces). The first
    ``n_ops`` page operations are used."""
    pages = expand_to_pages(req, page_size)
    n = min(n_ops, len(pages))
    lpn = pages.lpn[:n]
    kind = np.where(pages.is_write[:n], OP_PROGRAM, OP_READ).astype(np.int64)
    chip = (lpn % n_chips).astype(np.int64)
    t = pages.time_ns[:n]
    t = np.maximum.accumulate(t) if n else t
    arrival = np.round((t - (t[0] if n else 0)) * time_scale).astype(np.int64)
    # erases after every erase_every-th program, on that program's chip
    prog_no = np.cumsum(kind == OP_PROGRAM)
    after = np.flatnonzero((kind == OP_PROGRAM) & (prog_no % erase_every == 0))
    kind = np.insert(kind, after + 1, OP_ERASE)
    chip = np.insert(chip, after + 1, chip[after])
    arrival = np.insert(arrival, after + 1, arrival[after])
    msb = np.zeros(len(kind), np.int64)
    for c in range(n_chips):
        progs = np.flatnonzero((chip == c) & (kind == OP_PROGRAM))
        msb[progs] = np.arange(len(progs)) % 2
    return OpStream(kind, chip, msb, arrival, label or req.meta.label)
