"""Workload resolution: the real trace when one is found, else the synthetic preset.

A study asks for a workload by its paper name (``"WebSearch1"``, ``"msr_web"``,
``"nexus5_C"``). The config's ``traces.workloads`` lists, per name, the registered
real traces that may stand for it, best first. :func:`workload` returns the first
one located in the trace folders; if none is, it generates the synthetic preset of
that name, whose ``meta.synthetic`` is True and whose ``meta.label`` says "(synthetic)"
(and, for a stand-in drawn from another workload's profile, :data:`OTHER_PROFILE`, whose).
A synthetic trace is never presented as real.

Stand-ins (config ``traces.stand_ins``): ``locality`` (default) draws from the preset file
``skftl/data/presets/<name>.yaml`` where there is one (the locality measured on the nearest
real excerpt, or implied by a published file count, with the paper's Table III cells),
else from the built-in spec; ``aggregates`` always draws from the built-in specs of
:mod:`skftl.traces.synthetic` (Table III aggregates, little reuse).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import Any

from skftl.config import load_config
from skftl.config import trace_dirs as configured_trace_dirs
from skftl.errors import ConfigError, UnknownTraceError
from skftl.traces.requests import Requests
from skftl.traces.synthetic import DEFAULT_N_REQUESTS, PRESETS, SyntheticSpec, generate

STAND_INS = ("locality", "aggregates")
PRESET_DIR = Path(__file__).resolve().parent.parent / "data" / "presets"
#: preset stand-ins drawn from the measured profile of another workload's trace (the
#: excerpt its preset file names): not independent evidence of their own workload, so
#: their label names the profile.
OTHER_PROFILE = {"msr_media": "msr_web_0_excerpt"}


def note_trace(name: str, status: str) -> None:
    from skftl.traces.loader import note_trace as note  # late: loader imports registry

    note(name, status)


def _locate(name: str, dirs: list[Path]) -> Path | None:
    from skftl.traces import registry  # imported late: registry imports readers

    return registry.locate(name, dirs)


def _load(name: str, dirs: list[Path], cache_dir: str | Path | None) -> Requests:
    from skftl.traces import load_trace

    return load_trace(name, trace_dirs=dirs, cache_dir=cache_dir)


def check_candidates(names: list[str], key: str) -> list[str]:
    """``names`` when every one is a registered trace; else a ConfigError naming the config
    key, the value and close registered names (a typo must not fall back silently)."""
    from skftl.traces import registry

    for cand in names:
        try:
            registry.get(str(cand))
        except UnknownTraceError as exc:
            raise ConfigError(f"{key}: {cand!r} is not a registered trace ({exc})") from None
    return list(names)


def _missing_trace_dirs(dirs: list[Path]) -> list[str]:
    """Trace folders that do not exist; the download folder (data/raw or config
    ``traces.raw_dir``) is only created by a fetch, so its absence says nothing."""
    from skftl.traces import registry

    raw = {registry.default_raw_dir().resolve(), registry.DEFAULT_RAW_DIR.resolve()}
    return [str(d) for d in dirs if not d.is_dir() and d.resolve() not in raw]


def configured_candidates(name: str, cfg: dict[str, Any] | None = None) -> list[str]:
    """Real traces that may stand for workload ``name`` (config ``traces.workloads``);
    ``[name]`` when the config lists none (a workload name need not be a trace name)."""
    cfg = load_config() if cfg is None else cfg
    table = (cfg.get("traces", {}) or {}).get("workloads", {}) or {}
    if name not in table:
        return [name]
    return check_candidates(list(table[name] or []), f"traces.workloads.{name}")


def preset_file(name: str) -> Path | None:
    """The preset file of workload ``name``, if the package has one."""
    path = PRESET_DIR / f"{name}.yaml"
    return path if path.is_file() else None


@functools.lru_cache(maxsize=64)
def _preset_spec(path: Path, n: int, seed: int) -> tuple[SyntheticSpec, str]:
    """The fitted spec of a preset file (cached: the fit draws and profiles a few traces)."""
    from skftl.traces.profile import load_preset, spec_from_profile

    preset = load_preset(path)
    spec = spec_from_profile(preset, n, seed=seed)
    return spec, f"preset {path.name}: {preset.provenance.source}"


def stand_in(
    name: str, n_requests: int | None = None, seed: int = 0, source: str = "locality"
) -> Requests:
    """The synthetic stand-in for workload ``name`` (see the module docstring for
    ``source``). Same arguments -> identical arrays. ConfigError for an unknown source;
    UnknownTraceError when there is no preset of that name."""
    if source not in STAND_INS:
        raise ConfigError(f"traces.stand_ins: {source!r} is not one of {', '.join(STAND_INS)}")
    path = preset_file(name) if source == "locality" else None
    if path is None:
        if name not in PRESETS:
            raise UnknownTraceError(f"no synthetic preset {name!r}; known: {', '.join(PRESETS)}")
        return generate(name, n_requests=n_requests, seed=seed)
    n = DEFAULT_N_REQUESTS if n_requests is None else int(n_requests)
    spec, where = _preset_spec(path, n, int(seed))
    req = generate(spec, n_requests=n, seed=seed)
    extra = {**req.meta.extra, "stand_ins": source}
    if name in OTHER_PROFILE:
        extra["profile_of"] = OTHER_PROFILE[name]
        where += f" (drawn from the {OTHER_PROFILE[name]} profile: not a {name} measurement)"
    return req.with_meta(source=where, extra=extra)


def workload(
    name: str,
    *,
    candidates: list[str] | None = None,
    trace_dirs: list[str | Path] | None = None,
    cache_dir: str | Path | None = None,
    seed: int = 0,
    n_requests: int | None = None,
    allow_synthetic: bool = True,
    stand_ins: str = "locality",
) -> Requests:
    """The trace for workload ``name``: the first of ``candidates`` (default: the
    config's list for ``name``) found in ``trace_dirs`` (default: the config's), else
    its synthetic stand-in (:func:`stand_in` with ``seed``, ``n_requests``, ``stand_ins``).
    A candidate name the registry does not know is a ConfigError. Falling back to the
    stand-in is recorded in ``meta.extra["verification"]`` (and the run's verification log,
    hence the dataset's attributes), loudly when a trace folder does not exist. Raises
    UnknownTraceError when nothing is found and synthesis is disallowed or no preset has
    that name."""
    cands = configured_candidates(name) if candidates is None else list(candidates)
    dirs = [
        Path(d)
        for d in (configured_trace_dirs(load_config()) if trace_dirs is None else trace_dirs)
    ]
    missing = _missing_trace_dirs(dirs)
    for cand in cands:
        try:
            path = _locate(cand, dirs)
        except UnknownTraceError as exc:  # a typo must not fall back silently
            raise ConfigError(f"workload {name}: candidate {cand!r}: {exc}") from None
        if path is not None:
            req = _load(cand, dirs, cache_dir)
            if req.meta.synthetic:  # a reader must never hand back generated data here
                raise UnknownTraceError(f"candidate {cand!r} resolved to a synthetic trace")
            return req
    where = f" (trace folder(s) that do NOT exist: {', '.join(missing)})" if missing else ""
    if cands and missing:
        warnings.warn(f"workload {name}: real trace not looked for{where}", stacklevel=2)
    if not allow_synthetic:
        note_trace(name, f"MISSING (none of {cands} found{where})")
        raise UnknownTraceError(
            f"workload {name}: none of {cands} found in {[str(d) for d in dirs]} "
            "and synthetic stand-ins are disallowed"
        )
    try:
        req = stand_in(name, n_requests, seed, stand_ins)
    except UnknownTraceError:
        note_trace(name, f"MISSING (none of {cands} found and no synthetic preset{where})")
        raise UnknownTraceError(
            f"workload {name}: none of {cands} found and there is no synthetic preset "
            f"of that name (presets: {', '.join(PRESETS)})"
        ) from None
    status = f"synthetic (generated; {req.meta.source}; no real trace found among {cands}{where})"
    note_trace(req.meta.name, status)
    return req.with_meta(
        extra={**req.meta.extra, "real_candidates_tried": cands, "verification": status}
    )
