"""First-stage hot/cold identifiers for write requests (PPB Sec. 3.2 builds its four levels
on any of them). Each returns an int8 per request: 1 hot, 0 cold (reads get 0; the FTL
ignores their stream).

* ``size_check``: small writes are hot (Chang, ASP-DAC'08, the case study of PPB): a write of
  at most ``threshold_bytes`` is hot. Metadata and small updates are small; bulk data is not.
* ``multi_bloom``: Park & Du, "Hot data identification for flash-based storage systems using
  multiple bloom filters" (MSST'11). ``n_filters`` bloom filters of ``bits`` bits and
  ``n_hashes`` hash functions each; a write's key (its first logical page) is recorded in the
  first filter, starting at the current one, that does not hold it yet; every ``decay_writes``
  writes the oldest filter is cleared and becomes the current one (aging). A write is hot when
  at least ``hot_filters`` filters held its key *before* it was recorded (so a first write is
  never hot). Park & Du weight the filters by recency; the plain count is their
  unweighted variant, kept simple on purpose.
"""

from __future__ import annotations

import numba
import numpy as np

from skftl.errors import ConfigError
from skftl.traces.requests import Requests

IDENTIFIERS = ("size", "bloom")
# odd 64-bit multipliers (golden ratio and splitmix constants) for multiplicative hashing
_MULTIPLIERS = np.array(
    [0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)


def size_check(requests: Requests, threshold_bytes: int) -> np.ndarray:
    """1 for writes of at most ``threshold_bytes``, else 0."""
    return (requests.is_write & (requests.size_bytes <= threshold_bytes)).astype(np.int8)


@numba.njit(cache=True)
def _bloom_kernel(keys, is_write, n_filters, log2_bits, n_hashes, decay_writes, hot_filters, mult):
    bits = np.int64(1) << log2_bits
    filt = np.zeros((n_filters, bits), np.bool_)
    out = np.zeros(len(keys), np.int8)
    shift = np.uint64(64 - log2_bits)
    cur = 0
    writes = 0
    for i in range(len(keys)):
        if not is_write[i]:
            continue
        x = np.uint64(keys[i])
        held = 0
        first_free = -1
        for m in range(n_filters):
            f = (cur + m) % n_filters
            inside = True
            for h in range(n_hashes):
                if not filt[f, np.int64((x * mult[h]) >> shift)]:
                    inside = False
                    break
            if inside:
                held += 1
            elif first_free < 0:
                first_free = f
        if held >= hot_filters:
            out[i] = 1
        if first_free >= 0:
            for h in range(n_hashes):
                filt[first_free, np.int64((x * mult[h]) >> shift)] = True
        writes += 1
        if writes % decay_writes == 0:
            # the oldest filter is the one after the current one; clear it and make it current
            cur = (cur + n_filters - 1) % n_filters
            filt[cur, :] = False
    return out


def multi_bloom(
    requests: Requests,
    page_size: int,
    *,
    n_filters: int = 4,
    bits: int = 1 << 16,
    n_hashes: int = 2,
    decay_writes: int = 4096,
    hot_filters: int = 2,
) -> np.ndarray:
    """Park & Du's multiple-bloom-filter identifier over the requests' first logical pages."""
    log2 = int(bits).bit_length() - 1
    if bits <= 1 or (1 << log2) != bits:
        raise ConfigError(f"ppb bloom: bits must be a power of two > 1, got {bits}")
    if not 1 <= n_hashes <= len(_MULTIPLIERS):
        raise ConfigError(f"ppb bloom: n_hashes must be in 1..{len(_MULTIPLIERS)}, got {n_hashes}")
    if n_filters < 1 or not 1 <= hot_filters <= n_filters or decay_writes < 1:
        raise ConfigError(
            "ppb bloom: need n_filters >= 1, 1 <= hot_filters <= n_filters, decay_writes >= 1"
        )
    keys = (requests.offset_bytes // page_size).astype(np.int64)
    return _bloom_kernel(
        keys,
        requests.is_write,
        n_filters,
        log2,
        n_hashes,
        decay_writes,
        hot_filters,
        _MULTIPLIERS,
    )


def identify(requests: Requests, page_size: int, kind: str, params: dict) -> np.ndarray:
    """The first-stage class of each request by identifier ``kind`` (``IDENTIFIERS``)."""
    if kind == "size":
        return size_check(requests, int(float(params["size_threshold_kb"]) * 1024))
    if kind == "bloom":
        return multi_bloom(requests, page_size, **(params.get("bloom") or {}))
    raise ConfigError(f"ppb: identifier must be one of {IDENTIFIERS}, got {kind!r}")
