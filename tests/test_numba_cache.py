import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core import config

from skftl.numba_cache import _cache_dirs, drop_stale_cache, source_tag


def _cached(cache: Path, name: str) -> Path:
    f = cache / name
    f.write_bytes(b"machine code")
    return f


@pytest.mark.parametrize("user_cache_dir", [False, True])
def test_entries_of_other_sources_are_dropped_on_import(tmp_path, monkeypatch, user_cache_dir):
    src = tmp_path / "pkg"
    src.mkdir()
    kernel, dep, other = (src / n for n in ("kernel.py", "dep.py", "other.py"))
    for f in (kernel, dep, other):
        f.write_text("x = 1\n")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "nc") if user_cache_dir else "")
    cache = _cache_dirs(kernel)[0]
    assert (cache.parent == tmp_path / "nc") == user_cache_dir
    cache.mkdir(parents=True)
    tag = source_tag(kernel, dep)
    untagged = _cached(cache, "kernel.fn-12.py311.nbi")  # written before sources were tagged
    old = _cached(cache, "kernel.fn-12_0123456789abcdef.py311.nbi")
    dep_old = _cached(cache, "dep.g-3_0123456789abcdef.py311.1.nbc")
    mine = _cached(cache, f"kernel.fn-12_{tag}.py311.nbi")
    theirs = _cached(cache, "other.fn-12.py311.nbi")
    drop_stale_cache(kernel, dep)
    assert not untagged.exists() and not old.exists() and not dep_old.exists()
    assert mine.exists()
    assert theirs.exists()  # a module the kernel does not depend on keeps its code
    dep.write_text("x = 2\n")
    drop_stale_cache(kernel, dep)
    assert not mine.exists()  # compiled from the dependency as it was
    assert not list(cache.glob("*.tmp"))


_KERNEL = """
    from pathlib import Path

    from numba import njit

    from skftl.numba_cache import drop_stale_cache
    from tpkg.dep import X

    drop_stale_cache(__file__, Path(__file__).with_name("dep.py"))


    @njit(cache=True)
    def f():
        return X
"""


def _waiting_run(cwd: Path, env: dict) -> subprocess.Popen:
    """A run that imports the kernel, says so, and computes only when told (a line on stdin)."""
    code = "import tpkg.kernel as k; print('imported', flush=True); input(); print(k.f())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "imported"
    return proc


def test_a_process_with_older_sources_cannot_hand_its_code_to_a_newer_one(tmp_path):
    """The race: run A imports the kernel, the dependency is edited, run B imports the new
    sources, then A compiles and saves first. B, and any later run, must get the new code."""
    pkg = tmp_path / "tpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernel.py").write_text(textwrap.dedent(_KERNEL))
    dep = pkg / "dep.py"
    dep.write_text("X = 1\n")
    # no .pyc: an edit within the same second and size would otherwise import the old bytecode
    env = {
        "PYTHONPATH": f"{tmp_path}:{Path(__file__).parents[1]}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NUMBA_CACHE_DIR": "",
    }
    old = _waiting_run(tmp_path, env)
    dep.write_text("X = 2\n")
    new = _waiting_run(tmp_path, env)
    assert old.communicate("go\n", timeout=120)[0].strip() == "1"  # what it imported
    assert new.communicate("go\n", timeout=120)[0].strip() == "2"
    later = "import tpkg.kernel as k; print(k.f())"
    again = subprocess.run(
        [sys.executable, "-c", later], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert again.stdout.strip() == "2", again.stderr
    assert list((pkg / "__pycache__").glob("kernel.f-*.nbi"))  # it does cache


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
@pytest.mark.parametrize("which", ["nbi", "nbc"])
def test_a_corrupt_cache_entry_is_recompiled_not_an_error(tmp_path, damage, which):
    """A cache file truncated by a kill or a full disk, or overwritten, is a miss: the next
    run compiles and caches again instead of failing until someone deletes it; so for any
    cached function once skftl is installed."""
    pkg = tmp_path / "cpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    # a plain cached kernel, importing nothing of skftl: the numba_extensions entry point
    # installs the healing
    (pkg / "kernel.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef f():\n    return 3\n"
    )
    env = {
        "PYTHONPATH": f"{tmp_path}:{Path(__file__).parents[1]}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NUMBA_CACHE_DIR": "",
    }
    run = "import cpkg.kernel as k; print(k.f())"

    def once() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", run], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    assert once().stdout.strip() == "3"
    (entry,) = (pkg / "__pycache__").glob(f"kernel.f-*.{which}")
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2] if damage == "truncate" else b"\x80\x04garbage")
    healed = once()
    assert healed.returncode == 0 and healed.stdout.strip() == "3", healed.stderr[-2000:]
    notice = [ln for ln in healed.stderr.splitlines() if ln.startswith("skftl: deleted a corrupt")]
    assert len(notice) == 1 and str(pkg / "__pycache__") in notice[0], healed.stderr[-2000:]
    assert once().stdout.strip() == "3"  # cached again, readable
