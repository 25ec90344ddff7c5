"""Start-up: the CLI and the replay path import neither xarray, pandas nor matplotlib (about
1.5 s of imports together), checked in a fresh interpreter."""

import json
import subprocess
import sys

import numpy as np

from skftl.traces import Requests, TraceMeta, write_mqsim

HEAVY = ("xarray", "pandas", "matplotlib")


def _heavy_imported(code: str) -> list[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{code}\nimport sys, json\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cli_import_and_replay_parser_are_light():
    code = (
        "import skftl.cli\n"
        "try:\n    skftl.cli.main(['replay', '--help'])\nexcept SystemExit:\n    pass"
    )
    assert _heavy_imported(code) == []


def _trace(tmp_path, n=2000):
    rng = np.random.default_rng(5)
    reqs = Requests(
        time_ns=np.arange(n, dtype=np.int64) * 10_000,
        offset_bytes=rng.integers(0, 1 << 16, n) * 4096,
        size_bytes=np.full(n, 4096),
        is_write=rng.random(n) < 0.7,
        meta=TraceMeta(name="startup", format="synthetic", synthetic=True),
    )
    trace = tmp_path / "t.mqsim"
    write_mqsim(reqs, trace)
    return reqs, trace


def test_a_whole_replay_is_light(tmp_path):
    n = 2000
    reqs, trace = _trace(tmp_path, n)
    out = tmp_path / "s.json"
    code = (
        "import skftl.cli\n"
        f"skftl.cli.main(['--cache-dir', {str(tmp_path / 'c')!r}, 'replay', {str(trace)!r}, "
        f"'--format', 'mqsim', '--preset', 'mtpm', '--precondition', 'fill', "
        f"'--json', {str(out)!r}])"
    )
    assert _heavy_imported(code) == []
    summary = json.loads(out.read_text())
    assert summary["requests"] == n
    assert summary["host_writes"] == int(reqs.is_write.sum())  # 4 KiB in 16 KiB pages: 1 each
    assert summary["read_latency_mean_us"] > 0  # preconditioned: every read goes to flash
    # the phase split benchmarks/bench_ftl.py prints: start-up measured from process start
    phases = ("startup_s", "load_trace_s", "kernel_load_s", "allocate_s", "replay_s")
    assert all(summary[k] >= 0 for k in phases) and summary["startup_s"] > 0


def test_the_replay_program_exits_cleanly_with_its_summary(tmp_path):
    # `python -m skftl replay` skips the interpreter's finalisation: nothing may be lost
    _, trace = _trace(tmp_path, 500)
    out = tmp_path / "s.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "skftl",
            "--cache-dir",
            str(tmp_path / "c"),
            "replay",
            str(trace),
            "--format",
            "mqsim",
            "--preset",
            "mtpm",
            "--json",
            str(out),
        ],  # fmt: skip
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1].startswith("replay_s: ")  # stdout flushed to the end
    assert json.loads(out.read_text())["requests"] == 500
