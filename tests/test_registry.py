"""Registry: entries are complete, shared files are located and verified, checksum
mismatches and offline fetches fail clearly, a download is verified before use."""

from __future__ import annotations

import functools
import gzip
import http.server
import re
import shutil
import threading
import time

import pytest

from skftl.errors import ChecksumError, UnknownTraceError
from skftl.traces import fetch, list_known, load_trace, locate, registry
from skftl.traces.formats import FORMAT_NAMES

SHARED_NAMES = [
    "msr_web_0_excerpt", "wsrch-small", "tpcc-small", "heimdall_rw_20_80_105",
    "heimdall_rand_iops_1006", "pixel6a_cod_exec", "pixel6a_cod_precond",
    "pixel6a_diablo_exec", "pixel6a_genshin_impact_exec", "pixel6a_genshin_impact_precond",
    "pixel6a_pubg_exec", "pixel6a_pubg_precond", "pixel6a_slideshow_exec",
    "pixel6a_slideshow_precond", "pixel6a_telegram_precond", "pixel6a_you_cut_precond",
]  # fmt: skip
PAPER_NAMES = [
    "Financial1", "Financial2", "WebSearch1", "WebSearch2", "WebSearch3", "msr_web_0",
    "msr_web_1", "msr_web_2", "msr_web_3", "msr_mds_0", "msr_mds_1", "msr_hm_0", "nexus5",
]  # fmt: skip


def test_entries_are_complete():
    names = [e.name for e in list_known()]
    assert len(names) == len(set(names))
    for name in SHARED_NAMES + PAPER_NAMES:
        assert name in names
    for e in list_known():
        assert e.format in FORMAT_NAMES
        assert e.description and e.stands_for and e.citation and e.urls and e.filenames
        for checksum in e.checksums:
            algorithm, hexdigest = checksum.split(":")
            assert re.fullmatch(r"[0-9a-f]+", hexdigest)
            assert len(hexdigest) == {"sha1": 40, "sha256": 64}[algorithm]
    assert registry.get("Financial1").checksums == (
        "sha1:5f705113ef5ab0b7cf033894e03ff0b050927ffd",
    )
    assert registry.get("WebSearch3").urls[0].endswith("/WebSearch3.spc.bz2")


@pytest.mark.realtrace
def test_every_shared_trace_is_located_and_verified(shared_traces):
    for name in SHARED_NAMES:
        path = locate(name, [shared_traces])
        assert path is not None and path.is_file(), name
        assert registry.verify(path, registry.get(name)) is True
    # every trace file in the folder is registered
    files = {p.relative_to(shared_traces).as_posix() for p in shared_traces.glob("*/*.gz")}
    registered = {registry.get(n).filenames[0] for n in SHARED_NAMES}
    assert registered == {f for f in files if not f.endswith(".stats.gz")}


@pytest.mark.realtrace
def test_registered_request_counts(shared_traces, cache_dir):
    for name in ("wsrch-small", "pixel6a_telegram_precond", "heimdall_rand_iops_1006"):
        req = load_trace(name, trace_dirs=[shared_traces], cache_dir=cache_dir)
        assert len(req) == registry.get(name).requests
        assert req.meta.name == name


@pytest.mark.realtrace
def test_decompressed_copy_verifies_by_content(shared_traces, tmp_path):
    with gzip.open(shared_traces / "mqsim_bundled" / "tpcc-small.trace.gz") as src:
        (tmp_path / "tpcc-small.trace").write_bytes(src.read())
    path = locate("tpcc-small", [tmp_path])
    assert path == tmp_path / "tpcc-small.trace"
    assert registry.verify(path, registry.get("tpcc-small")) is True


def test_wrong_content_fails_and_unverifiable_copy_is_reported(tmp_path):
    (tmp_path / "tpcc-small.trace").write_text("0 0 0 8 1\n")
    with pytest.raises(ChecksumError, match="tpcc-small.trace"):
        locate("tpcc-small", [tmp_path])
    (tmp_path / "Financial2.spc").write_text("0,1,512,r,0.0\n")  # only the .bz2 sha1 known
    assert registry.verify(tmp_path / "Financial2.spc", registry.get("financial2")) is False
    assert locate("financial2", [tmp_path]) == tmp_path / "Financial2.spc"


def test_unknown_name_and_absent_trace(tmp_path):
    with pytest.raises(UnknownTraceError, match="did you mean msr_web_0"):
        locate("msr_web0", [tmp_path])
    assert locate("msr_web_0", [tmp_path / "missing", tmp_path]) is None


def _offline(monkeypatch, name):
    entry = registry.get(name)
    dead = registry.KnownTrace(**{**entry.__dict__, "urls": ("http://127.0.0.1:9/x.trace",)})
    monkeypatch.setitem(registry.REGISTRY, name, dead)


def test_fetch_offline_fails_at_once_with_placement(tmp_path, monkeypatch):
    _offline(monkeypatch, "tpcc-small")
    start = time.monotonic()
    with pytest.raises(registry.FetchError) as err:
        fetch("tpcc-small", tmp_path / "raw")
    assert time.monotonic() - start < registry.FETCH_TIMEOUT_S + 5
    assert str(tmp_path / "raw" / "x.trace") in str(err.value)
    assert not list((tmp_path / "raw").glob("*"))


def test_fetch_without_direct_download(tmp_path):
    with pytest.raises(registry.FetchError, match="iotta.snia.org"):
        fetch("msr_mds_0", tmp_path)


@pytest.fixture
def http_folder(tmp_path):
    """A local HTTP server over tmp_path/www (fetch needs a real URL)."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield www, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.realtrace
def test_fetch_downloads_and_verifies(shared_traces, http_folder, tmp_path, monkeypatch):
    www, base = http_folder
    with gzip.open(shared_traces / "mqsim_bundled" / "tpcc-small.trace.gz") as src:
        (www / "tpcc-small.trace").write_bytes(src.read())
    (www / "bad.trace").write_text("0 0 0 8 1\n")
    entry = registry.get("tpcc-small")
    good = registry.KnownTrace(**{**entry.__dict__, "urls": (f"{base}/tpcc-small.trace",)})
    monkeypatch.setitem(registry.REGISTRY, "tpcc-small", good)
    raw = tmp_path / "raw"
    path = fetch("tpcc-small", raw)
    assert path == raw / "tpcc-small.trace"
    assert locate("tpcc-small", [raw]) == path

    shutil.rmtree(raw)
    bad = registry.KnownTrace(**{**entry.__dict__, "urls": (f"{base}/bad.trace",)})
    monkeypatch.setitem(registry.REGISTRY, "tpcc-small", bad)
    with pytest.raises(ChecksumError):
        fetch("tpcc-small", raw)
    assert not [p for p in raw.iterdir()]  # nothing kept
