"""Keep Numba's on-disk cache honest for kernels that inline code from other modules.

Numba keys a cached function on the file that defines it only (its modification time and
size). A kernel that inlines helpers or constants from other modules would load stale machine
code after an edit to one of those. ``drop_stale_cache`` therefore tags the kernel's cache
entries with a digest of every source it depends on: Numba's own locator mechanism
(``CacheImpl._locator_classes``) gets a locator that appends the tag to the function's
disambiguator, so the cache file names carry the sources they were compiled from. A process
that imported older sources (a long run started before an edit) saves under the old tag and can
never hand its code to a process with the new sources; entries with another tag are deleted
when a kernel is imported, so the cache does not grow with every edit.

(If ``NUMBA_CACHE_LOCATOR_CLASSES`` is set, Numba uses that list instead and the tag is not
applied; the deletion on import still keeps an edit from running stale code in the usual
one-process-at-a-time case.)
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path

from numba.core import caching, config

TAG_CHARS = 16  # of the sha256 hex digest; enough to tell edits apart
#: a module-scope name of a kernel function re-bound to other globals (one kernel per FTL
#: policy, ``skftl.nand.policy.kernels``): its value tells that variant's cache entries apart
VARIANT_KEY = "__skftl_variant__"

# source file (absolute path) -> the tag of the sources its cached functions were compiled from
_TAGS: dict[str, str] = {}


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


class SourceTaggedLocator(caching._CacheLocator):
    """Numba's usual locator for a file, with the file's source tag in the disambiguator
    (hence in the cache file names), and the variant of a re-bound function after it. Only
    files registered by ``drop_stale_cache`` and re-bound functions get one."""

    def __init__(self, inner: caching._CacheLocator, tag: str) -> None:
        self._inner = inner
        self._tag = tag

    @classmethod
    def from_function(cls, py_func, py_file):  # noqa: ANN001, ANN206 - Numba's signature
        tag = _TAGS.get(os.path.abspath(py_file))
        variant = getattr(py_func, "__globals__", {}).get(VARIANT_KEY)
        if variant is not None:
            tag = f"{tag}_{variant}" if tag else f"_{variant}"
        if tag is None:
            return None
        for other in caching.CacheImpl._locator_classes:
            if other is cls:
                continue
            inner = other.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner, tag)
        return None

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return self._inner.get_cache_path()

    def get_source_stamp(self):  # noqa: ANN201 - any picklable object, as in Numba
        return self._inner.get_source_stamp()

    def get_disambiguator(self) -> str:
        return f"{self._inner.get_disambiguator()}_{self._tag}"


def _install_locator() -> None:
    classes = caching.CacheImpl._locator_classes
    if SourceTaggedLocator not in classes:
        classes.insert(0, SourceTaggedLocator)
    heal_corrupt_entries()


# what unpickling a truncated or overwritten cache file raises
_CORRUPT = (EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError)


def _notice(path: str | Path) -> None:
    print(f"skftl: deleted a corrupt Numba cache file, compiling afresh: {path}", file=sys.stderr)


def heal_corrupt_entries() -> None:
    """Make Numba treat an unreadable cache file (truncated by a kill or a full disk, or
    overwritten) as a miss and delete it, instead of failing every later run until someone
    finds and deletes it: the function is compiled and cached again. Numba runs this before
    its first compilation in any process where skftl is installed (the ``numba_extensions``
    entry point in pyproject.toml), so every cached kernel of the package is covered."""
    cls = caching.IndexDataCacheFile
    if getattr(cls, "_skftl_heals", False):
        return
    load_index, load_data = cls._load_index, cls._load_data

    def _load_index(self):  # noqa: ANN001, ANN202 - Numba's method
        try:
            return load_index(self)
        except _CORRUPT:
            Path(self._index_path).unlink(missing_ok=True)
            _notice(self._index_path)
            return {}

    def _load_data(self, name):  # noqa: ANN001, ANN202 - Numba's method
        try:
            return load_data(self, name)
        except _CORRUPT as exc:
            Path(self._data_path(name)).unlink(missing_ok=True)
            _notice(self._data_path(name))
            raise OSError(f"corrupt cache entry {name}: {exc}") from exc  # load(): a miss

    cls._load_index, cls._load_data = _load_index, _load_data
    cls._skftl_heals = True


def source_tag(*sources: str | Path) -> str:
    """The tag of a set of source files: a digest of their bytes, in the order given."""
    digest = hashlib.sha256(b"".join(Path(p).read_bytes() for p in sources)).hexdigest()
    return digest[:TAG_CHARS]


def drop_stale_cache(kernel_file: str | Path, *depends_on: str | Path) -> None:
    """Tag the cached code of ``kernel_file``'s module (and of every dependency in the same
    package) with the digest of all these sources, and delete their entries with another tag."""
    _install_locator()
    kernel = Path(kernel_file)
    sources = [kernel, *(Path(p) for p in depends_on)]
    tag = source_tag(*sources)
    same_package = [p for p in sources if p.parent == kernel.parent]
    for p in same_package:
        _TAGS[os.path.abspath(p)] = tag
    stems = {p.stem for p in same_package}
    for cache in _cache_dirs(kernel):
        if not cache.is_dir():
            continue
        try:
            for entry in cache.glob("*.nb[ic]"):
                current = f"_{tag}." in entry.name or f"_{tag}_" in entry.name  # a variant's
                if entry.name.split(".")[0] in stems and not current:
                    entry.unlink(missing_ok=True)
            (cache / f"{kernel.stem}_sources.sha256").unlink(missing_ok=True)  # earlier scheme
        except OSError:  # not writable: Numba cannot cache there either
            pass


def drop_stale_variants(kernel_file: str | Path, variant: str) -> None:
    """Delete the cached code of ``kernel_file``'s functions compiled for another digest of
    the same variant name (``<name>-<digest>``): an edited policy leaves no stale kernels."""
    kernel = Path(kernel_file)
    name, _, _ = variant.rpartition("-")
    for cache in _cache_dirs(kernel):
        if not cache.is_dir():
            continue
        try:
            for entry in cache.glob(f"{kernel.stem}.*_{name}-*.nb[ic]"):
                if f"_{variant}." not in entry.name:
                    entry.unlink(missing_ok=True)
        except OSError:  # not writable: Numba cannot cache there either
            pass
