"""Columnar trace cache: one Arrow IPC file per (source content, format, reader options,
reader version), with the trace metadata stored in the file.

Arrow IPC, uncompressed, because a load is then a memory map: the columns are zero-copy
views of the page cache (no decoding), which is what makes a cached load run at memory
speed. Parquet would be a third of the size but must be decoded on every load.

A small stat index (resolved path -> size, mtime_ns, ctime_ns, inode and a hash of the
file's first and last 64 KiB -> sha256) in the cache folder spares re-hashing an
unchanged big source file on every load. The ctime and the head/tail hash catch a file
edited in place whose size and mtime were restored (ctime cannot be set back). Every file here is
written via ``skftl.io.atomic_path`` (temp + rename), so an interrupted or failed load
never leaves a partial file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from skftl.config import REPO_ROOT
from skftl.io import atomic_path, clean_stale_temporaries, write_text
from skftl.traces.arrow import from_numpy, to_numpy
from skftl.traces.readers import READER_VERSION
from skftl.traces.requests import Requests, TraceMeta
from skftl.traces.textio import file_digest

DEFAULT_CACHE_DIR = REPO_ROOT / "data" / "cache"
STAT_INDEX = "stat-index.json"
_META_KEY = b"skftl.trace"
_COLUMNS = ("time_ns", "offset_bytes", "size_bytes", "is_write")
_EDGE = 1 << 16  # bytes hashed at each end of the source for the stat index


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
    return cache_dir / f"{key['sha256'][:16]}.{key['format']}.{digest[:12]}.arrow"


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


def _stat_signature(path: Path) -> tuple[str, list]:
    """(index key, [size, mtime_ns, ctime_ns, inode, head/tail hash]) of ``path``."""
    st = path.stat()
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read(_EDGE))
        if st.st_size > _EDGE:
            fh.seek(max(_EDGE, st.st_size - _EDGE))
            h.update(fh.read(_EDGE))
    return str(path.resolve()), [
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_ino,
        h.hexdigest(),
    ]


def known_sha256(path: Path, cache_dir: Path) -> str | None:
    """The source's sha256 from the stat index when its signature is unchanged."""
    key, signature = _stat_signature(path)
    entry = _read_index(cache_dir).get(key)
    if isinstance(entry, list) and entry[:-1] == signature:
        return entry[-1]
    return None


def source_sha256(path: Path, cache_dir: Path) -> tuple[str, bool]:
    """(sha256 of the source file, whether it came from the stat index)."""
    sha = known_sha256(path, cache_dir)
    return (sha, True) if sha else (file_digest(path), False)


def remember_sha256(path: Path, cache_dir: Path, sha256: str) -> None:
    key, signature = _stat_signature(path)
    index = _read_index(cache_dir)
    index[key] = [*signature, sha256]
    clean_stale_temporaries(cache_dir)  # a killed earlier load's leftovers
    write_text(json.dumps(index, indent=0, sort_keys=True), _index_path(cache_dir))


# --- Arrow IPC files -----------------------------------------------------------------


def store(requests: Requests, path: Path, key: dict[str, Any]) -> Path:
    """Write ``requests`` (columns + metadata + key) to ``path`` atomically. ``is_write`` is
    stored as uint8 (Arrow booleans are bit-packed and could not be mapped zero-copy)."""
    cols = {c: getattr(requests, c) for c in _COLUMNS}
    cols["is_write"] = cols["is_write"].view(np.uint8)
    table = pa.Table.from_arrays([from_numpy(v) for v in cols.values()], names=list(cols))
    meta = {"meta": dataclasses.asdict(requests.meta), "key": key}
    table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
    with atomic_path(path) as tmp:
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=1 << 62)  # one record batch
    return path


def load(path: Path, key: dict[str, Any]) -> Requests | None:
    """The cached trace, or None when ``path`` is absent, unreadable or for another key.
    The columns are read-only views of the memory-mapped file."""
    if not path.is_file():
        return None
    try:
        reader = pa.ipc.open_file(pa.memory_map(str(path), "r"))
        stored = json.loads(reader.schema.metadata[_META_KEY])
        if stored.get("key") != key or reader.schema.names != list(_COLUMNS):
            return None
        table = reader.read_all()
        columns = {}
        for c in _COLUMNS:
            chunks = table.column(c).chunks
            if len(chunks) == 0:
                columns[c] = np.empty(0, dtype=np.uint8 if c == "is_write" else np.int64)
            elif len(chunks) == 1 and chunks[0].null_count == 0:
                columns[c] = to_numpy(chunks[0])  # read-only, zero-copy
            else:
                return None
    except (OSError, KeyError, ValueError, TypeError, pa.ArrowException) as exc:
        # truncated or overwritten (a kill during a copy, a full disk): rebuilt from the source
        path.unlink(missing_ok=True)
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"skftl: rebuilding an unreadable trace cache file ({reason}): {path}",
              file=sys.stderr)  # fmt: skip
        return None
    columns["is_write"] = columns["is_write"].view(np.bool_)
    return Requests(*columns.values(), meta=TraceMeta(**stored["meta"]))


def freeze(requests: Requests) -> Requests:
    """Make the columns read-only: loaded traces are shared inputs (cached columns are
    views of Arrow buffers anyway); copy before changing one."""
    for c in _COLUMNS:
        arr: np.ndarray = getattr(requests, c)
        arr.flags.writeable = False
    return requests
