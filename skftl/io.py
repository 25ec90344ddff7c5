"""Atomic output: results are written to a temporary sibling and renamed into place,
so an interrupted or failed run never leaves a partial file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from skftl.errors import ConfigError

if TYPE_CHECKING:  # imported where used: loading a cached trace needs neither (start-up)
    import pandas as pd
    import xarray as xr

_TMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _owner_alive(tmp: Path) -> bool:
    """Whether the process that created temporary ``tmp`` (pid in its name) still runs."""
    try:
        pid = int(tmp.name.rsplit(".", 3)[-3])
    except (ValueError, IndexError):
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def writable_or_raise(folder: str | Path) -> Path:
    """Create ``folder`` if needed and check that a file can be written into it, raising a
    ConfigError naming it otherwise: checked before a long run, not after it."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ConfigError(f"output folder {folder} is not writable: {exc.strerror or exc}") from exc
    return folder


def clean_stale_temporaries(folder: str | Path) -> list[Path]:
    """Delete the temporaries ``atomic_path`` left in ``folder`` when its process was
    killed (SIGKILL runs no cleanup): those whose creating process no longer runs.
    Returns what was deleted."""
    removed = []
    folder = Path(folder)
    if not folder.is_dir():
        return removed
    for tmp in folder.glob(f".*{_TMP_SUFFIX}"):
        if tmp.is_file() and not _owner_alive(tmp):
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success,
    delete it on any exception. The temporary's name holds the writer's pid (so
    ``clean_stale_temporaries`` can tell a killed writer's leftovers) and the result gets
    the mode an ordinary file would (0666 less the umask, not mkstemp's 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=path.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():
            os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        if exc.filename is None:  # a failed write names no file: name the one being written
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def write_netcdf(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` as netCDF4 (h5netcdf engine) atomically. The file is built in memory and
    written with plain file I/O: HDF5 left holding a file whose write failed (a full disk)
    crashes the interpreter when it closes it at exit, a plain write fails with an OSError."""
    data = ds.to_netcdf(engine="h5netcdf")
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(text: str, path: str | Path) -> Path:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
    return Path(path)


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` as CSV (no index) atomically."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)
    return Path(path)
