"""The studies skftl knows: id -> module and notebook. One place, used by the CLI and the
workflow."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from skftl.errors import ConfigError

# study id -> notebook file name (in notebooks/)
STUDIES: dict[str, str] = {
    "traces": "00_traces.ipynb",
    "skrm": "01_skrm.ipynb",
    "lpmt": "02_lpmt.ipynb",
    "mtpm": "03_mtpm.ipynb",
    "ppb": "04_ppb.ipynb",
    "bnvm": "05_bnvm.ipynb",
    "ftl": "10_ftl_validation.ipynb",
}


def dataset_file(results: str | Path, study: str) -> Path:
    """Where the workflow writes a study's dataset under the results folder ``results``."""
    name = "characteristics.nc" if study == "traces" else f"{study}.nc"
    return Path(results) / study / name


def study_module(study: str) -> ModuleType:
    """Import ``skftl.studies.<study>``; a clear error for unknown or not-yet-built studies."""
    if study not in STUDIES:
        raise ConfigError(f"unknown study {study!r}; known: {', '.join(STUDIES)}")
    try:
        return importlib.import_module(f"skftl.studies.{study}")
    except ModuleNotFoundError as exc:
        if exc.name == f"skftl.studies.{study}":
            raise ConfigError(f"study {study!r} is not implemented in this version") from exc
        raise
