"""First-stage identifiers (size check, multiple bloom filters) and the placement
reconstruction from the mapping log, each against a plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skftl.errors import ConfigError
from skftl.nand import Ftl, FtlConfig, Geometry, Timing
from skftl.nand.hotness import _MULTIPLIERS, identify, multi_bloom, size_check
from skftl.nand.placement import host_page_positions
from skftl.traces.requests import Requests, TraceMeta
from tests.nand.reference import RefFtl
from tests.nand.test_kernel import make_ops, reference_for


def requests(offsets, sizes, writes) -> Requests:
    n = len(offsets)
    return Requests(
        time_ns=np.arange(n, dtype=np.int64),
        offset_bytes=np.asarray(offsets, np.int64),
        size_bytes=np.asarray(sizes, np.int64),
        is_write=np.asarray(writes, bool),
        meta=TraceMeta(name="t", format="test"),
    )


def ref_bloom(keys, writes, n_filters, bits, n_hashes, decay, hot_filters):
    """Park & Du's filters as Python sets of bit positions."""
    shift = 64 - (bits.bit_length() - 1)
    filters = [set() for _ in range(n_filters)]
    cur, count, out = 0, 0, []
    for key, w in zip(keys, writes, strict=True):
        if not w:
            out.append(0)
            continue
        pos = [((key * int(_MULTIPLIERS[h])) % 2**64) >> shift for h in range(n_hashes)]
        order = [(cur + m) % n_filters for m in range(n_filters)]
        held = [f for f in order if all(p in filters[f] for p in pos)]
        out.append(int(len(held) >= hot_filters))
        free = [f for f in order if f not in held]
        if free:
            filters[free[0]].update(pos)
        count += 1
        if count % decay == 0:
            cur = (cur - 1) % n_filters
            filters[cur] = set()
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=1, max_size=300),
    st.integers(1, 4),
    st.sampled_from([2, 16, 256]),
    st.integers(1, 3),
    st.integers(1, 20),
    st.data(),
)
def test_bloom_matches_reference(ops, n_filters, bits, n_hashes, decay, data):
    hot_filters = data.draw(st.integers(1, n_filters))
    keys = [k for k, _ in ops]
    writes = [w for _, w in ops]
    req = requests([k * 4096 for k in keys], [4096] * len(keys), writes)
    got = multi_bloom(
        req,
        4096,
        n_filters=n_filters,
        bits=bits,
        n_hashes=n_hashes,
        decay_writes=decay,
        hot_filters=hot_filters,
    )
    assert got.tolist() == ref_bloom(keys, writes, n_filters, bits, n_hashes, decay, hot_filters)


def test_bloom_finds_repeated_writes_hot_and_forgets_them():
    keys = [1, 1, 1] + list(range(100, 200)) + [1]
    req = requests([k * 4096 for k in keys], [4096] * len(keys), [True] * len(keys))
    got = multi_bloom(req, 4096, n_filters=2, bits=1 << 12, decay_writes=16, hot_filters=2)
    assert got[:3].tolist() == [0, 0, 1]  # hot once two filters hold it
    assert got[-1] == 0  # decayed after many other writes


def test_size_check_and_identify():
    req = requests([0, 0, 0, 0], [4096, 16384, 16385, 4096], [True, True, True, False])
    assert size_check(req, 16384).tolist() == [1, 1, 0, 0]
    assert identify(req, 4096, "size", {"size_threshold_kb": 16}).tolist() == [1, 1, 0, 0]
    with pytest.raises(ConfigError, match="identifier"):
        identify(req, 4096, "nope", {})
    with pytest.raises(ConfigError, match="power of two"):
        multi_bloom(req, 4096, bits=1000)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 1500), st.floats(0.05, 1.0), st.integers(0, 2**32 - 1))
def test_page_positions_match_reference_ftl(n_ops, lpn_frac, seed):
    """Positions rebuilt from the mapping log equal what the reference FTL shows op by op."""
    geo = Geometry(2, 1, 1, 10, 16, 4096)
    ftl = Ftl(geo, Timing(1, 1, 1, 100.0), FtlConfig(spare_factor=0.4), log_capacity=4096)
    ftl.fill()
    lpn, op, _, _, _ = make_ops(ftl, n_ops, lpn_frac, seed)
    ref: RefFtl = reference_for(ftl)
    ref.run(((x, 1, 0, 0, 0) for x in range(ftl.n_lpn)), 1)
    assert ref.l2p == {i: int(p) for i, p in enumerate(ftl.state.l2p)}
    l2p0 = ftl.state.l2p.copy()
    logs = []
    ftl.run_pages(lpn, op, on_log=lambda *a: logs.append([x.copy() for x in a]), log_ops=True)
    lg = [np.concatenate(x) for x in zip(*logs, strict=True)] or [np.zeros(0, np.int32)] * 5
    no_cache = np.zeros(0, np.bool_)
    pos = host_page_positions(
        l2p0, no_cache, lpn, op, lg[0], lg[2], lg[3].astype(np.int8), lg[4].astype(np.int64), 16
    )
    expect = []
    for x, o in zip(lpn.tolist(), op.tolist(), strict=True):
        before = ref.l2p.get(x, -1)
        ref.run([(x, o, 0, 0, 0)], 1)
        if o == 0:
            expect.append(before % 16 if before >= 0 else -1)
        elif o == 1:
            expect.append(ref.l2p[x] % 16)
        else:
            expect.append(-1)
    assert pos.tolist() == expect
