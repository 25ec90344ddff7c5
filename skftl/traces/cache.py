"""Columnar trace cache: one Parquet file per (source content, format, reader options,
reader version), with the trace metadata stored in the file.

A small stat index (resolved path, size, mtime_ns -> sha256) in the cache folder
spares re-hashing an unchanged big source file on every load. Every file here is
written via ``skftl.io.atomic_path`` (temp + rename), so an interrupted or failed load
never leaves a partial file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skftl.config import REPO_ROOT
from skftl.io import atomic_path
from skftl.traces.readers import READER_VERSION
from skftl.traces.requests import Requests, TraceMeta
from skftl.traces.textio import file_digest

DEFAULT_CACHE_DIR = REPO_ROOT / "data" / "cache"
STAT_INDEX = "stat-index.json"
_META_KEY = b"skftl.trace"
_COLUMNS = ("time_ns", "offset_bytes", "size_bytes", "is_write")


def cache_dir_or_default(cache_dir: str | Path | None) -> Path:
    """``cache_dir``, else env ``SKFTL_CACHE_DIR``, else ``data/cache`` in the repository."""
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get("SKFTL_CACHE_DIR")
    return Path(env) if env else DEFAULT_CACHE_DIR


def cache_key(sha256: str, fmt: str, options: dict[str, Any]) -> dict[str, Any]:
    return {"sha256": sha256, "format": fmt, "options": options, "reader": READER_VERSION}


def cache_file(cache_dir: Path, key: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    return cache_dir / f"{key['sha256'][:16]}.{key['format']}.{digest[:12]}.parquet"


# --- stat index ----------------------------------------------------------------------


def _index_path(cache_dir: Path) -> Path:
    return cache_dir / STAT_INDEX


def _read_index(cache_dir: Path) -> dict[str, list]:
    try:
        with open(_index_path(cache_dir)) as fh:
            index = json.load(fh)
    except (OSError, ValueError):
        return {}  # absent or damaged: it is only a shortcut, start afresh
    return index if isinstance(index, dict) else {}


def _stat_signature(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return str(path.resolve()), st.st_size, st.st_mtime_ns


def known_sha256(path: Path, cache_dir: Path) -> str | None:
    """The source's sha256 from the stat index when size and mtime are unchanged."""
    key, size, mtime = _stat_signature(path)
    entry = _read_index(cache_dir).get(key)
    if entry and entry[0] == size and entry[1] == mtime:
        return entry[2]
    return None


def source_sha256(path: Path, cache_dir: Path) -> tuple[str, bool]:
    """(sha256 of the source file, whether it came from the stat index)."""
    sha = known_sha256(path, cache_dir)
    return (sha, True) if sha else (file_digest(path), False)


def remember_sha256(path: Path, cache_dir: Path, sha256: str) -> None:
    key, size, mtime = _stat_signature(path)
    index = _read_index(cache_dir)
    index[key] = [size, mtime, sha256]
    with atomic_path(_index_path(cache_dir)) as tmp:
        tmp.write_text(json.dumps(index, indent=0, sort_keys=True))


# --- Parquet files -------------------------------------------------------------------


def store(requests: Requests, path: Path, key: dict[str, Any]) -> Path:
    """Write ``requests`` (columns + metadata + key) to ``path`` atomically."""
    table = pa.table({c: getattr(requests, c) for c in _COLUMNS})
    meta = {"meta": dataclasses.asdict(requests.meta), "key": key}
    table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
    with atomic_path(path) as tmp:
        pq.write_table(
            table,
            tmp,
            compression="lz4",  # reads fastest of zstd/snappy/lz4 here, at ~1.5x zstd's size
            use_dictionary=False,
            # arrival times grow slowly: delta coding makes them small and fast to decode
            column_encoding={"time_ns": "DELTA_BINARY_PACKED"},
        )
    return path


_DTYPES = {"time_ns": np.int64, "offset_bytes": np.int64, "size_bytes": np.int64, "is_write": bool}


def load(path: Path, key: dict[str, Any]) -> Requests | None:
    """The cached trace, or None when ``path`` is absent, unreadable or for another key.

    Batches are copied into preallocated columns: the reader returns many small chunks,
    and concatenating them would need the memory of the whole trace twice."""
    if not path.is_file():
        return None
    try:
        parquet = pq.ParquetFile(path, memory_map=True)
        stored = json.loads(parquet.schema_arrow.metadata[_META_KEY])
        if stored.get("key") != key or parquet.schema_arrow.names != list(_COLUMNS):
            return None
        n = parquet.metadata.num_rows
        columns = {c: np.empty(n, dtype=_DTYPES[c]) for c in _COLUMNS}
        start = 0
        for batch in parquet.iter_batches(batch_size=1 << 20):
            stop = start + batch.num_rows
            for c in _COLUMNS:
                columns[c][start:stop] = batch.column(c).to_numpy(zero_copy_only=False)
            start = stop
    except (OSError, KeyError, ValueError, TypeError, pa.ArrowException):
        return None
    if start != n:
        return None
    return Requests(*columns.values(), meta=TraceMeta(**stored["meta"]))


def freeze(requests: Requests) -> Requests:
    """Make the columns read-only: loaded traces are shared inputs (cached columns are
    views of Arrow buffers anyway); copy before changing one."""
    for c in _COLUMNS:
        arr: np.ndarray = getattr(requests, c)
        arr.flags.writeable = False
    return requests
