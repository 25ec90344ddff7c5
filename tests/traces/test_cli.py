"""`skftl traces list|fetch|info|export` and the CLI's error handling."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.cli import main
from skftl.traces import list_known, read_trace

MQSIM = "".join(f"{i * 1_000_000} 0 {i * 16} 8 {i % 2}\n" for i in range(100))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    monkeypatch.delenv("SKFTL_CACHE_DIR", raising=False)


@pytest.mark.realtrace
def test_list_shows_present_traces(shared_traces, tmp_path, capsys):
    assert main(["traces", "list", "--trace-dir", str(shared_traces)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("wsrch-small "))
    assert "24,783" in line and "wsrch-small.trace.gz" in line
    assert next(ln for ln in out.splitlines() if ln.startswith("Financial1 ")).endswith("-")
    assert out.splitlines()[-1] == f"16 of {len(list_known())} registered traces present"
    # a file named otherwise upstream says what it is; one named like its trace says nothing
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("msr_web_0_excerpt "))
    assert (
        "web_1.csv.gz" in lines[at] and "(the file is 100,000 consecutive records" in lines[at + 1]
    )
    assert not lines[lines.index(line) + 1].lstrip().startswith("(the file is")


def test_info_prints_characteristics(write_trace, tmp_path, capsys):
    path = write_trace("t.trace", MQSIM)
    assert main(["--cache-dir", str(tmp_path / "c"), "traces", "info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "format: mqsim" in out
    assert "n_requests: 100" in out and "n_writes: 50" in out
    assert "duration_s: 0.099" in out
    assert any(p.suffix == ".arrow" for p in (tmp_path / "c").iterdir())


def test_export_round_trip(write_trace, tmp_path, capsys):
    src = write_trace("t.spc", "0,1,512,w,0.0\n1,2,1024,r,0.25\n")
    out = tmp_path / "out.trace"
    args = ["traces", "export", str(src), "--format", "mqsim", "-o", str(out)]
    assert main([*args, "--cache-dir", str(tmp_path / "c")]) == 0
    assert "wrote 2 requests" in capsys.readouterr().out
    a, b = read_trace(src), read_trace(out)
    for col in ("time_ns", "offset_bytes", "size_bytes", "is_write"):
        np.testing.assert_array_equal(getattr(a, col), getattr(b, col))


def test_errors_are_one_line_exit_2(write_trace, tmp_path, capsys):
    bad = write_trace("bad.trace", MQSIM + "1 0 0 0 1\n")
    assert main(["traces", "info", str(bad), "--cache-dir", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{bad}, line 101" in err and "size must be positive" in err
    assert main(["traces", "info", "no-such-trace"]) == 2
    assert "unknown trace 'no-such-trace'" in capsys.readouterr().err


def test_fetch_without_network_says_where_to_place(tmp_path, capsys):
    assert main(["traces", "fetch", "msr_web_2", "--raw-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "web_2.csv.gz") in err
    assert "Traceback" not in err and "object at 0x" not in err  # no raw exception text


def test_trace_names_keep_the_papers_spelling(capsys):
    assert main(["traces", "list"]) == 0
    names = [ln.split()[0] for ln in capsys.readouterr().out.splitlines()[2:-1]]
    assert "Financial1" in names and "WebSearch3" in names and "financial1" not in names
    assert main(["traces", "info", "financial9"]) == 2  # lookups ignore case; hints keep it
    assert "did you mean Financial" in capsys.readouterr().err


def test_env_trace_dirs_must_exist(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SKFTL_TRACE_DIRS", str(tmp_path / "nope"))
    assert main(["traces", "list"]) == 2
    assert "trace folder does not exist" in capsys.readouterr().err
