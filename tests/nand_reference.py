"""A short, obviously-correct pure-Python page-mapped FTL with the kernel's exact
semantics (conventional policy): the reference the Numba kernel is tested against.

Tie-breaks are spelled out: free blocks are used oldest-first per chip; greedy GC takes
the sealed block with the fewest valid pages and, among equals, the one that has had that
count longest; cost-benefit takes the first block (by number) of maximal score."""

from __future__ import annotations

from collections import deque

from skftl.nand.core import CHAN_SLOTS, NO_TIME

# the kernel counters the reference reproduces (compared one by one in the tests)
COUNTERS = (
    "host_reads",
    "host_writes",
    "trims",
    "unmapped_reads",
    "gc_copies",
    "erases",
    "gc_victims",
    "flash_reads",
    "flash_programs",
)


class RefFtl:
    def __init__(
        self,
        *,
        n_chips,
        n_channels,
        blocks_per_chip,
        pages_per_block,
        n_lpn,
        n_streams,
        gc_low,
        gc_high,
        gc_policy,
        chip_alloc,
        read_ns,
        prog_ns,
        xfer_ns,
        erase_ns,
        copyback,
    ):
        self.__dict__.update(locals())
        nb = n_chips * blocks_per_chip
        self.l2p = {}  # lpn -> ppn
        self.p2l = {}  # ppn -> lpn, valid pages only
        self.next_page = [0] * nb
        self.erase_count = [0] * nb
        self.state = ["free"] * nb
        self.stream_of = [0] * nb
        self.written_at = [0] * nb  # clock of the last program into the block
        self.since = {}  # sealed block -> sequence number when it got its current count
        self.seq = 0
        self.clock = 0
        self.free = [
            deque(range(c * blocks_per_chip, (c + 1) * blocks_per_chip)) for c in range(n_chips)
        ]
        self.wp = {}
        self.chip_free = [0] * n_chips
        self.chan_res = [[NO_TIME] * CHAN_SLOTS for _ in range(n_channels)]
        self.log = []
        self.flash_log = []  # (chip, kind 0 read / 1 program / 2 erase, page, time, origin)
        self.c = dict.fromkeys(COUNTERS, 0)

    # --- pages ----------------------------------------------------------------------
    def valid_count(self, blk):
        np_ = self.pages_per_block
        return sum(1 for p in range(blk * np_, (blk + 1) * np_) if p in self.p2l)

    def invalidate(self, ppn):
        del self.p2l[ppn]
        blk = ppn // self.pages_per_block
        if self.state[blk] == "sealed":
            self.seq += 1
            self.since[blk] = self.seq

    def program(self, blk, lpn):
        ppn = blk * self.pages_per_block + self.next_page[blk]
        self.next_page[blk] += 1
        self.p2l[ppn] = lpn
        self.l2p[lpn] = ppn
        self.written_at[blk] = self.clock
        self.clock += 1
        self.c["flash_programs"] += 1
        if self.next_page[blk] == self.pages_per_block:
            self.state[blk] = "sealed"
            self.seq += 1
            self.since[blk] = self.seq
        return ppn

    def block_for(self, chip, stream):
        blk = self.wp.get((chip, stream), -1)
        if blk < 0 or self.state[blk] != "open" or self.stream_of[blk] != stream:
            if not self.free[chip]:
                raise RuntimeError("no free block")
            blk = self.free[chip].popleft()
            self.state[blk] = "open"
            self.stream_of[blk] = stream
            self.wp[(chip, stream)] = blk
        return blk

    # --- policy hooks (the kernel's skftl.nand.policy; subclasses override) -------------
    def write_stream(self, lpn, given):
        return given

    def gc_stream(self, lpn, victim_stream):
        return victim_stream

    def on_read(self, lpn):
        pass

    def select_block(self, chip, stream, old=-1):
        """``old``: the data's current PPN (-1: unmapped), as the kernel's hook gets it."""
        return self.block_for(chip, stream)

    # --- timing ---------------------------------------------------------------------
    def book(self, chip, ready):
        """First transfer start >= ready clear of the channel's remembered transfers."""
        res = self.chan_res[chip % self.n_channels]
        x = self.xfer_ns
        start = min(
            s
            for s in [ready] + [r + x for r in res]
            if s >= ready and all(not (r < s + x and s < r + x) for r in res)
        )
        res[res.index(min(res))] = start
        return start

    def t_read(self, chip, page, t):
        ready = max(t, self.chip_free[chip]) + self.read_ns[page]
        self.chip_free[chip] = self.book(chip, ready) + self.xfer_ns
        self.c["flash_reads"] += 1
        return self.chip_free[chip]

    def t_prog(self, chip, page, t):
        start = self.book(chip, max(t, self.chip_free[chip]))
        self.chip_free[chip] = start + self.xfer_ns + self.prog_ns[page]
        return self.chip_free[chip]

    # --- GC -------------------------------------------------------------------------
    def victim(self, chip):
        np_ = self.pages_per_block
        blocks = [
            b
            for b in range(chip * self.blocks_per_chip, (chip + 1) * self.blocks_per_chip)
            if self.state[b] == "sealed" and self.valid_count(b) < np_
        ]
        if not blocks:
            return -1
        if self.gc_policy == "greedy":
            return min(blocks, key=lambda b: (self.valid_count(b), self.since[b]))
        best, best_score = -1, -1.0
        for b in blocks:
            v = self.valid_count(b)
            if v == 0:
                return b
            score = (np_ - v) * (self.clock - self.written_at[b]) / (2.0 * v)
            if score > best_score:
                best, best_score = b, score
        return best

    def collect(self, chip, t):
        np_ = self.pages_per_block
        while len(self.free[chip]) < self.gc_high:
            v = self.victim(chip)
            if v < 0:
                assert self.free[chip], "device full"
                return
            self.state[v] = "victim"
            del self.since[v]
            for page in range(np_):
                src = v * np_ + page
                if src in self.p2l:
                    lpn = self.p2l[src]
                    dst_blk = self.select_block(chip, self.gc_stream(lpn, self.stream_of[v]), src)
                    self.invalidate(src)
                    dst = self.program(dst_blk, lpn)
                    self.log.append((lpn, src, dst, 1))
                    dpage = dst % np_
                    self.flash_log += [(chip, 0, page, t, 1), (chip, 1, dpage, t, 1)]
                    if self.copyback:
                        self.chip_free[chip] = (
                            max(t, self.chip_free[chip]) + self.read_ns[page] + self.prog_ns[dpage]
                        )
                        self.c["flash_reads"] += 1
                    else:
                        self.t_prog(chip, dpage, self.t_read(chip, page, t))
                    self.c["gc_copies"] += 1
            self.next_page[v] = 0
            self.erase_count[v] += 1
            self.chip_free[chip] = max(t, self.chip_free[chip]) + self.erase_ns
            self.flash_log.append((chip, 2, -1, t, 1))
            self.state[v] = "free"
            self.free[chip].append(v)
            self.c["erases"] += 1
            self.c["gc_victims"] += 1

    # --- host -----------------------------------------------------------------------
    def run(self, ops, n_requests):
        """ops: (lpn, op, stream, request, time); returns completion time per request."""
        done = [None] * n_requests
        np_ = self.pages_per_block
        for lpn, op, stream, req, t in ops:
            if op == 0:
                self.c["host_reads"] += 1
                self.on_read(lpn)
                if lpn in self.l2p:
                    ppn = self.l2p[lpn]
                    chip = ppn // np_ // self.blocks_per_chip
                    self.flash_log.append((chip, 0, ppn % np_, t, 0))
                    d = self.t_read(chip, ppn % np_, t)
                else:
                    self.c["unmapped_reads"] += 1
                    d = t
            elif op == 1:
                stream = self.write_stream(lpn, stream)
                if self.chip_alloc == "static":
                    chip = lpn % self.n_chips
                else:
                    chip = min(range(self.n_chips), key=lambda c: (self.chip_free[c], c))
                if len(self.free[chip]) < self.gc_low:
                    self.collect(chip, t)
                old = self.l2p.get(lpn, -1)
                blk = self.select_block(chip, stream, old)
                if old >= 0:
                    self.invalidate(old)
                ppn = self.program(blk, lpn)
                self.log.append((lpn, old, ppn, 0))
                self.flash_log.append((chip, 1, ppn % np_, t, 0))
                d = self.t_prog(chip, ppn % np_, t)
                self.c["host_writes"] += 1
            else:
                self.c["trims"] += 1
                if lpn in self.l2p:
                    old = self.l2p.pop(lpn)
                    self.invalidate(old)
                    self.log.append((lpn, old, -1, 2))
                d = t
            done[req] = d if done[req] is None else max(done[req], d)
        return done
