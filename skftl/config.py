"""Configuration loading. The defaults live in ``config/config.yaml``; nothing here
invents parameter values."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from skftl.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "config" / "config.yaml"


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``override``, recursively for nested mappings (as Snakemake merges
    a --configfile onto the Snakefile's config)."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(path: str | Path | None = None) -> dict[str, Any]:
    """Read a YAML config file (the repository default when ``path`` is None). A file with a
    ``base:`` entry (a path relative to the file) overrides that base config: e.g.
    ``config/paper.yaml`` holds only what differs at paper scale."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    with open(path) as fh:
        try:
            cfg = yaml.safe_load(fh) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: top level must be a mapping, got {type(cfg).__name__}")
    if "base" in cfg:
        base = path.parent / str(cfg.pop("base"))
        if base.resolve() == path.resolve():
            raise ConfigError(f"{path}: base refers to the file itself")
        cfg = deep_merge(load_config(base), cfg)
    return cfg


def trace_dirs(cfg: dict[str, Any] | None = None) -> list[Path]:
    """Folders searched for user-placed traces: ``SKFTL_TRACE_DIRS`` (os.pathsep separated)
    first, then the config's ``traces.trace_dirs`` (relative paths are taken from the
    repository root)."""
    dirs: list[Path] = []
    env = os.environ.get("SKFTL_TRACE_DIRS", "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += [_repo_path(p) for p in ((cfg or {}).get("traces") or {}).get("trace_dirs") or []]
    return dirs


def _repo_path(value: str | Path) -> Path:
    p = Path(value)
    return p if p.is_absolute() else REPO_ROOT / p


def cache_dir(cfg: dict[str, Any]) -> Path:
    """The trace cache folder (``traces.cache_dir``; relative to the repository root)."""
    return _repo_path((cfg.get("traces") or {}).get("cache_dir", "data/cache"))


def raw_dir(cfg: dict[str, Any]) -> Path:
    """Where downloaded traces go (``traces.raw_dir``; relative to the repository root)."""
    return _repo_path((cfg.get("traces") or {}).get("raw_dir", "data/raw"))


def search_dirs(cfg: dict[str, Any]) -> list[Path]:
    """Every folder a registered trace is looked for in: :func:`trace_dirs`, then raw_dir."""
    return [*trace_dirs(cfg), raw_dir(cfg)]
