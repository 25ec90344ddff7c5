"""Write ``Requests`` as an MQSim ASCII trace, so MQSim can replay the same input.

MQSim lines are ``arrival_ns device start_LBA size type`` with LBA and size in 512-byte
sectors and type 1 = read, 0 = write. A request that is not sector aligned is widened
to the sectors it touches (counted in the return value).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from skftl.io import atomic_path
from skftl.traces.requests import SECTOR, Requests

EXPORT_FORMATS = ("mqsim",)


def write_mqsim(
    requests: Requests, path: str | Path, *, device: int = 0, monotonic: bool = True
) -> int:
    """Write ``requests`` to ``path`` (gzip when it ends in .gz) atomically. Arrival times
    are made non-decreasing when ``monotonic`` (a replaying simulator needs them so).
    Returns the number of requests widened to whole sectors."""
    first = requests.offset_bytes // SECTOR
    end = -(-(requests.offset_bytes + requests.size_bytes) // SECTOR)
    sectors = end - first
    widened = int(np.count_nonzero(sectors * SECTOR != requests.size_bytes))
    table = pa.table(
        {
            "arrival_ns": requests.monotonic_time_ns() if monotonic else requests.time_ns,
            "device": np.full(len(requests), device, dtype=np.int64),
            "lba": first,
            "size": sectors,
            "type": (~requests.is_write).astype(np.int8),
        }
    )
    path = Path(path)
    with atomic_path(path) as tmp:
        compression = "gzip" if path.suffix == ".gz" else None
        with pa.output_stream(tmp, compression=compression) as out:
            pacsv.write_csv(
                table,
                out,
                pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
            )
    return widened


def export_trace(requests: Requests, path: str | Path, fmt: str = "mqsim") -> int:
    """Write ``requests`` in format ``fmt`` (one of EXPORT_FORMATS)."""
    if fmt != "mqsim":
        raise ValueError(f"cannot export to {fmt!r}; formats: {', '.join(EXPORT_FORMATS)}")
    return write_mqsim(requests, path)
