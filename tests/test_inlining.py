"""skftl.inlining: a helper is compiled once, inlined by LLVM into its compiled callers, and
refuses a call from Python with a clear error instead of crashing the interpreter."""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from skftl.inlining import Helper, inlined


@inlined(_nrt=False)
def _scaled_sum(a, k):
    total = 0
    for x in a:
        total += x * k
    return total


@numba.njit(cache=True, _nrt=False)
def _caller(a):
    return _scaled_sum(a, 3) + _scaled_sum(a, 5)


def test_a_helper_computes_in_compiled_code_and_is_inlined(monkeypatch):
    a = np.arange(10, dtype=np.int64)
    assert _caller(a) == 8 * 45
    assert isinstance(_scaled_sum, Helper)
    # a cached helper loaded from disk has no LLVM IR to show: inspect a fresh one
    monkeypatch.setattr(Helper, "enable_caching", lambda self: None)
    fresh = inlined(_nrt=False)(_scaled_sum.py_func)
    fresh.compile((numba.types.int64[::1], numba.types.int64))
    # the compiled helper carries LLVM's alwaysinline attribute (a plain njit function does
    # not: LLVM inlines a small one by its own heuristics, a large one not)
    (ir,) = fresh.inspect_llvm().values()
    (define,) = [line for line in ir.splitlines() if line.startswith("define")]
    group = re.search(r"#(\d+) \{$", define).group(1)
    assert re.search(rf"^attributes #{group} = {{[^}}]*\balwaysinline\b", ir, re.M)
    # and a compiled caller calls no function of that name (with the helper compiled as
    # a plain function that LLVM may not inline, its IR shows the two calls)
    caller = numba.njit(_nrt=False)(lambda a: fresh(a, 3) + fresh(a, 5))
    assert caller(a) == 8 * 45
    (caller_ir,) = caller.inspect_llvm().values()
    assert not re.findall(r"call [^\n]*@\S*_scaled_sum", caller_ir)
    not_inlined = numba.njit(_nrt=False, _dbg_optnone=True)(_scaled_sum.py_func)
    plain_caller = numba.njit(_nrt=False)(lambda a: not_inlined(a, 3) + not_inlined(a, 5))
    assert plain_caller(a) == 8 * 45
    (plain_ir,) = plain_caller.inspect_llvm().values()
    assert len(re.findall(r"call [^\n]*@\S*_scaled_sum", plain_ir)) == 2


def test_a_helper_called_from_python_raises_a_clear_error():
    a = np.arange(4, dtype=np.int64)
    _caller(a)  # compiled for this signature: Numba would now call its missing wrapper
    with pytest.raises(TypeError, match=r"_scaled_sum is a kernel helper.*py_func"):
        _scaled_sum(a, 2)
    assert _scaled_sum.py_func(a, 2) == 12
