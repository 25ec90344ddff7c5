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

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import skftl
from skftl.errors import ConfigError
from skftl.io import write_text
from skftl.traces import locality
from skftl.traces.requests import SECTOR, Requests
from skftl.traces.synthetic import SyntheticSpec

Share = Annotated[float, Field(ge=0.0, le=1.0)]
#: a share that is undefined (None) where the trace has no requests of that kind
OptShare = Annotated[float | None, Field(ge=0.0, le=1.0)]
PositiveKB = Annotated[float, Field(gt=0.0)]


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
    basis: dict[str, Literal["measured", "published", "assumed"]] = Field(
        default_factory=dict,
        description="profile field -> what kind of number it is: measured (on the source "
        "trace, or on the excerpt standing in for it), published (a paper's number, or one "
        "computed from a published number alone) or assumed (a choice of ours; the citation "
        "says which)",
    )
    notes: str = ""


class Profile(BaseModel):
    """The measured numbers: the keys of :func:`skftl.traces.locality.profile` (definitions
    there), undefined values (e.g. write sizes of a read-only trace) as null. Sizes in bytes.
    A key not declared below (one the profiler gained later) is kept and passed on to the
    generator, but must be a number, a list of numbers or null."""

    model_config = ConfigDict(extra="allow", frozen=True)

    read_fraction: Share
    seq_read_fraction: OptShare = None
    seq_write_fraction: OptShare = None
    mean_size_kb: PositiveKB
    mean_read_size_kb: PositiveKB | None = None
    mean_write_size_kb: PositiveKB | None = None
    read_sizes: list[Annotated[int, Field(gt=0)]] = Field(default_factory=list)
    read_size_probs: list[Share] = Field(default_factory=list)
    write_sizes: list[Annotated[int, Field(gt=0)]] = Field(default_factory=list)
    write_size_probs: list[Share] = Field(default_factory=list)
    # sizes of the non-sequential requests whose start page was reused
    reuse_read_sizes: list[Annotated[int, Field(gt=0)]] = Field(default_factory=list)
    reuse_read_size_probs: list[Share] = Field(default_factory=list)
    reuse_write_sizes: list[Annotated[int, Field(gt=0)]] = Field(default_factory=list)
    reuse_write_size_probs: list[Share] = Field(default_factory=list)
    repeat_share: Share = 0.0
    single_run_share: OptShare = None
    reuse_single_run_share: OptShare = None
    mean_reuse_read_size_kb: PositiveKB | None = None
    mean_reuse_write_size_kb: PositiveKB | None = None
    alignment_bytes: Annotated[int, Field(gt=0)]
    address_span_bytes: Annotated[int, Field(gt=0)]
    iops: Annotated[float | None, Field(gt=0.0)] = None
    footprint_pages: Annotated[int, Field(gt=0)]
    footprint_half_share: Share
    footprint_growth: list[Share] = Field(min_length=2)
    top_decile_access_share: OptShare = None
    reuse_share: Share
    median_reuse_distance: Annotated[float | None, Field(ge=1.0)] = None
    reuse_distance_levels: list[Share] = Field(default_factory=list)
    reuse_distance_quantiles: list[Annotated[float, Field(ge=1.0)]] = Field(default_factory=list)
    reread_share: Share = 0.0
    read_after_write_share: Share = 0.0
    write_after_read_share: Share = 0.0
    rewrite_start_share: Share = 0.0
    rewrite_share: OptShare = None
    read_hit_written_share: OptShare = None
    gap_cv: Annotated[float | None, Field(ge=0.0)] = None
    gap_median_ratio: Annotated[float | None, Field(ge=0.0)] = None

    @field_validator("alignment_bytes")
    @classmethod
    def _alignment(cls, v: int) -> int:
        if v % SECTOR:
            raise ValueError(f"must be a multiple of {SECTOR} B, got {v}")
        return v

    @field_validator("footprint_growth", "reuse_distance_levels", "reuse_distance_quantiles")
    @classmethod
    def _non_decreasing(cls, v: list[float]) -> list[float]:
        if any(b < a for a, b in zip(v, v[1:], strict=False)):
            raise ValueError("must be non-decreasing")
        return v

    @model_validator(mode="after")
    def _extra_are_numbers(self) -> Profile:
        for key, v in (self.model_extra or {}).items():
            values = v if isinstance(v, list) else [v]
            if not all(x is None or isinstance(x, int | float) for x in values):
                raise ValueError(f"{key} must be a number, a list of numbers or null, got {v!r}")
        return self

    @model_validator(mode="after")
    def _pairs(self) -> Profile:
        for sizes, probs in (
            ("read_sizes", "read_size_probs"),
            ("write_sizes", "write_size_probs"),
            ("reuse_read_sizes", "reuse_read_size_probs"),
            ("reuse_write_sizes", "reuse_write_size_probs"),
        ):
            n, p = getattr(self, sizes), getattr(self, probs)
            if len(n) != len(p):
                raise ValueError(f"{sizes} has {len(n)} entries but {probs} {len(p)}")
            if p and not math.isclose(sum(p), 1.0, abs_tol=1e-3):
                raise ValueError(f"{probs} must sum to 1, they sum to {sum(p):.4f}")
        q, lv = self.reuse_distance_quantiles, self.reuse_distance_levels
        if q and len(q) != len(lv):
            raise ValueError(
                f"reuse_distance_quantiles has {len(q)} entries but reuse_distance_levels {len(lv)}"
            )
        for a, b in (("reread_share", "read_after_write_share"),
                     ("write_after_read_share", "rewrite_start_share")):  # fmt: skip
            if getattr(self, a) + getattr(self, b) > 1 + 1e-9:
                raise ValueError(f"{a} + {b} must be <= 1")
        return self


class Preset(_Strict):
    """A preset file: a named profile with its provenance."""

    name: str = Field(min_length=1)
    provenance: Provenance
    profile: Profile


# ----------------------------------------------------------------------------- measure

_IDENTITY = ("name", "n_requests", "page_size")  # in the flat profile; kept in Preset/Provenance


def measure(
    requests: Requests, page_size: int = 4096, flat: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The fields of :class:`Profile` measured on ``requests`` (NaN -> None); ``flat``: its
    :func:`skftl.traces.locality.profile` if already measured."""
    flat = locality.profile(requests, page_size) if flat is None else flat
    return {
        k: None if isinstance(v, float) and math.isnan(v) else v
        for k, v in flat.items()
        if k not in _IDENTITY
    }


def flat_profile(preset: Preset) -> dict[str, Any]:
    """The flat dict :func:`skftl.traces.locality.profile` returns (None -> NaN), as the
    generator's ``spec_like`` takes it."""
    p = preset.profile.model_dump()
    return {
        "name": preset.name,
        "n_requests": preset.provenance.n_requests,
        "page_size": preset.provenance.page_size,
        **{k: float("nan") if v is None else v for k, v in p.items()},
    }


def require_profilable(requests: Requests) -> None:
    """A trace of fewer than two requests has no profile: ConfigError naming its file."""
    if len(requests) < 2:
        where = requests.meta.source or requests.meta.name
        raise ConfigError(f"{where}: {len(requests)} request(s); a profile needs at least 2")


def profile_trace(
    requests: Requests,
    page_size: int = 4096,
    name: str | None = None,
    flat: dict[str, Any] | None = None,
) -> Preset:
    """Measure ``requests`` (or take ``flat``, its locality.profile already measured) and wrap
    the profile with its provenance. A trace of fewer than two requests has no profile:
    ConfigError naming its file."""
    require_profilable(requests)
    meta = requests.meta
    where = meta.source or meta.name
    provenance = {
        "kind": "measured",
        "source": where,
        "sha256": meta.sha256 or None,
        "created": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
        "tool": f"skftl {skftl.__version__}",
        "page_size": page_size,
        "n_requests": len(requests),
    }
    fields = measure(requests, page_size, flat)
    provenance["basis"] = dict.fromkeys(fields, "measured")
    data = {"name": name or meta.name, "provenance": provenance, "profile": fields}
    return preset_from_dict(data, f"profile of {where}")


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
    write_text(text, path)
    return path


# ----------------------------------------------------------------------------- synthesis


def spec_from_profile(
    preset: Preset, n_requests: int, *, seed: int = 0, calibrate: int = 3
) -> SyntheticSpec:
    """The generator's parameters for a trace like ``preset`` of ``n_requests`` requests
    (:func:`skftl.traces.fitting.spec_like`; ``calibrate`` fixed-point iterations on a
    seeded draw, labelled as a calibration in the spec's notes)."""
    from skftl.traces.fitting import spec_like

    return spec_like(
        flat_profile(preset), n_requests, name=preset.name, seed=seed, calibrate=calibrate
    )
