"""Columnar cache: the second load reads the cache (the reader is not called, the source
is not re-hashed) and gives identical arrays; changes to source or options miss."""

from __future__ import annotations

import os

import numpy as np
import pytest

from skftl.traces import cache, load_trace, readers

TEXT = "".join(f"{i * 1000} {i % 3} {i * 8} {8 + i % 5} {i % 2}\n" for i in range(1000))
COLUMNS = ("time_ns", "offset_bytes", "size_bytes", "is_write")


def _forbid(monkeypatch, module, attr):
    def fail(*args, **kwargs):
        raise AssertionError(f"{attr} called on a cached load")

    monkeypatch.setattr(module, attr, fail)


def test_second_load_reads_cache(write_trace, cache_dir, monkeypatch):
    path = write_trace("t.trace", TEXT)
    first = load_trace(path, cache_dir=cache_dir)
    files = sorted(p.name for p in cache_dir.iterdir())
    assert len(files) == 2 and cache.STAT_INDEX in files
    assert any(f.endswith(".arrow") for f in files)

    _forbid(monkeypatch, readers, "read_trace")
    _forbid(monkeypatch, cache, "file_digest")  # the stat index spares re-hashing
    second = load_trace(path, cache_dir=cache_dir)
    for col in COLUMNS:
        a, b = getattr(first, col), getattr(second, col)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert second.meta == first.meta


def test_cached_columns_are_read_only(write_trace, cache_dir):
    path = write_trace("t.trace", TEXT)
    for _ in range(2):  # fresh and cached alike
        req = load_trace(path, cache_dir=cache_dir)
        with pytest.raises(ValueError):
            req.offset_bytes[0] = 1


def test_changed_source_is_reparsed(write_trace, cache_dir):
    path = write_trace("t.trace", TEXT)
    load_trace(path, cache_dir=cache_dir)
    path.write_text(TEXT + "99999999 0 0 8 1\n")
    os.utime(path, ns=(1, 1))  # a different mtime too
    req = load_trace(path, cache_dir=cache_dir)
    assert len(req) == 1001
    assert len(list(cache_dir.glob("*.arrow"))) == 2


def test_options_and_format_are_part_of_the_key(write_trace, cache_dir, monkeypatch):
    path = write_trace("t.trace", TEXT)
    mapped = load_trace(path, cache_dir=cache_dir)
    plain = load_trace(path, cache_dir=cache_dir, options={"map_devices": False})
    assert not np.array_equal(mapped.offset_bytes, plain.offset_bytes)
    assert len(list(cache_dir.glob("*.arrow"))) == 2
    calls = []
    monkeypatch.setattr(readers, "READER_VERSION", readers.READER_VERSION + 1)
    monkeypatch.setattr(cache, "READER_VERSION", readers.READER_VERSION)
    real = readers.read_trace
    monkeypatch.setattr(readers, "read_trace", lambda *a, **k: calls.append(1) or real(*a, **k))
    load_trace(path, cache_dir=cache_dir)
    assert calls == [1]  # a new reader version does not trust old files


def test_same_content_elsewhere_shares_the_cache(write_trace, tmp_path, cache_dir, monkeypatch):
    a = write_trace("a.trace", TEXT)
    load_trace(a, cache_dir=cache_dir)
    b = tmp_path / "copy.trace"
    b.write_text(TEXT)
    _forbid(monkeypatch, readers, "read_trace")
    req = load_trace(b, name="copy", cache_dir=cache_dir)
    assert req.meta.source == str(b) and req.meta.name == "copy"


def test_damaged_cache_file_is_replaced(write_trace, cache_dir, capsys):
    path = write_trace("t.trace", TEXT)
    first = load_trace(path, cache_dir=cache_dir)
    (cached,) = cache_dir.glob("*.arrow")
    cached.write_bytes(b"garbage")
    (cache_dir / cache.STAT_INDEX).write_text("{not json")
    again = load_trace(path, cache_dir=cache_dir)
    err = capsys.readouterr().err.strip()
    assert err.startswith("skftl: rebuilding an unreadable trace cache file") and "\n" not in err
    assert str(cached) in err
    np.testing.assert_array_equal(again.offset_bytes, first.offset_bytes)
    assert cache.load(cached, cache.cache_key(first.meta.sha256, "mqsim", {"map_devices": True}))


def test_use_cache_false_writes_nothing(write_trace, cache_dir):
    load_trace(write_trace("t.trace", TEXT), cache_dir=cache_dir, use_cache=False)
    assert not cache_dir.exists()


# --- issue 22: killed writers, in-place edits, file modes -----------------------------------


def test_stale_temporary_of_a_killed_load_is_cleaned(write_trace, cache_dir):
    import subprocess
    import sys

    # a writer killed with SIGKILL: its temporary stays; its pid no longer runs
    code = (
        "import os, signal, sys\nfrom skftl.io import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_bytes(b'partial')\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    cache_dir.mkdir()
    subprocess.run([sys.executable, "-c", code, str(cache_dir / "x.arrow")], check=False)
    (orphan,) = cache_dir.glob(".*.tmp")
    load_trace(write_trace("t.trace", TEXT), cache_dir=cache_dir)
    assert not orphan.exists()
    assert not list(cache_dir.glob(".*.tmp"))


def test_live_writers_temporary_is_kept(tmp_path):
    from skftl.io import atomic_path, clean_stale_temporaries

    with atomic_path(tmp_path / "out.csv") as tmp:
        tmp.write_text("x")
        assert clean_stale_temporaries(tmp_path) == [] and tmp.exists()


def test_edit_in_place_with_size_and_mtime_restored_is_reparsed(write_trace, cache_dir):
    path = write_trace("t.trace", TEXT)
    first = load_trace(path, cache_dir=cache_dir)
    st = path.stat()
    edited = TEXT.replace("1000 1 8 9 1\n", "1000 1 8 9 0\n", 1)  # same length
    assert len(edited) == len(TEXT) and edited != TEXT
    path.write_text(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    second = load_trace(path, cache_dir=cache_dir)
    assert second.meta.sha256 == readers.file_digest(path) != first.meta.sha256
    assert second.is_write[1] and not first.is_write[1]


def test_stat_signature_sees_head_and_tail(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"a" * (3 << 16))
    before = cache._stat_signature(path)[1][-1]
    with open(path, "r+b") as fh:
        fh.seek((3 << 16) - 1)
        fh.write(b"b")
    assert cache._stat_signature(path)[1][-1] != before


def test_atomic_files_respect_the_umask(write_trace, cache_dir, tmp_path):
    from skftl.io import write_csv

    old = os.umask(0o022)
    try:
        load_trace(write_trace("t.trace", TEXT), cache_dir=cache_dir)
        plain = tmp_path / "plain"
        plain.write_text("x")
        import pandas as pd

        out = write_csv(pd.DataFrame({"a": [1]}), tmp_path / "r.csv")
        modes = {p.name: p.stat().st_mode & 0o777 for p in [*cache_dir.iterdir(), out, plain]}
        assert set(modes.values()) == {0o644}, modes
        os.umask(0o077)
        assert (
            write_csv(pd.DataFrame({"a": [1]}), tmp_path / "s.csv").stat().st_mode & 0o777 == 0o600
        )
    finally:
        os.umask(old)


def test_arrow_numpy_round_trip_matches_pyarrow():
    import pyarrow as pa

    from skftl.traces.arrow import from_numpy, to_numpy

    for dt in (np.int64, np.uint8, np.float64, np.int32):
        x = np.arange(7, dtype=dt)
        a = from_numpy(x)
        assert a.type == pa.array(x).type
        assert np.array_equal(to_numpy(a), x) and to_numpy(a).dtype == x.dtype
        assert np.array_equal(to_numpy(a.slice(2, 3)), x[2:5])  # offsets honoured
    chunked = pa.chunked_array([pa.array([1, 2]), pa.array([3])])
    assert to_numpy(chunked).tolist() == [1, 2, 3]
    assert to_numpy(pa.chunked_array([], type=pa.int64())).dtype == np.int64
    with_null = to_numpy(pa.array([1.0, None]))  # nulls: pyarrow's own conversion
    assert with_null[0] == 1.0 and np.isnan(with_null[1])
