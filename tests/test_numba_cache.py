from pathlib import Path

import pytest
from numba.core import config

from skftl.numba_cache import _cache_dirs, drop_stale_cache


def _cached(cache: Path, stem: str) -> Path:
    f = cache / f"{stem}.fn-12.py311.nbi"
    f.write_bytes(b"machine code")
    return f


@pytest.mark.parametrize("user_cache_dir", [False, True])
def test_cached_code_is_dropped_when_a_dependency_changes(tmp_path, monkeypatch, user_cache_dir):
    src = tmp_path / "pkg"
    src.mkdir()
    kernel, dep, other = (src / n for n in ("kernel.py", "dep.py", "other.py"))
    for f in (kernel, dep, other):
        f.write_text("x = 1\n")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "nc") if user_cache_dir else "")
    cache = _cache_dirs(kernel)[0]
    assert (cache.parent == tmp_path / "nc") == user_cache_dir
    drop_stale_cache(kernel, dep)  # first import: creates the cache and its stamp
    mine, theirs = _cached(cache, "kernel"), _cached(cache, "other")
    drop_stale_cache(kernel, dep)  # nothing changed: the cache stays
    assert mine.exists()
    dep.write_text("x = 2\n")
    dep_code = _cached(cache, "dep")
    drop_stale_cache(kernel, dep)
    assert not mine.exists() and not dep_code.exists()
    assert theirs.exists()  # a module the kernel does not depend on keeps its code
    mine = _cached(cache, "kernel")
    drop_stale_cache(kernel, dep)
    assert mine.exists()
    assert not list(cache.glob("*.tmp"))
