"""Atomic output: results are written to a temporary sibling and renamed into place,
so an interrupted or failed run never leaves a partial file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import xarray as xr


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success,
    delete it on any exception."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def write_netcdf(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` as netCDF4 (h5netcdf engine) atomically."""
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    return Path(path)


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` as CSV (no index) atomically."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)
    return Path(path)
