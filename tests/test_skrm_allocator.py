"""SK-FTL's SK-aware allocator as a NAND policy: state invariants under GC, popcount free
lists, and fewer 1-bit differences than the conventional allocator."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.nand import core
from skftl.nand.invariants import check_invariants
from skftl.nand.policies_skftl import block_bits, skftl_pstate
from skftl.skrm.nand_side import make_ftl

NAND = {
    "channels": 1,
    "chips_per_channel": 2,
    "planes_per_chip": 1,
    "blocks_per_plane": 64,
    "pages_per_block": 16,
    "page_size": 4096,
    "t_read_us": 40,
    "t_prog_us": 500,
    "t_erase_us": 3000,
    "channel_mb_s": 400,
}
FTL = {"spare_factor": 0.3, "gc_low_blocks": 2, "gc_high_blocks": 3}


def pop(x):
    return np.array([bin(int(v)).count("1") for v in x])


def overwrite(ftl, seed, passes=8, trim=0.0):
    rng = np.random.default_rng(seed)
    n = int(passes * ftl.n_lpn)
    lpn = rng.integers(0, ftl.n_lpn, n).astype(np.int32)
    op = np.where(rng.random(n) < trim, 2, 1).astype(np.int8)
    log = []
    ftl.run_pages(lpn, op, on_log=lambda *a: log.append([x.copy() for x in a]))
    return [np.concatenate(x) for x in zip(*log, strict=True)]


@pytest.mark.parametrize("width", [1, 3])
def test_invariants_and_popcount_free_lists_under_gc(width):
    ftl = make_ftl(NAND, FTL, sk_allocator=True, open_per_class=width)
    S = ftl.state
    overwrite(ftl, seed=width, trim=0.05)
    c = ftl.counters()
    assert c["erases"] > 0 and c["gc_copies"] > 0  # GC really ran
    check_invariants(S)
    n_lists = int(S.prm[core.P_NLISTS])
    for chip in range(2):
        for lst in range(n_lists):
            b = S.free_head[chip * n_lists + lst]
            while b >= 0:
                assert bin(int(b)).count("1") == lst  # erased blocks return to their list
                b = S.lnext[b]


def test_updates_keep_block_popcount_and_cut_bit_difference():
    sk = make_ftl(NAND, FTL, sk_allocator=True, open_per_class=2, first_write="largest")
    page = make_ftl(NAND, FTL, sk_allocator=False)
    diffs = {}
    for name, ftl in (("sk", sk), ("page", page)):
        lpn, old, new, kind = overwrite(ftl, seed=11, passes=6)
        succ = old >= 0
        np_ = NAND["pages_per_block"]
        same_blk = pop(old[succ] // np_) == pop(new[succ] // np_)
        diffs[name] = (np.abs(pop(new[succ]) - pop(old[succ])).sum(), same_blk.mean())
    # most updates stay in its block-popcount class ...
    assert diffs["sk"][1] > 0.75 and diffs["sk"][1] > 2 * diffs["page"][1]
    # ... and the 1-bit difference falls well below the conventional allocator's
    assert diffs["sk"][0] < 0.7 * diffs["page"][0]


def test_pstate_layout():
    ps = skftl_pstate(4, 1000, 3)
    assert block_bits(1000) == 10 and ps[0] == 3 and ps[1] == 11
    assert ps[2] == 0 and len(ps) == 3 + 4 * 11 * 3 and (ps[3:] == -1).all()


def test_first_writes_take_low_popcount_addresses():
    first = {}
    for name, ftl in (
        ("lowest", make_ftl(NAND, FTL, sk_allocator=True, first_write="lowest")),
        ("largest", make_ftl(NAND, FTL, sk_allocator=True, first_write="largest")),
        ("page", make_ftl(NAND, FTL, sk_allocator=False)),
    ):
        lpn, old, new, kind = overwrite(ftl, seed=3, passes=0.5)
        first[name] = pop(new[old < 0]).mean()
    assert first["lowest"] < first["page"] < first["largest"]
