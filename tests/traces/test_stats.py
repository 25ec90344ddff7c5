"""skftl.traces.stats against short pure-Python references and hand-made traces."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skftl.traces.pages import expand_to_pages
from skftl.traces.requests import Requests, TraceMeta
from skftl.traces.stats import (
    METRICS,
    address_time_histogram,
    characterise,
    characterise_many,
    footprint_pages,
    sequential_mask,
    size_cdf,
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "traces"


def make(rows: list[tuple[int, int, int, bool]], name: str = "t") -> Requests:
    """rows of (time_ns, offset_bytes, size_bytes, is_write)."""
    t, o, s, w = (list(c) for c in zip(*rows, strict=True)) if rows else ([], [], [], [])
    return Requests(
        np.array(t), np.array(o), np.array(s), np.array(w, dtype=bool), TraceMeta(name, "test")
    )


def ref_sequential(rows: list[tuple[int, int, int, bool]]) -> list[bool]:
    last_end: dict[bool, int] = {}
    out = []
    for _, off, size, w in rows:
        out.append(last_end.get(w) == off)
        last_end[w] = off + size
    return out


def ref_footprint(rows: list[tuple[int, int, int, bool]], page: int) -> int:
    pages = set()
    for _, off, size, _ in rows:
        pages.update(range(off // page, (off + max(size, 1) - 1) // page + 1))
    return len(pages)


rows_strategy = st.lists(
    st.tuples(
        st.integers(0, 10**9),
        st.integers(0, 64).map(lambda x: x * 512),
        st.integers(1, 16).map(lambda x: x * 512),
        st.booleans(),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(rows_strategy)
def test_sequential_and_footprint_match_reference(rows):
    req = make(rows)
    assert sequential_mask(req).tolist() == ref_sequential(rows)
    for page in (512, 4096):
        assert footprint_pages(req, page) == ref_footprint(rows, page)
        if rows:
            assert footprint_pages(req, page) == len(np.unique(expand_to_pages(req, page).lpn))


def test_characterise_hand_example():
    # reads: 0+4K, 4K+4K (sequential), 100K; writes: 8K, 12K (sequential), interleaved
    rows = [
        (0, 0, 4096, False),
        (1_000_000_000, 8192, 4096, True),
        (2_000_000_000, 4096, 4096, False),
        (1_500_000_000, 12288, 8192, True),
        (4_000_000_000, 102400, 1024, False),
    ]
    c = characterise(make(rows))
    assert set(c) == set(METRICS)
    assert c["n_requests"] == 5 and c["n_reads"] == 3 and c["n_writes"] == 2
    assert c["read_pct"] == pytest.approx(60.0)
    assert c["mean_size_kb"] == pytest.approx((4 + 4 + 4 + 8 + 1) / 5)
    assert c["mean_read_size_kb"] == pytest.approx(3.0)
    assert c["mean_write_size_kb"] == pytest.approx(6.0)
    assert c["seq_read_pct"] == pytest.approx(100 / 3)
    assert c["seq_write_pct"] == pytest.approx(50.0)
    assert c["footprint_pages"] == 6  # pages 0..4 and 25
    assert c["duration_s"] == pytest.approx(4.0)
    assert c["iops"] == pytest.approx(5 / 4)
    assert c["backward_time_jumps"] == 1
    assert c["address_span_gib"] == pytest.approx(103424 / 2**30)


def test_characterise_empty_and_read_only():
    c = characterise(make([]))
    assert c["n_requests"] == 0 and np.isnan(c["read_pct"]) and c["footprint_pages"] == 0
    c = characterise(make([(0, 0, 512, False), (5, 512, 512, False)]))
    assert c["read_pct"] == 100 and np.isnan(c["mean_write_size_kb"])
    assert np.isnan(c["seq_write_pct"]) and c["seq_read_pct"] == 50


def test_dataset_has_units_and_labels():
    a = make([(0, 0, 4096, False)], "a")
    b = make([(0, 0, 4096, True)], "b").with_meta(synthetic=True)
    ds = characterise_many([a, b])
    assert list(ds["trace"].values) == ["a", "b (synthetic)"]
    for key, (units, long_name) in METRICS.items():
        assert ds[key].attrs == {"units": units, "long_name": long_name}
    assert ds["read_pct"].values.tolist() == [100.0, 0.0]
    assert ds["synthetic"].values.tolist() == [False, True]


def test_size_cdf_and_histogram():
    req = make([(0, 0, 512, False), (1, 0, 4096, True), (2, 0, 4096, False), (3, 0, 512, False)])
    sizes, cdf = size_cdf(req)
    assert sizes.tolist() == [512, 4096] and cdf.tolist() == [0.5, 1.0]
    sizes, cdf = size_cdf(req, "write")
    assert sizes.tolist() == [4096] and cdf.tolist() == [1.0]
    with pytest.raises(ValueError):
        size_cdf(req, "both")
    counts, t_edges, a_edges = address_time_histogram(req, 4, 3)
    assert counts.shape == (4, 3) and counts.sum() == 4
    assert address_time_histogram(req, 2, 2, kind="read")[0].sum() == 3


@pytest.mark.realtrace
def test_web0_excerpt_characteristics():
    """The MSR web_0 excerpt, read here with a minimal parser (independent of
    skftl.traces.readers): the numbers the msr_web preset is calibrated to."""
    path = SHARED / "msr_cambridge" / "web_1.csv.gz"
    if not path.is_file():
        pytest.skip("shared traces not present")
    t, o, s, w = [], [], [], []
    with gzip.open(path, "rt") as fh:
        for line in fh:
            f = line.split(",")
            t.append(int(f[0]))
            o.append(int(f[4]))
            s.append(int(f[5]))
            w.append(f[3] == "Write")
    t = (np.array(t) - t[0]) * 100
    c = characterise(Requests(t, o, s, w, TraceMeta("web_0 excerpt", "msr")))
    assert c["n_requests"] == 100_000 and c["n_reads"] == 61_553
    assert c["mean_read_size_kb"] == pytest.approx(33.82, abs=0.005)
    assert c["mean_write_size_kb"] == pytest.approx(9.35, abs=0.005)
    assert c["seq_read_pct"] == pytest.approx(9.85, abs=0.005)
    assert c["seq_write_pct"] == pytest.approx(4.53, abs=0.005)
    assert c["footprint_pages"] == 512_972
    assert c["duration_s"] == pytest.approx(3.84 * 3600, rel=0.01)
