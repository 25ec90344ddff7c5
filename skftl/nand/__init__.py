"""NAND flash model and page-mapped FTL kernel.

* ``geometry`` / ``presets`` / ``timing``: the device (SK-FTL, PPB and MTPM presets).
* ``core``: state layout and primitives; ``policy``: the allocation-policy hooks (read its
  docstring before adding a policy); ``kernel``: the Numba replay loop and GC.
* ``ftl``: ``Ftl`` (set-up, preconditioning, replay), ``FtlConfig``, ``result_dataset``.
* ``analytic``: Desnoyers' analytic write-amplification model.
"""

from skftl.nand.ftl import Ftl, FtlConfig, RunResult, result_dataset
from skftl.nand.geometry import Geometry
from skftl.nand.presets import PRESETS, resolve_nand
from skftl.nand.timing import Timing

__all__ = [
    "Ftl",
    "FtlConfig",
    "Geometry",
    "PRESETS",
    "RunResult",
    "Timing",
    "resolve_nand",
    "result_dataset",
]
