"""SK-FTL's SK-aware allocator as a NAND policy: state invariants under GC, popcount free
lists, and fewer 1-bit differences than the conventional allocator."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import load_config
from skftl.nand import core
from skftl.nand.invariants import check_invariants
from skftl.nand.policies_skftl import PS_SLOTS, block_bits, skftl_pstate
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


@pytest.mark.parametrize("rows", ["lockstep", "match"])
def test_updates_keep_block_popcount_and_cut_bit_difference(rows):
    sk = make_ftl(NAND, FTL, sk_allocator=True, open_per_class=2, first_write="largest", rows=rows)
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
    assert diffs["sk"][0] < 0.8 * diffs["page"][0]


def _open_rows(ftl) -> list[np.ndarray]:
    """Next page of each (chip, class)'s open blocks."""
    S = ftl.state
    width, n_classes = int(S.pstate[0]), int(S.pstate[1])
    out = []
    for k in range(ftl.geometry.n_chips * n_classes):
        slots = S.pstate[PS_SLOTS + k * width : PS_SLOTS + (k + 1) * width]
        blocks = [b for b in slots if b >= 0 and S.blk_state[b] == core.OPEN]
        if len(blocks) > 1:
            out.append(S.next_page[blocks])
    return out


def test_lockstep_rows_advance_together_match_rows_do_not():
    spread = {}
    for rows in ("lockstep", "match"):
        ftl = make_ftl(NAND, FTL, sk_allocator=True, open_per_class=4, rows=rows)
        overwrite(ftl, seed=2, passes=0.6)  # a fresh device, no GC yet
        assert ftl.counters()["gc_copies"] == 0
        spread[rows] = max(int(p.max() - p.min()) for p in _open_rows(ftl))
    # the open blocks of a class share the row (page number) within one write ...
    assert spread["lockstep"] <= 1
    # ... while page-popcount matching lets them drift apart
    assert spread["match"] > 1


def test_pstate_layout():
    ps = skftl_pstate(4, 1000, 3)
    assert block_bits(1000) == 10 and ps[0] == 3 and ps[1] == 11
    assert ps[2] == 0 and ps[3] == 0 and len(ps) == PS_SLOTS + 4 * 11 * 3
    assert (ps[PS_SLOTS:] == -1).all()
    assert skftl_pstate(4, 1000, 3, "largest", "lockstep")[2:4].tolist() == [1, 1]
    with pytest.raises(ValueError, match="rows"):
        skftl_pstate(4, 1000, 3, rows="diagonal")


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


def test_first_write_default_keeps_every_class_open_for_later_updates():
    # the study's default rule (no previously-stored PBA: no class preference) consumes the
    # classes in proportion to their size; 'lowest' empties the small low classes first
    assert load_config()["skrm"]["first_write"] == "largest"
    empty = {}
    for rule in ("largest", "lowest"):
        ftl = make_ftl(NAND, FTL, sk_allocator=True, first_write=rule)
        n = ftl.n_lpn // 2
        lpn = np.random.default_rng(1).permutation(ftl.n_lpn)[:n].astype(np.int32)
        ftl.run_pages(lpn, np.ones(n, np.int8))
        S = ftl.state
        n_lists = int(S.prm[core.P_NLISTS])
        free = S.free_len.reshape(ftl.geometry.n_chips, -1)[:, :n_lists]
        # classes with several blocks on a chip that have no free block left
        sizes = np.bincount(pop(np.arange(ftl.geometry.n_blocks)), minlength=n_lists)
        big = sizes >= 4 * ftl.geometry.n_chips
        empty[rule] = int((free[:, big] == 0).sum())
    assert empty["largest"] == 0 < empty["lowest"]
