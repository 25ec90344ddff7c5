"""Can this model class produce Fig. 2's split (dynamic faster on A-B, static on C-F)?

Static and dynamic page mapping write the same pages, clean or dirty alike (updates go in
place), so they differ only in the chip a *first* write takes, and through it in how later
updates of that page group into rounds. A constructed workload shows both directions:

* first writes: ``streams`` files appended concurrently, ``first_pages`` contiguous pages per
  request, requests taking turns over the files and arriving faster than the device writes
  (a queue forms). The files start on chip 0, so consecutive requests of different files
  collide under static striping; dynamic fills the idle chips. Dynamic saves clean rounds
  (the paper's trace A/B mechanism: more parallelism for new data).
* rewrites: each file rewritten front to back in requests of ``rewrite_pages`` pages, one
  file after the other. Static spreads them over every chip; dynamic placed each file's
  pages only on the chips its turns found idle, so the rewrites crowd onto fewer chips and
  make more dirty rounds (the paper's C-F mechanism: fewer clean, more dirty rounds).

``update_share`` (rewritten pages / all written pages) moves the workload from the first
kind to the second. Where dynamic / static write time crosses 1 as it grows, the grouping
rule can produce the split; where it stays on one side, no trace can, under that rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skftl.errors import ConfigError
from skftl.pcm import GROUPINGS, IDLE_PICKS, PCMDevice, simulate
from skftl.pcm.simulate import PagedTrace, paged_from_lpns

__all__ = ["KEYS", "split_experiment", "stream_workload"]

KEYS = ("update_shares", "first_writes", "streams", "first_pages", "rewrite_pages", "gap_us")
FILE_STRIDE = 1 << 24  # pages between the files' starts (a multiple of any chip count used)


def stream_workload(
    device: PCMDevice,
    update_share: float,
    first_writes: int,
    streams: int,
    first_pages: int,
    rewrite_pages: int,
    gap_us: float,
) -> PagedTrace:
    """The constructed workload (module docstring) as page operations."""
    if not 0 <= update_share < 1:
        raise ConfigError(f"bnvm.split.update_shares: each in [0, 1), got {update_share}")
    per_file = first_writes // streams // first_pages * first_pages
    if per_file < 1:
        raise ConfigError(
            f"bnvm.split.first_writes ({first_writes}) must cover streams x first_pages"
        )
    lpn: list[np.ndarray] = []
    for k in range(per_file // first_pages):  # turn k: every file gets its next chunk
        for f in range(streams):
            lpn.append(f * FILE_STRIDE + k * first_pages + np.arange(first_pages))
    n_first = per_file * streams
    n_rewrite = round(n_first * update_share / (1 - update_share))
    rewrites = np.concatenate(
        [f * FILE_STRIDE + np.arange(per_file) for f in range(streams)] or [np.zeros(0, int)]
    )
    rewrites = np.resize(rewrites, n_rewrite)  # whole passes over the files, then a part
    lpn += [rewrites[i : i + rewrite_pages] for i in range(0, n_rewrite, rewrite_pages)]
    sizes = np.array([len(x) for x in lpn])
    req = np.repeat(np.arange(len(lpn)), sizes)
    t = np.repeat(np.arange(len(lpn), dtype=np.int64) * round(gap_us * 1e3), sizes)
    pages = np.concatenate(lpn).astype(np.int64)
    return paged_from_lpns(pages, np.ones(len(pages), bool), req, t, device)


def split_experiment(device: PCMDevice, sec: dict[str, Any]) -> dict[str, np.ndarray]:
    """dynamic / static write time, and dynamic - static parallel clean and dirty writes,
    over ``update_shares`` x grouping x idle-chip pick (arrays in that order)."""
    missing = [k for k in KEYS if k not in sec]
    if missing:
        raise ConfigError(f"bnvm.split: missing keys {missing}")
    shares = [float(u) for u in sec["update_shares"]]
    shape = (len(shares), len(GROUPINGS), len(IDLE_PICKS))
    out = {k: np.zeros(shape) for k in ("ratio", "clean_diff", "dirty_diff")}
    params = {k: sec[k] for k in KEYS[1:]}
    for a, u in enumerate(shares):
        pages = stream_workload(device, u, **params)
        for b, grouping in enumerate(GROUPINGS):
            st = simulate(pages, device, "static", grouping=grouping)
            for c, pick in enumerate(IDLE_PICKS):
                dy = simulate(pages, device, "dynamic", grouping=grouping, idle_pick=pick)
                out["ratio"][a, b, c] = dy.write_time_s / st.write_time_s
                for kind in ("clean", "dirty"):
                    key = f"{kind}_rounds"
                    out[f"{kind}_diff"][a, b, c] = dy.counters[key] - st.counters[key]
    return out
