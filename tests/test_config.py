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


# --- the schema (config/schema.yaml): every key known, types and ranges, errors name file + key


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "tiny.yaml"])
def test_shipped_configs_validate(name: str) -> None:
    load_config(DEFAULT_CONFIG.parent / name)  # raises ConfigError otherwise


def _error(tmp_path: Path, text: str, name: str = "my.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("ftl: {gc_policies: [cost_benefit]}", "ftl.gc_policies", "did you mean ftl.waf"),
        ("lpmt: {no_such_key: 1}", "lpmt.no_such_key", "unknown key"),
        ("no_such_section: {}", "no_such_section", "unknown key"),
        ("lpmt: {pages_per_block: 0}", "lpmt.pages_per_block", "minimum of 1"),
        ("ppb: {device: {pages_per_block: 0}}", "ppb.device.pages_per_block", "minimum"),
        ("lpmt: {assoc: 0}", "lpmt.assoc", "minimum of 1"),
        ("bnvm: {device: {page_size: 0}}", "bnvm.device.page_size", "minimum of 1"),
        ("lpmt: {page_size: '4k'}", "lpmt.page_size", "not of type 'integer'"),
        ("mtpm: {tg_sweep: [0, 2]}", "mtpm.tg_sweep[0]", "minimum of 1"),
        ("ftl: {waf: {gc_policies: [greedy, fifo]}}", "ftl.waf.gc_policies[1]", "'fifo'"),
        ("skrm: {synthetic_requests: -5}", "skrm.synthetic_requests", "minimum"),
        ("lpmt: {n_sets: -3}", "lpmt.n_sets", "'auto' or an integer >= 1"),
        ("ftl: {spare_factor: 1.5}", "ftl.spare_factor", "1.5"),
        ("seed: abc", "seed", "not of type 'integer'"),
        # the generators' seeds are 32-bit: a larger one would alias a smaller one
        ("seed: 1180591620717411303424", "seed", "maximum of 4294967295"),
        # JSON Schema's numbers include infinities and NaN; no key of ours means one
        ("ppb: {speed_ratios: [2, .inf]}", "ppb.speed_ratios[1]", "inf is not finite"),
        ("bnvm: {device: {t_read_us: .nan}}", "bnvm.device.t_read_us", "nan is not finite"),
        # an excerpt window beyond the windows, or no windows at all
        ("traces: {excerpt: {windows: 2, window: 2}}", "traces.excerpt.window", "numbered 0 to 1"),
        ("traces: {excerpt: {windows: 0, window: 0}}", "traces.excerpt.windows", "minimum of 1"),
        ("spread: {seeds: -1}", "spread.seeds", "minimum of 0"),
    ],
)
def test_schema_errors_name_file_and_key_path(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    msg = _error(tmp_path, text + "\n")
    line = next(ln for ln in msg.splitlines() if f": {where}:" in ln)
    assert f"{tmp_path / 'my.yaml'}: {where}: " in line
    assert what in line


def test_error_names_the_layer_that_set_the_key(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("lpmt: {assoc: 0}\n")
    (tmp_path / "b.yaml").write_text("base: a.yaml\nmtpm: {tg: 0}\n")
    msg = _error(tmp_path, "base: b.yaml\nseed: 3\n", "c.yaml")
    assert f"{tmp_path / 'a.yaml'}: lpmt.assoc:" in msg
    assert f"{tmp_path / 'b.yaml'}: mtpm.tg:" in msg


def test_stacked_files_merge_in_order(tmp_path: Path) -> None:
    """`--configfile config/config.yaml tiny.yaml my.yaml`: each later file overrides key by
    key; a partial file is taken on top of config/config.yaml."""
    (tmp_path / "my.yaml").write_text("seed: 7\nlpmt: {assoc: 4}\n")
    tiny = DEFAULT_CONFIG.parent / "tiny.yaml"
    cfg = load_config(
        DEFAULT_CONFIG, tiny, tmp_path / "my.yaml", overrides={"ftl": {"n_streams": 2}}
    )
    base = load_config()
    assert (cfg["seed"], cfg["lpmt"]["assoc"], cfg["ftl"]["n_streams"]) == (7, 4, 2)
    assert cfg["lpmt"]["n_requests"] == load_config(tiny)["lpmt"]["n_requests"] == 3000
    assert cfg["lpmt"]["pages_per_block"] == base["lpmt"]["pages_per_block"]
    assert load_config(tmp_path / "my.yaml")["ppb"] == base["ppb"]


def test_schema_is_a_valid_json_schema() -> None:
    import jsonschema

    from skftl.config import schema

    jsonschema.validators.validator_for(schema()).check_schema(schema())


def test_schema_enums_follow_the_code() -> None:
    """Allowed values in the schema are the code's own lists (no drift)."""
    from skftl.config import schema
    from skftl.dram.hashes import HASHES
    from skftl.dram.layout import PLACEMENTS
    from skftl.nand.policy import BUILTIN
    from skftl.nand.timing import PAGE_SPEEDS, SPEED_ANCHORS
    from skftl.studies.registry import STUDIES

    defs = schema()["$defs"]
    assert set(defs["lpmt_hash"]["enum"]) == set(HASHES)
    assert tuple(defs["lpmt_placement"]["enum"]) == tuple(PLACEMENTS)
    assert set(defs["ftl_policy"]["anyOf"][0]["enum"]) == set(BUILTIN)
    nand = defs["nand"]["properties"]
    assert tuple(nand["page_speed"]["enum"]) == tuple(PAGE_SPEEDS)
    assert tuple(nand["speed_anchor"]["enum"]) == tuple(SPEED_ANCHORS)
    studies = schema()["properties"]["studies"]["items"]["enum"]
    assert set(studies) == set(STUDIES)


def test_a_key_given_twice_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    # YAML keeps the last of two equal keys: `ftl:` twice would drop the first's keys
    msg = _error(tmp_path, "ftl:\n  spare_factor: 0.1\nseed: 3\nftl:\n  gc_policy: greedy\n")
    assert str(tmp_path / "my.yaml") in msg
    assert "key 'ftl' given twice (lines 1 and 4)" in msg
    nested = _error(tmp_path, "lpmt:\n  assoc: 8\n  assoc: 4\n")
    assert "key 'assoc' given twice (lines 2 and 3)" in nested


@pytest.mark.parametrize(
    "dotted,value,message",
    [
        ("traces.synthetic_requests", 10**12, "1,000,000,000,000 requests need about"),
        ("ftl.waf.spare_factors", [0.1] * 10**6, "1,000,000 values (at most 4,096)"),
        ("bnvm.sweep.refresh_ms", [100.0] * 10**6, "1,000,000 values (at most 4,096)"),
        ("lpmt.n_banks", 2**40, "1,099,511,627,776 DRAM banks"),
        ("ppb.device.capacity_gib", 10**9, "GiB of 4096-byte flash pages need about"),
    ],
)
def test_sizes_this_machine_cannot_hold_are_refused_naming_the_key(
    tmp_path: Path, dotted: str, value: object, message: str
) -> None:
    import yaml

    *path, last = dotted.split(".")
    layer: dict = {}
    node = layer
    for key in path:
        node = node.setdefault(key, {})
    node[last] = value
    cfg = tmp_path / "big.yaml"
    cfg.write_text(yaml.safe_dump(layer))
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    assert f"{cfg}: {dotted}: " in str(err.value) and message in str(err.value)


def test_a_config_changed_after_loading_is_checked_where_a_study_runs() -> None:
    from skftl.config import validate_sections
    from skftl.studies import lpmt

    cfg = lpmt.with_overrides(load_config(), n_banks=4.5)
    with pytest.raises(ConfigError, match=r"lpmt.run: lpmt.n_banks: 4.5 is not of type 'integer'"):
        lpmt.run(cfg, progress=False)
    with pytest.raises(ConfigError, match=r"notebook: lpmt.n_banks: 'four' is not of type"):
        validate_sections({"lpmt": {**cfg["lpmt"], "n_banks": "four"}}, "notebook")
    validate_sections({"lpmt": load_config()["lpmt"]})  # a study's scope: keys may be left out


@pytest.mark.parametrize("value", ["4.5", "four"])
def test_a_notebook_parameter_of_the_wrong_type_stops_the_notebook(
    tmp_path: Path, value: str
) -> None:
    """papermill -p n_banks 4.5 (or four): the run stops at the study with the key and value,
    instead of simulating 4 banks (or a traceback from deep inside)."""
    import subprocess
    import sys

    from skftl.config import REPO_ROOT

    out = tmp_path / "out.ipynb"
    res = subprocess.run(
        [sys.executable, "-m", "papermill", str(REPO_ROOT / "notebooks" / "02_lpmt.ipynb"),
         str(out), "-k", "python3", "-p", "n_banks", value, "--cwd",
         str(REPO_ROOT / "notebooks"), "--no-progress-bar"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode != 0
    shown = repr(value if value == "four" else float(value))
    assert f"lpmt.n_banks: {shown} is not of type 'integer'" in res.stderr + out.read_text()


def test_a_scope_found_valid_is_still_checked_whole() -> None:
    """validate_sections lets keys be left out; a config it passed is not thereby valid as a
    whole (the two checks do not share what they found)."""
    from skftl.config import validate, validate_sections

    cfg = load_config()
    del cfg["ftl"]["spare_factor"]
    validate_sections(cfg)
    with pytest.raises(ConfigError, match="'spare_factor' is a required property"):
        validate(cfg)
