"""The traces a run uses, read from its config (config/config.yaml): which real traces and
synthetic presets, a trace by workflow id, a study's workload with the run's folders, cache
and seed, and the locate-or-fetch -> convert/cache step the workflow runs once per real trace
(command ``skftl prepare-trace``). Every real trace a study loads through :func:`load_by_id` or
:func:`workload_for` is cut to the config's excerpt window (``traces.excerpt``, :func:`excerpt`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skftl.config import cache_dir, load_config, raw_dir, search_dirs, trace_dirs
from skftl.errors import ConfigError
from skftl.io import write_text
from skftl.studies.provenance import WHOLE_TRACE

if TYPE_CHECKING:  # numpy loads only for the commands that read a trace
    from skftl.traces.requests import Requests

SYNTHETIC_PREFIX = "syn-"


def excerpt_windows(requests: Requests, count: int) -> list[Requests]:
    """``count`` consecutive windows of equal length (the last requests of a length not
    divisible by ``count`` are left out), in trace order."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    length = len(requests) // count
    if length < 2:
        raise ValueError(f"{len(requests)} requests cannot make {count} windows of 2 or more")
    return [requests[k * length : (k + 1) * length] for k in range(count)]


def excerpt_setting(cfg: Mapping[str, Any]) -> tuple[int, int]:
    """(windows, window) of ``traces.excerpt``; (1, 0), the whole trace, where it is unset."""
    section = (cfg.get("traces") or {}).get("excerpt") or WHOLE_TRACE
    return int(section["windows"]), int(section["window"])


def excerpt(requests: Requests, cfg: Mapping[str, Any]) -> Requests:
    """``requests`` cut to the run's excerpt window (window k of N equal consecutive windows,
    :func:`excerpt_windows`) when it is a real trace; a synthetic stand-in, and every trace
    under the whole-trace default, is returned as it is. The window is recorded in the
    trace's verification status, which the study's dataset keeps (``trace_verification``)."""
    from skftl.traces.loader import note_trace

    windows, window = excerpt_setting(cfg)
    if windows == 1 or requests.meta.synthetic:
        return requests
    try:
        part = excerpt_windows(requests, windows)[window]
    except ValueError as exc:
        raise ConfigError(f"traces.excerpt: trace {requests.meta.name!r}: {exc}") from None
    length = len(part)
    where = (
        f"excerpt window {window} of {windows} (requests {window * length:,} to "
        f"{(window + 1) * length:,} of {len(requests):,})"
    )
    status = "; ".join(s for s in (requests.meta.extra.get("verification"), where) if s)
    note_trace(requests.meta.name, status)
    return part.with_meta(
        extra={**requests.meta.extra, "verification": status, "excerpt": [windows, window]}
    )


def real_trace_names(cfg: dict[str, Any]) -> list[str]:
    """Registered real traces this run uses: ``traces.real`` is ``all`` (every registered trace
    found in the trace folders or data/raw) or a list of names. Listed names that are not found
    are kept only when ``traces.fetch`` is true (the workflow then downloads them)."""
    from skftl.traces import registry

    section = cfg.get("traces", {})
    wanted = section.get("real", "all")
    dirs = search_dirs(cfg)
    names = [k.name for k in registry.list_known()] if wanted == "all" else list(wanted or [])
    fetch = bool(section.get("fetch", False)) and wanted != "all"
    return [n for n in names if fetch or registry.locate(n, dirs) is not None]


def missing_trace_folders(cfg: dict[str, Any]) -> str | None:
    """What is wrong with the run's trace folders, or None: the folders of
    ``traces.trace_dirs`` (and ``SKFTL_TRACE_DIRS``) that do not exist (every study looks for
    its real traces there, whatever ``traces.real`` selects for the traces study). Raises
    ConfigError under ``traces.missing_trace_dirs: error``."""
    section = cfg.get("traces") or {}
    missing = [d for d in trace_dirs(cfg) if not d.is_dir()]
    if not missing:
        return None
    where = ", ".join(str(d) for d in missing)
    text = (
        f"traces.trace_dirs: no folder {where}; every real trace looked for there is missing "
        "and its workload uses the synthetic stand-in"
    )
    if section.get("missing_trace_dirs", "warn") == "error":
        raise ConfigError(f"{text} (traces.missing_trace_dirs: error)")
    return text


def synthetic_trace_ids(cfg: dict[str, Any]) -> list[str]:
    """Ids (``syn-<preset>``) of the synthetic presets this run characterises."""
    return [SYNTHETIC_PREFIX + p for p in cfg.get("traces", {}).get("synthetic", [])]


def load_by_id(trace_id: str, cfg: dict[str, Any], *, whole: bool = False) -> Requests:
    """A trace by workflow id: ``syn-<preset>`` is generated from the config's seed and size;
    anything else is a registered real trace (located, or fetched when allowed), cut to the
    run's excerpt window unless ``whole``."""
    from skftl.traces import load_trace
    from skftl.traces.workload import stand_in

    section = cfg.get("traces", {})
    if trace_id.startswith(SYNTHETIC_PREFIX):
        return stand_in(
            trace_id[len(SYNTHETIC_PREFIX) :],
            section.get("synthetic_requests"),
            int(cfg.get("seed", 0)),
            stand_in_source(cfg),
        )
    req = load_trace(trace_id, trace_dirs=search_dirs(cfg), cache_dir=cache_dir(cfg))
    return req if whole else excerpt(req, cfg)


def workload_for(
    name: str,
    cfg: dict[str, Any],
    *,
    candidates: list[str] | None = None,
    n_requests: int | None = None,
    allow_synthetic: bool = True,
) -> Requests:
    """:func:`skftl.traces.workload` with the run's folders, cache, seed and candidate list
    (``traces.workloads``) taken from ``cfg``, a real trace cut to the run's excerpt window:
    what a study calls to get a workload."""
    from skftl.traces.workload import configured_candidates, workload

    req = workload(
        name,
        candidates=configured_candidates(name, cfg) if candidates is None else candidates,
        trace_dirs=search_dirs(cfg),
        cache_dir=cache_dir(cfg),
        seed=int(cfg.get("seed", 0)),
        n_requests=n_requests,
        allow_synthetic=allow_synthetic,
        stand_ins=stand_in_source(cfg),
    )
    return excerpt(req, cfg)


def stand_in_source(cfg: dict[str, Any]) -> str:
    """Where synthetic stand-ins come from (config ``traces.stand_ins``)."""
    return str((cfg.get("traces", {}) or {}).get("stand_ins", "locality"))


def prepare_trace(
    name: str, manifest: str | Path, cfg: dict[str, Any], fetch: bool = False
) -> dict:
    """Locate (or fetch) a registered trace, convert it into the columnar cache and write a
    small JSON manifest (the workflow's record that the trace is ready)."""
    from skftl.traces import registry

    if fetch and registry.locate(name, search_dirs(cfg)) is None:
        registry.fetch(name, raw_dir(cfg))
    req = load_by_id(name, cfg, whole=True)  # the manifest describes the whole trace
    info = {
        "name": req.meta.name,
        "format": req.meta.format,
        "source": req.meta.source,
        "sha256": req.meta.sha256,
        "lines": req.meta.lines,
        "requests": len(req),
        "reads": req.n_reads,
        "writes": req.n_writes,
    }
    write_text(json.dumps(info, indent=2) + "\n", manifest)
    return info


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "prepare-trace", help="locate or fetch a registered trace, cache it, write a manifest"
    )
    p.add_argument("name")
    p.add_argument("--manifest", required=True)
    p.add_argument("--fetch", action="store_true", help="download when not found locally")
    p.set_defaults(func=_cmd_prepare)


def _cmd_prepare(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    info = prepare_trace(args.name, args.manifest, cfg, fetch=args.fetch)
    print(f"{info['name']}: {info['requests']} requests ({info['sha256'][:12]})")
    return 0
