"""Write ``Requests`` as an MQSim ASCII trace, so MQSim can replay the same input.

MQSim lines are ``arrival_ns device start_LBA size type`` with LBA and size in 512-byte
sectors and type 1 = read, 0 = write. A request that is not sector aligned is widened
to the sectors it touches (counted in the return value).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from skftl.io import atomic_path
from skftl.traces.requests import Requests

EXPORT_FORMATS = ("mqsim",)


WRITE_BLOCK = 1 << 16  # requests formatted per block (a buffer of about 5.6 MB)


def write_mqsim(
    requests: Requests, path: str | Path, *, device: int = 0, monotonic: bool = True
) -> int:
    """Write ``requests`` to ``path`` (gzip when it ends in .gz) atomically. Arrival times
    are made non-decreasing when ``monotonic`` (a replaying simulator needs them so).
    Returns the number of requests widened to whole sectors."""
    from skftl.traces.mqsim_kernel import MAX_LINE, format_lines  # Numba: loaded when used

    n = len(requests)
    buf = np.empty(min(n, WRITE_BLOCK) * MAX_LINE, dtype=np.uint8)
    widened, latest = 0, 0
    path = Path(path)
    with atomic_path(path) as tmp:
        compression = "gzip" if path.suffix == ".gz" else None
        with pa.output_stream(tmp, compression=compression) as out:
            for start in range(0, n, WRITE_BLOCK):
                used, more, latest = format_lines(
                    requests.time_ns,
                    requests.offset_bytes,
                    requests.size_bytes,
                    requests.is_write,
                    device,
                    monotonic,
                    start,
                    min(start + WRITE_BLOCK, n),
                    latest,
                    buf,
                )
                out.write(memoryview(buf)[:used])
                widened += more
    return widened


def export_trace(requests: Requests, path: str | Path, fmt: str = "mqsim") -> int:
    """Write ``requests`` in format ``fmt`` (one of EXPORT_FORMATS)."""
    if fmt != "mqsim":
        raise ValueError(f"cannot export to {fmt!r}; formats: {', '.join(EXPORT_FORMATS)}")
    return write_mqsim(requests, path)
