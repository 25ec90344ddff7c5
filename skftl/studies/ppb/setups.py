"""Preconditioning set-ups of the `ppb` study. The paper says nothing about the
state of the drive before a trace, so each choice is run and reported side by side:

- ``none``: a fresh drive; reads of pages the trace never wrote find nothing to read and
  are not timed (only reads of data the trace wrote are);
- ``fill``: every logical page written once in a seeded random order (data already on the
  drive), then ``age_passes`` x the logical size of random overwrites;
- ``footprint``: only the pages the trace touches, written once in a seeded random order;
- ``warmup``: ``footprint``, then one unmeasured replay of the trace (PPB's hotness lists
  and placement have seen the trace once);
- ``aged``: a small drive (``preconditioning.aged``: logical size = ``headroom`` x the
  trace's footprint, its own spare factor and chip count) filled whole in random order,
  then ``passes`` unmeasured replays of the trace: GC runs steadily, so the GC-driven
  progression of Sec. 3.1 ("gradually move data ... during garbage collection or data
  update") shows.

The measured replay always starts with idle chips and its own counters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from skftl.errors import ConfigError
from skftl.nand import Ftl
from skftl.studies.ppb.measures import distinct
from skftl.traces import expand_to_pages
from skftl.traces.requests import Requests

__all__ = ["SETUPS", "DEFAULT_SETUP", "TRACE_SETUPS", "setup_settings", "aged_section", "prepare"]

SETUPS = ("none", "fill", "footprint", "warmup", "aged")
# the scorecard's headline set-up (argued in the notebook from Fig. 18: erases were counted
# during the traces, so GC ran, so the drive was not empty); every other one is reported
# beside it under its own readings
DEFAULT_SETUP = "fill"
# set-ups whose preconditioned state depends on the trace (one state per trace)
TRACE_SETUPS = ("footprint", "warmup", "aged")


def setup_settings(section: dict[str, Any]) -> dict[str, Any]:
    """``ppb.preconditioning`` checked: ``setups`` (a list including ``fill``, the
    default), ``fill_seeds`` (>= 1), ``aged`` (headroom > 1, spare_factor, passes >= 1,
    chips)."""
    p = dict(section.get("preconditioning") or {})
    setups = list(p.get("setups", ["fill"]))
    bad = [s for s in setups if s not in SETUPS]
    if bad or not setups:
        raise ConfigError(
            f"ppb.preconditioning.setups: {bad or setups!r} not a list of {', '.join(SETUPS)}"
        )
    if DEFAULT_SETUP not in setups:
        raise ConfigError(
            f"ppb.preconditioning.setups: {setups!r} lacks {DEFAULT_SETUP!r}, the default set-up"
        )
    seeds = int(p.get("fill_seeds", 1))
    if seeds < 1:
        raise ConfigError(f"ppb.preconditioning.fill_seeds must be >= 1, got {seeds}")
    aged = dict(p.get("aged") or {})
    if "aged" in setups:
        if float(aged.get("headroom", 0)) <= 1.0:
            raise ConfigError(
                f"ppb.preconditioning.aged.headroom must exceed 1, got {aged.get('headroom')!r}"
            )
        if int(aged.get("passes", 0)) < 1:
            raise ConfigError(
                f"ppb.preconditioning.aged.passes must be >= 1, got {aged.get('passes')!r}"
            )
    return {"setups": setups, "fill_seeds": seeds, "aged": aged}


def aged_section(
    section: dict[str, Any], footprint_pages: int, page_size: int, pages_per_block: int
) -> dict[str, Any]:
    """The study section for the aged set-up's small drive, for a trace of
    ``footprint_pages`` distinct pages: logical size ``headroom`` x the footprint, physical
    size that / (1 - ``spare_factor``) plus the FTL's free-block reserve per chip (GC
    watermark and open blocks), so even a tiny footprint gets a drive that can run GC."""
    aged = setup_settings(section)["aged"]
    chips = int(aged["channels"]) * int(aged["chips_per_channel"])
    logical = int(np.ceil(float(aged["headroom"]) * footprint_pages))
    streams = 4  # make_ftl's write streams
    reserve = max(
        int(section["ftl"]["gc_high_blocks"]), 5, 2 * int(section["policy"]["max_open"]) + 1
    )
    per_chip = logical / (1.0 - float(aged["spare_factor"])) / (chips * pages_per_block)
    blocks = int(np.ceil(per_chip)) + reserve + streams + 1
    physical = blocks * chips * pages_per_block
    device = {
        **section["device"],
        "channels": int(aged["channels"]),
        "chips_per_channel": int(aged["chips_per_channel"]),
        "capacity_gib": physical * page_size / 2**30,
    }
    # the spare factor that leaves exactly ``logical`` pages (rounded down by the FTL)
    spare = 1.0 - (logical + 0.5) / physical
    return {**section, "device": device, "ftl": {**section["ftl"], "spare_factor": spare}}


def _write_footprint(ftl: Ftl, req: Requests, seed: int) -> None:
    lpn = distinct(expand_to_pages(req, ftl.geometry.page_size).lpn % ftl.n_lpn)
    np.random.default_rng(seed).shuffle(lpn)
    ftl.run_pages(lpn.astype(np.int32), np.ones(len(lpn), np.int8))


def prepare(
    ftl: Ftl,
    setup: str,
    section: dict[str, Any],
    seed: int,
    req: Requests | None = None,
    stream: np.ndarray | None = None,
    replay_pass: Callable[[Ftl, int], None] | None = None,
) -> None:
    """Bring a fresh ``ftl`` into the state ``setup`` measures from (``req``, the mapped
    trace, and its first-stage ``stream`` for the set-ups that depend on the trace).
    ``replay_pass(ftl, k)``, when given, runs the ``k``-th unmeasured replay of the trace
    instead of a plain replay (to record how the aged drive progresses pass by pass); it
    must leave ``ftl.state`` as the replay left it."""
    if setup == "fill":
        ftl.fill(seed=seed)
        k = int(float(section["age_passes"]) * ftl.n_lpn)
        if k:
            lpn = np.random.default_rng(seed + 1).integers(0, ftl.n_lpn, k).astype(np.int32)
            ftl.run_pages(lpn, np.ones(k, np.int8))
    elif setup in TRACE_SETUPS:
        if req is None:
            raise ValueError(f"set-up {setup} needs the trace")
        if setup == "aged":
            ftl.fill(seed=seed)  # the small drive full: no unwritten page acts as spare
            passes = int(setup_settings(section)["aged"]["passes"])
        else:
            _write_footprint(ftl, req, seed)
            passes = {"footprint": 0, "warmup": 1}[setup]
        for k in range(passes):
            ftl.reset_timelines()
            if replay_pass is None:
                ftl.replay(req, stream=stream, wrap=True)
            else:
                replay_pass(ftl, k)
    elif setup != "none":
        raise ConfigError(f"ppb: unknown preconditioning set-up {setup!r}; known: {SETUPS}")
    ftl.reset_timelines()
