"""SK-FTL's SK-aware allocator as a NAND policy: state invariants under GC, popcount free
lists, and fewer 1-bit differences than the conventional allocator."""

from __future__ import annotations

import numpy as np
import pytest

from skftl.config import load_config
from skftl.nand import core
from skftl.nand.invariants import check_invariants
from skftl.nand.policies_skftl import (
    PS_RESERVE,
    PS_ROOM,
    PS_SLOTS,
    block_bits,
    list_width,
    skftl_pstate,
)
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


def check_room(ftl) -> None:
    """The allocator's count of open blocks with a free page per (chip, class) is true."""
    S = ftl.state
    n_classes, np_ = int(S.pstate[1]), ftl.geometry.pages_per_block
    room = S.pstate[S.pstate[PS_ROOM] :].reshape(ftl.geometry.n_chips, n_classes)
    blk = np.arange(ftl.geometry.n_blocks)
    with_room = (S.blk_state[blk] == core.OPEN) & (S.next_page[blk] < np_)
    chip = blk // ftl.geometry.blocks_per_chip
    want = np.zeros_like(room)
    np.add.at(want, (chip[with_room], pop(blk[with_room])), 1)
    assert (room == want).all()


@pytest.mark.parametrize("width", [1, 3])
def test_invariants_and_popcount_free_lists_under_gc(width):
    ftl = make_ftl(NAND, FTL, sk_allocator=True, open_per_class=width)
    S = ftl.state
    overwrite(ftl, seed=width, trim=0.05)
    c = ftl.counters()
    assert c["erases"] > 0 and c["gc_copies"] > 0  # GC really ran
    check_invariants(S)
    check_room(ftl)
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
    assert ps[2] == 0 and ps[3] == 0 and ps[PS_RESERVE] == 0
    room = PS_SLOTS + 4 * 11 * 3
    assert ps[PS_ROOM] == room and len(ps) == room + 4 * 11
    assert (ps[PS_SLOTS:room] == -1).all() and (ps[room:] == 0).all()
    assert skftl_pstate(4, 1000, 3, "largest", "lockstep")[2:4].tolist() == [1, 1]
    with pytest.raises(ValueError, match="rows"):
        skftl_pstate(4, 1000, 3, rows="diagonal")
    with pytest.raises(ValueError, match="reserve"):
        skftl_pstate(4, 1000, 3, reserve=-1)
    assert skftl_pstate(4, 1000, 3, reserve=5)[PS_RESERVE] == 5


# --- the list-wide rotation (Sec. III-B: "across blocks in the same ... block list") --------
# 2 chips x 16 blocks x 8 pages. Chip 0 holds blocks 0-15: popcount class 2 is its longest
# list, {3, 5, 6, 9, 10, 12}; chip 1 (blocks 16-31) has lists of at most 6 blocks too
SMALL = {**NAND, "blocks_per_plane": 16, "pages_per_block": 8}


def test_list_width_is_the_longest_popcount_list_of_a_chip():
    assert list_width(2, 32) == 6  # C(4, 2) in-chip numbers of popcount 2 (or 3 on chip 1)
    assert list_width(1, 16) == 6 and list_width(4, 16) == 2  # 4 blocks a chip: {1, 2}
    # the sk-ftl preset (32 chips x 512 blocks): C(9, 4)
    assert list_width(32, 32 * 512) == 126


def test_list_wide_rotation_writes_a_row_across_the_whole_list_hand_worked():
    ftl = make_ftl(SMALL, FTL, sk_allocator=True, open_per_class="list", rows="lockstep")
    assert ftl.state.pstate[PS_RESERVE] == FTL["gc_high_blocks"]
    # first writes of even LPNs (chip 0 under static striping), 'largest': class 2 (6 blocks)
    lpn = np.arange(0, 2 * 15, 2, dtype=np.int32)
    log = []
    ftl.run_pages(lpn, np.ones(len(lpn), np.int8), on_log=lambda *a: log.append(a[2].copy()))
    new = np.concatenate(log)
    blocks, pages = new // 8, new % 8
    # a row (page 0) across every block of the list, in the list's order, then the next row
    ring = [3, 5, 6, 9, 10, 12]
    assert blocks.tolist() == ring + ring + ring[:3]
    assert pages.tolist() == [0] * 6 + [1] * 6 + [2] * 3
    # updates keep their block's class and the rotation's row: lpn 0 (block 3) now goes to
    # block 9's page 2, the next slot of the row in progress
    log.clear()
    one = np.array([0], np.int32)
    ftl.run_pages(one, np.ones(1, np.int8), on_log=lambda *a: log.append(a[2].copy()))
    assert divmod(int(log[0][0]), 8) == (9, 2)


def test_list_wide_equals_a_fixed_width_of_the_list_until_the_reserve_binds():
    logs = {}
    for h in ("list", 6):
        ftl = make_ftl(SMALL, FTL, sk_allocator=True, open_per_class=h, rows="lockstep")
        logs[h] = overwrite(ftl, seed=5, passes=0.3)  # 30 % of the logical pages: no GC
    for a, b in zip(logs["list"], logs[6], strict=True):
        assert (a == b).all()


def test_list_wide_rotation_leaves_gc_its_reserve_and_survives_gc():
    ftl = make_ftl(SMALL, FTL, sk_allocator=True, open_per_class="list")
    S = ftl.state
    # every logical page written once: the open blocks take all but the reserve ...
    lpn = np.random.default_rng(0).permutation(ftl.n_lpn).astype(np.int32)
    ftl.run_pages(lpn, np.ones(len(lpn), np.int8))
    assert ftl.counters()["gc_copies"] == 0
    assert (S.free_count[:2] >= FTL["gc_high_blocks"]).all()
    # ... and overwrites past the open blocks' room take the reserve, GC reclaims, no error
    overwrite(ftl, seed=6, passes=6, trim=0.05)
    c = ftl.counters()
    assert c["erases"] > 0 and c["gc_copies"] > 0
    check_invariants(S)
    check_room(ftl)


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
        free = free + S.pstate[S.pstate[PS_ROOM] :].reshape(ftl.geometry.n_chips, -1)
        # classes with several blocks on a chip that have no block with room left
        sizes = np.bincount(pop(np.arange(ftl.geometry.n_blocks)), minlength=n_lists)
        big = sizes >= 4 * ftl.geometry.n_chips
        empty[rule] = int((free[:, big] == 0).sum())
    assert empty["largest"] == 0 < empty["lowest"]
