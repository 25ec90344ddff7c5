"""Hash functions: the cited definitions on hand-worked keys, range, pluggability."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.dram import Lpmt, LpmtConfig
from skftl.dram.hashes import HASHES, hash_keys, largest_prime_at_most, register_hash, xxh64_u64
from skftl.errors import ConfigError


def h(name: str, key: int, n_sets: int) -> int:
    return int(hash_keys(name, np.array([key]), n_sets)[0])


def test_division_is_key_mod_table_size():
    assert h("division", 1000, 16) == 1000 % 16
    assert h("division_prime", 1000, 16) == 1000 % 13
    assert largest_prime_at_most(131072) == 131071


def test_folding_adds_r_bit_parts_and_drops_the_carry():
    assert h("folding", 0x1234, 16) == (4 + 3 + 2 + 1) % 16
    assert h("folding", 0xFF, 16) == (15 + 15) % 16  # carry out of 4 bits ignored
    assert h("folding_boundary", 0x12, 16) == (2 + 0b1000) % 16  # second part reversed


def test_decimal_folding_adds_digit_groups_and_drops_the_carry():
    """[29]'s worked example: 123456789 in 3-digit groups, 123 + 456 + 789 = 1368 -> 368
    (a table of 1000 sets); groups count from the least significant digit."""
    assert h("folding_decimal", 123456789, 1000) == 368
    assert h("folding_decimal", 12345678, 1000) == (678 + 345 + 12) % 1000  # 35
    # 2**17 sets: 5-digit groups (10**5 <= 131072 < 10**6), never an index >= 100000
    assert (
        h("folding_decimal", 98765432109876, 1 << 17) == (9876 + 54321 + 9876) % 10**5
    )  # 98765432109876: 9876|54321|09876
    keys = np.arange(0, 2_000_000, 7, dtype=np.uint64)
    assert hash_keys("folding_decimal", keys, 1 << 17).max() < 100_000


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=20), st.integers(1, 2**20))
def test_folding_matches_its_definition(keys, n_sets):
    r = max(1, (n_sets - 1).bit_length())
    want = [sum((k >> s) & ((1 << r) - 1) for s in range(0, 64, r)) % 2**r % n_sets for k in keys]
    assert hash_keys("folding", np.array(keys, dtype=np.uint64), n_sets).tolist() == want


def test_shifting_xors_shifted_copies():
    assert h("shifting", 0x1234, 16) == 4 ^ 3 ^ 2 ^ 1


def test_radix_reads_decimal_digits_in_base_11():
    assert h("radix", 123, 1 << 10) == (1 * 121 + 2 * 11 + 3) % 1024
    assert h("radix", 123, 100) == 146 % 100
    big = 98765432109876
    want = sum(int(d) * 11**i for i, d in enumerate(reversed(str(big)))) % (1 << 17)
    assert h("radix", big, 1 << 17) == want


def test_xxhash_matches_reference_vectors():
    # XXH64(seed 0) of the 8-byte little-endian key, from the xxhash package
    vectors = {0: 3803688792395291579, 1: 11468921228449061269, 2**63 - 1: 18406436390665352972}
    got = xxh64_u64(np.array(list(vectors), dtype=np.uint64))
    assert got.tolist() == list(vectors.values())


def test_fibonacci_takes_top_bits_of_the_product():
    k = 12345
    assert h("fibonacci", k, 1 << 10) == ((k * 0x9E3779B97F4A7C15) % 2**64) >> 54


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(0, 2**62), min_size=1, max_size=50),
    st.integers(1, 5000),
    st.sampled_from(sorted(HASHES)),
)
def test_every_hash_stays_in_range(keys, n_sets, name):
    out = hash_keys(name, np.array(keys, dtype=np.uint64), n_sets)
    assert out.dtype == np.int64 and ((out >= 0) & (out < n_sets)).all()


def test_division_collapses_on_multiples_of_four_modern_hash_does_not():
    """Table IV's explanation: WebSearch2/3 addresses are multiples of four."""
    keys = np.arange(0, 4 * 50_000, 4, dtype=np.uint64)
    assert len(np.unique(hash_keys("division", keys, 1024))) == 256
    assert len(np.unique(hash_keys("xxhash", keys, 1024))) == 1024


def test_a_user_hash_plugs_in(monkeypatch):
    monkeypatch.setitem(HASHES, "seven", HASHES["division"])  # restore afterwards
    register_hash("seven")(lambda keys, n: (keys % np.uint64(7)) % np.uint64(n))
    t = Lpmt(LpmtConfig(n_sets=8, n_blocks=1, pages_per_block=8, hash="seven"))
    t.insert(15)
    assert t.location(15) == (1, 0)


def test_bad_hash_output_and_unknown_name_are_errors(monkeypatch):
    monkeypatch.setitem(HASHES, "broken", lambda keys, n: keys * 0 + n)
    with pytest.raises(ConfigError, match="outside"):
        hash_keys("broken", np.array([1]), 4)
    with pytest.raises(ConfigError, match="unknown hash"):
        hash_keys("nope", np.array([1]), 4)
