"""Block traces: reading, caching, registry, synthetic workloads, characteristics.

Main entry points: :func:`load_trace` (registered name or path -> :class:`Requests`),
:func:`locate` / :func:`fetch` / :func:`list_known` (registry), :func:`expand_to_pages`.
"""

from skftl.traces.export import export_trace, write_mqsim
from skftl.traces.loader import load_trace
from skftl.traces.pages import PageOps, expand_to_pages
from skftl.traces.readers import FORMATS, detect_format, read_trace
from skftl.traces.registry import KnownTrace, fetch, list_known, locate
from skftl.traces.requests import Requests, TraceMeta

__all__ = [
    "FORMATS",
    "KnownTrace",
    "PageOps",
    "Requests",
    "TraceMeta",
    "detect_format",
    "expand_to_pages",
    "export_trace",
    "fetch",
    "list_known",
    "load_trace",
    "locate",
    "read_trace",
    "write_mqsim",
]

# --- synthetic workloads (skftl/traces/synthetic.py, workload.py) ------------------------
from skftl.traces.synthetic import PRESETS, generate  # noqa: E402
from skftl.traces.workload import workload  # noqa: E402

__all__ += ["PRESETS", "generate", "workload"]
