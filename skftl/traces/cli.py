"""`skftl traces list|fetch|info|export|profile|synth`."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from skftl.config import DEFAULT_CONFIG, REPO_ROOT, load_config
from skftl.errors import ChecksumError, ConfigError
from skftl.traces import registry
from skftl.traces.export import EXPORT_FORMATS, export_trace
from skftl.traces.formats import FORMAT_NAMES
from skftl.traces.loader import load_trace
from skftl.traces.stats import characterise


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("traces", help="list, fetch, inspect and export block traces")
    sub = p.add_subparsers(dest="traces_command", metavar="ACTION", required=True)

    ls = sub.add_parser("list", help="registered traces and which are in the trace folders")
    ls.add_argument("-v", "--verbose", action="store_true", help="sources and citations too")
    ls.set_defaults(func=_cmd_list)

    fe = sub.add_parser("fetch", help="download a registered trace and verify its checksum")
    fe.add_argument("name")
    fe.add_argument("--raw-dir", default=None, help="download folder (default: config raw_dir)")
    fe.set_defaults(func=_cmd_fetch)

    info = sub.add_parser("info", help="characteristics of a trace (registered name or path)")
    info.add_argument("source", metavar="PATH_OR_NAME")
    info.add_argument("--format", dest="fmt", choices=FORMAT_NAMES, default=None)
    info.add_argument("--no-cache", action="store_true")
    info.set_defaults(func=_cmd_info)

    ex = sub.add_parser("export", help="write a trace in another format (MQSim ASCII)")
    ex.add_argument("source", metavar="NAME_OR_PATH")
    ex.add_argument("--format", dest="out_format", choices=EXPORT_FORMATS, default="mqsim")
    ex.add_argument("--input-format", dest="fmt", choices=FORMAT_NAMES, default=None)
    ex.add_argument("-o", "--out", required=True)
    ex.set_defaults(func=_cmd_export)

    pr = sub.add_parser(
        "profile", help="measure a trace's workload profile (sizes, mix, locality) as a preset"
    )
    pr.add_argument("source", metavar="NAME_OR_PATH")
    pr.add_argument("--format", dest="fmt", choices=FORMAT_NAMES, default=None)
    pr.add_argument("-o", "--out", default=None, help="write the preset file (YAML) here")
    pr.add_argument("--name", default=None, help="preset name (default: the trace's name)")
    pr.add_argument("--page-size", type=int, default=4096, help="logical page in bytes")
    pr.set_defaults(func=_cmd_profile)

    sy = sub.add_parser("synth", help="write a synthetic trace like a trace or a preset file")
    sy.add_argument(
        "--like", required=True, metavar="TRACE_OR_PRESET",
        help="a preset file (.yaml/.yml) or a trace (registered name or path) to profile",
    )  # fmt: skip
    sy.add_argument("-n", "--requests", type=int, required=True, help="requests to draw")
    sy.add_argument("-o", "--out", required=True)
    sy.add_argument("--format", dest="out_format", choices=EXPORT_FORMATS, default="mqsim")
    sy.add_argument("--input-format", dest="fmt", choices=FORMAT_NAMES, default=None)
    sy.add_argument("--seed", type=int, default=0)
    sy.add_argument(
        "--calibrate", type=int, default=3, metavar="K",
        help="fixed-point calibration iterations of the locality parameters, then a "
        "bisection of the footprint (0: neither, the closed-form estimates as they are)",
    )  # fmt: skip
    sy.set_defaults(func=_cmd_synth)


def _config(args: argparse.Namespace) -> dict[str, Any]:
    if args.config is None and not DEFAULT_CONFIG.is_file():
        return {}
    return load_config(args.config)


def _config_path(args: argparse.Namespace, key: str) -> Path | None:
    value = (_config(args).get("traces", {}) or {}).get(key)
    if value is None:
        return None
    path = Path(value)
    return path if path.is_absolute() else REPO_ROOT / path


def _trace_dirs(args: argparse.Namespace) -> list[Path]:
    from skftl.config import trace_dirs

    return trace_dirs(_config(args))  # SKFTL_TRACE_DIRS already holds --trace-dir


def _cache_dir(args: argparse.Namespace) -> Path | None:
    return Path(args.cache_dir) if args.cache_dir else _config_path(args, "cache_dir")


def _cmd_list(args: argparse.Namespace) -> int:
    dirs = _trace_dirs(args)
    rows = []
    for entry in registry.list_known():
        try:
            path = registry.locate(entry.name, dirs)
            where = f"{path}  [{registry.verification(path, entry)}]" if path else "-"
        except ChecksumError as exc:
            where = f"CHECKSUM MISMATCH ({exc})"
        n = f"{entry.requests:,}" if entry.requests else "?"
        rows.append((entry, where, n))
    width = max(len(e.name) for e, _, _ in rows)
    print(f"trace folders: {', '.join(map(str, dirs)) or '(none)'}")
    print(f"{'name':<{width}}  {'format':<8} {'requests':>9}  present")
    for entry, where, n in rows:
        print(f"{entry.name:<{width}}  {entry.format:<8} {n:>9}  {where}")
        if not args.verbose and where != "-" and _file_named_otherwise(entry.name, where):
            print(f"{'':<{width}}  (the file is {entry.description})")
        if args.verbose:
            print(f"    {entry.description}\n    stands for: {entry.stands_for}")
            print(f"    source: {' | '.join(entry.urls)}\n    cite: {entry.citation}")
            if entry.checksums or entry.content_sha256:
                sums = list(entry.checksums)
                if entry.content_sha256:
                    sums.append(f"text sha256:{entry.content_sha256}")
                print(f"    checksums: {', '.join(sums)}")
    present = sum(1 for _, where, _ in rows if where != "-")
    print(f"{present} of {len(rows)} registered traces present")
    return 0


def _file_named_otherwise(name: str, where: str) -> bool:
    """Whether a trace's file is named other than the trace (its upstream name): the list
    then says what the file is."""
    stem = Path(where.split("  [", 1)[0]).name.split(".")[0]
    return not name.endswith(stem)


def _cmd_fetch(args: argparse.Namespace) -> int:
    raw_dir = Path(args.raw_dir) if args.raw_dir else _config_path(args, "raw_dir")
    print(registry.fetch(args.name, raw_dir))
    return 0


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:,.3f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _cmd_info(args: argparse.Namespace) -> int:
    req = load_trace(
        args.source,
        args.fmt,
        trace_dirs=_trace_dirs(args),
        cache_dir=_cache_dir(args),
        use_cache=not args.no_cache,
    )
    meta = req.meta
    print(f"name: {meta.label}\nformat: {meta.format}\nsource: {meta.source}")
    print(f"sha256: {meta.sha256}\ndata lines: {meta.lines:,}")
    print(f"verification: {meta.extra.get('verification', 'n/a')}")
    print(f"out-of-order arrivals: {meta.backward_time_jumps:,}")
    for key, value in characterise(req).items():
        print(f"{key}: {_fmt(value)}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    req = load_trace(
        args.source, args.fmt, trace_dirs=_trace_dirs(args), cache_dir=_cache_dir(args)
    )
    widened = export_trace(req, args.out, args.out_format)
    note = f" ({widened:,} widened to whole sectors)" if widened else ""
    print(f"wrote {len(req):,} requests to {args.out}{note}")
    return 0


def _profile_of(args: argparse.Namespace, source: str, page_size: int = 4096):
    """The preset in file ``source`` (.yaml/.yml), else the profile of trace ``source``."""
    from skftl.traces import profile

    if Path(source).suffix in (".yaml", ".yml"):
        return profile.load_preset(source)
    req = load_trace(source, args.fmt, trace_dirs=_trace_dirs(args), cache_dir=_cache_dir(args))
    return profile.profile_trace(req, page_size, name=getattr(args, "name", None))


def _cmd_profile(args: argparse.Namespace) -> int:
    from skftl.traces.profile import write_preset

    preset = _profile_of(args, args.source, args.page_size)
    print(f"name: {preset.name}")
    for key, value in preset.provenance.model_dump().items():
        if value not in ({}, "", None):
            print(f"{key}: {_fmt(value)}")
    for key, value in preset.profile.model_dump().items():
        shown = f"({len(value)} values)" if isinstance(value, list) else _fmt(value)
        print(f"{key}: {shown}")
    if args.out:
        print(f"wrote {write_preset(preset, args.out)}")
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from skftl.traces.profile import spec_from_profile
    from skftl.traces.synthetic import generate

    if args.requests < 1:
        raise ConfigError(f"synth: -n/--requests must be >= 1, got {args.requests}")
    preset = _profile_of(args, args.like)
    spec = spec_from_profile(preset, args.requests, seed=args.seed, calibrate=args.calibrate)
    req = generate(spec, args.requests, seed=args.seed)
    export_trace(req, args.out, args.out_format)
    print(f"wrote {len(req):,} synthetic requests like {args.like} to {args.out}")
    return 0
