"""NAND operation streams for the power study: the paper's synthetic R0-R100 traces
(``skftl.traces.nand_ops``), block traces mapped onto chips by address, and the flash
operations the FTL kernel (``skftl.nand``) issues for a block trace, GC included."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError
from skftl.nand import Ftl, core
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


@dataclass(frozen=True)
class FtlStreamInfo:
    """Where an FTL-produced operation stream's operations came from."""

    host_reads: int
    host_programs: int
    gc_reads: int
    gc_programs: int
    erases: int
    host_requests: int  # requests replayed to produce the stream
    # programs of a policy's migrations (origin ORIGIN_MIGRATE: after a host read, no read
    # of their own); the conventional FTL never migrates
    migration_programs: int = 0

    @property
    def gc_fraction(self) -> float:
        n = self.host_reads + self.host_programs + self.gc_reads + self.gc_programs + self.erases
        n += self.migration_programs
        return (self.gc_reads + self.gc_programs + self.erases) / n if n else 0.0


def ops_from_ftl(
    req: Requests,
    ftl: Ftl,
    *,
    n_ops: int,
    time_scale: float = 0.0,
    label: str = "",
) -> tuple[OpStream, FtlStreamInfo]:
    """The flash operations the FTL kernel issues for ``req`` (host reads and programs, GC
    copies as read + program, erases), as the power simulator's stream: the first ``n_ops``
    of them after whatever ``ftl`` did before (e.g. preconditioning). Addresses are folded
    into the FTL's logical space. Odd pages of a block are MSB pages (2-bit MLC pairing, as
    ``skftl.nand.timing``'s ``lsb_msb``). FTL chip ``c`` sits on channel ``c mod channels``;
    it becomes power-model chip ``channel * ways + way`` (chips grouped by channel).
    Arrival = issue time (the host request's arrival; GC operations that of the write that
    triggered them) x ``time_scale``; 0 issues everything at t = 0 (a saturated backlog).
    ``ftl`` needs a flash-operation log (``flash_log_capacity`` > 0)."""
    if ftl.state.prm[core.P_FLOG_CAP] == 0:
        raise ConfigError("ops_from_ftl needs an Ftl with flash_log_capacity > 0")
    parts: list[list[np.ndarray]] = []
    got = 0

    def sink(chip, kind, page, t, origin) -> None:
        nonlocal got
        if got < n_ops:
            k = min(len(chip), n_ops - got)
            parts.append([np.array(x[:k], np.int64) for x in (chip, kind, page, t, origin)])
            got += k

    # replay requests in slices until enough operations were issued (reads of unwritten
    # pages and trims issue none, so the count per request is not known in advance)
    n_req = 0
    step = max(1, n_ops // 4)
    while got < n_ops and n_req < len(req):
        part = req[n_req : min(len(req), n_req + step)]
        ftl.replay(part, wrap=True, on_flash=sink)
        n_req += len(part)
    if not parts:
        raise ConfigError(f"trace {req.meta.label!r} issued no flash operations")
    chip, kind, page, t, origin = (np.concatenate(x) for x in zip(*parts, strict=True))
    geo = ftl.geometry
    chip = (chip % geo.channels) * geo.chips_per_channel + chip // geo.channels
    power_kind = np.select(
        [kind == core.FLASH_READ, kind == core.FLASH_PROGRAM], [OP_READ, OP_PROGRAM], OP_ERASE
    )
    msb = ((kind == core.FLASH_PROGRAM) & (page % 2 == 1)).astype(np.int64)
    t = np.maximum.accumulate(t)  # slices of an out-of-order trace restart their clock
    arrival = np.round((t - t[0]) * time_scale).astype(np.int64)
    host, gc = origin == core.ORIGIN_HOST, origin == core.ORIGIN_GC
    info = FtlStreamInfo(
        host_reads=int(((kind == core.FLASH_READ) & host).sum()),
        host_programs=int(((kind == core.FLASH_PROGRAM) & host).sum()),
        gc_reads=int(((kind == core.FLASH_READ) & gc).sum()),
        gc_programs=int(((kind == core.FLASH_PROGRAM) & gc).sum()),
        erases=int((kind == core.FLASH_ERASE).sum()),
        host_requests=n_req,
        migration_programs=int((origin == core.ORIGIN_MIGRATE).sum()),
    )
    return OpStream(power_kind, chip, msb, arrival, label or req.meta.label), info
