"""What the workflow asks of a notebook file."""

from __future__ import annotations

import ast
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


def parameter_names(path: str | Path) -> set[str]:
    """Names the notebook's ``parameters`` cell (papermill's tag) assigns."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if "parameters" in (cell.get("metadata", {}).get("tags") or []):
            tree = ast.parse(cell.source)
            return {
                t.id
                for node in tree.body
                if isinstance(node, ast.Assign | ast.AnnAssign)
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name)
            }
    return set()


def papermill_flags(path: str | Path) -> str:
    """The workflow's extra papermill arguments for a notebook: its explore panel switched
    off where it has one (an ``explore`` parameter), so that a run of the workflow draws a
    one-line note instead and simulates nothing for it."""
    return "-p explore False" if "explore" in parameter_names(path) else ""
