"""From a block trace to the LPMT's operation stream: which requests are which files.

The LPMT maps a *file* (its logical address, LA) to its first physical page. A block
trace has no file names, so we read it as the paper's own example does: **a request's
logical start address is a file**, and a request larger than a page is a multi-page
file of ``ceil(size / page_size)`` pages. The LA is the start offset in ``la_unit``
units (512 B sectors, the unit SPC/MQSim/MSR traces address in); it is the hash key.

Every request first looks its file up (the latency the paper averages). The first
access of an LA, read or write, maps the file (the data pre-exist on the device; a
read-mostly trace such as WebSearch would otherwise never fill the table, yet the
paper reports it 100 % occupied); later writes remap the file out of place to its
new size, later reads only look up. The paper's Table II gives the LA 20 bits; trace
addresses are wider, so the key here is the full address (the table stores it whole).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numba
import numpy as np

from skftl.dram.state import OP_READ, OP_WRITE
from skftl.errors import ConfigError
from skftl.traces.requests import Requests


@dataclass
class FileStream:
    """One LPMT operation per request: file key (LA), op code, pages."""

    name: str
    label: str
    synthetic: bool
    sha256: str
    keys: np.ndarray  # int64 LA
    ops: np.ndarray  # int64 OP_READ / OP_WRITE
    pages: np.ndarray  # int64 pages of the file as written/read by this request

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def n_files(self) -> int:
        """Distinct files (distinct LAs) in the trace."""
        return int(np.unique(self.keys).size)

    @property
    def multi_page_fraction(self) -> float:
        return float((self.pages > 1).mean()) if len(self) else float("nan")

    @property
    def reaccess_share(self) -> float:
        """Share of requests whose file an earlier request accessed."""
        return 1.0 - self.n_files / len(self) if len(self) else float("nan")

    def pages_needed(self) -> int:
        """Physical pages the files can hold at once (each file at its largest request),
        plus one largest file of slack for an out-of-place rewrite."""
        if not len(self):
            return 0
        order = np.lexsort((self.pages, self.keys))
        k, p = self.keys[order], self.pages[order]
        last = np.r_[k[1:] != k[:-1], True]  # last row of each key holds its max pages
        return int(p[last].sum() + p.max())


def file_stream(req: Requests, page_size: int = 4096, la_unit: int = 512) -> FileStream:
    """The operation stream of a trace (see the module docstring for the mapping)."""
    if page_size < 1 or la_unit < 1:
        raise ConfigError(f"page_size and la_unit must be positive, got {page_size}, {la_unit}")
    keys = req.offset_bytes // la_unit
    pages = np.maximum(1, -(-req.size_bytes // page_size))
    ops = np.where(req.is_write, OP_WRITE, OP_READ).astype(np.int64)
    return FileStream(
        name=req.meta.name,
        label=req.meta.label,
        synthetic=bool(req.meta.synthetic),
        sha256=req.meta.sha256,
        keys=keys.astype(np.int64),
        ops=ops,
        pages=pages.astype(np.int64),
    )


def with_reaccess(stream: FileStream, share: float, seed: int) -> FileStream:
    """The stream with a further ``share`` of its requests (after the first) turned into
    re-accesses: each such request takes the file of an earlier request drawn uniformly
    (its operation and size stay). The stand-in traces re-access few files, so the
    block-table path (multi-page files found again) is rarely taken; this shows how
    the lookup latency depends on it. ``share`` 0 returns the stream unchanged."""
    if not 0.0 <= share < 1.0:
        raise ConfigError(f"re-access share must be in [0, 1), got {share}")
    if share == 0.0 or len(stream) < 2:
        return stream
    rng = np.random.default_rng(seed)
    keys = stream.keys.copy()
    n = len(keys)
    which = np.nonzero(rng.random(n - 1) < share)[0] + 1
    src = (rng.random(which.size) * which).astype(np.int64)  # an earlier request, uniformly
    _copy_keys(keys, which, src)
    return dataclasses.replace(stream, keys=keys, label=f"{stream.label}, +{share:.0%} re-access")


@numba.njit(cache=True)
def _copy_keys(keys, which, src):
    """keys[which[i]] = keys[src[i]] in stream order (a re-access of a re-access takes
    the file the earlier request ended up with)."""
    for i in range(which.shape[0]):
        keys[which[i]] = keys[src[i]]
