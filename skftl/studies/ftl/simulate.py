"""Study `ftl`: validation of the NAND/FTL model (skftl.nand).

1. Write amplification of greedy GC under uniform random single-page overwrites of a full
   device, over spare factors and pages per block, beside Desnoyers' analytic model
   (SYSTOR 2012, Eq. 12; ``skftl.nand.analytic``).
2. Response-time distribution of one real trace (the MSR web_0 excerpt when present,
   else its labelled synthetic stand-in) replayed on the default device (``nand`` section)
   with the FTL of the ``ftl`` section.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import validate_sections
from skftl.nand import Ftl, result_dataset
from skftl.nand.validation import uniform_waf
from skftl.run_traces import workload_for
from skftl.traces.pages import page_span

__all__ = ["waf_sweep", "trace_latency", "run"]


def _waf_settings(section: dict[str, Any]) -> dict[str, Any]:
    waf = dict(section["waf"])
    if section.get("scale", "default") == "paper":
        waf.update(section.get("paper_scale", {}))
    return waf


def waf_sweep(section: dict[str, Any], seed: int, progress: bool = True) -> xr.Dataset:
    """Measured and analytic WAF over (gc_policy, pages_per_block, spare_factor)."""
    w = _waf_settings(section)
    policies = list(w["gc_policies"])
    ppbs = [int(x) for x in w["pages_per_block"]]
    sfs = [float(x) for x in w["spare_factors"]]
    measured = np.full((len(policies), len(ppbs), len(sfs)), np.nan)
    analytic = np.full((len(ppbs), len(sfs)), np.nan)
    runs = list(itertools.product(range(len(policies)), range(len(ppbs)), range(len(sfs))))
    for k, (i, j, m) in enumerate(tqdm(runs, desc="WAF sweep", disable=not progress)):
        r = uniform_waf(
            sfs[m],
            ppbs[j],
            int(w["physical_pages"]) // ppbs[j],
            seed=seed + k,
            warmup_passes=float(w["warmup_passes"]),
            measure_passes=float(w["measure_passes"]),
            gc_policy=policies[i],
            gc_low_blocks=int(section["gc_low_blocks"]),
            gc_high_blocks=int(section["gc_high_blocks"]),
        )
        measured[i, j, m] = r["measured"]
        analytic[j, m] = r["analytic_greedy"]
    coords = {
        "gc_policy": ("gc_policy", policies, {"long_name": "garbage-collection victim policy"}),
        "pages_per_block": (
            "pages_per_block",
            ppbs,
            {"units": "pages", "long_name": "pages per block"},
        ),
        "spare_factor": (
            "spare_factor",
            sfs,
            {"units": "1", "long_name": "(physical - logical) / physical pages"},
        ),
    }
    return xr.Dataset(
        {
            "waf_measured": (
                ("gc_policy", "pages_per_block", "spare_factor"),
                measured,
                {
                    "units": "1",
                    "long_name": "simulated write amplification, uniform random 1-page overwrites",
                },
            ),
            "waf_analytic_greedy": (
                ("pages_per_block", "spare_factor"),
                analytic,
                {
                    "units": "1",
                    "long_name": "write amplification, greedy GC, Desnoyers SYSTOR'12 Eq. 12",
                },
            ),
        },
        coords=coords,
        attrs={"waf_physical_pages": int(w["physical_pages"])},
    )


def trace_latency(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    """Replay the configured workload on the default device; per-request latency + summary."""
    section = cfg["ftl"]
    lat = section["latency"]
    req = workload_for(lat["workload"], cfg, n_requests=lat.get("synthetic_requests"))
    ftl = Ftl.from_config(cfg["nand"], section)
    if lat.get("precondition", "fill") == "fill":
        ftl.fill()
    # the replay reports page operations done: a request spans one or more pages
    pages = int(page_span(req, ftl.geometry.page_size)[1].sum())
    bar_args = {"total": pages, "unit": "page", "desc": f"replay {req.meta.label}"}
    with tqdm(**bar_args, disable=not progress) as bar:
        res = ftl.replay(req, wrap=bool(lat.get("wrap", True)), progress=bar.update)
    ds = result_dataset(res, ftl).rename({"waf": "trace_waf"})
    ds["latency"] = (
        "request",
        res.latency_ns / 1e3,
        {
            "units": "us",
            "long_name": "request response time (last page done - arrival)",
        },
    )
    ds["request_is_write"] = (
        "request",
        res.is_write,
        {"units": "1", "long_name": "request is a write"},
    )
    ds.attrs.update(
        trace_label=req.meta.label,
        trace_sha256=req.meta.sha256,
        trace_synthetic=int(req.meta.synthetic),
    )
    return ds


def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    validate_sections(cfg, "the config given to ftl.run")  # a notebook may have changed it
    section = cfg["ftl"]
    ds = xr.merge(
        [waf_sweep(section, int(cfg["seed"]), progress), trace_latency(cfg, progress)],
        combine_attrs="no_conflicts",
    )
    ds.attrs.update(
        study="ftl",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": cfg["seed"], "nand": cfg["nand"], "ftl": section}),
    )
    return ds
