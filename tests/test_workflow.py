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


def _snakemake(
    workdir: Path, config: Path | list[Path], *extra: str
) -> subprocess.CompletedProcess:
    configs = config if isinstance(config, list) else [config]
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--configfile",
        *map(str, configs),
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
    assert pngs == ["address_time.png", "read_write_mix.png", "round_trip.png", "size_cdf.png"]


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


def test_stacked_configfiles_reach_every_job(tmp_path: Path) -> None:
    """`--configfile config/config.yaml config/tiny.yaml my.yaml`: every job reads the merged,
    validated config (results/config.yaml), not only the last file; commands pass
    --no-progress so logs hold no progress-bar lines."""
    from skftl.config import load_config

    mine = tmp_path / "my.yaml"
    mine.write_text("seed: 5\nstudies: [traces, ftl]\n")
    files = [ROOT / "config" / "config.yaml", ROOT / "config" / "tiny.yaml", mine]
    res = _snakemake(tmp_path, files, "--dry-run", "--printshellcmds")
    assert res.returncode == 0, res.stdout + res.stderr
    merged = tmp_path / "results" / "config.yaml"
    assert load_config(merged) == load_config(*files)
    assert load_config(merged)["seed"] == 5  # my.yaml
    assert load_config(merged)["lpmt"]["n_requests"] == 3000  # tiny.yaml
    run = next(ln for ln in res.stdout.splitlines() if " run ftl " in ln)
    assert f"--config {merged}" in run and "--no-progress" in run
    nb = next(ln for ln in res.stdout.splitlines() if "papermill" in ln and "/ftl.ipynb" in ln)
    assert f"-p config_path {merged}" in nb and "-p figures_dir $PWD/figures/ftl" in nb


def test_bad_config_stops_the_workflow_before_planning(tmp_path: Path) -> None:
    mine = tmp_path / "my.yaml"
    mine.write_text("ftl: {gc_policies: [cost_benefit]}\nmtpm: {tg_sweep: [0, 2]}\n")
    res = _snakemake(tmp_path, mine, "--dry-run")
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert f"{mine}: ftl.gc_policies: unknown key" in out
    assert f"{mine}: mtpm.tg_sweep[0]:" in out
    assert "study_run" not in out  # nothing planned


def test_notebooks_use_the_skftl_kernel_and_their_own_figure_folder() -> None:
    import nbformat

    from skftl.studies.registry import STUDIES

    for study, name in STUDIES.items():
        nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
        assert nb.metadata["kernelspec"]["name"] == "skftl", name
        params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        ns: dict = {}
        exec(params.source, ns)  # the parameters cell is plain assignments
        assert ns["figures_dir"] == f"../figures/interactive/{study}", name
        assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), name
    # the workflow always passes its own figure folder
    for rules in ("studies.smk", "traces.smk"):
        assert (
            "-p figures_dir $PWD/{output.figs}" in (SNAKEFILE.parent / "rules" / rules).read_text()
        )


def test_workflow_runs_an_output_free_copy_of_each_notebook(tmp_path: Path) -> None:
    """Outputs and metadata saved by JupyterLab leave the copy the workflow runs untouched
    (so no rerun is planned); an edited cell changes it."""
    import nbformat

    from skftl.pipeline import strip_notebook

    src, dst = tmp_path / "nb.ipynb", tmp_path / "src" / "nb.ipynb"
    nb = nbformat.read(ROOT / "notebooks" / "10_ftl_validation.ipynb", as_version=4)
    nbformat.write(nb, src)
    strip_notebook(src, dst)
    before = (dst.read_text(), dst.stat().st_mtime_ns)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    code.execution_count = 3
    code.metadata["scrolled"] = True
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    nbformat.write(nb, src)
    strip_notebook(src, dst)
    assert (dst.read_text(), dst.stat().st_mtime_ns) == before
    code.source += "\n# edited"
    nbformat.write(nb, src)
    strip_notebook(src, dst)
    assert "# edited" in dst.read_text()
    params = [
        c
        for c in nbformat.read(dst, as_version=4).cells
        if "parameters" in c.metadata.get("tags", [])
    ]
    assert len(params) == 1  # papermill still finds the parameters cell


def test_figure_cells_show_only_the_figure(tmp_path: Path) -> None:
    """A cell ending in save_figure(...) displays no list of paths (IPython's formatter)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter

    from skftl.plot import save_figure

    fig = plt.figure()
    paths = save_figure(fig, tmp_path / "f")
    plt.close(fig)
    assert [p.name for p in paths] == ["f.png", "f.pdf"] and all(p.is_file() for p in paths)
    assert DisplayFormatter().format(paths) == ({}, {})


def test_make_lab_allows_root_only_as_root() -> None:
    res = subprocess.run(
        ["make", "-n", "-o", ".venv/.skftl-setup", "lab"], cwd=ROOT, capture_output=True, text=True
    )
    lab = next(ln for ln in res.stdout.splitlines() if "jupyter lab" in ln)
    assert ("--allow-root" in lab) == (os.getuid() == 0)


def test_setup_installs_the_nbstripout_filter() -> None:
    make = (ROOT / "Makefile").read_text()
    assert "nbstripout --install" in make
    assert "*.ipynb filter=nbstripout" in (ROOT / ".gitattributes").read_text()


def test_notebooks_are_committed_as_the_filter_writes_them() -> None:
    """Otherwise every notebook of a fresh clone shows as modified once make has installed
    the filter (it renumbers JupyterLab's random cell ids)."""
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb"))
    res = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--verify", *notebooks],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, f"run nbstripout on them: {res.stdout}{res.stderr}"


def test_progress_bars_end_at_their_totals(monkeypatch) -> None:
    """The ftl replay's bar counts page operations against a total of page operations (it
    used to end at 255,049 of 100,000 requests)."""
    import skftl.studies.ftl.simulate as ftl_sim
    from skftl.config import load_config

    bars = []

    class Bar:
        def __init__(self, *args, total=None, disable=False, **kw):
            self.total, self.n = total, 0
            bars.append(self)

        def update(self, k=1):
            self.n += k

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(ftl_sim, "tqdm", Bar)
    cfg = load_config(ROOT / "config" / "tiny.yaml")
    ftl_sim.trace_latency(cfg, progress=True)
    assert bars and all(b.n == b.total for b in bars), [(b.n, b.total) for b in bars]


def test_every_study_job_has_measured_resources() -> None:
    """Each study's config section gives its job's memory and run time under Snakemake's
    standard names; the rules use them; paper scale never asks for less than default."""
    from skftl.config import load_config
    from skftl.studies.registry import STUDIES

    default, paper = load_config(), load_config(ROOT / "config" / "paper.yaml")
    for study in STUDIES:
        res, big = default[study]["resources"], paper[study]["resources"]
        assert res["mem_mb"] >= 500 and res["runtime"] >= 1, study
        assert big["mem_mb"] >= res["mem_mb"] and big["runtime"] >= res["runtime"], study
    rules = (SNAKEFILE.parent / "rules" / "studies.smk").read_text()
    assert '_study_resources("mem_mb"' in rules and '_study_resources("runtime"' in rules
    smk = rules + (SNAKEFILE.parent / "rules" / "traces.smk").read_text()
    assert "runtime_min" not in smk and 'config["traces"].get("resources"' in smk


def test_slurm_profile_works_without_job_accounting(tmp_path: Path, monkeypatch) -> None:
    """The profile runs on SLURM; without accounting (sacct answers 'accounting storage is
    disabled') the workflow switches the plugin's status query to squeue at start."""
    from skftl.pipeline import sacct_unusable

    profile = yaml.safe_load((ROOT / "workflow/profiles/slurm/config.v8+.yaml").read_text())
    assert profile["executor"] == "slurm"
    assert {"mem_mb", "runtime"} <= set(profile["default-resources"])
    snakefile = SNAKEFILE.read_text()
    assert "onstart:" in snakefile and '_slurm.status_command = "squeue"' in snakefile
    fake = tmp_path / "bin"
    fake.mkdir()
    sacct = fake / "sacct"
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    sacct.write_text("#!/bin/sh\necho 'Slurm accounting storage is disabled'\n")
    sacct.chmod(0o755)
    assert "accounting is disabled" in sacct_unusable()
    sacct.write_text("#!/bin/sh\nexit 0\n")  # accounting works (no jobs since now)
    assert sacct_unusable() is None
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert sacct_unusable() == "no sacct command"
