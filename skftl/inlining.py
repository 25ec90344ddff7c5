"""Kernel helpers that LLVM inlines into their callers: :func:`inlined`.

A helper of a kernel (a step of the replay loop, a timing rule, a policy hook) runs only
inside compiled code. It is compiled once per signature and marked ``alwaysinline`` for LLVM
(Numba's ``forceinline``), which inlines it into every caller when the caller's module is
optimised, so calling it costs nothing at run time. Numba's own ``inline="always"`` instead
copies the helper's IR into each call site and types every copy again, which for the replay
kernel's hundreds of call sites made compiling it several times slower.

A helper has neither a CPython nor a C wrapper: building the CPython wrapper of a function
that takes a state tuple unboxes every array of it, and costs as much to compile as the
function. Without that wrapper Numba would crash the interpreter on a call from Python, so
such a call raises a :class:`TypeError` instead; ``helper.py_func(...)`` runs the helper as
plain Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import config
from numba.core.registry import CPUDispatcher

#: the Numba options every helper gets, beside those a module adds (e.g. ``_nrt=False``)
HELPER_OPTIONS: dict[str, bool] = {
    "nopython": True,
    "forceinline": True,
    "no_cpython_wrapper": True,
    "no_cfunc_wrapper": True,
}


class Helper(CPUDispatcher):
    """A Numba dispatcher of a function that compiled code calls and Python does not."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self.py_func.__qualname__
        raise TypeError(
            f"{self.py_func.__module__}.{name} is a kernel helper, inlined into compiled "
            f"callers only (skftl.inlining); call {name}.py_func(...) to run it as Python"
        )


def inlined(**options: Any) -> Callable[[Callable[..., Any]], Helper]:
    """A decorator making a cached :class:`Helper` of a function, with Numba ``options``
    beside :data:`HELPER_OPTIONS`."""
    targetoptions = {**HELPER_OPTIONS, **options}

    def decorate(fn: Callable[..., Any]) -> Helper:
        if config.DISABLE_JIT:
            return fn  # type: ignore[return-value]
        helper = Helper(py_func=fn, locals={}, targetoptions=targetoptions)
        helper.enable_caching()
        return helper

    return decorate
