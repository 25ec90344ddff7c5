"""pyproject.toml, environment.yml and envs/*.yaml must agree on packages and version ranges."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
# conda-only entries that are not Python package requirements of skftl
CONDA_ONLY = {"python", "pip"}
# conda-forge names that differ from the PyPI project's
CONDA_TO_PYPI = {"playwright-python": "playwright"}


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req)
    assert m, req
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")


def _pyproject() -> tuple[dict[str, str], dict[str, str]]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = dict(_split(r) for r in meta["dependencies"])
    dev = dict(_split(r) for r in meta["optional-dependencies"]["dev"])
    return runtime, dev


def _conda(path: Path) -> dict[str, str]:
    deps = yaml.safe_load(path.read_text())["dependencies"]
    pairs = (_split(d) for d in deps if isinstance(d, str))
    return {CONDA_TO_PYPI.get(n, n): spec for n, spec in pairs if n not in CONDA_ONLY}


def test_ranges_not_bare_names() -> None:
    runtime, dev = _pyproject()
    for name, spec in {**runtime, **dev}.items():
        assert ">=" in spec and "<" in spec, f"{name} needs a version range, has {spec!r}"


def test_environment_yml_matches_pyproject() -> None:
    runtime, dev = _pyproject()
    assert _conda(ROOT / "environment.yml") == {**runtime, **dev}


ENV_FILES = sorted((ROOT / "envs").glob("*.yaml"))


@pytest.mark.parametrize("path", ENV_FILES, ids=[p.name for p in ENV_FILES])
def test_rule_envs_are_subsets_with_same_ranges(path: Path) -> None:
    runtime, _ = _pyproject()
    env = _conda(path)
    extra = set(env) - set(runtime)
    assert not extra, f"{path.name} has packages pyproject does not: {extra}"
    for name, spec in env.items():
        assert spec == runtime[name], f"{path.name}: {name} {spec} != pyproject {runtime[name]}"


def test_rule_envs_cover_runtime() -> None:
    runtime, _ = _pyproject()
    covered = set().union(*(_conda(p) for p in ENV_FILES))
    assert covered == set(runtime), f"not in any envs/*.yaml: {set(runtime) - covered}"
