"""Notebooks stay git-clean after a run in JupyterLab: the nbstripout filter `make setup`
installs strips the outputs and every key Lab and papermill add on save."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def _installed_keys() -> str:
    out = subprocess.run(
        ["git", "config", "--get", "filter.nbstripout.extrakeys"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        pytest.skip("the nbstripout filter's extra keys are not configured: run `make setup`")
    return out.stdout.strip()


def _as_lab_saves_it(path: Path) -> None:
    """What a JupyterLab save after running every cell writes: outputs, execution counts,
    the kernel's language_info, per-cell execution timing and trust."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["language_info"] = {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": sys.version.split()[0],
    }
    nb.metadata["papermill"] = {"parameters": {}, "duration": 1.0}
    for n, cell in enumerate(nb.cells, 1):
        cell.metadata["trusted"] = True
        if cell.cell_type == "code":
            cell.execution_count = n
            cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00.0Z"}
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    nbformat.write(nb, path)


def test_a_notebook_saved_by_lab_after_a_run_is_git_clean(tmp_path: Path) -> None:
    keys = _installed_keys()
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "notebooks", repo / "notebooks", ignore=shutil.ignore_patterns("*.py"))
    shutil.copy(ROOT / ".gitattributes", repo / ".gitattributes")
    _git("init", "-q", cwd=repo)
    for key, value in (
        ("user.email", "test@example.invalid"),
        ("user.name", "test"),
        ("filter.nbstripout.clean", f"{sys.executable} -m nbstripout"),
        ("filter.nbstripout.smudge", "cat"),
        ("filter.nbstripout.required", "true"),
        ("filter.nbstripout.extrakeys", keys),
    ):
        _git("config", key, value, cwd=repo)
    _git("add", "-A", cwd=repo)
    _git("commit", "-q", "-m", "notebooks as committed", cwd=repo)
    notebooks = sorted((repo / "notebooks").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        _as_lab_saves_it(path)
    # the working files changed; what git would stage did not: no diff, and staging them
    # leaves nothing to commit (before staging, `git status` lists a file whose size changed
    # as modified without running the filter: git compares sizes first)
    assert all("language_info" in p.read_text() for p in notebooks)
    assert _git("diff", "--stat", cwd=repo) == ""
    _git("add", "-A", cwd=repo)
    assert _git("status", "--porcelain", cwd=repo) == ""


def test_the_committed_notebooks_hold_no_key_the_filter_strips() -> None:
    keys = _installed_keys().split()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert "language_info" not in nb.metadata, path.name
        for cell in nb.cells:
            assert not getattr(cell, "outputs", []), path.name
        assert "metadata.language_info" in keys
