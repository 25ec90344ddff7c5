"""Opening trace files: plain, gzip or bzip2 (recognised by their magic bytes, not by
the file name), reading them in blocks of whole lines, and file hashing."""

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


def open_binary(path: str | Path, fileobj: BinaryIO | None = None) -> BinaryIO:
    """The decompressed byte stream of ``path`` (read from ``fileobj`` when given; the
    caller then closes it). Python's gzip module reads every member of a multi-member
    gzip file (pyarrow's native gzip stream stops after the first) and raises EOFError
    on a truncated one."""
    kind = compression_of(path)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=fileobj) if fileobj else gzip.open(path, "rb")
    if kind == "bz2":
        return bz2.BZ2File(fileobj or path, "rb")
    return fileobj or open(path, "rb")


def iter_line_blocks(stream: BinaryIO, block_size: int) -> Iterator[memoryview]:
    """Successive views of whole lines of ``stream``, read into one reused buffer of
    ``block_size`` bytes (doubled for a line longer than that), so memory stays bounded
    and no fresh buffer is needed per block. Each view is valid until the next is
    requested; the consumer must not keep references to it."""
    buf = bytearray(block_size)
    filled, eof = 0, False
    while not eof:
        with memoryview(buf) as mv:
            while filled < len(buf):
                n = stream.readinto(mv[filled : min(len(buf), filled + _CHUNK)])
                if not n:
                    eof = True
                    break
                filled += n
        cut = filled if eof else buf.rfind(b"\n", 0, filled) + 1
        if cut == 0:  # a line longer than the buffer
            buf.extend(bytes(len(buf)))
            continue
        view = memoryview(buf)[:cut]
        try:
            yield view
        finally:
            view.release()
        buf[: filled - cut] = buf[cut:filled]  # keep the partial last line
        filled -= cut


def iter_text_lines(path: str | Path) -> Iterator[str]:
    """Decoded lines without their line ending (universal newlines, like pyarrow's
    parser); undecodable bytes become U+FFFD so they show up in error messages. A UTF-8
    byte-order mark at the start is dropped (pyarrow's parser skips it too)."""
    with io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors="replace") as fh:
        for line in fh:
            yield line.rstrip("\r\n")


def check_decompresses(path: str | Path) -> str | None:
    """None when ``path`` is plain or decompresses to the end; else the decompressor's
    complaint. bzip2 (and gzip) check their CRC only at the end of a block, so a damaged
    file first yields garbage text: a text error in a compressed file is only believed
    once the whole stream has decompressed cleanly."""
    if compression_of(path) is None:
        return None
    try:
        with open_binary(path) as fh:
            while fh.read(_CHUNK):
                pass
    except DECOMPRESSION_ERRORS as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


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
