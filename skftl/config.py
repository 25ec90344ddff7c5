"""Configuration loading and validation. The defaults live in ``config/config.yaml``; the one
schema of every key (types, ranges, allowed values) in ``config/schema.yaml``; nothing here
invents parameter values."""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from skftl.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "config" / "config.yaml"
SCHEMA_FILE = REPO_ROOT / "config" / "schema.yaml"


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's safe loader where PyYAML has it (5-10x faster than the pure-Python one),
    refusing a key given twice in one mapping (YAML would keep the last silently)."""

    def construct_mapping(self, node, deep=False):  # noqa: ANN001, ANN201 - PyYAML's signature
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} given twice (lines {seen[key] + 1} and "
                    f"{key_node.start_mark.line + 1}); YAML would keep only the last",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_LOADER = _UniqueKeyLoader
#: a stack of config layers, lowest first: (where it came from, its mapping)
Layers = list[tuple[str, dict[str, Any]]]


def deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``override``, recursively for nested mappings (as Snakemake merges
    a --configfile onto the Snakefile's config)."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    return out


def load_config(
    *paths: str | Path | None, overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Read and validate a config: ``config/config.yaml`` overridden key by key by each of
    ``paths`` in turn (as Snakemake stacks ``--configfile a.yaml b.yaml`` onto the Snakefile's
    config), then by ``overrides`` (e.g. Snakemake's ``--config``). A file
    with a ``base:`` entry (a path relative to the file) overrides that base config: e.g.
    ``config/paper.yaml`` holds only what differs at paper scale. The merged config must
    satisfy ``config/schema.yaml``; a ConfigError names the file and the key path otherwise."""
    # the repository default first, as the Snakefile's own configfile: a user file need hold
    # only what it changes (a base: chain back to config.yaml re-reads it, harmlessly)
    files = [DEFAULT_CONFIG, *(Path(p) for p in paths if p is not None)]
    layers: Layers = [layer for path in files for layer in _file_layers(path)]
    if overrides:
        layers.append(("--config", dict(overrides)))
    cfg: dict[str, Any] = {}
    for _, layer in layers:
        cfg = deep_merge(cfg, layer)
    validate(cfg, layers)
    return cfg


def _file_layers(path: Path, seen: tuple[Path, ...] = ()) -> Layers:
    """``path``'s layers: those of its ``base:`` chain first, then its own keys."""
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    stat = path.stat()
    cfg = copy.deepcopy(_read_yaml(str(path.resolve()), stat.st_mtime_ns, stat.st_size))
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: top level must be a mapping, got {type(cfg).__name__}")
    if "base" not in cfg:
        return [(str(path), cfg)]
    base = path.parent / str(cfg.pop("base"))
    if base.resolve() == path.resolve():
        raise ConfigError(f"{path}: base refers to the file itself")
    if base.resolve() in seen:
        raise ConfigError(f"{path}: base chain loops back to {base}")
    return [*_file_layers(base, (*seen, path.resolve())), (str(path), cfg)]


@functools.lru_cache(maxsize=32)
def _read_yaml(path: str, mtime_ns: int, size: int) -> Any:
    """A YAML file's content, parsed once per version of the file (the config is loaded by
    many functions of one command)."""
    with open(path, encoding="utf-8") as fh:
        try:
            return yaml.load(fh, Loader=_LOADER) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"{path}: not UTF-8 text: byte {exc.object[exc.start]:#04x} at offset {exc.start}"
            ) from exc


@functools.cache
def schema() -> dict[str, Any]:
    """The config schema (``config/schema.yaml``, JSON Schema 2020-12)."""
    with open(SCHEMA_FILE) as fh:
        return yaml.load(fh, Loader=_LOADER)


@functools.cache
def _validator():
    # jsonschema imports the optional rfc3987_syntax (pulled in by Jupyter) for a URI format
    # check the schema does not use; compiling its grammar costs ~2 s per command, so it is
    # hidden during the import only
    hide = "rfc3987_syntax" not in sys.modules and "jsonschema" not in sys.modules
    if hide:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    try:
        import jsonschema
    finally:
        if hide:
            del sys.modules["rfc3987_syntax"]

    # the schema itself is checked against its metaschema by tests/test_config.py
    return jsonschema.validators.validator_for(schema())(schema())


# configs already found valid in this process: (whole config?, canonical JSON)
_VALID: set[tuple[bool, str]] = set()


def validate(cfg: Mapping[str, Any], layers: Layers | None = None) -> None:
    """Check ``cfg`` against the schema; a ConfigError lists every violation as
    ``<file>: <key.path[index]>: <what is wrong>``, the file being the layer of ``layers``
    that set the offending key (``<config>`` without layers)."""
    _check(cfg, lambda parts: _source(layers or [], parts), whole=True)


def validate_sections(cfg: Mapping[str, Any], origin: str = "<config>") -> None:
    """Check the values of the sections ``cfg`` holds (a study's scope, or a config a
    notebook changed after loading it) against their schema and the size checks, as
    :func:`validate` checks a whole config, keys left out excepted; ``origin`` names where
    the values came from."""
    _check(cfg, lambda parts: origin, whole=False)


def _check(cfg: Mapping[str, Any], where: Callable[[list], str], whole: bool) -> None:
    """The schema, finiteness and size checks of :func:`validate` (``whole``) or
    :func:`validate_sections`; ``where(key path)`` names the source of a value."""
    key = (whole, json.dumps(cfg, sort_keys=True, default=repr))
    if key in _VALID:
        return
    if whole:
        errors = list(_validator().iter_errors(cfg))
    else:
        root = schema()
        partial = {
            **{k: v for k, v in root.items() if k not in ("required", "properties")},
            "properties": {k: root["properties"][k] for k in cfg if k in root["properties"]},
        }
        # a study's scope leaves out the keys it does not read: a missing key is not an
        # error here (the study's own read of it would fail), a wrong value is
        errors = [
            e for e in _validator().__class__(partial).iter_errors(cfg)
            if e.validator != "required"
        ]  # fmt: skip
    errors.sort(key=lambda e: [str(p) for p in e.path])
    problems = [_explain(e) for e in errors]
    # JSON Schema's numbers include .inf and .nan, which no key of ours means
    problems += [(parts, f"{value} is not finite") for parts, value in _non_finite(cfg)]
    if not problems:  # sizes and relations only of a config whose types are right
        problems = size_problems(cfg) + relation_problems(cfg)
    if problems:
        lines = [f"{where(parts)}: {key_path(parts)}: {message}" for parts, message in problems]
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines))
    _VALID.add(key)


#: keys that count requests or operations a run holds in memory, and the bytes each costs
#: at most (a request's columns, its pages' operations and their results, with headroom)
REQUEST_COUNT_KEYS = ("synthetic_requests", "n_requests", "max_requests", "extra_max_requests",
                      "paper_requests", "n_ops")  # fmt: skip
BYTES_PER_REQUEST = 256
#: bytes of state per flash page of a simulated device (mapping, reverse map, page state)
BYTES_PER_FLASH_PAGE = 24
#: a config list is a sweep or a set of names: more values than this is a typo or a runaway
#: generator, and would plan that many simulations
MAX_LIST_ITEMS = 4096
#: DRAM banks of the LPMT study: a DRAM has 4-32 (the kernel keeps a row per bank)
MAX_DRAM_BANKS = 1024


def machine_memory_bytes() -> int:
    """Physical memory of this machine."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def size_problems(cfg: Mapping[str, Any]) -> list[tuple[list[str | int], str]]:
    """(key path, why) for every value whose run this machine cannot hold or plan: request
    counts and device sizes beyond its memory, lists longer than :data:`MAX_LIST_ITEMS`, DRAM
    bank counts beyond :data:`MAX_DRAM_BANKS`; found before anything is allocated."""
    memory = machine_memory_bytes()
    gib = 1 << 30
    out: list[tuple[list[str | int], str]] = []

    def need(parts: list, what: str, nbytes: float) -> None:
        if nbytes > memory:
            out.append((parts, f"{what} need about {nbytes / gib:,.0f} GiB of memory; this "
                               f"machine has {memory / gib:,.0f} GiB"))  # fmt: skip

    def walk(node: Any, parts: list) -> None:
        if isinstance(node, list):
            if len(node) > MAX_LIST_ITEMS:
                out.append((parts, f"{len(node):,} values (at most {MAX_LIST_ITEMS:,}): a list "
                                   "is a sweep or a set of names, each value a run"))  # fmt: skip
            for i, v in enumerate(node[:MAX_LIST_ITEMS]):
                walk(v, [*parts, i])
            return
        if not isinstance(node, Mapping):
            return
        for key, value in node.items():
            at = [*parts, key]
            if key in REQUEST_COUNT_KEYS and isinstance(value, int) and not isinstance(value, bool):
                need(at, f"{value:,} requests", value * BYTES_PER_REQUEST)
            elif key == "n_banks" and parts[:1] == ["lpmt"]:
                for i, n in enumerate(value if isinstance(value, list) else [value]):
                    if isinstance(n, int) and n > MAX_DRAM_BANKS:
                        where = [*at, i] if isinstance(value, list) else at
                        out.append((where, f"{n:,} DRAM banks (at most {MAX_DRAM_BANKS:,})"))
            elif key == "capacity_gib" and isinstance(value, (int, float)) and math.isfinite(value):
                page = node.get("page_size", 4096)  # the smallest page: the most pages
                page = page if isinstance(page, int) and page > 0 else 4096
                pages = value * gib / page
                need(at, f"{value:g} GiB of {page}-byte flash pages",
                     pages * BYTES_PER_FLASH_PAGE)  # fmt: skip
            walk(value, at)

    walk(cfg, [])
    return out


def relation_problems(cfg: Mapping[str, Any]) -> list[tuple[list[str | int], str]]:
    """(key path, why) for every pair of keys whose values contradict each other, which JSON
    Schema cannot compare: ``traces.excerpt.window`` must be below ``traces.excerpt.windows``."""
    part = (cfg.get("traces") or {}).get("excerpt")
    if not isinstance(part, Mapping) or "window" not in part or "windows" not in part:
        return []
    window, windows = part["window"], part["windows"]
    if window < windows:
        return []
    return [(["traces", "excerpt", "window"],
             f"{window} is not a window of traces.excerpt.windows: {windows} (windows are "
             f"numbered 0 to {windows - 1})")]  # fmt: skip


def _non_finite(node: Any, parts: tuple[str | int, ...] = ()) -> list[tuple[list, float]]:
    """Every infinite or NaN number in a config, with its key path."""
    if isinstance(node, float):
        return [] if math.isfinite(node) else [(list(parts), node)]
    if isinstance(node, Mapping):
        return [x for k, v in node.items() for x in _non_finite(v, (*parts, str(k)))]
    if isinstance(node, list):
        return [x for i, v in enumerate(node) for x in _non_finite(v, (*parts, i))]
    return []


def key_path(parts: Sequence[str | int]) -> str:
    """``["ftl", "waf", "gc_policies", 1]`` -> ``ftl.waf.gc_policies[1]``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _explain(err) -> tuple[list[str | int], str]:
    """The offending key path and a message that says what is expected there."""
    parts = list(err.absolute_path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        parts.append(extra[0])
        known = ", ".join(err.schema.get("properties", {}))
        hint = [key_path(p) for p in _schema_paths(extra[0]) if p != parts]
        also = f"; did you mean {' or '.join(hint)}?" if hint else ""
        more = f" (and {', '.join(extra[1:])})" if extra[1:] else ""
        return parts, f"unknown key{more}; {key_path(parts[:-1])} takes: {known}{also}"
    if err.validator in ("anyOf", "oneOf"):
        wanted = " or ".join(_describe(s) for s in err.validator_value)
        return parts, f"{err.instance!r} is not valid: expected {wanted}"
    if err.validator == "required":
        return parts, f"{err.message} (add it, or start from config/config.yaml with base:)"
    return parts, err.message


_DEF_TEXT = {
    "posint": "an integer >= 1",
    "count": "an integer >= 0",
    "posnum": "a number > 0",
    "nonneg": "a number >= 0",
    "fraction": "a number in [0, 1]",
    "spare_factor": "a number in (0, 1)",
    "names": "a list of names",
}


def _describe(sub: Mapping[str, Any]) -> str:
    if "$ref" in sub:
        name = sub["$ref"].rsplit("/", 1)[-1]
        return _DEF_TEXT.get(name, name)
    if "const" in sub:
        return repr(sub["const"])
    if sub.get("type") == "null":
        return "null"
    return sub.get("type", "a value")


def _schema_paths(key: str) -> list[list[str | int]]:
    """Every place in the schema where a mapping takes ``key`` (for 'did you mean')."""
    defs = schema().get("$defs", {})
    found: list[list[str | int]] = []

    def walk(node: Mapping[str, Any], path: list[str | int], depth: int) -> None:
        if "$ref" in node and depth < 8:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        for name, sub in node.get("properties", {}).items():
            if name == key:
                found.append([*path, name])
            walk(sub, [*path, name], depth + 1)

    walk(schema(), [], 0)
    return found


def _source(layers: Layers, parts: Sequence[str | int]) -> str:
    """The last layer that sets ``parts`` (or the longest prefix of it)."""
    for n in range(len(parts), -1, -1):
        for label, layer in reversed(layers):
            if _has(layer, parts[:n]):
                return label
    return "<config>"


def _has(node: Any, parts: Sequence[str | int]) -> bool:
    for p in parts:
        if isinstance(node, Mapping) and p in node:
            node = node[p]
        elif isinstance(node, list) and isinstance(p, int) and p < len(node):
            node = node[p]
        else:
            return False
    return True


def config_comments(section: str, path: str | Path = DEFAULT_CONFIG) -> dict[str, str]:
    """The comment beside each key of ``section`` in a config file (``key: value  # comment``),
    nested keys by their dotted path (``timing.tck_ns``), for help texts; a comment continued
    on the lines below (indented past the key) is joined to it; keys without one are left out."""
    out: dict[str, str] = {}
    inside = False
    stack: list[tuple[int, str]] = []  # (indent, key) of the keys enclosing the current line
    last, last_indent = None, 0
    for line in Path(path).read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            inside, stack, last = line.split(":", 1)[0] == section, [], None
            continue
        if not inside:
            continue
        m = re.match(r"^(\s+)([A-Za-z_][\w-]*):[^#]*(?:#\s*(.+))?$", line)
        more = re.match(r"^(\s+)#\s*(.+)$", line)
        if m:
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, m.group(2)))
            last = ".".join(k for _, k in stack) if m.group(3) else None
            last_indent = indent
            if last:
                out[last] = m.group(3).strip()
        elif more and last and len(more.group(1)) > last_indent + 1:
            out[last] += " " + more.group(2).strip()
        else:
            last = None
    return out


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
