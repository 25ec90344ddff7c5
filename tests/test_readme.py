"""Every command shown in README.md's code blocks runs (on small data), so the README cannot
drift from the code. Commands that need the network, a SLURM cluster or the whole pipeline's
time are listed in NOT_RUN with the reason; a new README command is run unless listed there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
COMMAND = re.compile(r"^(make\b|\.venv/bin/|snakemake\b)")

#: README commands not run here, and why
NOT_RUN = {
    "make": "the whole pipeline (~11 min); tests/test_workflow.py runs it at tiny scale",
    "make test": "the test suite itself",
    "make robustness": "the pipeline, then every study once per assumption value (default "
    "scale); tests/test_workflow.py runs it at tiny scale",
    "make spread": "the pipeline, then every study once per excerpt window and extra seed "
    "(default scale); tests/studies/test_spread.py runs one study's variants at tiny scale",
    ".venv/bin/skftl traces fetch Financial1": "needs the network (offline fetch: test_registry)",
    ".venv/bin/snakemake -s workflow/Snakefile --profile workflow/profiles/slurm": "needs SLURM",
}
#: commands that read the real traces in ../shared/traces (skipped where they are absent)
NEEDS_SHARED = (
    "traces info wsrch-small",
    "traces export msr_web_0_excerpt",
    "traces profile wsrch-small",
    "traces synth --like wsrch-small",
)


def readme_commands() -> list[str]:
    """Command lines of README.md's fenced code blocks (comments after `#` dropped)."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", (ROOT / "README.md").read_text(), re.M | re.S)
    lines = [ln.split("  #")[0].strip() for b in blocks for ln in b.splitlines()]
    return [ln for ln in lines if COMMAND.match(ln)]


def test_readme_shows_commands_and_not_run_ones_are_still_there() -> None:
    cmds = readme_commands()
    assert len(cmds) >= 8
    for cmd in NOT_RUN:
        assert cmd in cmds, f"NOT_RUN lists {cmd!r}, which README no longer shows"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder laid out like the repository (config, workflow, notebooks linked) with small
    results: the lpmt study at tiny scale, for the scorecard commands."""
    work = tmp_path_factory.mktemp("readme")
    for name in ("config", "workflow", "notebooks"):
        (work / name).symlink_to(ROOT / name)
    (work / ".venv").mkdir()
    (work / ".venv" / "bin").symlink_to(BIN)
    res = subprocess.run(
        [BIN / "python", "-m", "skftl", "--config", "config/tiny.yaml", "run", "lpmt"]
        + ["--out", "results/lpmt", "--no-progress"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    return work


@pytest.mark.parametrize("cmd", [c for c in readme_commands() if c not in NOT_RUN])
def test_readme_command_runs(cmd: str, workdir: Path) -> None:
    if any(s in cmd for s in NEEDS_SHARED) and not (ROOT.parent / "shared" / "traces").is_dir():
        pytest.skip("needs ../shared/traces")
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": path}
    res = subprocess.run(
        cmd, shell=True, cwd=workdir, capture_output=True, text=True, timeout=600, env=env
    )
    assert res.returncode == 0, f"{cmd}\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    assert "Traceback" not in res.stderr, res.stderr[-2000:]
