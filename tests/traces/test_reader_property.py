"""Every reader on arbitrary input: valid requests or a TraceFormatError naming a line (or
the whole file), never another exception (issue 22)."""

from __future__ import annotations

import bz2
import gzip

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skftl.errors import TraceFormatError
from skftl.traces import formats, readers

FORMATS = [None, *formats.FORMAT_NAMES]  # None: detected from the content

# plausible and hostile field values: valid numbers and op codes of every format, their
# edges (zero, negative, int64 overflow, the bounds, hex, exponents, non-finite), other
# scripts' digits, a byte-order mark, stray spaces and empty fields
TOKENS = st.sampled_from(
    [
        "0", "1", "7", "8", "512", "4096", "-1", "-0", "+5", "0x1f", "1.5", "0.000", "1e3",
        "1e300", "-1e20", "nan", "inf", "", " ", "r", "w", "R", "W", "Read", "Write", "web",
        "1400000000.123456789", "128166385365934025", str(2**63 - 1), str(2**63), str(2**64),
        str(formats.MAX_ADDRESS_BYTES), str(formats.MAX_REQUEST_BYTES + 1), "9" * 30,
        "\uff15", "\u0665", "\ufeff1", "1_000", "１２", "proces",
    ]
)  # fmt: skip
DELIMITERS = st.sampled_from([",", " ", "\t\t", "\t"])
LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


def _valid(f: formats.Field) -> st.SearchStrategy[str]:
    """Values a field of this kind accepts (plus a few just outside its bounds)."""
    if f.kind == "op":
        return st.sampled_from(sorted(f.ops) + [k.upper() for k in f.ops])
    if f.kind == "intop":
        return st.sampled_from([str(k) for k in f.ops])
    if f.kind == "float":
        return st.floats(-1e3, 1e9, allow_nan=False).map(repr) | st.integers(0, 10**6).map(str)
    if f.kind == "pointed":
        return st.floats(0, 1e9, allow_nan=False).map(lambda x: f"{x:.3f}")
    if f.kind == "decimal":
        return st.decimals(0, 10**10, places=9, allow_nan=False).map(str)
    if f.kind == "skip":
        return st.sampled_from(["web", "0", "a-1", "8", ""])
    top = (f.max_value or 2**40) + 2
    return st.integers(0, 4096).map(str) | st.integers(0, top).map(str)


@st.composite
def format_texts(draw) -> bytes:
    """Lines of one format whose fields are mostly valid, some replaced by hostile tokens."""
    spec = formats.FORMATS[draw(st.sampled_from(formats.FORMAT_NAMES))]
    end = draw(LINE_ENDS)
    rows = draw(
        st.lists(
            st.tuples(*[_valid(f) | TOKENS if draw(st.booleans()) else _valid(f)
                        for f in spec.fields]).map(spec.delimiter.join),
            min_size=1,
            max_size=8,
        )
    )  # fmt: skip
    bom = "\ufeff" if draw(st.booleans()) else ""
    header = spec.delimiter.join(spec.header) + end if spec.header else ""
    return (bom + header + end.join(rows) + end).encode()


@st.composite
def trace_texts(draw) -> bytes:
    """Lines of one format with hostile values, lines of delimited tokens, or plain random
    bytes."""
    kind = draw(st.sampled_from(["format", "format", "tokens", "bytes"]))
    if kind == "format":
        return draw(format_texts())
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    delim = draw(DELIMITERS)
    width = draw(st.sampled_from([5, 6, 7, 8]))
    end = draw(LINE_ENDS)
    lines = draw(
        st.lists(
            st.lists(TOKENS, min_size=width - 1, max_size=width + 1).map(delim.join),
            min_size=1,
            max_size=8,
        )
    )
    header = "proces,device,rw_flag,sector,size,timestamp" + end if draw(st.booleans()) else ""
    return (header + end.join(lines) + draw(st.sampled_from(["", end]))).encode()


COMPRESS = {None: lambda b: b, "gzip": gzip.compress, "bz2": bz2.compress}


def _check_requests(req) -> None:
    assert len(req) > 0
    assert (req.size_bytes > 0).all() and (req.size_bytes <= formats.MAX_REQUEST_BYTES).all()
    assert (req.offset_bytes >= 0).all()
    assert (req.offset_bytes + req.size_bytes <= formats.MAX_ADDRESS_BYTES).all()
    horizon_ns = formats.TIME_HORIZON_S * 1e9
    assert req.time_ns[0] == 0 and (np.abs(req.time_ns) <= horizon_ns).all()


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=trace_texts(),
    fmt=st.sampled_from(FORMATS),
    compression=st.sampled_from(list(COMPRESS)),
    cut=st.integers(0, 3),
)
def test_arbitrary_input_gives_requests_or_a_trace_format_error(
    tmp_path, data, fmt, compression, cut
):
    raw = COMPRESS[compression](data)
    if compression and cut:  # damage the compressed stream: cut off its tail
        raw = raw[: len(raw) * cut // 4]
    path = tmp_path / "t"
    path.write_bytes(raw)
    try:
        req = readers.read_trace(path, fmt)
    except TraceFormatError as err:
        assert err.path == str(path)
        lines = data.count(b"\n") + data.count(b"\r") + 1
        assert err.line is None or 1 <= err.line <= lines, (err.line, lines)
        assert err.reason != "could not parse", str(err)  # the line loop disagreed
        return
    _check_requests(req)


@st.composite
def valid_lines(draw, spec: formats.FormatSpec) -> list[str]:
    """1-6 lines of ``spec`` whose every field is valid (within its bounds), times from 0."""
    fields = [
        st.just("0.000" if f.kind == "pointed" else "0") if f.name == spec.time else _valid(f)
        for f in spec.fields
    ]
    first = draw(st.tuples(*fields).map(spec.delimiter.join))
    rest = draw(st.lists(st.tuples(*[_valid(f) for f in spec.fields]), max_size=5))
    return [first, *(spec.delimiter.join(r) for r in rest)]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data(), switch_names=st.permutations(formats.FORMAT_NAMES))
def test_a_file_that_switches_format_is_refused_at_a_line(tmp_path, data, switch_names):
    """Lines of one format followed by lines of another (a trace appended to another) are
    never read as requests: the reader names a line of the file."""
    first, second = (formats.FORMATS[n] for n in switch_names[:2])
    head = data.draw(valid_lines(first))
    tail = data.draw(valid_lines(second))
    lines = [*head, *tail]
    path = tmp_path / "t"
    path.write_text("\n".join(lines) + "\n")
    try:
        readers.read_trace(path)
    except TraceFormatError as err:
        assert err.line is None or 1 <= err.line <= len(lines), (err.line, len(lines))
        assert err.reason != "could not parse", str(err)
        return
    raise AssertionError(f"{first.name} then {second.name} was read as one trace")


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(arrivals=st.lists(st.integers(-(10**12), 10**12), min_size=1, max_size=6))
def test_mqsim_arrival_times_are_never_negative(tmp_path, arrivals):
    """An MQSim trace with a negative arrival is refused at its first such line."""
    path = tmp_path / "t.trace"
    path.write_text("".join(f"{t} 0 8 8 1\n" for t in arrivals))
    bad = [i for i, t in enumerate(arrivals, start=1) if t < 0]
    try:
        req = readers.read_trace(path, "mqsim")
    except TraceFormatError as err:
        assert bad and err.line == bad[0], (err.line, bad)
        assert "arrival_ns must be >= 0" in err.reason
        return
    assert not bad
    assert len(req) == len(arrivals)
