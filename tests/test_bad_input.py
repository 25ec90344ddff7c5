"""Bad input: the right error, naming file, line and value, and nothing left in the cache."""

from __future__ import annotations

import bz2
import gzip
import subprocess
import sys
import zlib
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr
import yaml

from skftl.cli import main
from skftl.errors import ChecksumError, ConfigError, TraceFormatError, UnknownTraceError
from skftl.traces import formats, load_trace, readers
from skftl.traces.registry import TraceNotFoundError

REPO_ROOT = Path(__file__).resolve().parent.parent
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


# --- issue 22: bounds, byte-order marks, corrupt bz2, non-ASCII digits ----------------------

BIG = str(2**63 - 1)
GOOD_HEIMDALL = "0.000 0 4096 4096 1\n"
GOOD_NEXUS5 = "\t\t".join(["1000", "8", "4096", "1"] + ["1400000000.5"] * 4) + "\n"
GOOD_MOBILE = "a-1,8,R,0,8,1.0\n"


def _nexus5(size_bytes: str) -> str:
    return GOOD_NEXUS5.replace("\t\t4096\t\t", f"\t\t{size_bytes}\t\t")


# (file name, text, line, value, reason fragment): one request of 2^63 - 1 bytes per format
HUGE_SIZES = [
    ("msr.csv", GOOD_MSR + f"128166385365934025,web,0,Read,0,{BIG},1\n", 2, BIG),
    ("spc.spc", GOOD_SPC + f"0,1,{BIG},r,0.1\n", 2, BIG),
    ("heimdall.trace", GOOD_HEIMDALL + f"1.000 0 0 {BIG} 1\n", 2, BIG),
    ("nexus5.txt", GOOD_NEXUS5 + _nexus5(BIG), 2, BIG),
    ("mqsim.trace", GOOD_MQSIM + f"11413000 0 8 {2**40} 1\n", 2, str(2**40)),
    ("mobile.csv", HEADER + GOOD_MOBILE + f"b-2,8,W,10,{2**40},2.0\n", 3, str(2**40)),
]  # fmt: skip


@pytest.mark.parametrize("fname,text,line,value", HUGE_SIZES, ids=[c[0] for c in HUGE_SIZES])
def test_request_size_is_bounded_in_every_format(write_trace, cache_dir, fname, text, line, value):
    path = write_trace(fname, text)
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (line, value)
    assert "size" in err.value.reason and "too large" in err.value.reason
    _assert_untouched(cache_dir)


def test_largest_allowed_request_is_accepted(write_trace):
    text = GOOD_MSR + f"128166385365934025,web,0,Read,0,{formats.MAX_REQUEST_BYTES},1\n"
    assert readers.read_trace(write_trace("ok.csv", text)).size_bytes.max() == 2**30


def test_offset_plus_size_overflow_is_rejected(write_trace, cache_dir):
    # the campaign's case: int64-max offset, then a normal line
    path = write_trace("ovf.csv", f"0,web,0,Read,{BIG},4096,1\n" + GOOD_MSR)
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, fmt="msr", cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (1, BIG)
    # each field within its bound, their sum just beyond the address space
    offset = formats.MAX_ADDRESS_BYTES - 512
    path = write_trace("ovf2.csv", GOOD_MSR + f"128166385365934025,web,0,Read,{offset},4096,1\n")
    with pytest.raises(TraceFormatError, match="address space") as err:
        load_trace(path, cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (2, f"{offset} + 4096")
    _assert_untouched(cache_dir)


@pytest.mark.parametrize(
    "fname,text,line,value",
    [
        ("filetime0.csv", "0,web,0,Write,0,4096,1\n" + GOOD_MSR, 2, "128166385365934025"),
        ("heimdall.trace", GOOD_HEIMDALL + "1.0e300 0 0 4096 1\n", 2, "1.0e300"),
        ("spc.spc", GOOD_SPC + "0,1,512,r,1e20\n", 2, "1e20"),
        ("backwards.spc", GOOD_SPC + "0,1,512,r,-4e8\n", 2, "-4e8"),
        ("nexus5.txt", GOOD_NEXUS5 + GOOD_NEXUS5.replace("1400000000.5", "99999999999"), 2,
         "99999999999"),
    ],
)  # fmt: skip
def test_times_beyond_the_horizon_are_rejected(write_trace, cache_dir, fname, text, line, value):
    path = write_trace(fname, text)
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (line, value)
    assert "horizon" in err.value.reason or "too large" in err.value.reason
    _assert_untouched(cache_dir)


def test_a_week_long_trace_is_within_the_horizon(write_trace):
    week = 7 * 24 * 3600 * 10**7  # FILETIME ticks
    text = GOOD_MSR + f"{128166385365934025 + week},web,0,Read,0,4096,1\n"
    assert readers.read_trace(write_trace("week.csv", text)).time_ns[-1] == week * 100


BOM_CASES = {
    "msr": GOOD_MSR * 2,
    "spc": GOOD_SPC * 2,
    "mqsim": GOOD_MQSIM * 2,
    "heimdall": GOOD_HEIMDALL + "1.5 0 0 512 0\n",
    "mobile": HEADER + GOOD_MOBILE * 2,
    "nexus5": GOOD_NEXUS5 * 2,
}


@pytest.mark.parametrize("compression", [None, "gzip", "bz2"])
@pytest.mark.parametrize("fmt", list(BOM_CASES))
def test_byte_order_mark_is_accepted_in_every_format(write_trace, fmt, compression):
    plain = readers.read_trace(write_trace("plain", BOM_CASES[fmt]))
    bom = readers.read_trace(write_trace("bom", "\ufeff" + BOM_CASES[fmt], compression))
    assert bom.meta.format == plain.meta.format == fmt
    for col in ("time_ns", "offset_bytes", "size_bytes", "is_write"):
        assert getattr(bom, col).tolist() == getattr(plain, col).tolist()


def test_corrupt_bz2_is_reported_as_a_corrupt_compressed_file(tmp_path, cache_dir):
    text = (GOOD_MSR * 2000).encode()
    raw = bz2.compress(text)
    reasons = set()
    for pos in range(10, len(raw) - 4):
        data = bytearray(raw)
        data[pos] ^= 0x55
        path = tmp_path / f"c{pos}.csv.bz2"
        path.write_bytes(bytes(data))
        if _decodes(data) and bz2.decompress(bytes(data)) == text:
            continue  # a flip bzip2 does not notice and that changes nothing
        with pytest.raises(TraceFormatError) as err:
            load_trace(path, cache_dir=cache_dir)
        assert err.value.path == str(path)
        reasons.add(err.value.reason.split(":")[0].split(" (")[0])
    assert reasons <= {"corrupt bz2 file", "truncated or corrupt compressed file"}, reasons
    _assert_untouched(cache_dir)


def _decodes(data: bytes) -> bool:
    try:
        bz2.decompress(bytes(data))
    except (OSError, ValueError, EOFError):
        return False
    return True


@pytest.mark.parametrize(
    "digit", ["\uff15", "\u0665", "\u096b"]
)  # full-width, Arabic, Devanagari 5
def test_non_ascii_digit_names_the_line(write_trace, cache_dir, digit):
    path = write_trace("d.trace", GOOD_MQSIM * 3 + f"11413000 0 6{digit}7728 16 1\n")
    with pytest.raises(TraceFormatError) as err:
        load_trace(path, cache_dir=cache_dir)
    assert (err.value.line, err.value.value) == (4, f"6{digit}7728")
    assert "lba is not an integer" in err.value.reason


# --- issue 22, point 7: configs that used to degrade silently ------------------------------


def _tiny(**sections):
    from skftl.config import load_config

    cfg = load_config(REPO_ROOT / "config" / "tiny.yaml")
    for dotted, value in sections.items():
        *path, last = dotted.split("__")
        node = cfg
        for key in path:
            node = node.setdefault(key, {})
        node[last] = value
    return cfg


def test_unknown_trace_in_bnvm_stand_ins_names_the_key(tmp_path):
    from skftl.studies.bnvm.simulate import _load_workload

    cfg = _tiny(bnvm__stand_ins={"A": ["pixel6a_telegram_precondd"]})
    with pytest.raises(ConfigError, match=r"bnvm\.stand_ins\.A: 'pixel6a_telegram_precondd'"):
        _load_workload("A", cfg["bnvm"], cfg)


def test_unknown_trace_in_skrm_candidates_names_the_key():
    from skftl.studies.skrm.simulate import load_workloads

    cfg = _tiny()
    cfg["skrm"]["traces"] = {"web_0": {"candidates": ["msr_web_00"], "preset": "msr_web"}}
    with pytest.raises(ConfigError, match=r"skrm\.traces\.web_0\.candidates: 'msr_web_00'"):
        load_workloads(cfg)


def test_unknown_trace_in_mtpm_real_workloads_names_the_key():
    from skftl.studies.mtpm.simulate import _real

    cfg = _tiny(mtpm__real__workloads={"TPCC": ["tpcc-smal"]})
    with pytest.raises(ConfigError, match=r"mtpm\.real\.workloads\.TPCC: 'tpcc-smal'.*tpcc-small"):
        _real(cfg, cfg["mtpm"], 4)


def test_unknown_trace_in_traces_workloads_names_the_key():
    from skftl.traces.workload import configured_candidates

    with pytest.raises(ConfigError, match=r"traces\.workloads\.msr_web: 'web0'"):
        configured_candidates("msr_web", {"traces": {"workloads": {"msr_web": ["web0"]}}})


def test_missing_trace_folder_is_recorded_loudly(tmp_path, capsys):
    """The documented fallback (synthetic stand-in) stays, but stderr, the dataset's
    attributes and every scored claim's note say the trace folder does not exist."""
    from skftl.studies.cli import run_study

    missing = tmp_path / "no-such-traces"
    cfg = _tiny(traces__trace_dirs=[str(missing)], bnvm__stand_ins={"A": ["pixel6a_pubg_exec"]})
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    with pytest.warns(UserWarning, match="do NOT exist"):
        nc = run_study("bnvm", path, tmp_path / "out", progress=False)
    assert f"skftl: warning: traces.trace_dirs: no folder {missing}" in capsys.readouterr().err
    all_attrs = xr.open_dataset(nc).attrs
    assert f"no folder {missing}" in all_attrs["trace_dirs_missing"]
    attrs = all_attrs["trace_verification"]
    assert "nexus5_A: synthetic" in attrs and f"do NOT exist: {missing}" in attrs
    headline = pd.read_csv(tmp_path / "out" / "headline.csv", keep_default_na=False)
    evaluated = headline[~headline.verdict.isin(["not modelled", "not evaluated"])]
    assert len(evaluated) and evaluated.note.str.contains(f"do NOT exist: {missing}").all()


def test_missing_trace_folder_can_be_refused_before_running(tmp_path, capsys):
    missing = tmp_path / "no-such-traces"
    cfg = _tiny(traces__trace_dirs=[str(missing)], traces__missing_trace_dirs="error")
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert main(["--config", str(path), "run", "bnvm", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"traces.trace_dirs: no folder {missing}" in err and "missing_trace_dirs: error" in err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


def test_unknown_config_key_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("seed: 1\nbnvm: {stand_inz: {}}\n")
    assert main(["--config", str(path), "run", "bnvm", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "stand_inz" in err and "Traceback" not in err


# --- issue 22, point 10: interrupted runs ----------------------------------------------------


def test_killed_run_leaves_no_temporary_in_results(tmp_path):
    from skftl.studies.cli import run_study

    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    orphan = out / f".bnvm.nc.{dead}.abc123.tmp"  # as atomic_path names it; writer gone
    orphan.write_bytes(b"")
    run_study("bnvm", REPO_ROOT / "config" / "tiny.yaml", out, progress=False)
    assert not orphan.exists() and not list(out.glob(".*.tmp"))


def test_notebooks_are_executed_into_a_temporary_then_renamed():
    for rules in ("studies.smk", "traces.smk"):
        text = (REPO_ROOT / "workflow" / "rules" / rules).read_text()
        assert "{PAPERMILL} {params.notebook[path]} {params.partial}" in text
        assert "&& mv {params.partial} {output.nb}" in text


def test_make_says_how_to_clear_a_stale_snakemake_lock(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("x")
    make = ["make", "-C", str(tmp_path), "-f", str(REPO_ROOT / "Makefile"), "STAMP="]
    res = subprocess.run([*make, "pipeline"], capture_output=True, text=True, check=False)
    assert res.returncode != 0 and "run 'make unlock'" in res.stdout
    res = subprocess.run([*make, "-n", "unlock"], capture_output=True, text=True, check=True)
    assert "snakemake" in res.stdout and "--unlock" in res.stdout


# --- system errors: found before a run, said in one line --------------------------------------


def test_an_unwritable_output_folder_is_refused_before_the_study_runs(tmp_path, capsys):
    import os
    import time

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who may write anywhere (root): no unwritable folder")
        t = time.perf_counter()
        rc = main(["--config", str(REPO_ROOT / "config" / "tiny.yaml"), "run", "bnvm",
                   "--out", str(locked / "o")])  # fmt: skip
        assert rc == 2 and time.perf_counter() - t < 5  # refused at once, nothing simulated
        err = capsys.readouterr().err
        assert "not writable" in err and str(locked) in err and "Traceback" not in err
    finally:
        locked.chmod(0o700)


def test_an_output_path_through_a_file_is_refused_before_the_study_runs(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    rc = main(["--config", str(REPO_ROOT / "config" / "tiny.yaml"), "run", "bnvm",
               "--out", str(blocker / "o")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "not writable" in err and "Traceback" not in err


def test_replay_json_to_a_folder_is_refused_before_the_replay(tmp_path, capsys):
    rc = main(["replay", "no_such_trace_at_all", "--json", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "is a folder" in err and "Traceback" not in err


def test_a_config_that_is_not_utf8_names_the_byte(tmp_path, capsys):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("seed: 1  # Gr\xfc\xdfe\n".encode("latin-1"))
    assert main(["--config", str(path), "run", "bnvm", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "not UTF-8" in err and "0xfc" in err and "Traceback" not in err


def test_a_system_error_is_one_line(tmp_path, capsys, monkeypatch):
    import skftl.studies.cli as study_cli

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "o" / "bnvm.nc"))

    monkeypatch.setattr(study_cli, "run_study", full)
    rc = main(["--config", str(REPO_ROOT / "config" / "tiny.yaml"), "run", "bnvm",
               "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 1 and err.strip().count("\n") == 0
    assert "No space left on device" in err and "bnvm.nc" in err


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    """A study's output on a 64 KiB tmpfs: one line naming the file, no crash (HDF5 left
    holding a failed file used to crash the interpreter at exit), no partial file."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        res = subprocess.run(
            [sys.executable, "-m", "skftl", "--config", str(REPO_ROOT / "config" / "tiny.yaml"),
             "run", "bnvm", "--out", str(disk / "o"), "--no-progress"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert res.returncode == 1, (res.returncode, res.stderr[-500:])
        assert res.stderr.strip().count("\n") == 0 and "Traceback" not in res.stderr
        assert "No space left on device" in res.stderr and str(disk / "o") in res.stderr
        assert not [p for p in (disk / "o").iterdir() if p.name.startswith(".")]
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_an_interrupt_is_one_line(tmp_path, capsys, monkeypatch):
    import skftl.studies.cli as study_cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(study_cli, "run_study", interrupted)
    rc = main(["--config", str(REPO_ROOT / "config" / "tiny.yaml"), "run", "bnvm",
               "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 130 and "interrupted" in err and "Traceback" not in err


def test_an_lpmt_layout_that_cannot_be_built_names_its_keys():
    from skftl.config import load_config
    from skftl.studies import lpmt

    cfg = load_config()
    cfg["lpmt"]["assoc"] = 3
    with pytest.raises(ConfigError, match=r"lpmt.placements\[0\] = single, lpmt.assoc = 3, "
                       r"lpmt.n_banks = 4: 3 ways per bank do not tile a row"):  # fmt: skip
        lpmt.run(cfg, progress=False)  # refused before any trace is read
