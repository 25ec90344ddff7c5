"""Bad input: the right error, naming file, line and value, and nothing left in the cache."""

from __future__ import annotations

import gzip
import zlib

import pytest

from skftl.cli import main
from skftl.errors import ChecksumError, TraceFormatError, UnknownTraceError
from skftl.traces import load_trace, readers
from skftl.traces.registry import TraceNotFoundError

GOOD_MSR = "128166385365934025,web,0,Write,3160743424,4096,135731\n"
GOOD_MQSIM = "11413000 0 657728 16 1\n"
GOOD_SPC = "0,303567,3584,w,0.000000\n"
HEADER = "proces,device,rw_flag,sector,size,timestamp\n"

# (file name, text, expected line, expected value, reason fragment)
CASES = [
    ("fields.csv", GOOD_MSR * 3 + "1,web,0,Read,0,4096\n", 4, "1,web,0,Read,0,4096",
     "expected 7 fields, got 6"),
    ("nonnum.csv", GOOD_MSR * 2 + "128166385365934025,web,0,Read,12x4,4096,1\n", 3, "12x4",
     "offset is not an integer"),
    ("negsize.trace", GOOD_MQSIM * 5 + "11413000 0 657728 -16 1\n", 6, "-16",
     "size must be positive"),
    ("zerosize.spc", GOOD_SPC + "0,1,0,r,0.1\n", 2, "0", "size must be positive"),
    ("negoff.trace", GOOD_MQSIM + "11413000 0 -8 16 1\n", 2, "-8", "lba must be >= 0"),
    ("hugelba.trace", GOOD_MQSIM + f"11413000 0 {2**62} 16 1\n", 2, str(2**62),
     "lba too large"),
    ("opcode.spc", GOOD_SPC * 2 + "0,1,512,x,0.1\n", 3, "x", "unknown opcode"),
    ("mqtype.trace", GOOD_MQSIM + "11413000 0 8 16 2\n", 2, "2", "unknown type"),
    ("msrtype.csv", GOOD_MSR + "128166385365934025,web,0,Erase,0,4096,1\n", 2, "Erase",
     "unknown type"),
    ("time.spc", GOOD_SPC + "0,1,512,r,nan\n", 2, "nan", "timestamp is not finite"),
    ("mobile.csv", HEADER + "a-1,8,R,0,8,1.0\n" + "b-2,8,W,10,8,abc\n", 3, "abc",
     "timestamp is not a number"),
    ("blank_then_bad.trace", GOOD_MQSIM + "\n\n" + "1 0 8\n", 4, "1 0 8",
     "expected 5 fields, got 3"),
]  # fmt: skip


def _assert_untouched(cache_dir):
    assert not cache_dir.exists() or not any(cache_dir.iterdir())


@pytest.mark.parametrize("fname,text,line,value,reason", CASES)
def test_bad_line_is_named_exactly(write_trace, cache_dir, fname, text, line, value, reason):
    path = write_trace(fname, text)
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    e = err.value
    assert (e.path, e.line, e.value) == (str(path), line, value)
    assert reason in e.reason
    assert str(path) in str(e) and f"line {line}" in str(e)
    _assert_untouched(cache_dir)


def test_bad_line_deep_in_a_later_block(write_trace, cache_dir, monkeypatch):
    monkeypatch.setattr(readers, "BLOCK_SIZE", 1 << 10)
    text = GOOD_MQSIM * 4999 + "11413000 0 657728 0 1\n" + GOOD_MQSIM * 100
    path = write_trace("deep.trace.gz", text, "gzip")
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (5000, "0")
    _assert_untouched(cache_dir)


def test_truncated_gzip(tmp_path, cache_dir):
    text = "".join(f"{i * 1000} 0 {i * 8} 8 1\n" for i in range(20000))
    data = gzip.compress(text.encode())
    path = tmp_path / "cut.trace.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, fmt="mqsim", cache_dir=cache_dir)
    e = err.value
    assert e.path == str(path) and "truncated" in e.reason
    assert e.line is not None and 0 < e.line < 20000
    # the reported line is the last complete one before the cut
    got = zlib.decompressobj(wbits=31).decompress(data[: len(data) // 2])
    assert e.line == got.count(b"\n")
    _assert_untouched(cache_dir)


def test_truncated_gzip_autodetect(tmp_path, cache_dir):
    data = gzip.compress(b"".join(b"%d 0 0 8 1\n" % i for i in range(50000)))
    path = tmp_path / "cut2.trace.gz"
    path.write_bytes(data[: len(data) - 20])
    with pytest.raises(TraceFormatError, match="truncated"):
        load_trace(path, cache_dir=cache_dir)
    _assert_untouched(cache_dir)


@pytest.mark.parametrize(
    "text,compression",
    [("", None), ("", "gzip"), ("\n\n  \n", None), (HEADER, None)],
    ids=["empty", "empty-gz", "blank-lines", "header-only"],
)
def test_empty_files(write_trace, cache_dir, text, compression):
    path = write_trace("empty.csv", text, compression)
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    assert err.value.path == str(path)
    assert "empty" in err.value.reason or "no data lines" in err.value.reason
    _assert_untouched(cache_dir)


def test_unknown_trace_name_lists_close_matches(cache_dir):
    with pytest.raises(UnknownTraceError, match="did you mean wsrch-small") as err:
        load_trace("wsrch-smal", cache_dir=cache_dir)
    assert "wsrch-smal" in str(err.value)
    _assert_untouched(cache_dir)


def test_checksum_mismatch_names_file_expected_and_actual(tmp_path, cache_dir):
    folder = tmp_path / "traces"
    (folder / "mqsim_bundled").mkdir(parents=True)
    fake = folder / "mqsim_bundled" / "wsrch-small.trace.gz"
    fake.write_bytes(gzip.compress(GOOD_MQSIM.encode()))
    with pytest.raises(ChecksumError) as err:
        load_trace("wsrch-small", trace_dirs=[folder], cache_dir=cache_dir)
    msg = str(err.value)
    assert str(fake) in msg
    assert "926e1e8e673a406c8236e43588d53405394f93b85e1a541710bfd346feedd37a" in msg  # expected
    assert readers.file_digest(fake) in msg  # actual
    _assert_untouched(cache_dir)


def test_missing_trace_folder(tmp_path, cache_dir, capsys):
    missing = tmp_path / "no-such-folder"
    with pytest.raises(TraceNotFoundError) as err:
        load_trace("tpcc-small", trace_dirs=[missing], cache_dir=cache_dir)
    assert f"{missing} (folder does not exist)" in str(err.value)
    assert "tpcc-small.trace" in str(err.value)  # says what to place where
    assert main(["--trace-dir", str(missing), "traces", "list"]) == 2
    assert f"trace folder does not exist: {missing}" in capsys.readouterr().err
    _assert_untouched(cache_dir)
