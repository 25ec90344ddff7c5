"""Block traces: reading, caching, registry, synthetic workloads, characteristics.

Main entry points: :func:`load_trace` (registered name or path -> :class:`Requests`),
:func:`locate` / :func:`fetch` / :func:`list_known` (registry), :func:`expand_to_pages`.

The names below are imported on first use (PEP 562), so that importing one submodule
(e.g. ``skftl.traces.loader`` on the replay path) does not load every other one.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

#: public name -> submodule that defines it
_WHERE = {
    "export_trace": "export",
    "write_mqsim": "export",
    "load_trace": "loader",
    "PageOps": "pages",
    "expand_to_pages": "pages",
    "FORMATS": "readers",
    "detect_format": "readers",
    "read_trace": "readers",
    "KnownTrace": "registry",
    "fetch": "registry",
    "list_known": "registry",
    "locate": "registry",
    "Requests": "requests",
    "TraceMeta": "requests",
    # synthetic workloads (skftl/traces/synthetic.py, workload.py)
    "PRESETS": "synthetic",
    "generate": "synthetic",
    "workload": "workload",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


class _Package(types.ModuleType):
    """Importing the submodule ``workload`` must not shadow the function ``workload``
    (the import system sets each loaded submodule as an attribute of its package)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (name in _WHERE and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
