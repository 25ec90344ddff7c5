"""Consistency checks of an FTL state (used by the tests; cheap enough to call after any
replay of a small trace). Each check raises AssertionError naming what broke."""

from __future__ import annotations

import numpy as np

from skftl.nand import core


def _walk(head: int, nxt: np.ndarray, limit: int) -> list[int]:
    out = []
    b = head
    while b >= 0:
        out.append(int(b))
        if len(out) > limit:
            raise AssertionError("cycle in a block list")
        b = nxt[b]
    return out


def check_invariants(S: core.FtlArrays) -> None:
    """Mapping, bitmap, counts, program order, block lists and block conservation."""
    np_ = int(S.prm[core.P_NP])
    n_chips = int(S.prm[core.P_NCHIPS])
    bpc = int(S.prm[core.P_BPC])
    n_lists = int(S.prm[core.P_NLISTS])
    n_blocks = n_chips * bpc
    valid = np.unpackbits(S.valid, bitorder="little").astype(bool)
    # each live LPN maps to exactly one valid page whose P2L points back
    live = np.flatnonzero(S.l2p >= 0)
    ppn = S.l2p[live]
    assert valid[ppn].all(), "a live LPN maps to an invalid page"
    assert (S.p2l[ppn] == live).all(), "P2L of a mapped page does not point back"
    assert len(np.unique(ppn)) == len(ppn), "two LPNs share a physical page"
    assert valid.sum() == len(live), "a valid page is not referenced by any LPN"
    # per-block valid counts equal the bitmap
    per_block = valid.reshape(n_blocks, np_)
    assert (per_block.sum(axis=1) == S.vcount).all(), "valid count differs from the bitmap"
    # pages are programmed in order: nothing at or after the write pointer
    written = S.p2l.reshape(n_blocks, np_) >= 0
    after = np.arange(np_)[None, :] >= S.next_page[:, None]
    assert not (written & after).any(), "a page past a block's write pointer holds data"
    assert not (per_block & after).any(), "a page past a block's write pointer is valid"
    # block states agree with write pointers; free + open + sealed blocks are conserved
    st = S.blk_state
    assert set(np.unique(st)) <= {core.FREE, core.OPEN, core.SEALED}, "a block is stuck in GC"
    assert (S.next_page[st == core.FREE] == 0).all(), "a free block is not erased"
    assert (S.next_page[st == core.SEALED] == np_).all(), "a sealed block is not full"
    assert (S.next_page[st == core.OPEN] < np_).all(), "an open block is full"
    assert (st == core.FREE).sum() + (st == core.OPEN).sum() + (st == core.SEALED).sum() == n_blocks
    for chip in range(n_chips):
        blocks = range(chip * bpc, (chip + 1) * bpc)
        free = [
            b
            for lst in range(n_lists)
            for b in _walk(S.free_head[chip * n_lists + lst], S.lnext, bpc)
        ]
        assert sorted(free) == [b for b in blocks if st[b] == core.FREE], (
            "free lists != free blocks"
        )
        assert S.free_count[chip] == len(free), "free count differs from the free lists"
        in_buckets = []
        for v in range(np_ + 1):
            members = _walk(S.bkt_head[chip * (np_ + 1) + v], S.lnext, bpc)
            assert all(S.vcount[b] == v for b in members), "a block sits in the wrong bucket"
            in_buckets += members
        assert sorted(in_buckets) == [b for b in blocks if st[b] == core.SEALED], (
            "buckets != sealed blocks"
        )
