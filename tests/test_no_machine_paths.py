"""No file of the project names a path that exists only on one machine (a developer's home,
a build host's work folder): papers and traces are cited as ../shared/..., the repository's
own files relative to its root."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# absolute paths of a user's or a host's own folders; system paths (/usr/bin/time, /dev/null,
# /tmp in an example command) are not a machine's
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:home|Users|work|root|mnt|scratch|data)/[\w.-]+")


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / p for p in out.stdout.split("\0") if p]


def test_no_tracked_file_names_a_machine_path() -> None:
    hits = []
    for path in _tracked():
        if path.suffix in {".png", ".pdf", ".gz", ".nc", ".zip"} or not path.is_file():
            continue
        if path.resolve() == Path(__file__).resolve():  # its own examples of the pattern
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in MACHINE_PATH.finditer(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert not hits, "machine paths in tracked files:\n" + "\n".join(hits[:50])


def test_the_pattern_finds_what_it_must() -> None:
    assert MACHINE_PATH.search("see /work/main/results for it")
    assert MACHINE_PATH.search('cite "/home/alice/papers/x.md"')
    assert not MACHINE_PATH.search("../shared/traces/mobile_pixel6a/cod_exec.csv.gz")
    assert not MACHINE_PATH.search("measured with /usr/bin/time -v")
    assert not MACHINE_PATH.search("runs/paper/results/data/cache")
