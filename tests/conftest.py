"""Shared fixtures: the real trace excerpts, small trace files written on the fly."""

from __future__ import annotations

import bz2
import gzip
import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def shared_traces() -> Path:
    """The shared real-trace folder (../shared/traces from the repository root, or env
    SKFTL_SHARED_TRACES); skips the test when it is absent."""
    path = Path(os.environ.get("SKFTL_SHARED_TRACES") or REPO_ROOT / ".." / "shared" / "traces")
    path = path.resolve()
    if not (path / "MANIFEST.tsv").is_file():
        pytest.skip(f"shared traces folder {path} not found; CI has it")
    return path


@pytest.fixture
def write_trace(tmp_path: Path) -> Callable[..., Path]:
    """write_trace(name, text, compression=None|'gzip'|'bz2') -> path in tmp_path."""

    def write(name: str, text: str | bytes, compression: str | None = None) -> Path:
        data = text.encode() if isinstance(text, str) else text
        if compression == "gzip":
            data = gzip.compress(data)
        elif compression == "bz2":
            data = bz2.compress(data)
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return write


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A cache folder that does not exist yet (loads must create it, failures must not)."""
    return tmp_path / "cache"
