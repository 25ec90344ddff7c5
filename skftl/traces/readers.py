"""Streaming trace readers: text (plain/gzip/bzip2) -> ``Requests``.

Happy path: the decompressed text is cut into blocks of whole lines (one reused
buffer), pyarrow's CSV parser parses each block, and numpy checks and converts it into
preallocated output columns, so memory is the output plus one block. As soon as
anything is wrong (pyarrow cannot parse a value, a vectorised check fails,
decompression fails) the file is rescanned with a plain Python line loop
(``formats.check_line``) that names the first bad line exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from skftl.errors import ConfigError, TraceFormatError
from skftl.traces.arrow import to_numpy
from skftl.traces.formats import (
    DECIMAL_RE,
    FORMAT_NAMES,
    FORMATS,
    MAX_ADDRESS_BYTES,
    MAX_DECIMAL_SECONDS,
    TIME_HORIZON_S,
    FormatSpec,
    check_line,
    line_time_ns,
)
from skftl.traces.formats import is_header as _is_header
from skftl.traces.requests import Requests, TraceMeta, out_of_order_count
from skftl.traces.textio import (
    DECOMPRESSION_ERRORS,
    check_decompresses,
    compression_of,
    file_digest,
    iter_line_blocks,
    iter_text_lines,
    open_binary,
)

#: bump whenever a reader's output for the same input changes (invalidates the cache)
# 2: bounds on sizes, extents and times; 3: MQSim arrivals >= 0, Heimdall arrivals with their
# decimal point
READER_VERSION = 3
BLOCK_SIZE = 16 << 20
REGION_ALIGN = 1 << 20
_SNIFF_LINES = 20

#: reader options per format and their defaults
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    name: ({"map_devices": True} if spec.device else {}) for name, spec in FORMATS.items()
}


class _BadBlock(Exception):
    """A vectorised check failed; the line loop will say where."""


def reader_options(fmt: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The format's default options updated with ``options``; unknown keys are errors."""
    merged = dict(DEFAULT_OPTIONS[fmt])
    for key, value in (options or {}).items():
        if key not in merged:
            raise ConfigError(
                f"reader option {key!r} does not apply to format {fmt!r} "
                f"(its options: {sorted(merged) or 'none'})"
            )
        merged[key] = value
    return merged


def _first_lines(path: Path, n: int = _SNIFF_LINES) -> list[tuple[int, str]]:
    """Up to ``n`` non-empty (line number, text) pairs from the start of the file."""
    out: list[tuple[int, str]] = []
    try:
        for number, line in enumerate(iter_text_lines(path), start=1):
            if line.strip():
                out.append((number, line))
                if len(out) == n:
                    break
    except DECOMPRESSION_ERRORS as exc:
        if not out:
            raise _corrupt_compressed(path, str(exc), "no line decompresses") from exc
    return out


def _corrupt_compressed(path: Path, problem: str, what: str) -> TraceFormatError:
    return TraceFormatError(
        path,
        None,
        problem,
        f"corrupt {compression_of(path)} file: the compressed stream is damaged ({what}); "
        "replace the file",
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def detect_format(path: str | Path) -> str:
    """Format name from the first non-empty lines of the file (see ``FORMATS``)."""
    path = Path(path)
    lines = _first_lines(path)
    if not lines:
        raise TraceFormatError(path, None, "", "empty file (no data lines)")
    number, first = lines[0]
    if any(_is_header(spec, first) for spec in FORMATS.values()):
        return next(name for name, spec in FORMATS.items() if _is_header(spec, first))
    tabbed = first.split("\t\t")
    if len(tabbed) == 8 and all(_is_number(p) for p in tabbed):
        return "nexus5"
    comma = first.split(",")
    if len(comma) == 7 and comma[3].lower() in ("read", "write"):
        return "msr"
    if len(comma) == 5 and comma[3].lower() in ("r", "w"):
        return "spc"
    if len(comma) == 6 and comma[2].lower() in ("r", "w"):
        return "mobile"
    spaced = first.split(" ")
    if len(spaced) == 5 and all(_is_number(p) for p in spaced):
        # Heimdall's arrival is a decimal in ms ("0.000"); MQSim's an integer in ns.
        if any("." in line.split(" ")[0] for _, line in lines):
            return "heimdall"
        return "mqsim"
    problem = check_decompresses(path)
    if problem is not None:
        raise _corrupt_compressed(path, problem, "its text matches no trace format")
    raise TraceFormatError(
        path,
        number,
        first[:120],
        "unrecognised trace format; pass --format (fmt= in Python), one of "
        + ", ".join(FORMAT_NAMES),
    )


# --- fast path ---------------------------------------------------------------------


def _column_types(spec: FormatSpec) -> dict[str, pa.DataType]:
    kinds = {
        "int": pa.int64(),
        "intop": pa.int64(),
        "flags": pa.int64(),
        "float": pa.float64(),
        "pointed": pa.string(),
        "decimal": pa.string(),
        "op": pa.dictionary(pa.int32(), pa.string()),
    }
    return {f.name: kinds[f.kind] for f in spec.fields if f.used}


def _decimal_to_ns(arr: pa.Array) -> np.ndarray:
    """Exact decimal seconds ("1400000000.123456789") -> int64 ns; digits beyond ns are
    dropped. Epoch seconds need this: a float64 keeps only ~0.2 us of them."""
    parts = pc.extract_regex(arr, DECIMAL_RE)
    if parts.null_count:
        raise _BadBlock
    secs = to_numpy(pc.cast(parts.field("s"), pa.int64()))
    if len(secs) and secs.max() > MAX_DECIMAL_SECONDS:
        raise _BadBlock
    frac = to_numpy(pc.cast(pc.utf8_rpad(parts.field("f"), 9, "0"), pa.int64()))
    return secs * 1_000_000_000 + frac


def _convert_block(spec: FormatSpec, batch: pa.RecordBatch) -> dict[str, np.ndarray]:
    """Checked numpy columns of one block; raises _BadBlock on any rule violation."""
    out: dict[str, np.ndarray] = {}
    for f in spec.fields:
        if not f.used:
            continue
        arr = batch.column(f.name)
        if arr.null_count:
            raise _BadBlock
        if f.kind == "op":
            lut = [f.ops.get(str(v).lower()) for v in arr.dictionary.to_pylist()]
            if any(v is None for v in lut):
                raise _BadBlock
            out[f.name] = np.asarray(lut, dtype=bool)[to_numpy(arr.indices)]
            continue
        if f.kind == "decimal":
            out[f.name] = _decimal_to_ns(arr)
            continue
        if f.kind == "pointed":
            if not pc.all(pc.match_substring(arr, ".")).as_py():
                raise _BadBlock
            arr = pc.cast(arr, pa.float64())
        values = to_numpy(arr)
        if f.kind in ("float", "pointed"):
            if not np.isfinite(values).all():
                raise _BadBlock
        elif f.kind == "intop":
            (read_code,) = (k for k, w in f.ops.items() if not w)
            (write_code,) = (k for k, w in f.ops.items() if w)
            is_write = values == write_code
            if not (is_write | (values == read_code)).all():
                raise _BadBlock
            values = is_write
        if len(values) and (
            (f.min_value is not None and values.min() < f.min_value)
            or (f.max_value is not None and values.max() > f.max_value)
        ):
            raise _BadBlock
        if f.kind == "flags":
            values = (values & 1).astype(bool)
        out[f.name] = values
    return out


class _Columns:
    """Output columns filled block by block, so Arrow's block memory is freed and reused
    (fresh memory is the main cost of a big load). Sized from the share of the file the
    blocks so far came from; grown by copying when that estimate was short."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.n = 0

    def append(self, block: dict[str, np.ndarray], expected_rows: int) -> None:
        m = len(next(iter(block.values())))
        capacity = len(next(iter(self.arrays.values()))) if self.arrays else 0
        if self.n + m > capacity:
            capacity = max(self.n + m, expected_rows, capacity + capacity // 4)
            for name, values in block.items():
                grown = np.empty(capacity, dtype=values.dtype)
                if name in self.arrays:
                    grown[: self.n] = self.arrays[name][: self.n]
                self.arrays[name] = grown
        for name, values in block.items():
            self.arrays[name][self.n : self.n + m] = values
        self.n += m

    def finish(self) -> dict[str, np.ndarray]:
        return {name: values[: self.n] for name, values in self.arrays.items()}


def _parse_fast(path: Path, spec: FormatSpec, skip_rows: int) -> tuple[dict[str, np.ndarray], int]:
    """(column name -> array, rows). Raises _BadBlock, pyarrow errors or decompression
    errors on any problem.

    The text is cut into blocks of whole lines in Python and each block parsed with
    ``pyarrow.csv.read_csv`` (single-threaded): pyarrow's own streaming reader reads
    ahead without bound, holding most of a big file in memory."""
    used = [f.name for f in spec.fields if f.used]
    parse_options = pacsv.ParseOptions(
        delimiter=spec.delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
    )
    convert_options = pacsv.ConvertOptions(
        column_types=_column_types(spec),
        include_columns=used,
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    columns = _Columns()
    size = path.stat().st_size
    with open(path, "rb") as raw, open_binary(path, raw) as stream:
        for i, view in enumerate(iter_line_blocks(stream, BLOCK_SIZE)):
            read_options = pacsv.ReadOptions(
                column_names=spec.names,
                skip_rows=skip_rows if i == 0 else 0,
                block_size=len(view) + 1,  # one record batch per block
                use_threads=False,
            )
            # the parsed table owns its values; it goes out of scope (releasing the view
            # before the buffer is reused) when the comprehension ends
            blocks = [
                _convert_block(spec, batch)
                for batch in pacsv.read_csv(
                    pa.py_buffer(view),
                    read_options=read_options,
                    parse_options=parse_options,
                    convert_options=convert_options,
                ).to_batches()
            ]
            for block in blocks:
                rows = len(next(iter(block.values())))
                # rows expected in all: rows so far scaled by the share of the file read
                expected = (columns.n + rows) * size / max(raw.tell(), 1)
                columns.append(block, int(expected * 1.02) + 1)
    return columns.finish(), columns.n


# --- slow path: locate the first bad line --------------------------------------------


def _locate_error(path: Path, spec: FormatSpec, skip_rows: int, cause: BaseException) -> None:
    """Raise TraceFormatError for the first bad line (or the truncation) of ``path``."""
    last_good = 0
    first: tuple[int, float] | None = None  # (line, time in ns) of the first request
    problem: tuple[int, str, str] | None = None
    try:
        for number, line in enumerate(iter_text_lines(path), start=1):
            if number <= skip_rows or not line:
                last_good = number
                continue
            found = check_line(spec, line, first)
            if found is not None:
                problem = (number, *found)
                break
            if first is None:
                first = (number, line_time_ns(spec, line))
            last_good = number
    except DECOMPRESSION_ERRORS as exc:
        raise TraceFormatError(
            path,
            last_good or None,
            str(exc),
            f"truncated or corrupt compressed file (last complete line: {last_good})",
        ) from exc
    damaged = check_decompresses(path)
    if damaged is not None:
        what = f"line {problem[0]} looked wrong" if problem else "its text could not be parsed"
        raise _corrupt_compressed(path, damaged, what) from cause
    if problem is not None:
        number, reason, value = problem
        raise TraceFormatError(path, number, value, reason) from cause
    raise TraceFormatError(path, None, str(cause)[:200], "could not parse") from cause


def _within_bounds(
    spec: FormatSpec, time: np.ndarray, offset: np.ndarray, size: np.ndarray
) -> bool:
    """Every request ends inside the address space and arrives within the time horizon
    of the first (offsets and sizes are bytes; each is already capped, so no overflow)."""
    if (offset > MAX_ADDRESS_BYTES - size).any():
        return False
    dt = time.astype(np.float64)
    dt -= dt[0]
    return bool(np.abs(dt, out=dt).max() * spec.time_unit_ns <= TIME_HORIZON_S * 1e9)


# --- assembly ------------------------------------------------------------------------


def _relative_ns(spec: FormatSpec, raw: np.ndarray) -> np.ndarray:
    """Times relative to the first request in ns, computed in place where possible
    (fresh memory is the dominant cost for big traces)."""
    raw -= raw[0]  # differences of nearby floats are exact, absolute values are not
    if raw.dtype.kind == "f":
        raw *= spec.time_unit_ns
        return np.rint(raw, out=raw).astype(np.int64)
    if spec.time_unit_ns != 1:
        raw *= int(spec.time_unit_ns)
    return raw


def map_device_regions(
    offset: np.ndarray, size: np.ndarray, device: np.ndarray
) -> tuple[np.ndarray, dict[str, int]]:
    """Give every device (SPC ASU, MQSim device) its own address region: device d starts
    after the largest extent of the previous device, aligned up to 1 MiB. Returns the
    shifted offsets and {device id (str): base offset in bytes}."""
    ids = np.unique(device)
    if len(ids) <= 1:
        return offset, {str(int(i)): 0 for i in ids}
    dense = np.searchsorted(ids, device)
    extent = np.zeros(len(ids), dtype=np.int64)
    np.maximum.at(extent, dense, offset + size)
    bases = np.zeros(len(ids), dtype=np.int64)
    end = 0
    for k in range(1, len(ids)):
        end = int(bases[k - 1]) + int(extent[k - 1])  # Python ints: no overflow
        if end > MAX_ADDRESS_BYTES:
            break
        bases[k] = -(-end // REGION_ALIGN) * REGION_ALIGN
    end = int(bases[-1]) + int(extent[-1])
    if end > MAX_ADDRESS_BYTES:
        raise ValueError(
            f"the {len(ids)} devices' regions end at {end:,} bytes, beyond the "
            f"{MAX_ADDRESS_BYTES:,}-byte address space"
        )
    return offset + bases[dense], {str(int(i)): int(b) for i, b in zip(ids, bases, strict=True)}


def read_trace(
    path: str | Path,
    fmt: str | None = None,
    *,
    name: str | None = None,
    options: dict[str, Any] | None = None,
    sha256: str | None = None,
) -> Requests:
    """Parse one trace file (plain, .gz or .bz2) into ``Requests``.

    ``fmt`` overrides content detection; ``options`` are format reader options (e.g.
    ``map_devices=False`` keeps SPC ASU / MQSim device offsets unshifted); ``sha256`` of
    the file may be passed when already known. Any problem raises ``TraceFormatError``
    naming the file, the 1-based line and the offending value.
    """
    path = Path(path)
    if not path.is_file():
        raise TraceFormatError(path, None, str(path), "no such trace file")
    if path.stat().st_size == 0:
        raise TraceFormatError(path, None, "", "empty file")
    if fmt is None:
        fmt = detect_format(path)
    if fmt not in FORMATS:
        raise ConfigError(f"unknown trace format {fmt!r}; known: {', '.join(FORMAT_NAMES)}")
    spec = FORMATS[fmt]
    opts = reader_options(fmt, options)
    first = _first_lines(path, 1)
    if not first:
        raise TraceFormatError(path, None, "", "empty file (no data lines)")
    skip_rows = 1 if first[0][0] == 1 and _is_header(spec, first[0][1]) else 0

    try:
        cols, n = _parse_fast(path, spec, skip_rows)
    except (_BadBlock, pa.ArrowException, *DECOMPRESSION_ERRORS) as exc:
        _locate_error(path, spec, skip_rows, exc)
        raise AssertionError("unreachable") from exc  # _locate_error always raises

    if n == 0:
        raise TraceFormatError(path, None, "", "no data lines (only a header or blank lines)")
    offset = cols[spec.offset]
    if spec.offset_unit != 1:
        offset *= spec.offset_unit
    size = cols[spec.size]
    if spec.size_unit != 1:
        size *= spec.size_unit
    if not _within_bounds(spec, cols[spec.time], offset, size):
        _locate_error(path, spec, skip_rows, ValueError("a request outside the bounds"))
    time_ns = _relative_ns(spec, cols[spec.time])
    is_write = cols[spec.op]
    extra: dict[str, Any] = {"reader_version": READER_VERSION, "options": opts}
    if spec.device is not None:
        device = cols[spec.device]
        if opts.get("map_devices"):
            try:
                offset, bases = map_device_regions(offset, size, device)
            except ValueError as exc:
                raise TraceFormatError(
                    path, None, str(exc), "map_devices=False keeps the devices' own offsets"
                ) from exc
            extra["device_base_bytes"] = bases
        else:
            extra["devices"] = [int(d) for d in np.unique(device)]
    backward = out_of_order_count(time_ns)
    meta = TraceMeta(
        name=name or default_name(path),
        format=fmt,
        source=str(path),
        sha256=sha256 or file_digest(path),
        lines=n,
        backward_time_jumps=backward,
        extra=extra,
    )
    return Requests(time_ns, offset, size, is_write, meta)


_NAME_SUFFIXES = {"gz", "bz2", "csv", "trace", "spc", "txt"}


def default_name(path: Path) -> str:
    """File name without the trace/compression suffixes: web_0.csv.gz -> web_0."""
    name = path.name
    while True:
        stem, dot, ext = name.rpartition(".")
        if not dot or not stem or ext.lower() not in _NAME_SUFFIXES:
            return name
        name = stem
