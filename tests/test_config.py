"""Config loading: the default file, overlays with `base:`, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from skftl.config import DEFAULT_CONFIG, deep_merge, load_config
from skftl.errors import ConfigError


def test_default_config_loads_and_lists_known_studies() -> None:
    from skftl.studies.registry import STUDIES

    cfg = load_config()
    assert set(cfg["studies"]) <= set(STUDIES)
    for study in cfg["studies"]:
        assert study == "traces" or study in cfg, f"studies lists {study} without a section"


def test_paper_overlay_changes_only_what_it_says() -> None:
    base = load_config()
    paper = load_config(DEFAULT_CONFIG.parent / "paper.yaml")
    assert "base" not in paper
    assert paper["lpmt"]["scale"] == "paper"
    assert paper["lpmt"]["workloads"] == base["lpmt"]["workloads"]  # kept from the base
    assert paper["seed"] == base["seed"]


def test_deep_merge_is_recursive_and_pure() -> None:
    a = {"x": {"y": 1, "z": 2}, "w": 0}
    b = {"x": {"y": 5}}
    assert deep_merge(a, b) == {"x": {"y": 5, "z": 2}, "w": 0}
    assert a == {"x": {"y": 1, "z": 2}, "w": 0}


def test_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\n")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(bad)
    loop = tmp_path / "loop.yaml"
    loop.write_text("base: loop.yaml\n")
    with pytest.raises(ConfigError, match="itself"):
        load_config(loop)
