"""The ``skftl`` command. Each package contributes subcommands through a
``register(subparsers)`` function; a contributing module that is not present is skipped."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from skftl import __version__
from skftl.errors import SkftlError

#: command -> module with a register(subparsers) function that adds it, in listing order.
#: A command line naming one imports only that module (start-up: xarray, pandas and
#: matplotlib load only for the commands that use them); help and errors import them all.
COMMANDS = {
    "traces": "skftl.traces.cli",
    "run": "skftl.studies.cli",
    "characterise": "skftl.studies.traces.simulate",
    "scorecard": "skftl.studies.scorecard",
    "robustness": "skftl.studies.robustness",
    "spread": "skftl.studies.spread",
    "report-page": "skftl.studies.report_pages",
    "prepare-trace": "skftl.run_traces",
    "replay": "skftl.replay",
}
REGISTRARS = tuple(dict.fromkeys(COMMANDS.values()))


def _global_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--trace-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="folder with user-placed traces (repeatable; searched before SKFTL_TRACE_DIRS "
        "and the config's traces.trace_dirs)",
    )
    parser.add_argument(
        "--cache-dir", default=None, help="trace cache folder (default: config or data/cache)"
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="config file, taken on top of config/config.yaml (it need hold only what "
        "differs; every key: config/schema.yaml)",
    )
    return parser


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or only ``command``'s when it is a known one."""
    parser = argparse.ArgumentParser(
        prog="skftl",
        description="Reproducible FTL and storage-media research toolkit. The global options "
        "may also follow the subcommand.",
    )
    parser.add_argument("--version", action="version", version=f"skftl {__version__}")
    _global_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in (COMMANDS[command],) if command in COMMANDS else REGISTRARS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:  # a real missing dependency, not an absent module
                raise
            continue
        module.register(subparsers)
    return parser


#: the environment variables the global options set (restored when main returns, so that a
#: caller in the same process, a test or a notebook, does not inherit them)
GLOBAL_ENVIRONMENT = ("SKFTL_TRACE_DIRS", "SKFTL_CACHE_DIR")


def _apply_global_options(args: argparse.Namespace) -> None:
    """Make --trace-dir / --cache-dir visible to every subcommand (they read the
    environment through skftl.config / skftl.traces.cache)."""
    from skftl.traces.registry import require_dirs

    env_dirs = [p for p in os.environ.get("SKFTL_TRACE_DIRS", "").split(os.pathsep) if p]
    require_dirs([*args.trace_dir, *env_dirs])
    if args.trace_dir:
        os.environ["SKFTL_TRACE_DIRS"] = os.pathsep.join([*args.trace_dir, *env_dirs])
    if args.cache_dir:
        os.environ["SKFTL_CACHE_DIR"] = args.cache_dir


def main(argv: Sequence[str] | None = None) -> int:
    # global options are accepted anywhere on the line: take them out first
    known, rest = _global_options(argparse.ArgumentParser(add_help=False)).parse_known_args(argv)
    parser = build_parser(next((a for a in rest if not a.startswith("-")), None))
    args = parser.parse_args(rest)
    args.trace_dir = [*known.trace_dir, *args.trace_dir]
    args.cache_dir = args.cache_dir or known.cache_dir
    args.config = args.config or known.config
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    saved = {name: os.environ.get(name) for name in GLOBAL_ENVIRONMENT}
    try:
        _apply_global_options(args)
        return int(args.func(args) or 0)
    except SkftlError as exc:
        print(f"skftl: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader left (`skftl traces info ... | head`): stop quietly; stdout goes to
        # devnull so the interpreter's final flush does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        # outputs are written atomically (skftl.io): an interrupted run leaves none partial
        print("skftl: interrupted; nothing partial was written", file=sys.stderr)
        return 130
    except OSError as exc:
        # a system error (disk full, no permission, a name too long, ...) in one line
        where = f": {exc.filename}" if exc.filename else ""
        print(f"skftl: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
