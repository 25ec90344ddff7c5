"""Arrow arrays to and from numpy without pyarrow's conversions, which import pandas
(~0.4 s of a command's start-up, and the replay path needs no pandas otherwise)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_FIXED_WIDTH = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint16(): np.uint16,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}


def from_numpy(values: np.ndarray) -> pa.Array:
    """A zero-copy Arrow array of a contiguous fixed-width numpy array (``pa.array`` of
    numpy imports pandas too)."""
    values = np.ascontiguousarray(values)
    arrow_type = next(t for t, d in _FIXED_WIDTH.items() if np.dtype(d) == values.dtype)
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])


def to_numpy(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of ``arr``: a read-only zero-copy view of a single null-free chunk of a
    fixed-width number type, a concatenation of several; any other array (nulls,
    booleans, strings) through pyarrow's own conversion."""
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 1:
            return to_numpy(arr.chunk(0))
        dt = _FIXED_WIDTH.get(arr.type)
        if arr.num_chunks == 0 and dt is not None:
            return np.empty(0, dtype=dt)
        return np.concatenate([to_numpy(c) for c in arr.chunks])
    dt = _FIXED_WIDTH.get(arr.type)
    if dt is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    dt = np.dtype(dt)
    return np.frombuffer(
        arr.buffers()[1], dtype=dt, count=len(arr), offset=arr.offset * dt.itemsize
    )
