"""Study `traces`: characteristics of every trace of a run, beside the LPMT paper's Table III.

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

import numpy as np
import pandas as pd
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import load_config
from skftl.io import write_csv, write_netcdf
from skftl.pipeline import SYNTHETIC_PREFIX, load_by_id, real_trace_names, synthetic_trace_ids
from skftl.traces.stats import characterise_many

# LPMT paper, Table III: request size (KB), read %, sequential read %, sequential write %.
TABLE_III: dict[str, dict[str, float]] = {
    "Financial1": {
        "mean_size_kb": 3.38,
        "read_pct": 23.16,
        "seq_read_pct": 1.61,
        "seq_write_pct": 0.01,
    },
    "Financial2": {
        "mean_size_kb": 2.39,
        "read_pct": 82.35,
        "seq_read_pct": 0.94,
        "seq_write_pct": 0.22,
    },
    "MSR": {"mean_size_kb": 29.812, "read_pct": 34.0, "seq_read_pct": 0.0, "seq_write_pct": 0.0},
    "WebSearch1": {
        "mean_size_kb": 15.15,
        "read_pct": 99.98,
        "seq_read_pct": 0.0,
        "seq_write_pct": 0.0,
    },
    "WebSearch2": {
        "mean_size_kb": 15.07,
        "read_pct": 99.98,
        "seq_read_pct": 0.0,
        "seq_write_pct": 0.0,
    },
    "WebSearch3": {
        "mean_size_kb": 15.41,
        "read_pct": 99.97,
        "seq_read_pct": 0.0,
        "seq_write_pct": 0.0,
    },
}


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
    return ds


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    ids = trace_ids(cfg)
    return merge([characterise_trace(t, cfg) for t in tqdm(ids, disable=not progress)], cfg)


def _paper_rows(trace_id: str, cfg: dict[str, Any]) -> list[str]:
    """Which Table III rows a trace stands for: synthetic presets by name, real traces by
    registry name or by the config's ``traces.paper_rows`` (a name or a list of names: the
    WebSearch excerpt is compared with all three WebSearch rows, since which one it comes
    from is not documented)."""
    name = trace_id.removeprefix(SYNTHETIC_PREFIX)
    if name in TABLE_III:
        return [name]
    rows = (cfg.get("traces", {}).get("paper_rows") or {}).get(trace_id, [])
    return [rows] if isinstance(rows, str) else list(rows)


def headline(ds: xr.Dataset, cfg: dict[str, Any] | None = None) -> pd.DataFrame:
    """Our characteristics beside Table III, one row per (trace, metric) the paper has."""
    if cfg is None:
        cfg = {"traces": yaml.safe_load(ds.attrs.get("config", "{}")).get("traces", {})}
    rows = []
    for i, trace_id in enumerate(ds["trace_id"].values):
        label = str(ds["trace"].values[i])
        synthetic = bool(ds["synthetic"].values[i])
        for row, (metric, paper) in (
            (r, item) for r in _paper_rows(str(trace_id), cfg) for item in TABLE_III[r].items()
        ):
            ours = float(ds[metric].values[i])
            rel = (ours - paper) / paper if paper else np.nan
            note = (
                "synthetic preset calibrated to this row"
                if synthetic
                else ("real trace" if row == label else f"real trace standing for {row}")
            )
            rows.append(
                {
                    "workload": row,
                    "trace": label,
                    "metric": metric,
                    "paper": paper,
                    "ours": round(ours, 4),
                    "rel_diff": None if np.isnan(rel) else round(rel, 4),
                    "abs_diff": round(ours - paper, 4),
                    "note": note,
                }
            )
    return pd.DataFrame(
        rows,
        columns=["workload", "trace", "metric", "paper", "ours", "rel_diff", "abs_diff", "note"],
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("characterise", help="characteristics of traces (study `traces`)")
    p.add_argument(
        "traces",
        nargs="*",
        help="trace ids (registered names or syn-<preset>); default: every trace of the config",
    )
    p.add_argument("-o", "--out", required=True, help="output .nc")
    p.add_argument("--headline", help="also write the Table III comparison CSV here")
    p.set_defaults(func=_cmd_characterise)


def _cmd_characterise(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    ids = args.traces or trace_ids(cfg)
    ds = merge([characterise_trace(t, cfg) for t in ids], cfg)
    write_netcdf(ds, Path(args.out))
    if args.headline:
        write_csv(headline(ds, cfg), args.headline)
    return 0
