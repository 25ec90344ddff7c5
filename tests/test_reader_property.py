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


@st.composite
def trace_texts(draw) -> bytes:
    """Lines of delimited tokens (mostly one delimiter and field count per file, as in a
    real trace), or plain random bytes."""
    if draw(st.booleans()) and draw(st.booleans()):
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
    max_examples=150,
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
