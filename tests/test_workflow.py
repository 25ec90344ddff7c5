"""The Snakemake workflow: a dry run of the default config, and a tiny end-to-end run
(trace preparation -> characterisation -> papermill notebook -> figures) in a temp folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr
import yaml

from skftl.studies.claims import VERDICTS
from skftl.studies.registry import study_module

ROOT = Path(__file__).resolve().parent.parent
SNAKEFILE = ROOT / "workflow" / "Snakefile"


def _kernel() -> str:
    from jupyter_client.kernelspec import find_kernel_specs

    return "skftl" if "skftl" in find_kernel_specs() else "python3"


def _snakemake(workdir: Path, config: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--configfile",
        str(config),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *extra,
    ]
    # the repository first on the path, so the workflow's commands import this checkout even
    # where skftl is not installed (the workflow changes into --directory)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)


def _tiny_config(tmp_path: Path, real: list[str]) -> Path:
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["studies"] = ["traces"]
    cfg["notebook_kernel"] = _kernel()
    cfg["traces"].update(
        synthetic=["Financial1", "WebSearch1"],
        synthetic_requests=2000,
        real=real,
        cache_dir=str(tmp_path / "cache"),
        raw_dir=str(tmp_path / "raw"),
    )
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_dry_run_default_config(tmp_path: Path) -> None:
    res = _snakemake(tmp_path, ROOT / "config" / "config.yaml", "--dry-run")
    assert res.returncode == 0, res.stdout + res.stderr
    for rule in (
        "trace_prepare",
        "traces_characterise",
        "traces_notebook",
        "study_run",
        "scorecard",
    ):
        assert rule in res.stdout


@pytest.mark.slow
def test_tiny_end_to_end(tmp_path: Path) -> None:
    # the real excerpt joins the run where ../shared/traces exists (CI has it)
    shared = (ROOT.parent / "shared" / "traces").is_dir()
    config = _tiny_config(tmp_path, real=["wsrch-small"] if shared else [])
    res = _snakemake(tmp_path, config)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    ds = xr.open_dataset(tmp_path / "results/traces/characteristics.nc", engine="h5netcdf")
    expected = ["syn-Financial1", "syn-WebSearch1"] + (["wsrch-small"] if shared else [])
    assert list(ds.trace_id.values) == expected
    if shared:
        assert int(ds.n_requests.sel(trace="wsrch-small")) == 24783
    assert "(synthetic)" in str(ds.trace.values[0])
    headline = (tmp_path / "results/traces/headline.csv").read_text()
    assert "WebSearch1" in headline and "Financial1" in headline
    assert (tmp_path / "results/notebooks/traces.ipynb").is_file()
    pngs = sorted(p.name for p in (tmp_path / "figures/traces").glob("*.png"))
    assert pngs == ["address_time.png", "read_write_mix.png", "size_cdf.png"]


@pytest.mark.slow
def test_every_study_end_to_end_and_report(tmp_path: Path) -> None:
    """`make CONFIG=config/tiny.yaml` then `make report`, in a temp folder: every study's
    scored claims, the scorecard, and a report holding the scorecard and each study's figures."""
    cfg = {
        "base": str(ROOT / "config" / "tiny.yaml"),
        "notebook_kernel": _kernel(),
        "traces": {"cache_dir": str(tmp_path / "cache"), "raw_dir": str(tmp_path / "raw")},
    }
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(cfg))
    res = _snakemake(tmp_path, config)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    studies = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["studies"]
    card = pd.read_csv(tmp_path / "results/scorecard.csv")
    assert set(card.study) == set(studies)
    assert set(card.verdict) <= set(VERDICTS)
    for study in studies:
        n = len(study_module(study).CLAIMS)
        assert (card.study == study).sum() == n, study  # every claim scored, none dropped
    assert (tmp_path / "figures/scorecard.png").stat().st_size > 0
    res = _snakemake(tmp_path, config, "--report", str(tmp_path / "results/report.zip"))
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "results/report.zip") as zf:
        names = zf.namelist()
        html = zf.read("report/report.html").decode()
    # the report embeds every marked result (data/raw/...) and indexes it by its path
    assert sum(n.endswith(("scorecard.png", "scorecard.csv")) for n in names) == 2
    assert '"results/scorecard.csv"' in html and '"figures/scorecard.png"' in html
    for study in studies:
        assert f'"results/{study}/headline.csv"' in html, study
        assert re.search(rf'"figures/{study}/[^"]+\.png"', html), f"no figure of {study}"
