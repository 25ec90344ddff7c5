"""Arrays backed by transparent huge pages, for tables that kernels probe at random.

A lookup in a table of tens of MB touches a random 4 KB page each time: with 4 KB pages
nearly every probe misses the TLB, and in a virtual machine each miss is a nested
(two-dimensional) page walk. numpy asks for huge pages itself (``madvise`` on arrays
of >= 4 MB) but only for the 2 MB-aligned interior of an allocation that malloc
placed anywhere, often on the heap, so the ends of each array and whole arrays that
share a heap region stay on 4 KB pages (measured: 0-75 % of the LPMT's arrays).
Here the array is a private anonymous mapping aligned to 2 MB and advised as a whole.
Where the platform has no ``MADV_HUGEPAGE`` (not Linux) or the array is small, this is
plain numpy.
"""

from __future__ import annotations

import mmap

import numpy as np

HUGE_PAGE = 1 << 21
MIN_BYTES = 1 << 22  # below this a table fits the TLB anyway (numpy's own threshold)


def huge_zeros(n: int, dtype: np.dtype | type | str, align: int = 1) -> np.ndarray:
    """A zeroed 1-D array of ``n`` items of ``dtype`` starting on a 2 MB boundary,
    advised to use transparent huge pages; where not supported, a zeroed numpy array
    starting on an ``align``-byte boundary (numpy aligns to 16)."""
    dtype = np.dtype(dtype)
    nbytes = n * dtype.itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < MIN_BYTES or advice is None:
        if align <= 16:
            return np.zeros(n, dtype=dtype)
        raw = np.zeros(nbytes + align, dtype=np.uint8)
        start = -raw.ctypes.data % align
        return raw[start : start + nbytes].view(dtype)
    # private: a shared anonymous mapping is shmem, whose huge pages follow another switch
    buf = mmap.mmap(-1, nbytes + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    buf.madvise(advice)
    raw = np.frombuffer(buf, dtype=np.uint8)  # keeps the mapping alive; zero-filled
    start = -raw.ctypes.data % HUGE_PAGE
    return raw[start : start + nbytes].view(dtype)


def huge_full(n: int, value: int, dtype: np.dtype | type | str) -> np.ndarray:
    """:func:`huge_zeros` filled with ``value``."""
    out = huge_zeros(n, dtype)
    if value:
        out.fill(value)
    return out
