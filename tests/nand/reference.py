"""A short, obviously-correct pure-Python page-mapped FTL with the kernel's exact
semantics (conventional policy): the reference the Numba kernel is tested against.

Device-semantics options (skftl/nand/timing.py), all off by default: ``dies`` > 0 dies
share a chip (package) that runs one command at a time, joined by a same-kind command of
another die that has not started yet; ``cache_pages`` > 0 a write-back cache (an ordered
dict, ``cache_policy`` lru | fifo); ``unmapped_array_read`` reads page 0 of chip
``lpn % chips`` for an unmapped LPN; ``plane_gc`` = (low, high) per-plane GC watermarks in
blocks (victims from the plane short of free blocks); ``multi_plane`` an operation joins
its die's latest command of the same kind on the same page index in another plane if that
started no earlier than the operation was issued (and the conventional policy keeps a write
point per plane: host LPNs striped over planes after chips, GC copies in the victim's
plane). A policy's ``migrate`` (never, here) moves a page right after its host read.

Tie-breaks are spelled out: free blocks are used oldest-first per chip; greedy GC takes
the sealed block with the fewest valid pages and, among equals, the one that has had that
count longest; cost-benefit takes the first block (by number) of maximal score."""

from __future__ import annotations

from collections import OrderedDict, deque

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
    "cache_read_hits",
    "cache_write_hits",
    "cache_flushes",
    "migrations",
)
CMD_READ, CMD_PROGRAM, CMD_ERASE, CMD_COPYBACK = 0, 1, 2, -2


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
        dies=0,
        cache_pages=0,
        cache_policy="lru",
        unmapped_array_read=False,
        blocks_per_plane=None,
        plane_gc=(0, 0),
        multi_plane=False,
    ):
        self.__dict__.update(locals())
        self.blocks_per_plane = blocks_per_plane or blocks_per_chip
        self.cache = OrderedDict()  # lpn -> stream, from the next page to evict on
        self.pkg = {}  # package -> [free at, latest command's start, kind, dies it holds]
        self.die = {}  # die -> [latest command's start, kind, page index, planes it holds]
        # the write being placed: (its lpn, False) or (the victim block, True) of a GC copy
        self.writing = (-1, False)
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
        if self.multi_plane:
            key, is_gc = self.writing
            planes = self.blocks_per_chip // self.blocks_per_plane
            want = self.plane_of(key) if is_gc else key // self.n_chips % planes
            for plane in [(want + d) % planes for d in range(planes)]:
                blk = self.wp.get((chip, stream, plane), -1)
                if blk >= 0 and self.state[blk] == "open" and self.stream_of[blk] == stream:
                    return blk
                free = [b for b in self.free[chip] if self.plane_of(b) == plane]
                if free:
                    self.free[chip].remove(free[0])
                    self.state[free[0]] = "open"
                    self.stream_of[free[0]] = stream
                    self.wp[(chip, stream, plane)] = free[0]
                    return free[0]
            raise RuntimeError("no free block")
        blk = self.wp.get((chip, stream), -1)
        if blk < 0 or self.state[blk] != "open" or self.stream_of[blk] != stream:
            if not self.free[chip]:
                raise RuntimeError("no free block")
            blk = self.free[chip].popleft()
            self.state[blk] = "open"
            self.stream_of[blk] = stream
            self.wp[(chip, stream)] = blk
        return blk

    # --- policy hooks (skftl.nand.hooks and a policy's module; subclasses override) ------
    def write_stream(self, lpn, given):
        return given

    def gc_stream(self, lpn, victim_stream):
        return victim_stream

    def on_read(self, lpn):
        pass

    def select_block(self, chip, stream, old=-1):
        """``old``: the data's current PPN (-1: unmapped), as the kernel's hook gets it."""
        return self.block_for(chip, stream)

    def migrate(self, lpn, ppn):
        """The stream to move a page just read to, or -1 (the conventional FTL: never)."""
        return -1

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

    def start(self, chip, t, kind, blk=-1, page=-1):
        """Start of a command of ``kind`` (on ``page`` of ``blk``) issued at ``t`` on die
        ``chip``: with multi-plane commands joining the die's latest one; else when the die
        is free; with shared chips, joining the package's latest command of the same kind if
        it has not started yet and does not hold this die, else once the package is free."""
        if self.multi_plane:
            plane = self.plane_of(blk) if blk >= 0 else 0
            rec = self.die.get(chip)
            if (
                kind >= 0
                and rec
                and rec[1:3] == [kind, page]
                and rec[0] >= t
                and plane not in rec[3]
            ):
                rec[3].add(plane)
                return rec[0]
            start = self.start_on_chip(chip, t, kind)
            self.die[chip] = [start, kind, page, {plane}]
            return start
        return self.start_on_chip(chip, t, kind)

    def start_on_chip(self, chip, t, kind):
        ready = max(t, self.chip_free[chip])
        if not self.dies:
            return ready
        way, ch = divmod(chip, self.n_channels)
        p = (way // self.dies, ch)
        free, start, k, held = self.pkg.setdefault(p, [0, NO_TIME, -1, set()])
        if kind >= 0 and k == kind and start >= ready and way not in held:
            held.add(way)
            return start
        start = max(ready, free)
        self.pkg[p] = [free, start, kind, {way}]
        return start

    def hold(self, chip, done):
        self.chip_free[chip] = max(self.chip_free[chip], done)
        if self.dies:
            way, ch = divmod(chip, self.n_channels)
            p = self.pkg[(way // self.dies, ch)]
            p[0] = max(p[0], done)
        return done

    def t_read(self, chip, page, t, blk=-1):
        ready = self.start(chip, t, CMD_READ, blk, page) + self.read_ns[page]
        self.c["flash_reads"] += 1
        return self.hold(chip, self.book(chip, ready) + self.xfer_ns)

    def t_prog(self, chip, page, t, blk=-1):
        start = self.book(chip, self.start(chip, t, CMD_PROGRAM, blk, page))
        return self.hold(chip, start + self.xfer_ns + self.prog_ns[page])

    # --- GC -------------------------------------------------------------------------
    def plane_of(self, blk):
        return blk % self.blocks_per_chip // self.blocks_per_plane

    def victim(self, chip, plane=-1):
        np_ = self.pages_per_block
        blocks = [
            b
            for b in range(chip * self.blocks_per_chip, (chip + 1) * self.blocks_per_chip)
            if self.state[b] == "sealed"
            and self.valid_count(b) < np_
            and plane in (-1, self.plane_of(b))
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

    def free_in(self, chip, plane):
        return sum(1 for b in self.free[chip] if self.plane_of(b) == plane)

    def collect(self, chip, t, plane=-1):
        np_ = self.pages_per_block
        while (
            len(self.free[chip]) < self.gc_high
            if plane < 0
            else self.free_in(chip, plane) < self.plane_gc[1]
        ):
            v = self.victim(chip, plane)
            if v < 0:
                assert self.free[chip], "device full"
                return
            self.state[v] = "victim"
            del self.since[v]
            busy = 0
            for page in range(np_):
                src = v * np_ + page
                if src in self.p2l:
                    lpn = self.p2l[src]
                    self.writing = (v, True)  # block_for reads the victim's plane
                    dst_blk = self.select_block(chip, self.gc_stream(lpn, self.stream_of[v]), src)
                    self.invalidate(src)
                    dst = self.program(dst_blk, lpn)
                    self.log.append((lpn, src, dst, 1))
                    dpage = dst % np_
                    self.flash_log += [(chip, 0, page, t, 1), (chip, 1, dpage, t, 1)]
                    if self.copyback:
                        busy += self.read_ns[page] + self.prog_ns[dpage]
                        self.c["flash_reads"] += 1
                    else:
                        self.t_prog(chip, dpage, self.t_read(chip, page, t, v), dst_blk)
                    self.c["gc_copies"] += 1
            if self.copyback:  # the victim's copybacks: one command (even of none)
                self.hold(chip, self.start(chip, t, CMD_COPYBACK) + busy)
            self.next_page[v] = 0
            self.erase_count[v] += 1
            self.hold(chip, self.start(chip, t, CMD_ERASE, v) + self.erase_ns)
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
                if lpn in self.cache:
                    self.c["cache_read_hits"] += 1
                    d = t
                else:
                    self.on_read(lpn)
                    if lpn in self.l2p:
                        ppn = self.l2p[lpn]
                        chip = ppn // np_ // self.blocks_per_chip
                        self.flash_log.append((chip, 0, ppn % np_, t, 0))
                        d = self.t_read(chip, ppn % np_, t, ppn // np_)
                        stream = self.migrate(lpn, ppn)
                        if stream >= 0:
                            self.migrate_page(lpn, ppn, stream, chip, t, d)
                    else:
                        self.c["unmapped_reads"] += 1
                        d = t
                        if self.unmapped_array_read:
                            chip = lpn % self.n_chips
                            self.flash_log.append((chip, 0, 0, t, 0))
                            d = self.t_read(chip, 0, t)
            elif op == 1:
                self.c["host_writes"] += 1
                d = t
                if self.cache_pages:
                    lpn, stream = self.cache_write(lpn, stream)
                if lpn >= 0:
                    d = self.flash_write(lpn, stream, t)
                    if self.cache_pages:  # the slot is free once the page is in the chip
                        self.c["cache_flushes"] += 1
                        d = max(t, d - self.prog_ns[self.l2p[lpn] % np_])
            else:
                self.cache.pop(lpn, None)
                self.c["trims"] += 1
                if lpn in self.l2p:
                    old = self.l2p.pop(lpn)
                    self.invalidate(old)
                    self.log.append((lpn, old, -1, 2))
                d = t
            done[req] = d if done[req] is None else max(done[req], d)
        return done

    def cache_write(self, lpn, stream):
        """Put a host write in the cache; (lpn, stream) of the page evicted for it, or -1."""
        if lpn in self.cache:
            self.c["cache_write_hits"] += 1
            self.cache[lpn] = stream
            if self.cache_policy == "lru":
                self.cache.move_to_end(lpn)
            return -1, stream
        out = self.cache.popitem(last=False) if len(self.cache) == self.cache_pages else (-1, 0)
        self.cache[lpn] = stream
        return out

    def make_room(self, chip, t):
        """GC before a program on ``chip``: below the chip's low watermark, and per plane."""
        if len(self.free[chip]) < self.gc_low:
            self.collect(chip, t)
        if self.plane_gc[0]:
            for plane in range(self.blocks_per_chip // self.blocks_per_plane):
                if self.free_in(chip, plane) < self.plane_gc[0]:
                    self.collect(chip, t, plane)

    def migrate_page(self, lpn, ppn, stream, chip, t, ready):
        """Move the page just read (``ppn``) to a block of ``stream`` on its chip: GC first
        (when that moved the page, nothing more), then one program once the read's data is
        in the controller (``ready``); logged as kind 3, flash-log origin 2."""
        np_ = self.pages_per_block
        self.make_room(chip, t)
        if self.l2p[lpn] != ppn:
            return
        self.writing = (lpn, False)
        blk = self.select_block(chip, stream, ppn)
        self.invalidate(ppn)
        new = self.program(blk, lpn)
        self.log.append((lpn, ppn, new, 3))
        self.flash_log.append((chip, 1, new % np_, t, 2))
        self.t_prog(chip, new % np_, ready, blk)
        self.c["migrations"] += 1

    def flash_write(self, lpn, stream, t):
        np_ = self.pages_per_block
        stream = self.write_stream(lpn, stream)
        if self.chip_alloc == "static":
            chip = lpn % self.n_chips
        else:
            chip = min(range(self.n_chips), key=lambda c: (self.chip_free[c], c))
        self.make_room(chip, t)
        old = self.l2p.get(lpn, -1)
        self.writing = (lpn, False)
        blk = self.select_block(chip, stream, old)
        if old >= 0:
            self.invalidate(old)
        ppn = self.program(blk, lpn)
        self.log.append((lpn, old, ppn, 0))
        self.flash_log.append((chip, 1, ppn % np_, t, 0))
        return self.t_prog(chip, ppn % np_, t, blk)
