"""MQSim ASCII lines formatted by a Numba kernel: a 10 M-request synthetic trace is written in a
fraction of the time a general CSV writer takes (one pass, no intermediate columns), block by
block into one reused buffer so memory does not grow with the trace."""

from __future__ import annotations

import numba
import numpy as np

from skftl.inlining import inlined

SECTOR = 512  # skftl.traces.requests.SECTOR (a kernel inlines only its own module's names)
#: longest line: four int64 fields of up to 20 characters with their sign, a type digit, and
#: the four separators and the newline
MAX_LINE = 4 * 20 + 1 + 5
_MIN_DIGITS = tuple(ord(c) for c in "9223372036854775808")  # of -2**63, the one int64 whose
# magnitude is no int64


_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), dtype=np.uint8)
_POWERS = np.array([10**k for k in range(19)], dtype=np.int64)  # 1 .. 10**18


@inlined()
def _put(buf: np.ndarray, at: int, value: int) -> int:
    """Write ``value`` in decimal at ``buf[at:]``; return the position after it. Two digits
    at a time (a division by 100 per pair)."""
    if value < 0:
        buf[at] = 45  # "-"
        at += 1
        if value == -9223372036854775808:  # its magnitude does not fit an int64
            for c in range(len(_MIN_DIGITS)):
                buf[at + c] = _MIN_DIGITS[c]
            return at + len(_MIN_DIGITS)
        value = -value
    digits = 1
    while digits < 19 and value >= _POWERS[digits]:
        digits += 1
    end = at + digits
    p = end
    while value >= 100:
        rest = value // 100
        pair = 2 * (value - rest * 100)
        p -= 2
        buf[p] = _PAIRS[pair]
        buf[p + 1] = _PAIRS[pair + 1]
        value = rest
    if value >= 10:
        buf[p - 2] = _PAIRS[2 * value]
        buf[p - 1] = _PAIRS[2 * value + 1]
    else:
        buf[p - 1] = 48 + value
    return end


@numba.njit(cache=True)
def format_lines(
    time_ns: np.ndarray,
    offset_bytes: np.ndarray,
    size_bytes: np.ndarray,
    is_write: np.ndarray,
    device: int,
    monotonic: bool,
    start: int,
    stop: int,
    latest: int,
    buf: np.ndarray,
) -> tuple[int, int, int]:
    """Lines ``arrival_ns device start_LBA size type`` of requests ``start..stop-1`` into
    ``buf`` (at least MAX_LINE bytes per request): the request widened to the sectors it
    touches, type 1 = read, 0 = write; with ``monotonic``, arrivals no earlier than
    ``latest`` (the latest arrival before ``start``) or any arrival before them.
    Returns (bytes written, requests widened, the latest arrival so far)."""
    at = 0
    widened = 0
    for r in range(start, stop):
        t = time_ns[r]
        if monotonic:
            if r == 0 or t > latest:
                latest = t
            t = latest
        first = offset_bytes[r] // SECTOR
        end = -(-(offset_bytes[r] + size_bytes[r]) // SECTOR)
        sectors = end - first
        if sectors * SECTOR != size_bytes[r]:
            widened += 1
        at = _put(buf, at, t)
        buf[at] = 32
        at = _put(buf, at + 1, device)
        buf[at] = 32
        at = _put(buf, at + 1, first)
        buf[at] = 32
        at = _put(buf, at + 1, sectors)
        buf[at] = 32
        buf[at + 1] = 48 if is_write[r] else 49
        buf[at + 2] = 10
        at += 3
    return at, widened, latest
