"""The Snakemake workflow: a dry run of the default config, and a tiny end-to-end run
(trace preparation -> characterisation -> papermill notebook -> figures) in a temp folder."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from html import unescape
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr
import yaml

from skftl.studies.claims import VERDICTS
from skftl.studies.registry import dataset_file, study_module

ROOT = Path(__file__).resolve().parent.parent
SNAKEFILE = ROOT / "workflow" / "Snakefile"


def _kernel() -> str:
    from jupyter_client.kernelspec import find_kernel_specs

    return "skftl" if "skftl" in find_kernel_specs() else "python3"


def _snakemake_cmd(workdir: Path, configs: list[Path], *extra: str) -> list[str]:
    return [
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


def _env() -> dict[str, str]:
    # the repository first on the path, so the workflow's commands import this checkout even
    # where skftl is not installed (the workflow changes into --directory)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _snakemake(
    workdir: Path, config: Path | list[Path], *extra: str
) -> subprocess.CompletedProcess:
    configs = config if isinstance(config, list) else [config]
    cmd = _snakemake_cmd(workdir, configs, *extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=_env())


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


def test_dry_run_spread_plans_every_window_and_seed_of_every_study(tmp_path: Path) -> None:
    """`make spread` on the default config: a job per (study, excerpt window or extra seed),
    a table per study and the summary."""
    from skftl.config import load_config
    from skftl.studies.spread import points

    res = _snakemake(tmp_path, ROOT / "config" / "config.yaml", "--dry-run", "spread")
    assert res.returncode == 0, res.stdout + res.stderr
    selected = points(load_config())
    planned = _planned(res.stdout)
    assert planned["sweep_point"] == sum(len(v) for v in selected.values())
    assert planned["sweep_table"] == len(selected) and planned["spread"] == 1
    assert "robustness" not in planned


def test_dry_run_reports_what_a_study_would_refuse(tmp_path: Path) -> None:
    """A study's checks that need no trace (an LPMT layout that cannot be built) stop the
    dry run with the keys and values, before anything is planned or written."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"lpmt": {"sensitivity": {"assoc": [2, 3]}}}))
    res = _snakemake(tmp_path, [ROOT / "config" / "config.yaml", bad], "--dry-run")
    assert res.returncode != 0
    message = "lpmt.sensitivity.assoc[1] = 3, lpmt.n_banks = 4: 3 ways per bank do not tile"
    assert message in res.stdout + res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    assert not (tmp_path / "results").exists()


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
    assert pngs == [
        "address_time.png",
        "read_write_mix.png",
        "round_trip.png",
        "size_cdf.png",
        "spread.png",
    ]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> tuple[Path, Path]:
    """`make CONFIG=config/tiny.yaml` in a temp folder: (the folder, its config file)."""
    tmp_path = tmp_path_factory.mktemp("tiny_run")
    cfg = {
        "base": str(ROOT / "config" / "tiny.yaml"),
        "notebook_kernel": _kernel(),
        "traces": {"cache_dir": str(tmp_path / "cache"), "raw_dir": str(tmp_path / "raw")},
    }
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(cfg))
    res = _snakemake(tmp_path, config)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return tmp_path, config


@pytest.mark.slow
def test_every_study_end_to_end_and_report(tiny_run: tuple[Path, Path]) -> None:
    """`make CONFIG=config/tiny.yaml` then `make report`, in a temp folder: every study's
    scored claims, the scorecard, and a report holding the scorecard and each study's figures."""
    tmp_path, config = tiny_run
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
        # the claims as a page shown in place (text/html), not a CSV to download
        assert f'"results/{study}/claims.html"' in html, study
        assert re.search(rf'"figures/{study}/[^"]+\.png"', html), f"no figure of {study}"
    assert len(re.findall(r'"mime_type":\s*"text/html"', html)) >= len(studies)
    # the landing page is the verdicts: the predictions table of every study, the figure
    landing = (tmp_path / "results/report/landing.rst").read_text()
    for study in studies:
        assert f"   * - {study}\n" in landing, study
    assert "Predictions per verdict" in html and "data:image/png;base64" in html
    # each figure carries its own caption (its study's figures.CAPTIONS and the verdicts of
    # the claims it bears on), not the generic one: every figure the tiny run drew
    assert (tmp_path / "results/report/figure_captions.rst").is_file()
    for study in studies:
        captions = study_module(study).figures.CAPTIONS
        pngs = sorted((tmp_path / "figures" / study).glob("*.png"))
        assert pngs, study
        for png in pngs:
            assert png.stem in captions, f"{study}: figure {png.stem!r} has no caption"
            caption = _report_entry(html, f"figures/{study}/{png.name}")["caption"]
            text = " ".join(unescape(re.sub(r"<[^>]+>", " ", caption)).split())
            shows = " ".join(captions[png.stem].shows.split())
            assert shows[:60] in text, (study, png.stem, text[:300])
            assert "Claims:" in text and "no caption of its own" not in text, png


def _report_entry(html: str, path: str) -> dict:
    """The report's record of one result (name, labels, caption as HTML, ...): the JSON
    object the report embeds under its path."""
    start = html.index("{", html.index(f'"{path}":'))
    return json.JSONDecoder().raw_decode(html, start)[0]


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under results/ and figures/: (sha256, mtime)."""
    out = {}
    for top in ("results", "figures"):
        for p in sorted((root / top).rglob("*")):
            if p.is_file():
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
                out[str(p.relative_to(root))] = (digest, p.stat().st_mtime_ns)
    return out


def _changed(before: dict, after: dict) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def _planned(stdout: str) -> dict[str, int]:
    """Jobs per rule of a dry run ("Job stats" table); {} when nothing is to be done."""
    if "Nothing to be done" in stdout:
        return {}
    lines = stdout[stdout.index("Job stats:") :].splitlines()[3:]
    rows = [ln.split() for ln in itertools.takewhile(str.strip, lines)]
    return {rule: int(n) for rule, n in rows if rule not in ("total", "all")}


def _study_outputs(study: str) -> set[str]:
    """What rerunning one study rewrites (besides the run's record, results/config.yaml)."""
    return {
        f"results/config/{study}.yaml",
        f"results/logs/{study}_run.log",
        f"results/logs/notebook_{study}.log",
        f"results/notebooks/{study}.ipynb",
        f"results/logs/claims_page_{study}.log",
    }


_SCORECARD = {
    "results/config.yaml",
    "results/scorecard.csv",
    "figures/scorecard.png",
    "figures/scorecard.pdf",
    "results/logs/scorecard.log",
    "results/report/landing.rst",
    "results/logs/report_landing.log",
    "results/report/figure_captions.rst",
    "results/logs/figure_captions.log",
}


def _only(changed: set[str], study: str) -> set[str]:
    """The changed files that rerunning ``study`` (and the scorecard) would not explain."""
    ok = _study_outputs(study) | _SCORECARD
    return {
        p
        for p in changed
        if p not in ok and not p.startswith((f"results/{study}/", f"figures/{study}/"))
    }


@pytest.mark.slow
def test_a_config_change_reruns_what_it_touches_and_nothing_writes_without_the_lock(
    tiny_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """On a copy of the tiny run: dry runs and --unlock (with another config) write nothing;
    an edited parameter reruns its study, notebook and the scorecard only, while a dry run, a
    second run that loses the lock and an --unlock, all with the default config, race it;
    a config file stacked on top reruns what it changes."""
    from skftl.config import load_config
    from skftl.studies.provenance import scope

    work = tmp_path / "work"
    shutil.copytree(tiny_run[0], work, symlinks=True)
    config = work / "tiny.yaml"
    default = ROOT / "config" / "config.yaml"
    before = _snapshot(work)

    res = _snakemake(work, config, "--dry-run")
    assert res.returncode == 0 and _planned(res.stdout) == {}, res.stdout + res.stderr
    for other in ("--dry-run", "--unlock"):
        res = _snakemake(work, default, other)
        assert res.returncode == 0, res.stdout + res.stderr
    assert _snapshot(work) == before  # byte-identical, not even touched

    # a parameter edit in the config file: lpmt's banks
    cfg = yaml.safe_load(config.read_text())
    cfg["lpmt"] = {"n_banks": 8}
    config.write_text(yaml.safe_dump(cfg))
    res = _snakemake(work, config, "--dry-run")
    planned = {
        "config_scope": 1,
        "run_config": 1,
        "study_run": 1,
        "study_notebook": 1,
        "scorecard": 1,
        "claims_page": 1,
        "report_landing": 1,
        "figure_captions": 1,
    }
    assert _planned(res.stdout) == planned, res.stdout
    assert "output: results/lpmt/lpmt.nc" in res.stdout
    assert "output: results/mtpm/mtpm.nc" not in res.stdout
    assert _snapshot(work) == before

    run = subprocess.Popen(
        _snakemake_cmd(work, [config]),
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    locks = work / ".snakemake" / "locks"
    deadline = time.monotonic() + 120
    while not (locks.is_dir() and any(locks.iterdir())):
        assert run.poll() is None and time.monotonic() < deadline, "the run never took the lock"
        time.sleep(0.1)
    res = _snakemake(work, default, "--dry-run")
    assert res.returncode == 0, res.stdout + res.stderr
    res = _snakemake(work, default)  # loses the lock
    assert res.returncode != 0 and "cannot be locked" in res.stdout + res.stderr
    res = _snakemake(work, default, "--unlock")
    assert res.returncode == 0, res.stdout + res.stderr
    out, _ = run.communicate(timeout=900)
    assert run.returncode == 0, out[-3000:]
    after = _snapshot(work)
    assert _only(_changed(before, after), "lpmt") == set()
    assert any(p.startswith("results/lpmt/") for p in _changed(before, after))
    # every dataset was computed under the tiny config (+ the edit), none under the default
    tiny = load_config(config)
    for study in load_config(config)["studies"]:
        ds = xr.open_dataset(dataset_file(work / "results", study), engine="h5netcdf")
        assert yaml.safe_load(ds.attrs["run_config"]) == scope(tiny, study), study
    assert load_config(work / "results" / "config.yaml") == tiny

    # a second config file on top: mtpm's alpha
    more = work / "more.yaml"
    more.write_text("mtpm: {alpha: 6}\n")
    before = after
    res = _snakemake(work, [config, more], "--dry-run")
    assert _planned(res.stdout) == planned and "output: results/mtpm/mtpm.nc" in res.stdout
    res = _snakemake(work, [config, more])
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    changed = _changed(before, _snapshot(work))
    assert _only(changed, "mtpm") == set() and "results/mtpm/mtpm.nc" in changed
    ds = xr.open_dataset(work / "results/mtpm/mtpm.nc", engine="h5netcdf")
    assert yaml.safe_load(ds.attrs["run_config"])["mtpm"]["alpha"] == 6


def test_stacked_configfiles_reach_every_job(tmp_path: Path) -> None:
    """`--configfile config/config.yaml config/tiny.yaml my.yaml`: each job reads its scope of
    the merged, validated config (results/config/<scope>.yaml), not only the last file;
    commands pass --no-progress so logs hold no progress-bar lines."""
    from skftl.config import load_config
    from skftl.studies.provenance import scope

    mine = tmp_path / "my.yaml"
    mine.write_text("seed: 5\nstudies: [traces, ftl]\n")
    files = [ROOT / "config" / "config.yaml", ROOT / "config" / "tiny.yaml", mine]
    res = _snakemake(tmp_path, files, "--dry-run", "--printshellcmds")
    assert res.returncode == 0, res.stdout + res.stderr
    assert not (tmp_path / "results").exists()  # a dry run writes nothing
    run = next(ln for ln in res.stdout.splitlines() if " run ftl " in ln)
    assert "--config results/config/ftl.yaml run ftl" in run and "--no-progress" in run
    nb = next(ln for ln in res.stdout.splitlines() if "papermill" in ln and "/ftl.ipynb" in ln)
    assert "-p config_path $PWD/results/config/ftl.yaml" in nb
    assert "-p figures_dir $PWD/figures/ftl" in nb
    res = _snakemake(tmp_path, files, "results/config/ftl.yaml", "results/config.yaml")
    assert res.returncode == 0, res.stdout + res.stderr
    merged = load_config(*files)
    ftl = load_config(tmp_path / "results" / "config" / "ftl.yaml")
    assert scope(ftl, "ftl") == scope(merged, "ftl")
    assert ftl["seed"] == 5 and ftl["ftl"]["latency"]["synthetic_requests"] == 2000  # tiny.yaml
    assert load_config(tmp_path / "results" / "config.yaml") == merged  # the run's record


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


def test_a_notebook_reruns_when_a_cell_changes_not_when_outputs_are_saved(tmp_path: Path) -> None:
    """The workflow's notebook jobs carry the digest of the cells without outputs or
    metadata: outputs and metadata saved by JupyterLab leave it unchanged (no rerun is
    planned); an edited cell or tag changes it."""
    import nbformat

    from skftl.notebooks import notebook_digest

    src = tmp_path / "nb.ipynb"
    nb = nbformat.read(ROOT / "notebooks" / "10_ftl_validation.ipynb", as_version=4)
    nbformat.write(nb, src)
    before = notebook_digest(src)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    code.execution_count = 3
    code.metadata["scrolled"] = True
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    nbformat.write(nb, src)
    assert notebook_digest(src) == before
    code.metadata["tags"] = ["hide-input"]
    nbformat.write(nb, src)
    tagged = notebook_digest(src)
    assert tagged != before
    code.source += "\n# edited"
    nbformat.write(nb, src)
    assert notebook_digest(src) not in (before, tagged)


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
    from skftl.slurm import sacct_unusable

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


@pytest.mark.slow
def test_robustness_smoke(tiny_run: tuple[Path, Path], tmp_path: Path) -> None:
    """`make robustness CONFIG=config/tiny.yaml` after `make`: one job per (study, assumption,
    alternative value) of tiny.yaml's selection, a table per study, the summary and its figure;
    the scorecard then shows the robustness classes."""
    from skftl.studies.robustness import CLASSES, points

    work = tmp_path / "work"
    shutil.copytree(tiny_run[0], work, symlinks=True)
    config = work / "tiny.yaml"
    res = _snakemake(work, config, "--dry-run", "robustness")
    selected = points(_tiny_selection())
    n_points = sum(len(v) for v in selected.values())
    assert _planned(res.stdout)["sweep_point"] == n_points, res.stdout
    assert "study_run" not in _planned(res.stdout)  # the default results are reused
    res = _snakemake(work, config, "robustness")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    summary = pd.read_csv(work / "results/robustness.csv", keep_default_na=False)
    assert set(summary["class"]) <= set(CLASSES) and len(summary) > 50
    for study, pts in selected.items():
        table = pd.read_csv(work / f"results/{study}/robustness.csv", keep_default_na=False)
        assert {k for k, _ in pts} <= set(table.assumption), study
        assert (table.assumption == "(default)").sum() == len(study_module(study).CLAIMS)
    assert (work / "figures/robustness.png").stat().st_size > 0
    out = subprocess.run(
        [sys.executable, "-m", "skftl", "scorecard", "--results", str(work / "results")],
        capture_output=True, text=True, env=_env(), cwd=work,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "robust" in out.stdout and "unreachable" in out.stdout


@pytest.mark.slow
def test_spread_smoke(tiny_run: tuple[Path, Path], tmp_path: Path) -> None:
    """`make spread CONFIG=config/tiny.yaml` after `make`: the sweep rules robustness uses,
    here one job per excerpt window and extra seed of tiny.yaml's selection, its table, the
    summary and its figure."""
    from skftl.config import load_config
    from skftl.studies.spread import CLASSES, points

    work = tmp_path / "work"
    shutil.copytree(tiny_run[0], work, symlinks=True)
    config = work / "tiny.yaml"
    selected = points(load_config(ROOT / "config" / "tiny.yaml"))
    assert selected and all(selected.values())
    res = _snakemake(work, config, "spread")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for study, pts in selected.items():
        assert len(list((work / f"results/{study}/spread").glob("point_*.csv"))) == len(pts)
        assert (work / f"results/{study}/spread.csv").is_file()
    summary = pd.read_csv(work / "results/spread.csv", keep_default_na=False)
    assert set(summary["class"]) <= set(CLASSES) and len(summary) > 0
    assert (work / "figures/spread.png").stat().st_size > 0


def _tiny_selection() -> dict:
    from skftl.config import load_config

    cfg = load_config(ROOT / "config" / "tiny.yaml")
    return {"robustness": cfg["robustness"], "studies": cfg["studies"]}
