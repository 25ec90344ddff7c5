"""The CLI as a new user meets it: per-study help, option help texts, pipes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skftl.cli import build_parser
from skftl.studies.registry import STUDIES


def _help(*argv: str) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])


def test_run_help_describes_each_study_and_its_parameters(capsys) -> None:
    from skftl.config import load_config

    cfg = load_config()
    texts = {}
    for study in STUDIES:
        _help("run", study)
        texts[study] = out = capsys.readouterr().out
        assert f"config section `{study}:`" in out, study
        for key, value in cfg[study].items():  # every parameter, with its default
            if not isinstance(value, dict):
                assert f"{key} = " in out, (study, key)
            elif value:  # nested keys by dotted path, each with its default
                for sub, v in value.items():
                    if not isinstance(v, dict):
                        assert f"{key}.{sub} = " in out, (study, key, sub)
        assert "--no-progress  no progress bars" in " ".join(out.split("\n")), study
    assert len(set(texts.values())) == len(STUDIES)  # not one text for all
    assert "Progressive Performance Boosting" in texts["ppb"]
    assert "page_sizes = [8192, 16384]  # bytes" in texts["ppb"]
    # lists in full, never cut; a nested key's own comment
    flat = " ".join(texts["lpmt"].split())
    assert "hashes = " + repr(cfg["lpmt"]["hashes"]) in flat
    assert "..." not in " ".join(ln for ln in texts["lpmt"].splitlines() if " = [" in ln)
    assert "timing.tck_ns = " in texts["lpmt"]
    assert "setups.passes = 4  # multi-pass" in texts["skrm"]


def test_config_comments_follow_nested_keys(tmp_path) -> None:
    from skftl.config import config_comments

    path = tmp_path / "c.yaml"
    path.write_text(
        "study:\n"
        "  a: 1        # top\n"
        "              # continued\n"
        "  b:          # a section\n"
        "    c: 2      # nested\n"
        "    # a preamble of d, not c's\n"
        "    d: 3\n"
        "  e: 4\n"
        "other:\n"
        "  a: 5        # not ours\n"
    )
    assert config_comments("study", path) == {
        "a": "top continued",
        "b": "a section",
        "b.c": "nested",
    }


def test_run_lists_the_studies(capsys) -> None:
    _help("run")
    out = capsys.readouterr().out
    for study in STUDIES:
        assert f"    {study} " in out


def test_closed_pipe_ends_quietly() -> None:
    """`skftl traces info NAME | head`: no BrokenPipeError traceback when the reader leaves."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skftl", "traces", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 1


def test_global_options_do_not_outlive_main(tmp_path, monkeypatch) -> None:
    """--trace-dir / --cache-dir reach the subcommand through the environment; a caller in
    the same process (a test, a notebook) gets its own environment back when main returns."""
    import os

    from skftl.cli import main

    monkeypatch.delenv("SKFTL_TRACE_DIRS", raising=False)
    monkeypatch.setenv("SKFTL_CACHE_DIR", str(tmp_path / "mine"))
    assert main(["--trace-dir", str(tmp_path), "--cache-dir", str(tmp_path), "traces", "list"]) == 0
    assert "SKFTL_TRACE_DIRS" not in os.environ
    assert os.environ["SKFTL_CACHE_DIR"] == str(tmp_path / "mine")
