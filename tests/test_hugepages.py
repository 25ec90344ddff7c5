"""skftl.hugepages: huge-page-backed table arrays behave as the numpy arrays they replace."""

import mmap

import numpy as np
import pytest

from skftl.hugepages import HUGE_PAGE, MIN_BYTES, huge_full, huge_zeros


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_large_array_is_zeroed_writable_and_aligned(dtype):
    n = MIN_BYTES // np.dtype(dtype).itemsize + 3
    a = huge_zeros(n, dtype)
    assert a.shape == (n,) and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    assert not a.any()
    if hasattr(mmap, "MADV_HUGEPAGE"):
        assert a.ctypes.data % HUGE_PAGE == 0
    a[-1] = 7
    assert a[-1] == 7 and a.sum() == 7


def test_small_array_is_plain_numpy():
    a = huge_full(10, -1, np.int64)
    assert a.shape == (10,) and (a == -1).all() and a.base is None


def test_full_fills_large_array():
    a = huge_full(MIN_BYTES // 8, -1, np.int64)
    assert (a == -1).all()
