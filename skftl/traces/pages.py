"""Request -> page-operation expansion for any page size (vectorised)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.traces.requests import Requests


@dataclass
class PageOps:
    """One row per (request, logical page touched). A request that straddles page
    boundaries becomes one row per page it touches, in address order."""

    lpn: np.ndarray  # int64 logical page number
    is_write: np.ndarray  # bool
    request: np.ndarray  # int64 index of the originating request
    time_ns: np.ndarray  # int64 arrival time of the originating request
    page_size: int

    def __len__(self) -> int:
        return len(self.lpn)


def page_span(requests: Requests, page_size: int) -> tuple[np.ndarray, np.ndarray]:
    """First logical page and number of pages touched by each request."""
    if page_size <= 0:
        raise ValueError(f"page_size must be positive, got {page_size}")
    first = requests.offset_bytes // page_size
    last = (requests.offset_bytes + np.maximum(requests.size_bytes, 1) - 1) // page_size
    return first, last - first + 1


def expand_to_pages(requests: Requests, page_size: int) -> PageOps:
    """Split every request into the logical pages it touches."""
    first, count = page_span(requests, page_size)
    total = int(count.sum())
    req = np.repeat(np.arange(len(requests), dtype=np.int64), count)
    # position of each row within its request: global index minus the request's start row
    starts = np.zeros(len(requests), dtype=np.int64)
    if len(requests):
        np.cumsum(count[:-1], out=starts[1:])
    within = np.arange(total, dtype=np.int64) - np.repeat(starts, count)
    return PageOps(
        lpn=np.repeat(first, count) + within,
        is_write=np.repeat(requests.is_write, count),
        request=req,
        time_ns=np.repeat(requests.time_ns, count),
        page_size=page_size,
    )
