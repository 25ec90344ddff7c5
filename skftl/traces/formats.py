"""Declarative descriptions of the supported block-trace text formats.

Each format is a list of typed fields plus unit factors. The streaming reader
(``readers.py``) turns the declarations into pyarrow parse options and vectorised
checks; ``check_line`` below applies the *same* rules to one line in plain Python and
is used to pin down the exact line of a problem the fast path detected.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

INT64_MAX = 2**63 - 1

# --- bounds every reader applies (a value outside them is wrong data, not a workload) ---
#: largest byte address a request may reach (offset + size): 1 PiB, far beyond any device
#: a block trace was recorded on, and small enough that no sum or unit conversion overflows
MAX_ADDRESS_BYTES = 1 << 50
#: largest single request: 1 GiB. Block layers split requests into at most a few MiB (the
#: largest in the shared traces is 42 MiB); a larger size is a corrupt field.
MAX_REQUEST_BYTES = 1 << 30
#: arrival times must lie within this many seconds of the trace's first request (ten years):
#: traces span hours to weeks, so anything further is a zeroed, garbled or foreign clock
TIME_HORIZON_S = 10 * 365.25 * 24 * 3600
#: largest decimal seconds value whose ns count fits int64 (Nexus 5 epoch times)
MAX_DECIMAL_SECONDS = INT64_MAX // 10**9


@dataclass(frozen=True)
class Field:
    """One column. ``kind`` is one of

    - ``int``: integer (pyarrow also accepts ``0x`` hex), within ``min_value`` and
      ``max_value`` where set;
    - ``float``: finite decimal number;
    - ``pointed``: finite decimal number written with a decimal point (Heimdall's "0.000"):
      a format whose writer always prints one, so a value without it is a line of another
      format (an MQSim integer-ns arrival) appended to the file;
    - ``decimal``: non-negative decimal seconds, converted to ns exactly (no float);
    - ``op``: text token mapped (case-insensitively) to is_write by ``ops``;
    - ``intop``: integer mapped to is_write by ``ops``;
    - ``flags``: non-negative integer whose bit 0 means write;
    - ``skip``: not read (any text).
    """

    name: str
    kind: str
    min_value: int | None = None
    ops: dict = field(default_factory=dict)
    max_value: int | None = None  # set from the bounds above for offsets and sizes

    @property
    def used(self) -> bool:
        return self.kind != "skip"


@dataclass(frozen=True)
class FormatSpec:
    name: str
    description: str
    delimiter: str
    fields: tuple[Field, ...]
    time: str
    time_unit_ns: float  # ns per unit of the time field
    offset: str
    offset_unit: int  # bytes per unit of the offset field
    size: str
    size_unit: int
    op: str
    device: str | None = None  # field holding an ASU/device id mapped to its own region
    header: tuple[str, ...] | None = None  # expected header line (optional in the file)

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


_RW = {"r": False, "w": True}
_NONNEG = 0
_POS = 1


def _bounded(spec: FormatSpec) -> FormatSpec:
    """``spec`` with the offset and size fields capped at the bounds above, in the
    field's own unit, so every format applies the same byte limits."""
    caps = {
        spec.offset: MAX_ADDRESS_BYTES // spec.offset_unit,
        spec.size: MAX_REQUEST_BYTES // spec.size_unit,
    }
    fields = tuple(
        dataclasses.replace(f, max_value=caps[f.name]) if f.name in caps else f for f in spec.fields
    )
    return dataclasses.replace(spec, fields=fields)


FORMATS: dict[str, FormatSpec] = {
    spec.name: _bounded(spec)
    for spec in (
        FormatSpec(
            name="spc",
            description="UMass/SPC: ASU,LBA[512 B sectors],Size[bytes],Opcode r/w,Timestamp[s]",
            delimiter=",",
            fields=(
                Field("asu", "int", _NONNEG),
                Field("lba", "int", _NONNEG),
                Field("size", "int", _POS),
                Field("opcode", "op", ops=_RW),
                Field("timestamp", "float"),
            ),
            time="timestamp",
            time_unit_ns=1e9,
            offset="lba",
            offset_unit=512,
            size="size",
            size_unit=1,
            op="opcode",
            device="asu",
        ),
        FormatSpec(
            name="msr",
            description="MSR Cambridge: Timestamp[FILETIME 100 ns],Hostname,DiskNumber,"
            "Type Read/Write,Offset[bytes],Size[bytes],ResponseTime",
            delimiter=",",
            fields=(
                Field("timestamp", "int"),
                Field("hostname", "skip"),
                Field("disk", "skip"),
                Field("type", "op", ops={"read": False, "write": True}),
                Field("offset", "int", _NONNEG),
                Field("size", "int", _POS),
                Field("response_time", "skip"),
            ),
            time="timestamp",
            time_unit_ns=100,
            offset="offset",
            offset_unit=1,
            size="size",
            size_unit=1,
            op="type",
        ),
        FormatSpec(
            name="mqsim",
            description="MQSim ASCII: arrival[ns] device start_LBA[sectors] size[sectors] "
            "type(1=read,0=write)",
            delimiter=" ",
            fields=(
                Field("arrival_ns", "int", _NONNEG),
                Field("device", "int", _NONNEG),
                Field("lba", "int", _NONNEG),
                Field("size", "int", _POS),
                Field("type", "intop", ops={1: False, 0: True}),
            ),
            time="arrival_ns",
            time_unit_ns=1,
            offset="lba",
            offset_unit=512,
            size="size",
            size_unit=512,
            op="type",
            device="device",
        ),
        FormatSpec(
            name="heimdall",
            description="Heimdall cut: arrival[ms, float] dev offset[bytes] size[bytes] "
            "op(1=read,0=write)",
            delimiter=" ",
            fields=(
                Field("arrival_ms", "pointed"),
                Field("device", "int", _NONNEG),
                Field("offset", "int", _NONNEG),
                Field("size", "int", _POS),
                Field("op", "intop", ops={1: False, 0: True}),
            ),
            time="arrival_ms",
            time_unit_ns=1e6,
            offset="offset",
            offset_unit=1,
            size="size",
            size_unit=1,
            op="op",
            device="device",
        ),
        FormatSpec(
            name="mobile",
            description="mobile CSV (Pixel 6a): proces,device,rw_flag R/W,sector[512 B],"
            "size[sectors],timestamp[s]",
            delimiter=",",
            fields=(
                Field("proces", "skip"),
                Field("device", "skip"),
                Field("rw_flag", "op", ops=_RW),
                Field("sector", "int", _NONNEG),
                Field("size", "int", _POS),
                Field("timestamp", "float"),
            ),
            time="timestamp",
            time_unit_ns=1e9,
            offset="sector",
            offset_unit=512,
            size="size",
            size_unit=512,
            op="rw_flag",
            header=("proces", "device", "rw_flag", "sector", "size", "timestamp"),
        ),
        FormatSpec(
            # 8 fields separated by a double tab, i.e. 15 tab-separated columns whose odd
            # ones are empty.
            name="nexus5",
            description="SNIA Nexus 5 BIOTracer: sector, size[sectors, padded], size[bytes], "
            "flags (bit0 = write), generated/started/issued/completed [epoch s]",
            delimiter="\t",
            fields=(
                Field("sector", "int", _NONNEG),
                Field("_1", "skip"),
                Field("size_sectors", "skip"),
                Field("_3", "skip"),
                Field("size_bytes", "int", _POS),
                Field("_5", "skip"),
                Field("flags", "flags", _NONNEG),
                Field("_7", "skip"),
                Field("generated", "decimal"),
                Field("_9", "skip"),
                Field("started", "skip"),
                Field("_11", "skip"),
                Field("issued", "skip"),
                Field("_13", "skip"),
                Field("completed", "skip"),
            ),
            time="generated",
            time_unit_ns=1,  # the decimal field is converted to ns directly
            offset="sector",
            offset_unit=512,
            size="size_bytes",
            size_unit=1,
            op="flags",
        ),
    )
}

FORMAT_NAMES = tuple(FORMATS)

# --- the per-line reference rules (the vectorised checks in readers.py mirror these) ---

# ASCII digits only: Python's \d and int() accept other scripts' digits (e.g. full-width),
# which pyarrow rightly rejects
_INT_RE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT_RE = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)
DECIMAL_RE = r"^(?P<s>[0-9]+)(?:\.(?P<f>[0-9]{0,9})[0-9]*)?$"
_DECIMAL_RE = re.compile(DECIMAL_RE)


def _parse_int(text: str) -> int | None:
    if not _INT_RE.fullmatch(text) or len(text) > 24:  # longer cannot fit int64 anyway
        return None
    neg = text.startswith("-")
    digits = text[1:] if neg else text
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    value = -value if neg else value
    return value if -INT64_MAX - 1 <= value <= INT64_MAX else None


def _too_large(f: Field, limit: int | float) -> str:
    return f"{f.name} too large (at most {limit:g})"


def check_field(f: Field, text: str) -> str | None:
    """Why ``text`` is not a valid value of field ``f`` (None when it is)."""
    if f.kind == "skip":
        return None
    if f.kind in ("float", "pointed"):
        if not _FLOAT_RE.fullmatch(text):
            return f"{f.name} is not a number"
        if not math.isfinite(float(text)):
            return f"{f.name} is not finite"
        if f.kind == "pointed" and "." not in text:
            return (
                f"{f.name} has no decimal point: this format writes one in every line, so the "
                "file switches to another format here"
            )
        return None
    if f.kind == "decimal":
        match = _DECIMAL_RE.match(text)
        if not match:
            return f"{f.name} is not a decimal number"
        return _too_large(f, MAX_DECIMAL_SECONDS) if int(match["s"]) > MAX_DECIMAL_SECONDS else None
    if f.kind == "op":
        if text.lower() not in f.ops:
            return f"unknown {f.name} (expected one of {', '.join(f.ops)})"
        return None
    value = _parse_int(text)  # int, intop, flags
    if value is None:
        if _INT_RE.fullmatch(text):
            return f"{f.name} out of range (a 64-bit integer holds -2^63 .. 2^63-1)"
        return f"{f.name} is not an integer"
    if f.kind == "intop" and value not in f.ops:
        return f"unknown {f.name} (expected one of {', '.join(map(str, f.ops))})"
    if f.min_value is not None and value < f.min_value:
        return f"{f.name} must be {'positive' if f.min_value == 1 else '>= 0'}"
    if f.max_value is not None and value > f.max_value:
        return _too_large(f, f.max_value)
    return None


def _number(f: Field, text: str) -> float:
    """A checked field's value (decimal seconds as ns)."""
    if f.kind == "decimal":
        match = _DECIMAL_RE.match(text)
        assert match is not None
        return int(match["s"]) * 1e9 + int((match["f"] or "").ljust(9, "0"))
    return float(text) if f.kind in ("float", "pointed") else _parse_int(text) or 0


def line_time_ns(spec: FormatSpec, line: str) -> float:
    """The arrival time of a valid data line in ns on the trace's own clock."""
    f = spec.field(spec.time)
    return _number(f, line.split(spec.delimiter)[spec.names.index(spec.time)]) * spec.time_unit_ns


def check_line(
    spec: FormatSpec, line: str, first: tuple[int, float] | None = None
) -> tuple[str, str] | None:
    """(reason, offending value) for a bad data line, None for a good one. ``first`` is
    (line number, time in ns) of the trace's first request, for the time horizon."""
    parts = line.split(spec.delimiter)
    if len(parts) != len(spec.fields):
        return f"expected {len(spec.fields)} fields, got {len(parts)}", line
    for f, text in zip(spec.fields, parts, strict=True):
        reason = check_field(f, text)
        if reason is not None:
            return reason, text
    index = spec.names.index
    offset, size = parts[index(spec.offset)], parts[index(spec.size)]
    end = (
        int(_number(spec.field(spec.offset), offset)) * spec.offset_unit
        + int(_number(spec.field(spec.size), size)) * spec.size_unit
    )
    if end > MAX_ADDRESS_BYTES:
        return (
            f"offset + size = {end:,} bytes beyond the {MAX_ADDRESS_BYTES:,}-byte address space",
            f"{offset} + {size}",
        )
    if first is not None:
        dt_s = (line_time_ns(spec, line) - first[1]) / 1e9
        if abs(dt_s) > TIME_HORIZON_S:
            return (
                f"{spec.time} is {dt_s:.4g} s from the first request's (line {first[0]}), "
                f"beyond the {TIME_HORIZON_S / (365.25 * 86400):g}-year horizon",
                parts[index(spec.time)],
            )
    return None


def is_header(spec: FormatSpec, line: str) -> bool:
    return spec.header is not None and tuple(
        p.strip().lower() for p in line.split(spec.delimiter)
    ) == tuple(spec.header)
