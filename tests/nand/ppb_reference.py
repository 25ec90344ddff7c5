"""A pure-Python PPB / naive-split policy on top of the reference FTL (the rules of
``skftl.nand.policies_ppb`` restated with dicts and deques): the kernel is tested against it."""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict, deque

import numpy as np
from hypothesis import assume

from skftl.errors import ConfigError
from skftl.nand import policies_ppb as pp
from skftl.nand.invariants import check_invariants
from tests.nand.reference import RefFtl
from tests.nand.test_kernel import (
    COUNTERS,
    make_ops,
    reference_for,
    run_kernel_and_reference,
)


class RefPpb(RefFtl):
    def __init__(
        self, *, policy, n_vbs, max_open, hot_cap, iron_cap, cold_reads, migrate="none", **kw
    ):
        super().__init__(**kw)
        self.policy, self.K, self.max_open = policy, n_vbs, max_open
        self.hot_cap, self.iron_cap, self.cold_reads = hot_cap, iron_cap, cold_reads
        self.migrate_cold = migrate == "cold"
        self.pending = None  # the LPN the read being served made cold, to migrate
        self.level = {}  # lpn -> 0 icy-cold, 1 cold, 2 hot, 3 iron-hot
        self.reads = {}  # lpn -> reads while in the cold area
        self.hot = OrderedDict()  # LRU: last item = head (most recent)
        self.iron = OrderedDict()
        self.writable = {}  # (chip, area, vb class) -> block
        self.waiting = defaultdict(deque)  # (chip, area, vb class) -> blocks waiting
        self.open = defaultdict(int)  # (chip, area) -> blocks with free space
        self.stats = Counter()
        self.events = []  # per program: (block, its erase count, area, wanted class, VB class)

    # --- levels -----------------------------------------------------------------------
    def enforce(self):
        while len(self.iron) > self.iron_cap:
            v = self.iron.popitem(last=False)[0]
            self.hot[v] = None
            self.level[v] = 2
            self.stats["iron_demotions"] += 1
        while len(self.hot) > self.hot_cap:
            v = self.hot.popitem(last=False)[0]
            self.reads[v] = 0
            self.level[v] = 0
            self.stats["hot_demotions"] += 1

    def write_stream(self, lpn, given):
        if self.policy == "ppb_split":
            self.level[lpn] = 1 if given else 0
            return self.level[lpn]
        lv = self.level.get(lpn, -1)
        if given:
            if lv == 3:
                self.iron.move_to_end(lpn)
                return 3
            if lv == 2:
                del self.hot[lpn]
            else:
                self.reads[lpn] = 0
            self.hot[lpn] = None
            self.level[lpn] = 2
            self.enforce()
            return self.level[lpn]
        if lv in (2, 3):
            del (self.iron if lv == 3 else self.hot)[lpn]
            self.reads[lpn] = 0
        self.level[lpn] = 1 if self.reads.get(lpn, 0) >= self.cold_reads else 0
        return self.level[lpn]

    def on_read(self, lpn):
        if self.policy == "ppb_split":
            return
        lv = self.level.get(lpn, -1)
        if lv == 2:
            del self.hot[lpn]
            self.iron[lpn] = None
            self.level[lpn] = 3
            self.stats["promotions"] += 1
            self.enforce()
        elif lv == 3:
            self.iron.move_to_end(lpn)
        elif lv >= 0:
            self.reads[lpn] = self.reads.get(lpn, 0) + 1
            if lv == 0 and self.reads[lpn] >= self.cold_reads:
                self.level[lpn] = 1
                self.stats["cold_promotions"] += 1
                if self.migrate_cold and lpn in self.l2p:
                    self.pending = lpn

    def migrate(self, lpn, ppn):
        """Cold (stream 1) for data this read made cold, unless it lies in a cold-area block's
        fastest VB already."""
        if self.pending != lpn:
            return -1
        self.pending = None
        blk, page = divmod(ppn, self.pages_per_block)
        if self.stream_of[blk] == 0 and page * self.K // self.pages_per_block == self.K - 1:
            return -1
        return 1

    def gc_stream(self, lpn, victim_stream):
        return self.level[lpn]

    # --- virtual-block lists --------------------------------------------------------
    def enter(self, chip, area, k, blk):
        if (chip, area, k) in self.writable:
            self.waiting[(chip, area, k)].append(blk)
        else:
            self.writable[(chip, area, k)] = blk

    def take_free(self, chip, old):
        """A free block to open: the chip's oldest."""
        if not self.free[chip]:
            raise RuntimeError("no free block")
        return self.free[chip].popleft()

    def select_block(self, chip, stream, old=-1):
        area = 0 if self.policy == "ppb_split" else stream >> 1
        want = self.K - 1 if stream & 1 else 0
        blk = self.writable.get((chip, area, want))
        if blk is None and area == 1 and want == self.K - 1 and self.iron:
            # no free space in the iron-hot VB list: its LRU entry goes to the hot head
            v = self.iron.popitem(last=False)[0]
            self.hot[v] = None
            self.level[v] = 2
            self.stats["iron_demotions"] += 1
            self.enforce()
        if blk is None and not (want == 0 and self.open[(chip, area)] < self.max_open):
            for d in range(1, self.K):
                for k in (want - d, want + d):
                    if 0 <= k < self.K and (chip, area, k) in self.writable:
                        blk = self.writable[(chip, area, k)]
                        break
                if blk is not None:
                    self.stats["diverted"] += 1
                    break
        if blk is None:
            blk = self.take_free(chip, old)
            self.state[blk] = "open"
            self.stream_of[blk] = area
            self.open[(chip, area)] += 1
            self.stats["blocks_opened"] += 1
            self.enter(chip, area, 0, blk)
        np_ = self.pages_per_block
        page = self.next_page[blk]
        k = page * self.K // np_
        self.events.append((blk, self.erase_count[blk], area, want, k))
        if want == self.K - 1:
            self.stats["want_fast"] += 1
            self.stats["got_fast"] += k == self.K - 1
        elif k == self.K - 1:
            self.stats["got_fast_unwanted"] += 1
        if page + 1 == (k + 1) * np_ // self.K:
            q = self.waiting[(chip, area, k)]
            if q:
                self.writable[(chip, area, k)] = q.popleft()
            else:
                del self.writable[(chip, area, k)]
            if k + 1 < self.K:
                self.enter(chip, area, k + 1, blk)
            else:
                self.open[(chip, area)] -= 1
        return blk


def popcount(x):
    return bin(x).count("1")


class RefPpbSk(RefPpb):
    """PPB with SK-FTL's popcount free lists and block preference (policy ``ppb_sk``)."""

    def __init__(self, **kw):
        super().__init__(policy="ppb_sk", **kw)

    def take_free(self, chip, old):
        # per-class FIFOs keep the chip's global free order, so the oldest block of a class
        # is its first one in the chip's deque; the nearest class wins, lower first
        want = popcount(old // self.pages_per_block) if old >= 0 else 0
        for d in range(64):
            for c in (want - d, want + d) if d else (want,):
                for b in self.free[chip]:
                    if popcount(b) == c:
                        self.free[chip].remove(b)
                        return b
        raise RuntimeError("no free block")

    def select_block(self, chip, stream, old=-1):
        want = self.K - 1 if stream & 1 else 0
        key = (chip, stream >> 1, want)
        if old >= 0 and key in self.writable:
            np_ = self.pages_per_block
            ob, op = divmod(old, np_)

            def mismatch(b):
                return 2 * (self.next_page[b] != op) + (popcount(b) != popcount(ob))

            q = self.waiting[key]
            best = min([self.writable[key], *q], key=mismatch)  # first of the minima
            if best != self.writable[key]:
                q[q.index(best)] = self.writable[key]
                self.writable[key] = best
        return super().select_block(chip, stream, old)


def kernel_matches_reference(build, ref_cls, sc, **extra) -> None:
    """Build the kernel FTL with ``build`` and its reference ``ref_cls`` from scenario ``sc``
    (``extra``: further settings both take), skip configurations the kernel rejects, and
    compare them with ``check_against_reference``."""
    try:
        ftl = build(
            geo=sc["geo"],
            n_vbs=sc["n_vbs"],
            max_open=sc["max_open"],
            log=1 << 14,
            hot_fraction=sc["hot_fraction"],
            iron_hot_fraction=sc["iron_hot_fraction"],
            cold_reads=sc["cold_reads"],
            migrate=sc["migrate"],
            **extra,
        )
    except ConfigError:
        assume(False)
    ps = ftl.state.pstate
    ref = reference_for(
        ftl,
        ref_cls,
        n_vbs=sc["n_vbs"],
        max_open=sc["max_open"],
        hot_cap=int(ps[pp.H_HOT_CAP]),
        iron_cap=int(ps[pp.H_IRON_CAP]),
        cold_reads=sc["cold_reads"],
        migrate=sc["migrate"],
        **extra,
    )
    check_against_reference(ftl, ref, sc)


def check_against_reference(ftl, ref, sc) -> None:
    """Replay scenario ``sc`` (n_ops, lpn_frac, seed) through the kernel ``ftl`` and the
    pure-Python ``ref``; demand equal counters, completion times, mapping log, block state,
    PPB statistics and FTL invariants, and PPB's life-cycle rules on the reference run."""
    lpn, op, _, request, time_ns = make_ops(ftl, sc["n_ops"], sc["lpn_frac"], sc["seed"])
    hot = (np.random.default_rng(sc["seed"] + 1).random(len(lpn)) < 0.4).astype(np.int8)
    done, log, _, ref_done = run_kernel_and_reference(ftl, ref, (lpn, op, hot, request, time_ns))
    S = ftl.state
    assert {k: ftl.counters()[k] for k in COUNTERS} == ref.c
    assert done.tolist() == ref_done
    assert log == ref.log
    assert S.next_page.tolist() == ref.next_page
    assert S.blk_stream[S.blk_state != 0].tolist() == [
        ref.stream_of[b] for b in np.flatnonzero(S.blk_state != 0)
    ]
    kstats = pp.stats(S.pstate)
    assert {k: kstats[k] for k in ref.stats} == dict(ref.stats)
    lv = pp.levels(S.pstate)
    assert {int(i): int(lv[i]) for i in np.flatnonzero(lv >= 0)} == ref.level
    check_invariants(S)
    # life-cycle rules on every program of the reference run: between two erases a block
    # serves one area, and its VBs are written in order (slow before fast)
    life: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for blk, erases, area, _, k in ref.events:
        life.setdefault((blk, erases), []).append((area, k))
    for seq in life.values():
        assert len({a for a, _ in seq}) == 1
        ks = [k for _, k in seq]
        assert ks == sorted(ks)
