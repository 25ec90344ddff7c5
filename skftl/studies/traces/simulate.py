"""Study `traces`: characteristics of every trace of a run, beside the LPMT paper's Table III
(scored in :mod:`skftl.studies.traces.claims`).

Per trace (see :mod:`skftl.traces.stats` for the exact definitions, including what counts as
sequential): request count, read %, mean read and write size, sequential read and write %,
footprint in pages, duration, IOPS. The workflow first prepares (locates and caches) each real
trace in its own job, then characterises them all in one (a cached trace takes well under a
second).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import load_config, validate_sections
from skftl.io import write_netcdf
from skftl.run_traces import load_by_id, real_trace_names, synthetic_trace_ids
from skftl.studies.provenance import scope, stamp
from skftl.studies.scorecard import write_scored
from skftl.traces.stats import characterise_many

__all__ = ["trace_ids", "characterise_trace", "merge", "run", "register"]


def trace_ids(cfg: dict[str, Any]) -> list[str]:
    """Every trace of a run: the synthetic presets, then the real traces found."""
    return synthetic_trace_ids(cfg) + real_trace_names(cfg)


def _page_size(cfg: dict[str, Any]) -> int:
    return int(cfg.get("traces", {}).get("page_size", 4096))


def characterise_trace(trace_id: str, cfg: dict[str, Any]) -> xr.Dataset:
    """Characteristics of one trace as a one-row dataset (dimension ``trace``)."""
    req = load_by_id(trace_id, cfg)
    ds = characterise_many([req], page_size=_page_size(cfg))
    ds = ds.assign_coords(trace_id=("trace", [trace_id]))
    ds["sha256"] = ("trace", [req.meta.sha256])
    ds["sha256"].attrs.update(long_name="sha256 of the source file ('' if synthetic)")
    return ds


def merge(datasets: Sequence[xr.Dataset], cfg: dict[str, Any]) -> xr.Dataset:
    """Concatenate per-trace datasets and stamp the run's provenance."""
    # drop the parts' on-disk encodings: the first part's fixed string width would truncate
    # longer trace names of the others on write
    ds = xr.concat([d.drop_encoding() for d in datasets], dim="trace", combine_attrs="override")
    ds.attrs.update(
        study="traces",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": cfg.get("seed"), "traces": cfg.get("traces")}),
    )
    stamp(ds.attrs, cfg, "traces")
    return ds


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    validate_sections(cfg, "the config given to traces.run")  # a notebook may have changed it
    ids = trace_ids(cfg)
    return merge([characterise_trace(t, cfg) for t in tqdm(ids, disable=not progress)], cfg)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("characterise", help="characteristics of traces (study `traces`)")
    p.add_argument(
        "traces",
        nargs="*",
        help="trace ids (registered names or syn-<preset>); default: every trace of the config",
    )
    p.add_argument("-o", "--out", required=True, help="output .nc")
    p.add_argument(
        "--scored",
        metavar="DIR",
        help="also write the claims (Table III) evaluated here: headline.csv, readings.csv",
    )
    p.set_defaults(func=_cmd_characterise)


def _cmd_characterise(args: argparse.Namespace) -> int:
    cfg = scope(load_config(args.config), "traces")
    ids = args.traces or trace_ids(cfg)
    ds = merge([characterise_trace(t, cfg) for t in ids], cfg)
    write_netcdf(ds, Path(args.out))
    if args.scored:
        write_scored("traces", ds, args.scored)
    return 0
