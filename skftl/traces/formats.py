"""Declarative descriptions of the supported block-trace text formats.

Each format is a list of typed fields plus unit factors. The streaming reader
(``readers.py``) turns the declarations into pyarrow parse options and vectorised
checks; ``check_line`` below applies the *same* rules to one line in plain Python and
is used to pin down the exact line of a problem the fast path detected.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Field:
    """One column. ``kind`` is one of

    - ``int``: integer (pyarrow also accepts ``0x`` hex), within ``min_value`` and
      ``max_value`` where set;
    - ``float``: finite decimal number;
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
    max_value: int | None = None  # keeps unit conversion (x 512) inside int64

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
_MAX_SECTORS = INT64_MAX // 512
_NONNEG = 0
_POS = 1

FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (
        FormatSpec(
            name="spc",
            description="UMass/SPC: ASU,LBA[512 B sectors],Size[bytes],Opcode r/w,Timestamp[s]",
            delimiter=",",
            fields=(
                Field("asu", "int", _NONNEG),
                Field("lba", "int", _NONNEG, max_value=_MAX_SECTORS),
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
                Field("arrival_ns", "int"),
                Field("device", "int", _NONNEG),
                Field("lba", "int", _NONNEG, max_value=_MAX_SECTORS),
                Field("size", "int", _POS, max_value=_MAX_SECTORS),
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
                Field("arrival_ms", "float"),
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
                Field("sector", "int", _NONNEG, max_value=_MAX_SECTORS),
                Field("size", "int", _POS, max_value=_MAX_SECTORS),
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
                Field("sector", "int", _NONNEG, max_value=_MAX_SECTORS),
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

_INT_RE = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)")
_FLOAT_RE = re.compile(
    r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE
)
DECIMAL_RE = r"^(?P<s>\d+)(?:\.(?P<f>\d{0,9})\d*)?$"
_DECIMAL_RE = re.compile(DECIMAL_RE)


def _parse_int(text: str) -> int | None:
    if not _INT_RE.fullmatch(text):
        return None
    neg = text.startswith("-")
    digits = text[1:] if neg else text
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    value = -value if neg else value
    return value if -INT64_MAX - 1 <= value <= INT64_MAX else None


def check_field(f: Field, text: str) -> str | None:
    """Why ``text`` is not a valid value of field ``f`` (None when it is)."""
    if f.kind == "skip":
        return None
    if f.kind == "float":
        if not _FLOAT_RE.fullmatch(text):
            return f"{f.name} is not a number"
        return None if math.isfinite(float(text)) else f"{f.name} is not finite"
    if f.kind == "decimal":
        return None if _DECIMAL_RE.match(text) else f"{f.name} is not a decimal number"
    if f.kind == "op":
        if text.lower() not in f.ops:
            return f"unknown {f.name} (expected one of {', '.join(f.ops)})"
        return None
    value = _parse_int(text)  # int, intop, flags
    if value is None:
        return f"{f.name} is not an integer"
    if f.kind == "intop" and value not in f.ops:
        return f"unknown {f.name} (expected one of {', '.join(map(str, f.ops))})"
    if f.min_value is not None and value < f.min_value:
        return f"{f.name} must be {'positive' if f.min_value == 1 else '>= 0'}"
    if f.max_value is not None and value > f.max_value:
        return f"{f.name} too large (at most {f.max_value})"
    return None


def check_line(spec: FormatSpec, line: str) -> tuple[str, str] | None:
    """(reason, offending value) for a bad data line, None for a good one."""
    parts = line.split(spec.delimiter)
    if len(parts) != len(spec.fields):
        return f"expected {len(spec.fields)} fields, got {len(parts)}", line
    for f, text in zip(spec.fields, parts, strict=True):
        reason = check_field(f, text)
        if reason is not None:
            return reason, text
    return None


def is_header(spec: FormatSpec, line: str) -> bool:
    return spec.header is not None and tuple(
        p.strip().lower() for p in line.split(spec.delimiter)
    ) == tuple(spec.header)
