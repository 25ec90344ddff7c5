"""Workload profiles and the preset files that hold them (YAML, checked by pydantic).

A **profile** is what :func:`measure` finds in a block trace: the Table III aggregates
(read share, request sizes, sequential shares), the address layout (alignment, span,
footprint), the arrival rate, and the locality of :mod:`skftl.traces.locality` (reuse,
rewrites, reads of written data, footprint growth). A **preset file** is a profile plus its
provenance: the source trace and its sha256, when and with which skftl version it was
measured, and, for presets taken from papers, a citation per number.

``skftl traces profile TRACE -o PRESET.yaml`` writes one; ``skftl traces synth --like
PRESET.yaml`` (or ``--like TRACE``) draws a synthetic trace from it through
:func:`spec_from_profile`. A preset with a missing or impossible value raises
:class:`~skftl.errors.ConfigError` naming the file and the field.
"""

from __future__ import annotations

import datetime as _dt
import math
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

import skftl
from skftl.errors import ConfigError
from skftl.io import atomic_path
from skftl.traces import locality
from skftl.traces.requests import SECTOR, Requests
from skftl.traces.stats import characterise
from skftl.traces.synthetic import SizeDist, SyntheticSpec

Share = Annotated[float, Field(ge=0.0, le=1.0)]
#: a share that is undefined (None) where the trace has no requests of that kind
OptShare = Annotated[float | None, Field(ge=0.0, le=1.0)]
PositiveKB = Annotated[float, Field(gt=0.0)]
SIZE_BINS = 32  # commonest request sizes kept per type (the rest is folded into the mean)
ALIGNMENT_SHARE = 0.99  # an alignment holds when this share of start offsets are multiples


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Provenance(_Strict):
    """Where a profile's numbers come from."""

    kind: Literal["measured", "paper", "excerpt"] = Field(
        description="measured on `source`; taken from papers (see citations); or measured "
        "on the nearest real excerpt standing in for a trace we do not have"
    )
    source: str = Field(min_length=1, description="trace path or name, or the paper(s)")
    sha256: str | None = Field(None, description="sha256 of the source file, where known")
    created: str = Field(description="UTC date and time the profile was made (ISO 8601)")
    tool: str = Field(description="skftl version that made it")
    page_size: Annotated[int, Field(gt=0)] = 4096
    n_requests: Annotated[int, Field(ge=2)] = Field(description="requests profiled")
    citations: dict[str, str] = Field(
        default_factory=dict, description="profile field -> source of that number"
    )
    notes: str = ""


class Profile(_Strict):
    """The measured numbers (units in the field names; sizes in 512 B sectors)."""

    read_fraction: Share
    mean_read_size_kb: PositiveKB | None = None
    mean_write_size_kb: PositiveKB | None = None
    read_sizes: dict[int, Share] = Field(default_factory=dict, description="sectors -> share")
    write_sizes: dict[int, Share] = Field(default_factory=dict, description="sectors -> share")
    seq_read_fraction: Share = 0.0
    seq_write_fraction: Share = 0.0
    alignment_bytes: Annotated[int, Field(gt=0)] = SECTOR
    address_span_bytes: Annotated[int, Field(gt=0)]
    footprint_pages: Annotated[int, Field(gt=0)]
    iops: Annotated[float, Field(gt=0.0)]
    gap_cv: Annotated[float | None, Field(ge=0.0)] = None
    reuse_share: Share
    median_reuse_distance: Annotated[float | None, Field(ge=1.0)] = None
    rewrite_share: OptShare = None
    read_hit_written_share: OptShare = None
    footprint_half_share: Share

    @field_validator("read_sizes", "write_sizes")
    @classmethod
    def _histogram(cls, v: dict[int, float]) -> dict[int, float]:
        if any(s <= 0 for s in v):
            raise ValueError(f"sizes must be positive sector counts, got {sorted(v)}")
        if v and not math.isclose(sum(v.values()), 1.0, abs_tol=1e-3):
            raise ValueError(f"shares must sum to 1, they sum to {sum(v.values()):.4f}")
        return v

    @field_validator("alignment_bytes")
    @classmethod
    def _alignment(cls, v: int) -> int:
        if v % SECTOR:
            raise ValueError(f"must be a multiple of {SECTOR} B, got {v}")
        return v


class Preset(_Strict):
    """A preset file: a named profile with its provenance."""

    name: str = Field(min_length=1)
    provenance: Provenance
    profile: Profile


# ----------------------------------------------------------------------------- measure


def _histogram(sizes: np.ndarray) -> dict[int, float]:
    """The SIZE_BINS commonest sizes (in sectors, rounded up) with their shares among them."""
    if len(sizes) == 0:
        return {}
    sectors, counts = np.unique(-(-sizes // SECTOR), return_counts=True)
    keep = np.argsort(-counts, kind="stable")[:SIZE_BINS]
    kept = counts[keep].sum()
    return {int(sectors[i]): round(float(counts[i] / kept), 6) for i in sorted(keep)}


def _alignment(offsets: np.ndarray, page_size: int) -> int:
    """Largest power-of-two multiple of 512 B, up to the page size, that at least
    ALIGNMENT_SHARE of the start offsets are multiples of."""
    best = SECTOR
    a = SECTOR
    while a <= page_size:
        if np.mean(offsets % a == 0) >= ALIGNMENT_SHARE:
            best = a
        a *= 2
    return best


def _finite(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _gap_cv(requests: Requests) -> float | None:
    gaps = np.diff(requests.monotonic_time_ns()).astype(np.float64)
    return float(gaps.std() / gaps.mean()) if len(gaps) and gaps.mean() > 0 else None


def measure(requests: Requests, page_size: int = 4096) -> dict[str, Any]:
    """The profile of a trace as a plain dict (the fields of :class:`Profile`). Raises
    ConfigError naming the trace when it has fewer than two requests."""
    loc = locality.locality(requests, page_size)  # checks the length first
    c = characterise(requests, page_size)
    w = requests.is_write
    duration = c["duration_s"]
    return {
        "read_fraction": c["n_reads"] / c["n_requests"],
        "mean_read_size_kb": _finite(c["mean_read_size_kb"]),
        "mean_write_size_kb": _finite(c["mean_write_size_kb"]),
        "read_sizes": _histogram(requests.size_bytes[~w]),
        "write_sizes": _histogram(requests.size_bytes[w]),
        "seq_read_fraction": _finite(c["seq_read_pct"] / 100) or 0.0,
        "seq_write_fraction": _finite(c["seq_write_pct"] / 100) or 0.0,
        "alignment_bytes": _alignment(requests.offset_bytes, page_size),
        "address_span_bytes": int((requests.offset_bytes + requests.size_bytes).max()),
        "footprint_pages": int(c["footprint_pages"]),
        # a trace whose clock does not move gets one request per second (stated in the docs)
        "iops": float(c["n_requests"] / duration) if duration > 0 else 1.0,
        "gap_cv": _gap_cv(requests),
        "reuse_share": loc["reuse_share"],
        "median_reuse_distance": _finite(loc["median_reuse_distance"]),
        "rewrite_share": _finite(loc["rewrite_share"]),
        "read_hit_written_share": _finite(loc["read_hit_written_share"]),
        "footprint_half_share": loc["footprint_half_share"],
    }


def profile_trace(requests: Requests, page_size: int = 4096, name: str | None = None) -> Preset:
    """Measure ``requests`` and wrap the profile with its provenance. A trace of fewer than
    two requests has no profile: ConfigError naming its file."""
    meta = requests.meta
    if len(requests) < 2:
        where = meta.source or meta.name
        raise ConfigError(f"{where}: {len(requests)} request(s); a profile needs at least 2")
    measured = Profile(**measure(requests, page_size))
    prov = Provenance(
        kind="measured",
        source=meta.source or meta.name,
        sha256=meta.sha256 or None,
        created=_dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        tool=f"skftl {skftl.__version__}",
        page_size=page_size,
        n_requests=len(requests),
    )
    return Preset(name=name or meta.name, provenance=prov, profile=measured)


# ----------------------------------------------------------------------------- files


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def preset_from_dict(data: Any, origin: str) -> Preset:
    """Validate a preset mapping; every problem is reported as ``origin: field: reason``."""
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: a preset file must hold a mapping, got {type(data).__name__}")
    try:
        return Preset.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"field {_where(e['loc'])}: {e['msg']}"
            + ("" if e["type"] == "missing" else f" (value: {e['input']!r})")
            for e in exc.errors()
        )
        raise ConfigError(f"{origin}: {problems}") from None


def load_preset(path: str | Path) -> Preset:
    """Read and check a preset file (YAML)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read preset file ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return preset_from_dict(data, str(path))


def write_preset(preset: Preset, path: str | Path) -> Path:
    """Write ``preset`` as YAML (atomically); :func:`load_preset` reads it back equal."""
    path = Path(path)
    text = yaml.safe_dump(preset.model_dump(mode="json"), sort_keys=False)
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text)
    return path


# ----------------------------------------------------------------------------- synthesis


def _sizes(hist: dict[int, float], mean_kb: float | None) -> SizeDist:
    dist = SizeDist.discrete(hist)
    if mean_kb is None or len(hist) < 2:
        return dist
    try:  # the kept bins drop the rarest sizes: tilt back to the measured mean
        return dist.tilted_to_mean(mean_kb * 1024)
    except ConfigError:
        return dist


def spec_from_profile(preset: Preset, n_requests: int) -> SyntheticSpec:
    """The generator's parameters for a trace like ``preset`` of ``n_requests`` requests."""
    p = preset.profile
    al = p.alignment_bytes
    span = max(-(-p.address_span_bytes // al) * al, 2 * al)
    fallback = {8: 1.0}  # a type absent from the trace: its (unused) size distribution
    return SyntheticSpec(
        name=preset.name,
        read_sizes=_sizes(p.read_sizes or fallback, p.mean_read_size_kb),
        write_sizes=_sizes(p.write_sizes or fallback, p.mean_write_size_kb),
        read_fraction=p.read_fraction,
        seq_read_fraction=p.seq_read_fraction,
        seq_write_fraction=p.seq_write_fraction,
        footprint_bytes=span,
        alignment_bytes=al,
        iops=p.iops,
        rewrite_fraction=p.rewrite_share or 0.0,
        n_requests=n_requests,
        source=f"profile of {preset.provenance.source} ({preset.provenance.kind})",
    )
