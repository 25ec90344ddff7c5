"""Hash functions that map a logical address (the LPMT key) to a primary set index.

Every hash is a vectorised function ``f(keys: uint64 array, n_sets: int) -> int64 array``
with values in ``[0, n_sets)``. Hashing happens outside the LPMT kernel (the kernel
receives each operation's home set), so a hash is any Python/numpy function: register
a new one with :func:`register_hash` and name it in the config.

The four classical functions follow the definitions of the references the LPMT paper
cites ([28]-[30]); the definition is written out in each docstring. ``r`` below is the
address width ``ceil(log2(n_sets))``. Keys are non-negative integers below 2**63.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from skftl.errors import ConfigError

HashFn = Callable[[np.ndarray, int], np.ndarray]
HASHES: dict[str, HashFn] = {}

_M64 = (1 << 64) - 1


def register_hash(name: str) -> Callable[[HashFn], HashFn]:
    """Decorator: make ``fn(keys, n_sets)`` available under ``name`` (config ``hash:``)."""

    def deco(fn: HashFn) -> HashFn:
        HASHES[name] = fn
        return fn

    return deco


def hash_keys(name: str, keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Home set (int64) of every key under the hash ``name``; checks the range."""
    if name not in HASHES:
        raise ConfigError(f"unknown hash {name!r}; known: {', '.join(sorted(HASHES))}")
    if n_sets < 1:
        raise ConfigError(f"n_sets must be >= 1, got {n_sets}")
    keys = np.asarray(keys)
    if keys.dtype == np.int64:  # the usual case: reinterpret (same bits), do not copy
        keys = np.ascontiguousarray(keys).view(np.uint64)
    else:
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
    out = np.asarray(HASHES[name](keys, int(n_sets)), dtype=np.int64)
    if out.shape != keys.shape or (out.size and (out.min() < 0 or out.max() >= n_sets)):
        raise ConfigError(f"hash {name!r} returned values outside [0, {n_sets})")
    return out


def address_bits(n_sets: int) -> int:
    """Width r of a set index: the smallest r with 2**r >= n_sets (at least 1)."""
    return max(1, int(n_sets - 1).bit_length())


def _slices(keys: np.ndarray, r: int) -> list[np.ndarray]:
    """The key cut into r-bit parts, least significant first (64 bits in all)."""
    mask = np.uint64((1 << r) - 1)
    return [(keys >> np.uint64(s)) & mask for s in range(0, 64, r)]


@register_hash("division")
def division(keys: np.ndarray, n_sets: int, modulus: int | None = None) -> np.ndarray:
    """Division method (Singh & Garg [29]): ``h(k) = k mod M``.

    [29] recommends a prime M not close to a power of two; a hardware table of
    2**17 sets uses ``M = n_sets`` (a bit mask), which is what the LPMT paper's
    Table IV shows (division collapses on addresses that are all multiples of
    four). ``M = n_sets`` is the default; ``division_prime`` uses the largest
    prime <= n_sets.
    """
    m = n_sets if modulus is None else modulus
    return (keys % np.uint64(m)).astype(np.int64)


@register_hash("division_prime")
def division_prime(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Division method with M the largest prime <= n_sets ([29]'s advice)."""
    return division(keys, n_sets, modulus=largest_prime_at_most(n_sets) if n_sets > 1 else 1)


@register_hash("folding")
def folding(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Folding method, shift folding (Singh & Garg [29]): the key is partitioned into
    parts k1, k2, ..., kn of the address width r (the last part possibly shorter);
    the parts are added and the final carry ignored: ``h(k) = (k1 + ... + kn) mod 2**r``,
    then ``mod n_sets`` when n_sets is not a power of two."""
    out = np.empty(keys.shape, dtype=np.int64)
    _fold(keys.view(np.int64), address_bits(n_sets), n_sets, out)
    return out


@numba.njit(cache=True)
def _fold(keys, r, n_sets, out):
    """:func:`folding` in one pass (numpy's version makes a temporary per part and is
    the largest cost of the LPMT benchmark after the kernel)."""
    mask = (1 << r) - 1
    # a power-of-two table needs no ``% n_sets`` (the mask is exact): a 64-bit divide per
    # key is a sizable part of an operation's time
    pow2 = n_sets == mask + 1
    for i in range(keys.shape[0]):
        k, acc, shift = keys[i], 0, 0
        while shift < 64:
            # the last part is shorter; masking it to its width also drops the sign
            # bits an arithmetic shift brings in for keys >= 2**63 (int64 view)
            width = min(r, 64 - shift)
            acc += (k >> shift) & ((1 << width) - 1)
            shift += r
        out[i] = acc & mask if pow2 else (acc & mask) % n_sets


@register_hash("folding_decimal")
def folding_decimal(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Folding on decimal digits, as [29]'s examples fold (key 123456789, 3-digit
    groups: 123 + 456 + 789 = 1368, carry dropped -> 368): the key is cut into groups
    of d decimal digits from the least significant end, the groups are added and the
    sum kept modulo 10**d. d is the widest group whose every value is a set index
    (10**d <= n_sets), so with 2**17 sets d = 5 and only 100,000 of the 131,072 sets
    can ever be a home (<= 76.3 % occupancy)."""
    d = max(1, len(str(n_sets)) - 1)
    unit = np.uint64(10**d)
    rest = keys.copy()
    acc = np.zeros(keys.shape, dtype=np.uint64)  # <= 20 groups of < 10**d: no overflow
    while rest.any():
        acc += rest % unit
        rest //= unit
    return (acc % unit % np.uint64(n_sets)).astype(np.int64)


@register_hash("folding_boundary")
def folding_boundary(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Boundary folding ([29]'s variant): as :func:`folding`, but every second part is
    bit-reversed (folded over at the part boundary) before the addition."""
    r = address_bits(n_sets)
    acc = np.zeros(keys.shape, dtype=np.uint64)
    for i, part in enumerate(_slices(keys, r)):
        acc += _reverse_bits(part, r) if i % 2 else part
    acc &= np.uint64((1 << r) - 1)
    return (acc % np.uint64(n_sets)).astype(np.int64)


@register_hash("shifting")
def shifting(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Shifting method (Gou et al., Single Hash [28]): one wide value is turned into a
    table index with bit shifts and XOR only, so the high bits, which ``mod`` would
    throw away, still take part: ``h(k) = (k XOR (k >> r) XOR (k >> 2r) XOR ...) mod 2**r``
    (then ``mod n_sets`` when n_sets is not a power of two). Here the wide value is the
    key itself; [28] applies the same shifts to the output of one base hash."""
    r = address_bits(n_sets)
    acc = np.zeros(keys.shape, dtype=np.uint64)
    for part in _slices(keys, r):
        acc ^= part
    return (acc % np.uint64(n_sets)).astype(np.int64)


@register_hash("radix")
def radix(keys: np.ndarray, n_sets: int, p: int = 10, q: int = 11) -> np.ndarray:
    """Radix transformation (Lin [30]): write the key in radix p, ``k = sum d_i p**i``,
    read the same digits in a radix q > p relatively prime to p, ``k' = sum d_i q**i``,
    and reduce to the address range: ``h(k) = k' mod n_sets``. Lin's example is p = 10,
    q = 11 (the default). Arithmetic is modulo 2**64, which leaves ``k' mod n_sets``
    exact when n_sets is a power of two."""
    digits = keys.copy()
    acc = np.zeros(keys.shape, dtype=np.uint64)
    weight = np.ones(keys.shape, dtype=np.uint64)
    up, uq = np.uint64(p), np.uint64(q)
    while digits.any():
        acc += (digits % up) * weight
        digits //= up
        weight *= uq
    if n_sets & (n_sets - 1):
        # exact k' mod n for non powers of two: redo in Python integers (slow, rare)
        return np.array([_radix_exact(int(k), p, q) % n_sets for k in keys], dtype=np.int64)
    return (acc % np.uint64(n_sets)).astype(np.int64)


def _radix_exact(k: int, p: int, q: int) -> int:
    out, w = 0, 1
    while k:
        out += (k % p) * w
        k //= p
        w *= q
    return out


@register_hash("fibonacci")
def fibonacci(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Modern multiplicative hash (Knuth's Fibonacci hashing): ``h(k) = (k * A mod 2**64)
    >> (64 - r)`` with A = 2**64 / golden ratio, i.e. the top r bits of the product
    (then ``mod n_sets`` when n_sets is not a power of two)."""
    r = address_bits(n_sets)
    prod = keys * np.uint64(0x9E3779B97F4A7C15)
    return ((prod >> np.uint64(64 - r)) % np.uint64(n_sets)).astype(np.int64)


_P1 = np.uint64(11400714785074694791)
_P2 = np.uint64(14029467366897019727)
_P3 = np.uint64(1609587929392839161)
_P4 = np.uint64(9650029242287828579)
_P5 = np.uint64(2870177450012600261)


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def xxh64_u64(keys: np.ndarray, seed: int = 0) -> np.ndarray:
    """XXH64 of each key taken as one 8-byte little-endian input (the xxHash spec's
    path for an 8-byte tail plus the final avalanche)."""
    k = np.ascontiguousarray(keys, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = np.full(k.shape, (seed + int(_P5) + 8) & _M64, dtype=np.uint64)
        k1 = _rotl(k * _P2, 31) * _P1
        h ^= k1
        h = _rotl(h, 27) * _P1 + _P4
        h ^= h >> np.uint64(33)
        h *= _P2
        h ^= h >> np.uint64(29)
        h *= _P3
        h ^= h >> np.uint64(32)
    return h


@register_hash("xxhash")
def xxhash(keys: np.ndarray, n_sets: int) -> np.ndarray:
    """Modern hash: ``h(k) = XXH64(k) mod n_sets`` (full avalanche: every key bit
    affects every index bit)."""
    return (xxh64_u64(keys) % np.uint64(n_sets)).astype(np.int64)


def _reverse_bits(x: np.ndarray, r: int) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(r):
        out |= ((x >> np.uint64(i)) & np.uint64(1)) << np.uint64(r - 1 - i)
    return out


def largest_prime_at_most(n: int) -> int:
    """Largest prime <= n (n >= 2)."""
    if n < 2:
        raise ConfigError(f"no prime <= {n}")
    for m in range(n, 1, -1):
        if all(m % d for d in range(2, int(m**0.5) + 1)):
            return m
    raise AssertionError("unreachable")


CLASSICAL = ("shifting", "folding", "radix", "division")
MODERN = ("xxhash", "fibonacci")
