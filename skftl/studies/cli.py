"""`skftl run STUDY`: config -> study.run -> results/<study>/<study>.nc, headline.csv (the
study's claims evaluated under its default reading), readings.csv (every reading) and the
study's tables."""

from __future__ import annotations

import argparse
from pathlib import Path

from skftl.config import load_config
from skftl.io import write_csv, write_netcdf
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.scorecard import write_scored


def run_study(
    study: str, config_path: str | Path | None, out_dir: str | Path, progress: bool = True
) -> Path:
    """Run one study on a config file and write its dataset, scorecard and tables atomically."""
    cfg = load_config(config_path)
    module = study_module(study)
    ds = module.run(cfg, progress=progress)
    out_dir = Path(out_dir)
    nc = write_netcdf(ds, out_dir / f"{study}.nc")
    write_scored(study, ds, out_dir)
    if hasattr(module, "tables"):  # optional: the study's tables as CSV beside the dataset
        for name, df in module.tables(ds).items():
            write_csv(df, out_dir / f"{name}.csv")
    return nc


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("run", help="run a study on a config file")
    p.add_argument("study", choices=sorted(STUDIES))
    p.add_argument("--out", default=None, help="output folder (default results/STUDY)")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    out = args.out or f"results/{args.study}"
    path = run_study(args.study, args.config, out, progress=not args.no_progress)
    print(path)
    return 0
