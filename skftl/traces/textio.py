"""Opening trace files: plain, gzip or bzip2 (recognised by their magic bytes, not by
the file name), file hashing, and a reader that remembers whether decompression failed
so a truncated archive is reported as such rather than as a parse error."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"
_CHUNK = 1 << 20

#: what the decompressors raise on truncated or corrupt input
DECOMPRESSION_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile, OSError)


def compression_of(path: str | Path) -> str | None:
    """'gzip', 'bz2' or None (plain), from the first bytes of the file."""
    with open(path, "rb") as fh:
        head = fh.read(3)
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if head == BZ2_MAGIC:
        return "bz2"
    return None


def open_binary(path: str | Path) -> BinaryIO:
    """The decompressed byte stream of ``path``. Python's gzip module reads every member
    of a multi-member gzip file (pyarrow's native gzip stream stops after the first) and
    raises EOFError on a truncated one."""
    kind = compression_of(path)
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


class TrackedReader(io.RawIOBase):
    """Read-only wrapper that records the first decompression error (and re-raises it)
    so the caller can tell a damaged archive from damaged text."""

    def __init__(self, inner: BinaryIO):
        self._inner = inner
        self.error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # noqa: ANN001 - memoryview/bytearray
        try:
            data = self._inner.read(len(buffer))
        except DECOMPRESSION_ERRORS as exc:
            self.error = exc
            raise
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        try:
            return self._inner.read(size)
        except DECOMPRESSION_ERRORS as exc:
            self.error = exc
            raise

    def close(self) -> None:
        self._inner.close()
        super().close()


def iter_text_lines(path: str | Path) -> Iterator[str]:
    """Decoded lines without their line ending (universal newlines, like pyarrow's
    parser); undecodable bytes become U+FFFD so they show up in error messages."""
    with io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace") as fh:
        for line in fh:
            yield line.rstrip("\r\n")


def file_digest(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex digest of the file's bytes as stored (compressed files are not decompressed)."""
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def content_digest(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex digest of the decompressed bytes: equal for a trace and its gzip/bz2 copy."""
    h = hashlib.new(algorithm)
    with open_binary(path) as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    return h.hexdigest()
