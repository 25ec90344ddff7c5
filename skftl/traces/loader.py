"""``load_trace``: registered name or path -> ``Requests``, through the columnar cache."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from skftl.errors import ConfigError
from skftl.io import clean_stale_temporaries
from skftl.traces import cache, readers, registry
from skftl.traces.requests import Requests


def resolve_source(
    source: str | Path, trace_dirs: list[str | Path] | None = None
) -> tuple[Path, registry.KnownTrace | None]:
    """(file to read, registry entry or None) for a registered name or a path."""
    path = Path(source)
    if path.is_file():
        return path, None
    entry = registry.get(str(source))  # UnknownTraceError with close matches
    if entry.archive:
        raise ConfigError(
            f"trace {entry.name!r} is an archive of several traces: {entry.description}"
        )
    found = registry.locate(entry.name, trace_dirs)
    if found is None:
        searched = [
            f"{d}{'' if d.is_dir() else ' (folder does not exist)'}"
            for d in registry.search_dirs(trace_dirs)
        ]
        raise registry.TraceNotFoundError(
            f"trace {entry.name!r} not found in the trace folders "
            f"[{', '.join(searched) or 'none configured'}]; looked for "
            f"{', '.join(entry.filenames)}. {registry.placement_hint(entry)}"
            + ("; or run `skftl traces fetch " + entry.name + "`" if entry.direct_download else "")
        )
    return found, entry


#: name -> verification status of every trace loaded or generated in this process since the
#: last reset (a study run resets it and stores it in its dataset's attributes)
_LOG: dict[str, str] = {}


def reset_verification_log() -> None:
    _LOG.clear()


def verification_log() -> dict[str, str]:
    """{trace name: "verified (...)" | "UNVERIFIED (...)" | "synthetic (...)"} so far."""
    return dict(sorted(_LOG.items()))


def note_trace(name: str, status: str) -> None:
    _LOG[name] = status


def _verified(req: Requests, path: Path, entry: registry.KnownTrace | None) -> Requests:
    """``req`` with its verification status in ``meta.extra["verification"]`` (logged; a
    warning when a registered trace cannot be verified)."""
    status = registry.verification(path, entry)
    if entry is not None and entry.requests is not None and len(req) != entry.requests:
        status = (
            f"{registry.UNVERIFIED} ({len(req):,} requests where the registry "
            f"records {entry.requests:,})"
        )
    if entry is not None and status.startswith(registry.UNVERIFIED):
        warnings.warn(
            f"registered trace {entry.name!r} ({path}) cannot be verified: {status}",
            stacklevel=3,
        )
    note_trace(req.meta.name, status)
    return req.with_meta(extra={**req.meta.extra, "verification": status})


def load_trace(
    source: str | Path,
    fmt: str | None = None,
    *,
    name: str | None = None,
    trace_dirs: list[str | Path] | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    options: dict[str, Any] | None = None,
) -> Requests:
    """Load a trace given by registered name (searched in ``trace_dirs``, default: the
    configured folders, and checksum-verified) or by path.

    ``fmt`` overrides format detection; ``options`` are reader options (e.g.
    ``{"map_devices": False}``). With ``use_cache`` the converted columns are kept in
    ``cache_dir`` (default ``SKFTL_CACHE_DIR`` or data/cache), keyed by the source's
    sha256, format, options and reader version; the next load reads them from there.
    The returned columns are read-only.
    """
    path, entry = resolve_source(source, trace_dirs)
    if fmt is None:
        fmt = entry.format if entry is not None else readers.detect_format(path)
    if fmt not in readers.FORMATS:
        raise ConfigError(f"unknown trace format {fmt!r}; known: {', '.join(readers.FORMATS)}")
    opts = readers.reader_options(fmt, {**(entry.options if entry else {}), **(options or {})})
    name = name or (entry.name if entry is not None else None)
    if not use_cache:
        req = readers.read_trace(path, fmt, name=name, options=opts)
        return cache.freeze(_verified(req, path, entry))

    cache_dir = cache.cache_dir_or_default(cache_dir)
    clean_stale_temporaries(cache_dir)  # left by a load that was killed
    sha256, indexed = cache.source_sha256(path, cache_dir)
    key = cache.cache_key(sha256, fmt, opts)
    cache_file = cache.cache_file(cache_dir, key)
    cached = cache.load(cache_file, key)
    if cached is not None:
        if not indexed:
            cache.remember_sha256(path, cache_dir, sha256)
        name = name or readers.default_name(path)
        return cache.freeze(_verified(cached.with_meta(name=name, source=str(path)), path, entry))
    requests = readers.read_trace(path, fmt, name=name, options=opts, sha256=sha256)
    # only after a successful parse: a failed load leaves the cache folder untouched
    cache.store(requests, cache_file, key)
    cache.remember_sha256(path, cache_dir, sha256)
    return cache.freeze(_verified(requests, path, entry))
