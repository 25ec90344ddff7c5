"""Readers: every shared trace loads with exact counts; units, regions, time bases and
format detection on small hand-written files."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.errors import TraceFormatError
from skftl.traces import load_trace, read_trace, readers, write_mqsim
from skftl.traces.readers import detect_format

MiB = 1 << 20


def _manifest(shared: Path) -> list[dict[str, str]]:
    with open(shared / "MANIFEST.tsv", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _trace_rows(shared: Path) -> list[dict[str, str]]:
    return [r for r in _manifest(shared) if not r["file"].endswith(".stats.gz")]


def _csv_rows(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", newline="") as fh:
        return list(csv.reader(fh))


@pytest.mark.realtrace
def test_every_shared_trace_loads_with_manifest_counts(shared_traces, cache_dir):
    rows = _trace_rows(shared_traces)
    assert len(rows) == 16
    for row in rows:
        req = load_trace(shared_traces / row["file"], cache_dir=cache_dir)
        assert len(req) == int(row["kept_lines"]), row["file"]
        assert req.meta.lines == len(req)
        assert req.meta.sha256 == row["sha256_of_gz"]
        assert req.time_ns[0] == 0
        assert (req.size_bytes > 0).all() and (req.offset_bytes >= 0).all()


@pytest.mark.realtrace
def test_msr_web_0_excerpt(shared_traces):
    path = shared_traces / "msr_cambridge" / "web_1.csv.gz"
    req = read_trace(path)
    assert req.meta.format == "msr"
    assert (len(req), req.n_reads, req.n_writes) == (100_000, 61_553, 38_447)
    # first lines: 128166385365934025,web,0,Write,3160743424,4096,...
    #              128166385366022103,web,0,Write,16397331968,4096,...
    assert req.offset_bytes[0] == 3160743424 and req.size_bytes[0] == 4096
    assert req.is_write[0]
    assert req.time_ns[1] == (128166385366022103 - 128166385365934025) * 100
    assert req.time_ns[-1] / 3600e9 == pytest.approx(3.84, abs=0.005)


@pytest.mark.realtrace
def test_wsrch_small_counts_and_asu_regions(shared_traces):
    path = shared_traces / "mqsim_bundled" / "wsrch-small.trace.gz"
    req = read_trace(path)
    assert req.meta.format == "mqsim"
    assert (len(req), req.n_reads, req.n_writes) == (24_783, 24_779, 4)
    assert round(req.time_ns[-1] / 1e9, 2) == 60.06
    # independent region computation from the text
    lines = [list(map(int, ln.split())) for ln in gzip.open(path, "rt").read().splitlines()]
    extent: dict[int, int] = {}
    for _, dev, lba, size, _ in lines:
        extent[dev] = max(extent.get(dev, 0), (lba + size) * 512)
    base, bases = 0, {}
    for dev in sorted(extent):
        bases[dev] = base
        base = -(-(base + extent[dev]) // MiB) * MiB
    assert req.meta.extra["device_base_bytes"] == {str(d): b for d, b in bases.items()}
    expected = np.array([bases[dev] + lba * 512 for _, dev, lba, _, _ in lines])
    np.testing.assert_array_equal(req.offset_bytes, expected)
    np.testing.assert_array_equal(req.size_bytes, [s * 512 for *_, s, _ in lines])
    assert not req.is_write[0]  # 11413000 0 657728 16 1 -> read
    unmapped = read_trace(path, options={"map_devices": False})
    assert unmapped.meta.extra["devices"] == [0, 1, 2, 3, 4, 5]
    np.testing.assert_array_equal(unmapped.offset_bytes, [lba * 512 for _, _, lba, _, _ in lines])


@pytest.mark.realtrace
def test_tpcc_small_counts(shared_traces):
    req = read_trace(shared_traces / "mqsim_bundled" / "tpcc-small.trace.gz")
    assert (len(req), req.n_reads) == (6_999, 4_381)


@pytest.mark.realtrace
def test_mobile_cod_exec_counts_independently(shared_traces):
    path = shared_traces / "mobile_pixel6a" / "cod_exec.csv.gz"
    rows = _csv_rows(path)
    assert rows[0] == ["proces", "device", "rw_flag", "sector", "size", "timestamp"]
    data = rows[1:]
    req = read_trace(path)
    assert req.meta.format == "mobile"
    assert len(req) == len(data) == 223_998
    assert req.n_reads == sum(1 for r in data if r[2] == "R")
    assert req.offset_bytes[0] == int(data[0][3]) * 512
    assert req.size_bytes[1] == int(data[1][4]) * 512
    assert req.time_ns[1] == round((float(data[1][5]) - float(data[0][5])) * 1e9)


@pytest.mark.realtrace
def test_diablo_exec_backward_time_jumps(shared_traces):
    path = shared_traces / "mobile_pixel6a" / "diablo_exec.csv.gz"
    t = [float(r[5]) for r in _csv_rows(path)[1:]]
    # requests that arrive before an earlier one (the README's "8 backward jumps"; 7 of
    # them are also below their immediate predecessor)
    running, out_of_order = t[0], 0
    for x in t[1:]:
        out_of_order += x < running
        running = max(running, x)
    assert out_of_order == 8
    assert read_trace(path).meta.backward_time_jumps == out_of_order


@pytest.mark.realtrace
def test_heimdall_cut(shared_traces):
    path = shared_traces / "msr_derived_heimdall" / "msr.cut.per_10k.rw_20_80.105.trace.gz"
    req = read_trace(path)
    assert req.meta.format == "heimdall"
    assert len(req) == 10_000
    # 0.000 0 200626176 4096 0 / 223.412 0 3159347200 36864 0
    assert req.time_ns[1] == 223_412_000
    assert req.offset_bytes[1] == 3159347200 and req.size_bytes[1] == 36864
    assert req.is_write[0] and req.is_write[1]


SPC = "0,303567,3584,w,0.000000\n1,100,512,R,0.5\n0,10,1024,W,1.25\n2,0,4096,r,2.000001\n"


def test_spc_units_case_and_asu_regions(write_trace):
    req = read_trace(write_trace("t.spc", SPC))
    assert req.meta.format == "spc"
    np.testing.assert_array_equal(req.time_ns, [0, 500_000_000, 1_250_000_000, 2_000_001_000])
    np.testing.assert_array_equal(req.size_bytes, [3584, 512, 1024, 4096])
    np.testing.assert_array_equal(req.is_write, [True, False, True, False])
    end0 = 303567 * 512 + 3584  # ASU 0 extent
    base1 = -(-end0 // MiB) * MiB
    base2 = -(-(base1 + 100 * 512 + 512) // MiB) * MiB
    assert req.meta.extra["device_base_bytes"] == {"0": 0, "1": base1, "2": base2}
    np.testing.assert_array_equal(
        req.offset_bytes, [303567 * 512, base1 + 100 * 512, 10 * 512, base2]
    )


def _nexus5_line(sector, sectors, nbytes, flags, t):
    times = [t, t, t, t]
    return "\t\t".join(map(str, [sector, sectors, nbytes, flags, *times])) + "\n"


def test_nexus5_uses_bytes_generated_time_and_exact_ns(write_trace):
    text = (
        _nexus5_line(1000, 9, 4096, 5, "1400000000.123456789")
        + _nexus5_line(2000, 8, 4096, 4, "1400000000.123456790")
        + _nexus5_line(3000, 16, 8192, 1, "1400000001.000000001")
        + _nexus5_line(0, 8, 4096, 0, "1400000002")
    )
    path = write_trace("log101_Test.txt", text)
    assert detect_format(path) == "nexus5"
    req = read_trace(path)
    np.testing.assert_array_equal(req.time_ns, [0, 1, 876_543_212, 1_876_543_211])
    np.testing.assert_array_equal(req.size_bytes, [4096, 4096, 8192, 4096])
    np.testing.assert_array_equal(req.offset_bytes, [1000 * 512, 2000 * 512, 3000 * 512, 0])
    np.testing.assert_array_equal(req.is_write, [True, False, True, False])


def test_heimdall_vs_mqsim_detection(write_trace):
    assert detect_format(write_trace("h", "0.000 0 4096 4096 1\n1.5 0 0 512 0\n")) == "heimdall"
    assert detect_format(write_trace("m", "0 0 8 8 1\n1500 0 0 1 0\n")) == "mqsim"
    assert detect_format(write_trace("msr", "128166385365934025,web,0,Read,0,512,1\n")) == "msr"
    header = "proces,device,rw_flag,sector,size,timestamp\n"
    assert detect_format(write_trace("mob", header + "a-1,8,R,0,8,1.0\n")) == "mobile"
    with pytest.raises(TraceFormatError, match="unrecognised trace format") as err:
        detect_format(write_trace("x", "\n\nhello world\n"))
    assert err.value.line == 3
    assert "--format" in str(err.value)  # the CLI's option, not the Python keyword only


def test_fmt_override(write_trace):
    path = write_trace("h", "0.000 0 4096 4096 1\n")
    with pytest.raises(TraceFormatError) as err:
        read_trace(path, fmt="mqsim")  # a decimal arrival is not MQSim's integer ns
    assert err.value.line == 1 and err.value.value == "0.000"


def test_heimdall_then_mqsim_lines_are_refused_where_the_format_switches(write_trace):
    # Heimdall prints every arrival with a decimal point; MQSim's integer ns would otherwise
    # be read as milliseconds
    path = write_trace("h", "0.000 0 4096 4096 1\n1.500 0 0 512 0\n2000000 0 8 8 1\n")
    with pytest.raises(TraceFormatError, match="no decimal point") as err:
        read_trace(path)
    assert (err.value.line, err.value.value) == (3, "2000000")
    assert "switches to another format" in err.value.reason


def test_negative_mqsim_arrival_is_refused(write_trace):
    with pytest.raises(TraceFormatError, match="arrival_ns must be >= 0") as err:
        read_trace(write_trace("m", "0 0 8 8 1\n-1500 0 0 1 0\n"), fmt="mqsim")
    assert (err.value.line, err.value.value) == (2, "-1500")


def test_out_of_range_integer_is_named_as_such(write_trace):
    big = str(2**63)
    with pytest.raises(TraceFormatError, match="lba out of range") as err:
        read_trace(write_trace("m", f"0 0 8 8 1\n10 0 {big} 1 0\n"), fmt="mqsim")
    assert (err.value.line, err.value.value) == (2, big)
    with pytest.raises(TraceFormatError, match="lba is not an integer"):
        read_trace(write_trace("n", "0 0 8 8 1\n10 0 eight 1 0\n"), fmt="mqsim")


@pytest.mark.parametrize("compression", [None, "gzip", "bz2"])
def test_compression_is_transparent(write_trace, compression):
    req = read_trace(write_trace("t", SPC, compression))
    plain = read_trace(write_trace("p", SPC))
    np.testing.assert_array_equal(req.offset_bytes, plain.offset_bytes)
    np.testing.assert_array_equal(req.time_ns, plain.time_ns)


def test_multi_member_gzip_reads_every_member(tmp_path):
    # pyarrow's own gzip stream stops after the first member; ours must not
    lines = [f"{i * 1000} 0 {i} 8 1\n" for i in range(100)]
    path = tmp_path / "multi.trace.gz"
    path.write_bytes(
        gzip.compress("".join(lines[:40]).encode()) + gzip.compress("".join(lines[40:]).encode())
    )
    assert len(read_trace(path)) == 100


def test_blank_lines_crlf_and_small_blocks(write_trace, monkeypatch):
    monkeypatch.setattr(readers, "BLOCK_SIZE", 64)  # many blocks
    body = "".join(
        f"{i},web,0,{'Write' if i % 3 else 'Read'},{i * 512},4096,5\r\n" for i in range(1, 501)
    )
    req = read_trace(write_trace("t.csv", "\r\n" + body + "\r\n\r\n"))
    assert len(req) == req.meta.lines == 500
    assert req.n_reads == sum(1 for i in range(1, 501) if i % 3 == 0)
    np.testing.assert_array_equal(req.time_ns, np.arange(500) * 100)


def test_export_mqsim_round_trip(write_trace, tmp_path):
    req = read_trace(write_trace("t.spc", SPC))
    out = tmp_path / "out.trace"
    assert write_mqsim(req, out) == 0
    back = read_trace(out)
    assert back.meta.format == "mqsim"
    for col in ("time_ns", "offset_bytes", "size_bytes", "is_write"):
        np.testing.assert_array_equal(getattr(back, col), getattr(req, col), err_msg=col)
    assert out.read_text().splitlines()[1] == f"500000000 0 {(req.offset_bytes[1]) // 512} 1 1"


def test_export_widens_unaligned_requests(write_trace, tmp_path):
    req = read_trace(write_trace("h", "0.0 0 100 1000 0\n"))  # bytes 100..1099: sectors 0..2
    out = tmp_path / "out.trace.gz"
    assert write_mqsim(req, out) == 1
    assert gzip.open(out, "rt").read() == "0 0 0 3 0\n"


def test_line_blocks_cover_the_text_exactly():
    import io

    from skftl.traces.textio import iter_line_blocks

    text = b"a\nbb\n" + b"c" * 50 + b"\r\ndd\n\neee"  # a line longer than the buffer, no final \n
    blocks = [bytes(v) for v in iter_line_blocks(io.BytesIO(text), 8)]
    assert b"".join(blocks) == text
    assert all(b.endswith(b"\n") for b in blocks[:-1]) and blocks[-1].endswith(b"eee")


def test_tiny_blocks_give_identical_results(write_trace, monkeypatch):
    text = "".join(f"{i},{i % 4},{512 * (1 + i % 7)},{'rw'[i % 2]},{i / 10}\n" for i in range(3000))
    path = write_trace("t.spc.gz", text, "gzip")
    whole = read_trace(path)
    monkeypatch.setattr(readers, "BLOCK_SIZE", 16)  # ~1 line per block, many re-estimates
    tiny = read_trace(path)
    for col in ("time_ns", "offset_bytes", "size_bytes", "is_write"):
        np.testing.assert_array_equal(getattr(tiny, col), getattr(whole, col))
    assert tiny.meta.extra == whole.meta.extra


def test_unknown_format_and_option_are_config_errors(write_trace):
    from skftl.errors import ConfigError

    path = write_trace("t.spc", SPC)
    with pytest.raises(ConfigError, match="unknown trace format 'foo'"):
        read_trace(path, fmt="foo")
    with pytest.raises(ConfigError, match="does not apply to format 'msr'"):
        read_trace(write_trace("m.csv", "1,web,0,Read,0,512,1\n"), options={"map_devices": 1})


# --- property tests: the fast path against a plain reference, and exact error lines ---

_line = st.tuples(
    st.integers(0, 3),  # device / ASU
    st.integers(0, 2**30),  # sectors
    st.integers(1, 256),  # sectors
    st.booleans(),  # write
    st.integers(0, 10**6),  # time step (us)
)


def _reference_mqsim(rows):
    """MQSim text as documented, without device regions: ns, sectors, 1 = read."""
    t0 = rows[0][0]
    return (
        [t - t0 for t, *_ in rows],
        [lba * 512 for _, _, lba, _, _ in rows],
        [n * 512 for _, _, _, n, _ in rows],
        [kind == 0 for *_, kind in rows],
    )


@settings(max_examples=25, deadline=None)
@given(lines=st.lists(_line, min_size=1, max_size=60), block=st.sampled_from([16, 64, 1 << 16]))
def test_mqsim_fast_path_equals_reference(tmp_path_factory, lines, block):
    t, rows = 5_000, []
    for dev, lba, size, write, step in lines:
        t += step * 1000
        rows.append((t, dev, lba, size, 0 if write else 1))
    path = tmp_path_factory.mktemp("p") / "t.trace"
    path.write_text("".join(" ".join(map(str, r)) + "\n" for r in rows))
    old, readers.BLOCK_SIZE = readers.BLOCK_SIZE, block
    try:
        req = read_trace(path, options={"map_devices": False})
    finally:
        readers.BLOCK_SIZE = old
    for got, want in zip(
        (req.time_ns, req.offset_bytes, req.size_bytes, req.is_write),
        _reference_mqsim(rows),
        strict=True,
    ):
        assert got.tolist() == want


@settings(max_examples=40, deadline=None)
@given(
    lines=st.lists(_line, min_size=1, max_size=40),
    data=st.data(),
    bad=st.sampled_from([("size", "0"), ("size", "-8"), ("size", "1.5"), ("opcode", "q"),
                         ("lba", "x7"), ("lba", ""), ("timestamp", "1e"), ("asu", "-1")]),
)  # fmt: skip
def test_spc_first_bad_line_is_reported(tmp_path_factory, lines, data, bad):
    field_index = {"asu": 0, "lba": 1, "size": 2, "opcode": 3, "timestamp": 4}
    rows = [
        [str(a), str(lba), str(n * 512), "wW"[i % 2] if w else "rR"[i % 2], f"{i * s / 1e6:.6f}"]
        for i, (a, lba, n, w, s) in enumerate(lines)
    ]
    target = data.draw(st.integers(0, len(rows) - 1))
    column, value = bad
    rows[target][field_index[column]] = value
    path = tmp_path_factory.mktemp("b") / "t.spc"
    path.write_text("".join(",".join(r) + "\n" for r in rows))
    with pytest.raises(TraceFormatError) as err:
        read_trace(path, fmt="spc")
    assert (err.value.line, err.value.value) == (target + 1, value)
