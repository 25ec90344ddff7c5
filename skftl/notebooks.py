"""What the workflow asks of a notebook file."""

from __future__ import annotations

import json
from pathlib import Path


def notebook_digest(path: str | Path) -> str:
    """sha256 of a notebook's cells without outputs, execution counts and metadata (only the
    kernelspec and cell tags, e.g. papermill's ``parameters``, count): the workflow reruns a
    notebook when this changes, so JupyterLab's autosave of outputs or metadata plans no rerun
    while an edited cell does."""
    import hashlib

    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    kept = {
        "kernelspec": nb.metadata.get("kernelspec"),
        "cells": [
            (c.cell_type, c.source, c.get("metadata", {}).get("tags") or []) for c in nb.cells
        ],
    }
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()
