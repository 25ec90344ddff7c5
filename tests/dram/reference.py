"""Plain-Python reference of the LPMT kernel and both DRAM timing models, written for
reading, not speed. The kernel must agree with it exactly (state, latencies, counters)."""

from __future__ import annotations

import math

from skftl.dram.state import BT_FIRST, BT_LAST, BT_VALID, F_SINGLE, F_VALID
from skftl.dram.timing import NEVER, DramTiming

READ, WRITE, DELETE, DELETE_PAGE = 0, 1, 2, 3


class RefDram:
    """Paper rule (Fig. 6) or strict DDR4 scheduling of a (bank, row) read stream. With
    ``window_rule`` (paper rule only) a read is a row hit iff the nearest read of its bank
    within the last ``window`` reads had its row (Fig. 6 / Table V's classes)."""

    def __init__(self, n_banks: int, t: DramTiming, window_rule: bool = False):
        self.t, self.p = t, t.params()
        self.window_rule = window_rule
        self.nb = n_banks
        self.history: list[int] = []  # banks read, oldest first
        self.open: dict[int, int] = {}
        self.recent = list(range(n_banks))  # Fig. 7 order: least recent first
        self.cases = [0] * (t.window + 2)
        # strict state
        self.last_rd = {b: NEVER for b in range(n_banks)}
        self.last_act = {b: NEVER for b in range(n_banks)}
        self.ready = {b: 0 for b in range(n_banks)}
        self.acts = [NEVER] * 4  # ACT times, oldest first
        self.prev_rd, self.prev_rd_group = NEVER, -1
        self.last_act_any, self.last_act_group = NEVER, -1
        self.next_ref = self.p[14] if self.p[14] > 0 else math.inf
        self.prev_end = 0
        self.reads = []

    def read(self, bank: int, row: int) -> int:
        t, W = self.t, self.t.window
        self.reads.append((bank, row))
        n = next(
            (k for k in range(1, W + 1) if len(self.history) >= k and self.history[-k] == bank), 0
        )
        hit = self.open.get(bank) == row and (n > 0 or not self.window_rule)
        self.cases[W + 1 if hit else (n - 1 if n else W)] += 1
        if t.model == "paper":
            if hit or not n:
                lat = t.dl
            else:
                lat = max(t.dl, t.rtp + t.rp + t.rcd + t.cl + t.dl - (t.cl + n * t.dl))
            self.open[bank] = row
        else:
            lat = self._strict(bank, row)
        self.history.append(bank)
        if not (hit and t.reorder_on_act):
            self.recent.remove(bank)
            self.recent.append(bank)
        return lat

    def _strict(self, bank: int, row: int) -> int:
        p = self.p
        RCD, CL, RTP, CCD_S, RP, DL = p[1], p[2], p[3], p[4], p[5], p[6]
        RAS, RC, RRD_S, RRD_L, FAW, CCD_L, REFI, RFC, G = p[8:17]
        group = bank % G
        if self.history:
            rd_min = self.prev_rd + (CCD_L if group == self.prev_rd_group else CCD_S)
        else:
            rd_min = 0
        while True:
            hit = self.open.get(bank, -1) == row
            if hit:
                act = None
                rd = max(rd_min, self.last_act[bank] + RCD)
                first = rd
            else:
                if self.open.get(bank, -1) >= 0:
                    act = max(self.last_rd[bank] + RTP, self.last_act[bank] + RAS) + RP
                else:
                    act = self.ready[bank]
                act = max(
                    act,
                    self.last_act[bank] + RC,
                    self.last_act_any + (RRD_L if group == self.last_act_group else RRD_S),
                    self.acts[0] + FAW,
                )
                rd = max(rd_min, act + RCD)
                first = act
            if first >= self.next_ref:
                start = self.next_ref
                for b, r in self.open.items():
                    if r >= 0:
                        start = max(start, max(self.last_rd[b] + RTP, self.last_act[b] + RAS) + RP)
                for b in range(self.nb):
                    self.open[b] = -1
                    self.ready[b] = start + RFC
                self.next_ref += REFI
                continue
            break
        if not hit:
            self.open[bank] = row
            self.last_act[bank] = act
            self.acts = self.acts[1:] + [act]
            self.last_act_any, self.last_act_group = act, group
        self.last_rd[bank] = rd
        self.prev_rd, self.prev_rd_group = rd, group
        end = rd + CL + DL
        lat, self.prev_end = end - self.prev_end, end
        return lat


class RefLpmt:
    def __init__(self, cfg, timing: DramTiming, homes_of, bt_row_base: int):
        self.c = cfg
        P, S, A, NP = cfg.n_sets, cfg.secondary, cfg.assoc, cfg.n_pages
        self.P, self.A = P, A
        self.key = [[-1] * A for _ in range(P + S)]
        self.pa = [[-1] * A for _ in range(P + S)]
        self.flags = [[0] * A for _ in range(P + S)]
        self.next = [-1] * (P + S)
        self.prev = [-1] * (P + S)
        self.free_sets = list(range(P + S - 1, P - 1, -1))  # stack: pop() from the end
        self.bt_next = [-1] * NP
        self.bt_prev = [-1] * NP
        self.bt_flags = [0] * NP
        self.free_pages = list(range(NP - 1, -1, -1))
        self.nb = 1 if cfg.placement == "single" else cfg.n_banks
        self.dram = RefDram(self.nb, timing, window_rule=cfg.row_hits == "window")
        self.homes_of = homes_of
        self.bt_row_base = bt_row_base
        self.epr = cfg.row_bytes // cfg.entry_bytes
        self.counters = {"sec_alloc": 0, "sec_free": 0, "fail_pages": 0, "fail_sets": 0}

    # -- addresses
    def way_address(self, g: int, w: int) -> tuple[int, int]:
        A, nb, epr, pl = self.A, self.nb, self.epr, self.c.placement
        if pl == "single":
            return 0, (g * A + w) // epr
        if pl == "set_per_bank":
            return g % nb, ((g // nb) * A + w) // epr
        k = math.gcd(A, nb)
        wpb = A // k
        slot = (g * k) // nb  # the set's index in each of its banks
        if pl.startswith("interleaved"):  # way w in bank (base + w) mod nb, base rotates
            base = ((g * k) % nb + slot) % nb
            return (base + w % k) % nb, (slot * wpb + w // k) // epr
        return (g * k + w // wpb) % nb, (slot * wpb + w % wpb) // epr

    def bt_address(self, p: int) -> tuple[int, int]:
        ppb, nb = self.c.pages_per_block, self.nb
        block = p // ppb
        return block % nb, self.bt_row_base + ((block // nb) * ppb + p % ppb) // self.epr

    def way_order(self, g: int) -> list[int]:
        ways = list(range(self.A))
        pl = self.c.placement
        inter = pl.startswith("interleaved")
        k = math.gcd(self.A, self.nb)

        def rank(w: int) -> int:  # the bank's place in the read order of a pass
            if pl not in ("interleaved", "spread_dynamic"):
                return w % k  # fixed order: the set's banks from its first one
            return self.dram.recent.index(self.way_address(g, w)[0])

        if inter:  # passes over the banks: one way of every bank, then the next
            return sorted(ways, key=lambda w: (w // k, rank(w)))
        if pl != "spread_dynamic":
            return ways
        # banks of the set, least recently read first; ways of one bank together
        return sorted(ways, key=lambda w: (rank(w), w))

    # -- chains
    def chain(self, first: int) -> list[int]:
        out = [first]
        while not self.bt_flags[out[-1]] & BT_LAST:
            out.append(self.bt_next[out[-1]])
        return out

    def link(self, pages: list[int], loc: int) -> None:
        for i, p in enumerate(pages):
            self.bt_flags[p] = BT_VALID | (BT_FIRST if i == 0 else 0)
            self.bt_flags[p] |= BT_LAST if i == len(pages) - 1 else 0
            self.bt_prev[p] = loc if i == 0 else pages[i - 1]
            self.bt_next[p] = pages[i + 1] if i + 1 < len(pages) else -1

    def free(self, p: int) -> None:
        self.bt_next[p] = self.bt_prev[p] = -1
        self.bt_flags[p] = 0
        self.free_pages.append(p)

    def remove(self, g: int, w: int) -> None:
        self.key[g][w], self.pa[g][w], self.flags[g][w] = -1, -1, 0
        if g >= self.P and not any(f & F_VALID for f in self.flags[g]):
            prev, nxt = self.prev[g], self.next[g]
            self.next[prev] = nxt
            if nxt >= 0:
                self.prev[nxt] = prev
            self.next[g] = self.prev[g] = -1
            self.free_sets.append(g)
            self.counters["sec_free"] += 1

    # -- one operation
    def op(self, op: int, key: int, arg: int) -> tuple[int, int, int]:
        A = self.A
        lat = reads = 0
        found = empty = None
        chain = [self.homes_of(key)]
        while self.next[chain[-1]] >= 0:
            chain.append(self.next[chain[-1]])
        for g in chain:
            # match_or_empty in a set without the key: the probe ends once every way up to
            # the set's first invalid way has been read
            valid = [bool(f & F_VALID) for f in self.flags[g]]
            has_key = any(v and k == key for v, k in zip(valid, self.key[g], strict=True))
            unread = None
            if self.c.early_exit == "match_or_empty" and not has_key and not all(valid):
                unread = set(range(valid.index(False) + 1))
            for i, w in enumerate(self.way_order(g)):
                bank, row = self.way_address(g, w)
                if self.c.row_hits == "per_probe" and i > 0:
                    self.dram.open[bank] = row  # one activation per set probe
                lat += self.dram.read(bank, row)
                reads += 1
                if valid[w] and self.key[g][w] == key:
                    found = (g, w)
                    if self.c.early_exit != "none":
                        break
                if unread is not None:
                    unread.discard(w)
                    if not unread:
                        break
            if found:
                break
            if empty is None:
                free_ways = [w for w in range(A) if not self.flags[g][w] & F_VALID]
                empty = (g, free_ways[0]) if free_ways else None
        pages = []
        if found:
            g, w = found
            pages = self.chain(self.pa[g][w])
            if not self.flags[g][w] & F_SINGLE:
                for p in pages:
                    lat += self.dram.read(*self.bt_address(p))
                    reads += 1
        status = 1 if found else 0
        if not found and (op == WRITE or (op == READ and self.c.insert_on_read)):
            if len(self.free_pages) < arg:
                self.counters["fail_pages"] += 1
                return lat, reads, 3
            if empty is None and not self.free_sets:
                self.counters["fail_sets"] += 1
                return lat, reads, 3
            if empty is None:
                s = self.free_sets.pop()
                self.next[chain[-1]], self.prev[s] = s, chain[-1]
                empty = (s, 0)
                self.counters["sec_alloc"] += 1
            g, w = empty
            new = [self.free_pages.pop() for _ in range(arg)]
            self.link(new, g * A + w)
            self.key[g][w], self.pa[g][w] = key, new[0]
            self.flags[g][w] = F_VALID | (F_SINGLE if arg == 1 else 0)
            return lat, reads, 2
        if found and op == WRITE:
            g, w = found
            if len(self.free_pages) < arg:
                self.counters["fail_pages"] += 1
                return lat, reads, 3
            new = [self.free_pages.pop() for _ in range(arg)]
            self.link(new, g * A + w)
            for p in pages:
                self.free(p)
            self.pa[g][w] = new[0]
            self.flags[g][w] = F_VALID | (F_SINGLE if arg == 1 else 0)
        elif found and op == DELETE:
            for p in pages:
                self.free(p)
            self.remove(*found)
        elif found and op == DELETE_PAGE and 0 <= arg < len(pages):
            g, w = found
            rest = pages[:arg] + pages[arg + 1 :]
            self.free(pages[arg])
            if not rest:
                self.remove(g, w)
            else:
                self.link(rest, g * A + w)
                self.pa[g][w] = rest[0]
                if len(rest) == 1:
                    self.flags[g][w] |= F_SINGLE
        return lat, reads, status
