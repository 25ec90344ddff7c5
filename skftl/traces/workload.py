"""Workload resolution: the real trace when one is found, else the synthetic preset.

A study asks for a workload by its paper name (``"WebSearch1"``, ``"msr_web"``,
``"nexus5_C"``). The config's ``traces.workloads`` lists, per name, the registered
real traces that may stand for it, best first. :func:`workload` returns the first
one located in the trace folders; if none is, it generates the synthetic preset of
that name, whose ``meta.synthetic`` is True and whose ``meta.label`` ends in
"(synthetic)". A synthetic trace is never presented as real.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from skftl.config import load_config
from skftl.config import trace_dirs as configured_trace_dirs
from skftl.errors import UnknownTraceError
from skftl.traces.requests import Requests
from skftl.traces.synthetic import PRESETS, generate


def note_trace(name: str, status: str) -> None:
    from skftl.traces.loader import note_trace as note  # late: loader imports registry

    note(name, status)


def _locate(name: str, dirs: list[Path]) -> Path | None:
    from skftl.traces import registry  # imported late: registry imports readers

    return registry.locate(name, dirs)


def _load(name: str, dirs: list[Path], cache_dir: str | Path | None) -> Requests:
    from skftl.traces import load_trace

    return load_trace(name, trace_dirs=dirs, cache_dir=cache_dir)


def configured_candidates(name: str, cfg: dict[str, Any] | None = None) -> list[str]:
    """Real traces that may stand for workload ``name`` (config ``traces.workloads``);
    ``[name]`` when the config lists none."""
    cfg = load_config() if cfg is None else cfg
    table = (cfg.get("traces", {}) or {}).get("workloads", {}) or {}
    return list(table.get(name, [name]))


def workload(
    name: str,
    *,
    candidates: list[str] | None = None,
    trace_dirs: list[str | Path] | None = None,
    cache_dir: str | Path | None = None,
    seed: int = 0,
    n_requests: int | None = None,
    allow_synthetic: bool = True,
) -> Requests:
    """The trace for workload ``name``: the first of ``candidates`` (default: the
    config's list for ``name``) found in ``trace_dirs`` (default: the config's), else
    the synthetic preset ``name`` with ``seed`` and ``n_requests``. Candidate names the
    registry does not know are skipped with a warning. Raises UnknownTraceError when
    nothing is found and synthesis is disallowed or no preset has that name."""
    cands = configured_candidates(name) if candidates is None else list(candidates)
    dirs = [
        Path(d)
        for d in (configured_trace_dirs(load_config()) if trace_dirs is None else trace_dirs)
    ]
    for cand in cands:
        try:
            path = _locate(cand, dirs)
        except UnknownTraceError as exc:
            warnings.warn(
                f"workload {name}: candidate {cand!r} is not registered ({exc})", stacklevel=2
            )
            continue
        if path is not None:
            req = _load(cand, dirs, cache_dir)
            if req.meta.synthetic:  # a reader must never hand back generated data here
                raise UnknownTraceError(f"candidate {cand!r} resolved to a synthetic trace")
            return req
    if not allow_synthetic:
        raise UnknownTraceError(
            f"workload {name}: none of {cands} found in {[str(d) for d in dirs]} "
            "and synthetic stand-ins are disallowed"
        )
    if name not in PRESETS:
        raise UnknownTraceError(
            f"workload {name}: none of {cands} found and there is no synthetic preset "
            f"of that name (presets: {', '.join(PRESETS)})"
        )
    req = generate(name, n_requests=n_requests, seed=seed)
    status = f"synthetic (generated; no real trace found among {cands})"
    note_trace(req.meta.name, status)
    return req.with_meta(
        extra={**req.meta.extra, "real_candidates_tried": cands, "verification": status}
    )
