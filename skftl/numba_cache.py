"""Keep Numba's on-disk cache honest for kernels that inline code from other modules.

Numba keys a cached function on the source file that defines it only. A kernel that inlines
helpers or constants from other modules would run stale machine code after an edit to one of
those; ``drop_stale_cache`` removes the kernel's cached code whenever any source it depends on
changed, so an edit can never run stale code.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import caching, config

from skftl.io import atomic_path


def _cache_dirs(kernel: Path) -> list[Path]:
    """Where Numba may keep the kernel's cached code, the one it uses now first (its own
    locator order: NUMBA_CACHE_DIR, the in-tree ``__pycache__``, the user-wide cache)."""
    sub = caching._CacheLocator.get_suitable_cache_subpath(str(kernel))
    user_wide = Path(caching.AppDirs(appname="numba", appauthor=False).user_cache_dir) / sub
    in_tree = kernel.parent / "__pycache__"
    if config.CACHE_DIR:
        return [Path(config.CACHE_DIR) / sub, in_tree, user_wide]
    if os.access(kernel.parent, os.W_OK):
        return [in_tree, user_wide]
    return [user_wide, in_tree]


def drop_stale_cache(kernel_file: str | Path, *depends_on: str | Path) -> None:
    """Drop the cached machine code of ``kernel_file``'s module, and of every dependency in
    the same package, when the kernel or any of ``depends_on`` changed since the last import."""
    kernel = Path(kernel_file)
    sources = [kernel, *(Path(p) for p in depends_on)]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    stems = {p.stem for p in sources if p.parent == kernel.parent}
    for i, cache in enumerate(_cache_dirs(kernel)):
        stamp = cache / f"{kernel.stem}_sources.sha256"
        try:
            if i > 0 and not cache.is_dir():
                continue  # only the cache in use is created (so its stamp exists from now on)
            if stamp.is_file() and stamp.read_text() == digest:
                continue
            for stale in cache.glob("*.nb[ic]"):
                if stale.name.split(".")[0] in stems:
                    stale.unlink(missing_ok=True)
            with atomic_path(stamp) as tmp:
                tmp.write_text(digest)
        except OSError:  # not writable: Numba cannot cache there either
            pass
