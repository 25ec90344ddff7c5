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

from skftl.cli import main
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


# --- issue 22: verification status everywhere a trace appears --------------------------------


def test_shared_traces_are_verified_and_say_how(shared_traces, tmp_path):
    req = load_trace("wsrch-small", trace_dirs=[shared_traces], cache_dir=tmp_path)
    assert req.meta.extra["verification"] == "verified (sha256 of the file)"
    again = load_trace("wsrch-small", trace_dirs=[shared_traces], cache_dir=tmp_path)  # cached
    assert again.meta.extra["verification"] == "verified (sha256 of the file)"


def _edited_web_0(shared_traces, folder):
    """The campaign's case: 1,000 lines of web_0 placed as the full msr_web_0 volume."""
    lines = gzip.decompress((shared_traces / "msr_cambridge" / "web_1.csv.gz").read_bytes())
    folder.mkdir()
    (folder / "web_0.csv").write_bytes(b"".join(lines.splitlines(True)[:1000]))
    return folder


def test_unverified_registered_trace_warns_and_is_labelled(shared_traces, tmp_path, capsys):
    folder = _edited_web_0(shared_traces, tmp_path / "t")
    with pytest.warns(UserWarning, match="'msr_web_0'.*cannot be verified"):
        req = load_trace("msr_web_0", trace_dirs=[folder], cache_dir=tmp_path / "c")
    assert req.meta.extra["verification"].startswith("UNVERIFIED")
    assert main(["--trace-dir", str(folder), "traces", "list"]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if "msr_web_0 " in ln]
    assert "web_0.csv" in line and "UNVERIFIED" in line
    with pytest.warns(UserWarning):
        assert main(["--trace-dir", str(folder), "traces", "info", "msr_web_0"]) == 0
    assert "verification: UNVERIFIED" in capsys.readouterr().out


def test_registered_size_and_request_count_are_checks(tmp_path, monkeypatch):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "hm_0.csv.gz").write_bytes(gzip.compress(b"128166385365934025,hm,0,Read,0,512,1\n"))
    with pytest.raises(ChecksumError, match="41,967,571 bytes"):
        registry.locate("msr_hm_0", [folder])
    # a copy whose request count differs from the registered one is not verified
    (folder / "hm_0.csv.gz").unlink()
    (folder / "hm_0.csv").write_text("128166385365934025,hm,0,Read,0,512,1\n")
    with pytest.warns(UserWarning, match="1 requests where the registry records 3,993,317"):
        req = load_trace("msr_hm_0", trace_dirs=[folder], cache_dir=tmp_path / "c")
    assert req.meta.extra["verification"].startswith("UNVERIFIED")


def test_a_path_is_labelled_unregistered(write_trace, cache_dir):
    req = load_trace(write_trace("t.trace", "0 0 8 8 1\n"), cache_dir=cache_dir)
    assert req.meta.extra["verification"].startswith("UNVERIFIED (a file given by path")


def test_run_records_verification_in_attrs_and_claim_notes(shared_traces, tmp_path):
    import xarray as xr

    from skftl.studies import claims as C
    from skftl.traces.loader import reset_verification_log, verification_log

    reset_verification_log()
    folder = _edited_web_0(shared_traces, tmp_path / "t")
    with pytest.warns(UserWarning):
        load_trace("msr_web_0", trace_dirs=[folder], cache_dir=tmp_path / "c")
    log = verification_log()
    assert log["msr_web_0"].startswith("UNVERIFIED")
    ds = xr.Dataset({"x": 1.0}, attrs={"trace_verification": f"msr_web_0: {log['msr_web_0']}"})
    claim = C.Claim(id="c", where="Fig. 1", statement="s", paper=C.Relation(op=">", ref=0),
                    ours=lambda d, r: 1.0, workload="real stand-in",
                    basis="prediction")  # fmt: skip
    assert (
        "real trace(s) NOT verified: msr_web_0: UNVERIFIED"
        in C.evaluate_claim(claim, ds, "any")["note"]
    )
    synthetic = C.Claim(id="s", where="Fig. 1", statement="s", paper=C.Relation(op=">", ref=0),
                        ours=lambda d, r: 1.0, workload="synthetic stand-in",
                        basis="prediction")  # fmt: skip
    assert C.evaluate_claim(synthetic, ds, "any")["note"] == ""
