"""Which part of the config each job reads, and the settings that must agree across datasets.

A job of the workflow reads only its **scope**: the config keys that can change its results.
A study's scope is the shared settings (``seed`` and the trace-set keys of ``traces``), its
own section and any other section it reads (:data:`EXTRA_SECTIONS`), less the keys that only
schedule the job (:data:`SCHEDULING_KEYS`). The workflow writes each scope to
``results/config/<scope>.yaml`` through a job whose Snakemake ``params`` are that file's text,
so editing a parameter reruns exactly the jobs whose scope holds it; the study receives only
its scope, so a read outside it fails instead of silently taking a default.

Every dataset records its scope (``run_config``) and its **shared settings** (seed, trace set,
scale); the scorecard refuses to combine datasets whose shared settings differ
(:func:`check_shared_settings`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from skftl.errors import ConfigError

#: keys of ``traces:`` that decide which trace each workload is, where its cached copy is and
#: how stand-ins are made: every study reads them (through :func:`skftl.run_traces.workload_for`);
#: the other keys of the section (``synthetic``, ``paper_rows``, ``page_size``) are the traces
#: study's own
TRACE_SET_KEYS = (
    "trace_dirs",
    "cache_dir",
    "raw_dir",
    "real",
    "fetch",
    "stand_ins",
    "workloads",
    "synthetic_requests",
    "excerpt",
)
#: the whole-trace ``traces.excerpt``: left out of every scope, so the default config's
#: scopes (and the datasets that record them) are those of a run without the key
WHOLE_TRACE = {"windows": 1, "window": 0}
#: keys that place a job (its memory and run time), not what it computes
SCHEDULING_KEYS = ("resources",)
#: top-level sections a study reads besides its own: the ftl study builds its FTL on ``nand:``
EXTRA_SECTIONS: dict[str, tuple[str, ...]] = {"ftl": ("nand",)}
#: the scope of the jobs that locate and cache real traces
TRACE_SET = "trace_set"


def _without(section: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in section.items() if k not in keys}


def trace_set(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The trace-set keys of ``cfg``'s ``traces:`` section (``excerpt`` only where it selects
    a window)."""
    traces = cfg.get("traces") or {}
    out = {k: traces[k] for k in TRACE_SET_KEYS if k in traces}
    if out.get("excerpt") == WHOLE_TRACE:
        del out["excerpt"]
    return out


def scope(cfg: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The part of ``cfg`` that job scope ``name`` (a study id, or :data:`TRACE_SET`) reads."""
    from skftl.studies.registry import STUDIES

    if name == TRACE_SET:  # the trace jobs cache and describe every trace whole
        return {"traces": {k: v for k, v in trace_set(cfg).items() if k != "excerpt"}}
    if name not in STUDIES:
        raise ConfigError(
            f"unknown config scope {name!r}; known: {TRACE_SET}, {', '.join(STUDIES)}"
        )
    out: dict[str, Any] = {"seed": cfg["seed"], "traces": trace_set(cfg)}
    for section in (*EXTRA_SECTIONS.get(name, ()), name):
        out[section] = _without(cfg[section], SCHEDULING_KEYS)
    return out


def scope_text(cfg: Mapping[str, Any], name: str) -> str:
    """:func:`scope` as the YAML file a job reads (deterministic: keys sorted)."""
    head = f"# config scope `{name}` of this run (written by the workflow; edit the config files)\n"
    return head + yaml.safe_dump(
        scope(cfg, name), sort_keys=True, default_flow_style=None, width=100
    )


def shared_settings(cfg: Mapping[str, Any], study: str) -> dict[str, Any]:
    """The settings a study's dataset must share with every other dataset it is combined
    with: the seed, the trace set and the scale (the section's ``scale``, where it has one)."""
    traces = {k: v for k, v in trace_set(cfg).items() if k != "cache_dir"}
    out: dict[str, Any] = {"seed": cfg.get("seed"), "traces": traces}
    section = cfg.get(study) or {}
    if "scale" in section:
        out["scale"] = section["scale"]
    return out


def stamp(attrs: dict[str, Any], cfg: Mapping[str, Any], study: str) -> None:
    """Record in a dataset's ``attrs`` the scope it was computed with and its shared settings."""
    attrs["run_config"] = scope_text(cfg, study)
    attrs["shared_settings"] = json.dumps(shared_settings(cfg, study), sort_keys=True)


def read_shared_settings(path: str | Path) -> dict[str, Any]:
    """The shared settings recorded in a dataset file (a ConfigError where it records none)."""
    import h5netcdf

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: not found; run its study first")
    with h5netcdf.File(path, "r") as fh:
        text = fh.attrs.get("shared_settings")
    if text is None:
        raise ConfigError(
            f"{path}: records no shared settings (seed, trace set, scale); it predates them: "
            "run its study again"
        )
    return json.loads(text)


def check_shared_settings(datasets: Mapping[str, str | Path]) -> None:
    """Refuse (ConfigError) to combine datasets (study -> dataset file) computed under
    different seeds or trace sets, or at different scales (among the studies that have one)."""
    settings = {study: read_shared_settings(path) for study, path in datasets.items()}
    problems = []
    for key in ("seed", "traces", "scale"):
        values: dict[str, list[str]] = {}
        for study, s in settings.items():
            if key in s:
                values.setdefault(json.dumps(s[key], sort_keys=True), []).append(study)
        if len(values) > 1:
            groups = "; ".join(f"{', '.join(v)}: {k}" for k, v in values.items())
            problems.append(f"{key} differs ({groups})")
    if problems:
        raise ConfigError(
            "refusing to combine datasets computed under different shared settings: "
            + " | ".join(problems)
            + ". Rerun the studies under one config (`make` reruns what a config change "
            "touches), or name only the studies computed together."
        )
