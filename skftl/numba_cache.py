"""Keep Numba's on-disk cache honest for kernels that inline code from other modules.

Numba keys a cached function on the source file that defines it only. A kernel that inlines
helpers or constants from other modules would run stale machine code after an edit to one of
those; ``drop_stale_cache`` removes the kernel's cached code whenever any source it depends on
changed, so an edit can never run stale code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from skftl.io import atomic_path


def drop_stale_cache(kernel_file: str | Path, *depends_on: str | Path) -> None:
    """Drop the cached machine code of ``kernel_file``'s module, and of every dependency in
    the same package, when the kernel or any of ``depends_on`` changed since the last import."""
    kernel = Path(kernel_file)
    sources = [kernel, *(Path(p) for p in depends_on)]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    cache = kernel.parent / "__pycache__"
    stamp = cache / f"{kernel.stem}_sources.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    stems = {p.stem for p in sources if p.parent == kernel.parent}
    try:
        for stale in cache.glob("*.nb[ic]"):
            if stale.name.split(".")[0] in stems:
                stale.unlink(missing_ok=True)
        with atomic_path(stamp) as tmp:
            tmp.write_text(digest)
    except OSError:  # a read-only install: Numba caches elsewhere or not at all
        pass
