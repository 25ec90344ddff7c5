"""`skftl run STUDY`: config -> study.run -> results/<study>/<study>.nc, headline.csv (the
study's claims evaluated under its default reading), readings.csv (every reading) and the
study's tables."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
import textwrap
from pathlib import Path

from skftl.config import config_comments, load_config
from skftl.io import clean_stale_temporaries, writable_or_raise, write_csv, write_netcdf
from skftl.run_traces import missing_trace_folders
from skftl.studies.provenance import scope, stamp
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.scorecard import write_scored


def run_study(
    study: str, config_path: str | Path | None, out_dir: str | Path, progress: bool = True
) -> Path:
    """Run one study on a config file and write its dataset, scorecard and tables atomically."""
    from skftl.traces.loader import reset_verification_log, verification_log

    cfg = load_config(config_path)
    folders = missing_trace_folders(cfg)
    if folders:
        print(f"skftl: warning: {folders}", file=sys.stderr)
    module = study_module(study)
    out_dir = Path(out_dir)
    writable_or_raise(out_dir)  # before the run: a study's work is not computed to be lost
    reset_verification_log()
    # the study sees only its scope: a read outside it fails instead of taking a default
    ds = module.run(scope(cfg, study), progress=progress)
    stamp(ds.attrs, cfg, study)
    # every trace the run read or generated, with how it was verified
    ds.attrs["trace_verification"] = "; ".join(f"{k}: {v}" for k, v in verification_log().items())
    if folders:
        ds.attrs["trace_dirs_missing"] = folders
    clean_stale_temporaries(out_dir)  # left by a run that was killed
    nc = write_netcdf(ds, out_dir / f"{study}.nc")
    write_scored(study, ds, out_dir)
    if hasattr(module, "tables"):  # optional: the study's tables as CSV beside the dataset
        for name, df in module.tables(ds).items():
            write_csv(df, out_dir / f"{name}.csv")
    return nc


def study_description(study: str) -> str:
    """The first paragraph of the study's ``simulate`` docstring, read without importing it
    (importing would load the study's kernels just to print help)."""
    spec = importlib.util.find_spec(f"skftl.studies.{study}.simulate")
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text())) if spec else None
    return " ".join((doc or f"Study {study}.").split("\n\n")[0].split())


_SECTION = object()  # _flatten's value of a key that holds nested keys


def _flatten(section: dict, prefix: str = "") -> list[tuple[str, object]]:
    """Every key of a config section with its value (``_SECTION`` for one holding nested
    keys, which follow it by dotted path)."""
    out: list[tuple[str, object]] = []
    for key, value in section.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.append((name, _SECTION))
            out += _flatten(value, name + ".")
        else:
            out.append((name, value))
    return out


def study_parameters(study: str) -> str:
    """The study's config section, every key (nested ones by dotted path) with its default
    value in full and what config.yaml's comment says it is (the schema, with every allowed
    value: config/schema.yaml)."""
    section = load_config().get(study) or {}
    notes = config_comments(study)
    lines = [f"parameters (config section `{study}:`, defaults of config/config.yaml):"]
    for key, value in _flatten(section):
        indent = "  " * (key.count(".") + 1)
        text = (f"{key}:" if value is _SECTION else f"{key} = {value!r}") + (
            f"  # {notes[key]}" if key in notes else ""
        )
        lines += textwrap.wrap(
            text, 96, initial_indent=indent, subsequent_indent=indent + "    ",
            break_on_hyphens=False,
        )  # fmt: skip
    lines += textwrap.wrap(
        "Change them in a config file (`skftl --config my.yaml run ...`, my.yaml holding only "
        "what differs from config/config.yaml) or in the study's notebook.",
        96,
    )
    return "\n".join(lines)


class _StudyParser(argparse.ArgumentParser):
    """`skftl run STUDY --help`: the study's parameters, looked up only when help is shown."""

    def format_help(self) -> str:
        study = self.prog.rsplit(" ", 1)[-1]
        return super().format_help() + "\n" + study_parameters(study) + "\n"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run",
        help="run a study on a config file",
        description="Run one study: results/STUDY/STUDY.nc, headline.csv (its claims scored) "
        "and readings.csv. `skftl run STUDY --help` describes a study and its parameters.",
    )
    studies = p.add_subparsers(
        dest="study", metavar="STUDY", required=True, parser_class=_StudyParser
    )
    for study in sorted(STUDIES):
        about = study_description(study)
        s = studies.add_parser(
            study,
            help=textwrap.shorten(
                re.sub(r"^Study `+\w+`+:\s*", "", about.split(". ")[0]), 60, placeholder=" ..."
            ),
            description=f"{about} Notebook: notebooks/{STUDIES[study]}.",
        )
        s.add_argument("--out", default=None, help="output folder (default results/STUDY)")
        s.add_argument(
            "--no-progress",
            action="store_true",
            help="no progress bars (for logs and batch jobs; the workflow passes it)",
        )
        s.set_defaults(func=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    out = args.out or f"results/{args.study}"
    path = run_study(args.study, args.config, out, progress=not args.no_progress)
    print(path)
    return 0
