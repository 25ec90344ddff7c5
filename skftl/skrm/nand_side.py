"""The NAND side of the study: the page-mapped FTL with the conventional or the SK-aware
allocator, replaying a trace while its mapping-update log feeds SK-RM cost models."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from skftl.nand import Ftl, FtlConfig, Geometry, RunResult, Timing, resolve_nand
from skftl.nand.ftl import log_reserve
from skftl.nand.policies_skftl import block_bits, list_width, skftl_pstate
from skftl.skrm.model import CostModel
from skftl.traces.requests import Requests

LOG_CAPACITY = 1 << 18  # mapping updates buffered between drains into the cost models
LIST_WIDE = "list"  # open_per_class: every block of a chip's popcount list in the rotation


def make_ftl(
    nand: dict,
    ftl: dict,
    *,
    sk_allocator: bool,
    open_per_class: int | str = LIST_WIDE,
    first_write: str = "largest",
    rows: str = "lockstep",
) -> Ftl:
    """An FTL from ``nand``/``ftl`` config sections with the mapping-update log enabled;
    ``sk_allocator`` switches to SK-FTL's popcount-class free lists and horizontal
    allocation over ``open_per_class`` open blocks per (chip, class) under row rule
    ``rows`` (``"list"``: the whole list, leaving the GC high watermark's free blocks to
    GC); ``first_write`` places writes of unmapped pages (``skftl.nand.policies_skftl``)."""
    nand = resolve_nand(nand)
    geo = Geometry.from_config(nand)
    timing = Timing.from_config(nand)
    cfg = FtlConfig.from_config(ftl)
    pstate = None
    if sk_allocator:
        cfg = replace(cfg, policy="sk-ftl", n_free_lists=block_bits(geo.n_blocks) + 1)
        if open_per_class == LIST_WIDE:
            width, reserve = list_width(geo.n_chips, geo.n_blocks), cfg.gc_high_blocks
        else:
            width, reserve = int(open_per_class), 0
        pstate = skftl_pstate(geo.n_chips, geo.n_blocks, width, first_write, rows, reserve)
    # room for a few of the largest GC bursts between drains
    capacity = max(LOG_CAPACITY, 4 * log_reserve(geo))
    return Ftl(geo, timing, cfg, log_capacity=capacity, pstate=pstate)


def replay_costed(
    ftl: Ftl,
    requests: Requests,
    models: Sequence[CostModel],
    *,
    wrap: bool = True,
    progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Replay ``requests``; every mapping update (host write, GC copy, trim) goes through
    each cost model in order."""

    def sink(lpn, old, new, kind) -> None:
        for m in models:
            m.update(lpn, old, new)

    return ftl.replay(requests, wrap=wrap, on_log=sink, progress=progress)
