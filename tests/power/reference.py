"""Pure-Python reference of the power-management simulation (skftl.power.kernel and its
scheme modules), written the naive way: packets hop chip by chip every slot (no look-ahead
targeting), the current is summed from each atomic operation's full 40 ns sample array (no
runs, no sliding window), DCC checks every elementary interval and keeps each chip's last
envelope as a list of pieces, an arbitrated channel keeps a list of its requests and looks at
every one whenever it may be free (an event at every time it might hand the channel on, most
of them finding it busy or nothing ready). Small cases only."""

from __future__ import annotations

import heapq
import math

import numpy as np

from skftl.power.profiles import PROG_EXEC, READ_DATAOUT, SAMPLE_NS

READY, XFER, WAIT, OPER = range(4)
RING = ("MTPM", "KMTPM_A", "KMTPM_SA", "NOKEY")
DATA_OUT = -1  # a channel request for a channel atomic operation (else: the operation's type)


def channel_rank(arbitration: str, kind: int) -> int:
    """Which waiting request an arbitrated channel serves first (lower first). Cosmos+
    OpenSSD's order: read commands, erase commands, program commands (with their data), read
    data-outs; MQSim's: data-outs before any command."""
    if arbitration == "commands_first":
        return {0: 0, 3: 1, 1: 2, 2: 2, DATA_OUT: 3}[kind]
    return 0 if kind == DATA_OUT else 1


class Chip:
    def __init__(self, queue: list[int]):
        self.queue = queue
        self.state = READY
        self.op = -1
        self.type = 0
        self.step = 0
        self.sa = 0
        self.atom = 0
        self.ht = 0
        self.ut = 0
        self.key = 0
        self.need = 0
        self.wait_since = 0
        self.timer: int | None = None
        self.version = 0
        self.dcc_start = 0
        self.dcc_key = None  # (operation, on the channel?) DCC decided last
        self.dcc_seq: list[int] = []  # the atomic operations of that decision's envelope


class Packet:
    def __init__(self, ring: int, pos: int, slot: int, tok: int, key: int):
        self.ring, self.pos, self.slot, self.tok, self.key = ring, pos, slot, tok, key
        self.alive = True


def reference_simulate(
    ops,
    scheme,
    profiles,
    device,
    tokens,
    n_rings=1,
    ctrl_msg_ns=0,
    dcc_model="subatomic",
    dcc_decision_ns=0,
):
    n = device.n_chips
    m = n // n_rings
    tt = tokens.total_tokens if scheme == "CTRL" else tokens.total_tokens // n_rings
    pb = tokens.budget_units
    hop = round(tokens.transfer_cycles() * device.cycle_ns)
    comp = round(device.t_comp_cycles * device.cycle_ns)
    tmpl = device.templates()
    prof = profiles.samples
    sas = [profiles.sub_atomic(a, device.subatomic_interval_ns) for a in range(len(prof))]
    rt = [[tokens.required_tokens(p) for p in s.peak] for s in sas]
    sa_dur = [[int(b - a) * SAMPLE_NS for a, b in zip(s.start, s.stop, strict=True)] for s in sas]
    a_dur = [len(p) * SAMPLE_NS for p in prof]
    # the token protocol returns a sub-atomic operation's surplus at its end + the guard band
    # (rounded up to the 40 ns grid, never after the atomic operation ends)
    guard = device.subatomic_guard_pct
    sa_tok = []
    for a, s in enumerate(sas):
        ends = []
        for k, stop in enumerate(s.stop.tolist()):
            late = math.ceil(stop * SAMPLE_NS * (100 + guard) / (100 * SAMPLE_NS)) * SAMPLE_NS
            ends.append(a_dur[a] if k == len(s.stop) - 1 else min(late, a_dur[a]))
        sa_tok.append([e - b for b, e in zip([0] + ends[:-1], ends, strict=True)])
    arb = device.channel_arbitration != "fifo"
    pending: list[list[list[int]]] = [[] for _ in range(device.n_channels)]  # rank, ready, seq, c
    a_peak = [int(p.max()) for p in prof]
    ppz = sa_dur[PROG_EXEC][0]
    # the read data-out occupies the channel under the channel read model
    on_chan = [device.read_model == "channel" and a == READ_DATAOUT for a in range(len(prof))]
    xfer = device.xfer_ns()
    types = ops.op_type
    arr = ops.arrival_ns
    chips = [Chip([i for i in range(len(ops)) if ops.chip[i] == c]) for c in range(n)]
    chan_free = [0] * device.n_channels
    op_issue = [-1] * len(ops)
    op_start = [-1] * len(ops)
    op_done = [-1] * len(ops)
    wait = [0] * len(prof)
    current: dict[int, int] = {}
    packets: list[Packet] = []
    heap: list = []
    st = {"ppz": 0, "pool": tt, "cq": [], "cons_err": 0, "dcc_free": 0, "rq": 0}
    seq = [0]

    def push(t, cat, idx, ver=0):
        seq[0] += 1
        heapq.heappush(heap, (t, cat, idx, seq[0], ver))

    def set_timer(c, t):
        ch = chips[c]
        ch.version += 1
        ch.timer = t
        push(t, 1, c, ch.version)

    def phase(p):
        return p.ring * m + (p.pos - p.slot) % m

    def add_current(a, ts):
        p = prof[a]
        for k in range(math.ceil(ts / SAMPLE_NS), math.ceil((ts + a_dur[a]) / SAMPLE_NS)):
            current[k] = current.get(k, 0) + int(p[(k * SAMPLE_NS - ts) // SAMPLE_NS])

    def absorbs(c, p):
        ch = chips[c]
        if ch.state != WAIT:
            return False
        if scheme == "NOKEY" or ch.key or p.key:
            return True
        if scheme == "MTPM":
            return False
        return ch.ht + p.tok >= ch.need

    def forward(c, t, tok, key):
        if tok == 0 and key == 0:
            return
        s = -(-t // hop)
        ring, pos = divmod(c, m)
        ph = ring * m + (pos - s) % m
        for p in packets:
            if p.alive and phase(p) == ph:
                p.tok += tok
                p.key |= key
                return
        p = Packet(ring, pos, s, tok, key)
        packets.append(p)
        # it leaves chip c in slot s and reaches the next chip one slot later
        p.pos, p.slot = (pos + 1) % m, s + 1
        push(p.slot * hop, 3, phase(p), 0)

    def request(c, kind, ready):
        k = c // device.ways_per_channel
        pending[k].append([channel_rank(device.channel_arbitration, kind), ready, st["rq"], c])
        st["rq"] += 1
        push(max(ready, chan_free[k]), 2, k)

    def begin(c, ts):
        ch = chips[c]
        if ch.step == 0:
            op_start[ch.op] = ts
        add_current(ch.atom, ts)
        sub = scheme in ("KMTPM_SA", "CTRL")
        set_timer(c, ts + (sa_tok[ch.atom][0] if sub else a_dur[ch.atom]))

    def start_atomic(c, t_dec, dly):
        ch = chips[c]
        ts = t_dec + dly
        wait[ch.atom] += t_dec - ch.wait_since
        ch.state = OPER
        ch.sa = 0
        if on_chan[ch.atom] and scheme != "DCC":  # DCC books the channel when deciding
            k = c // device.ways_per_channel
            if arb:
                request(c, DATA_OUT, ts)
                return
            ts = max(ts, chan_free[k])
            chan_free[k] = ts + a_dur[ch.atom]
        begin(c, ts)

    def arbitrate(k, t):
        if chan_free[k] > t:
            push(chan_free[k], 2, k)
            return
        ready = [r for r in pending[k] if r[1] <= t]
        if not ready:
            if pending[k]:
                push(min(r[1] for r in pending[k]), 2, k)
            return
        best = min(ready, key=lambda r: (r[0], r[1], r[2]))
        pending[k].remove(best)
        c = best[3]
        ch = chips[c]
        if ch.state == XFER:
            chan_free[k] = t + xfer[ch.type]
            set_timer(c, t + xfer[ch.type])
        elif scheme == "DCC":
            a = ch.atom
            td = max(t, st["dcc_free"]) + dcc_decision_ns
            st["dcc_free"] = td
            ch.dcc_seq = [a]
            ch.dcc_start = dcc_schedule(c, td, ch.dcc_seq)
            ch.dcc_key = (ch.op, True)
            chan_free[k] = ch.dcc_start + a_dur[a]
            set_timer(c, ch.dcc_start)
        else:
            chan_free[k] = t + a_dur[ch.atom]
            begin(c, t)
        if pending[k]:
            push(chan_free[k], 2, k)

    def begin_wait(c, t):
        ch = chips[c]
        ch.atom = tmpl[ch.type][ch.step]
        ch.state = WAIT
        ch.timer = None
        ch.version += 1
        ch.wait_since = t
        ch.need = rt[ch.atom][0]

    def dcc_schedule(c, s, seq_new):
        dur = sum(a_dur[a] for a in seq_new)

        def pieces(start, seq_a):
            out, x = [], start
            for a in seq_a:
                if dcc_model == "atomic":
                    parts = [(a_dur[a], a_peak[a])]
                else:
                    parts = zip(sa_dur[a], sas[a].peak.tolist(), strict=True)
                for d, v in parts:
                    out.append((x, x + d, v))
                    x += d
            return out

        others = []
        for c2 in range(n):
            o = chips[c2]
            if c2 != c and o.dcc_key is not None:  # pieces of an ended operation lie before s
                others += pieces(o.dcc_start, o.dcc_seq)
        while True:
            mine = pieces(s, seq_new)
            pts = sorted({s, s + dur} | {x for a, b, _ in mine + others for x in (a, b)})
            pts = [x for x in pts if s <= x <= s + dur]
            bad = None
            for lo, hi in zip(pts[:-1], pts[1:], strict=True):
                level = sum(v for a, b, v in mine + others if a <= lo < b)
                if level > pb:
                    bad = hi - lo
                    break
            if bad is None:
                return s
            s += bad

    def ctrl_grant(c, t):
        ch = chips[c]
        st["pool"] -= ch.need
        ch.ut = ch.need
        k = c // device.ways_per_channel
        ts = max(t, chan_free[k]) + ctrl_msg_ns
        chan_free[k] = ts
        start_atomic(c, ts, 0)

    def ctrl_release(c, t, tok):
        k = c // device.ways_per_channel
        chan_free[k] = max(t, chan_free[k]) + ctrl_msg_ns
        st["pool"] += tok
        while st["cq"] and st["pool"] >= chips[st["cq"][0]].need:
            ctrl_grant(st["cq"].pop(0), t)

    def attempt(c, t):
        ch = chips[c]
        a = ch.atom
        if scheme == "NPM":
            start_atomic(c, t, 0)
        elif scheme == "PPM":
            if a != PROG_EXEC:
                start_atomic(c, t, 0)
            elif t >= st["ppz"]:
                st["ppz"] = t + ppz
                start_atomic(c, t, 0)
            else:
                set_timer(c, st["ppz"])
        elif scheme == "DCC":
            if ch.step > 0 and not on_chan[a]:
                start_atomic(c, t, 0)
                return
            if ch.dcc_key != (ch.op, on_chan[a]) and on_chan[a] and arb:
                request(c, DATA_OUT, t)  # decided once the channel is this chip's
                return
            if ch.dcc_key != (ch.op, on_chan[a]):
                # the controller decides one operation (or channel data-out) at a time
                td = max(t, st["dcc_free"]) + dcc_decision_ns
                st["dcc_free"] = td
                k = c // device.ways_per_channel
                if on_chan[a]:
                    ch.dcc_seq = [a]
                    ch.dcc_start = dcc_schedule(c, max(td, chan_free[k]), ch.dcc_seq)
                    chan_free[k] = ch.dcc_start + a_dur[a]
                else:
                    seq = tmpl[ch.type]
                    ch.dcc_seq = seq[: next((i for i, x in enumerate(seq) if on_chan[x]), len(seq))]
                    ch.dcc_start = dcc_schedule(c, td, ch.dcc_seq)
                ch.dcc_key = (ch.op, on_chan[a])
            if ch.dcc_start <= t:
                start_atomic(c, t, 0)
            else:
                set_timer(c, ch.dcc_start)
        elif scheme == "CTRL":
            if not st["cq"] and st["pool"] >= ch.need:
                ctrl_grant(c, t)
            else:
                st["cq"].append(c)
        else:
            if ch.ht >= ch.need and (scheme != "MTPM" or ch.key):
                ch.ut = ch.need
                tok, key = ch.ht - ch.need, ch.key
                ch.ht, ch.key = 0, 0
                start_atomic(c, t, comp)
                forward(c, t, tok, key)
            elif not ch.key and scheme != "NOKEY" and ch.ht > 0:
                tok, ch.ht = ch.ht, 0
                forward(c, t, tok, 0)

    def dispatch(c, t):
        ch = chips[c]
        if not ch.queue or arr[ch.queue[0]] > t:
            ch.state, ch.op = READY, -1
            return
        ch.op = ch.queue.pop(0)
        ch.type, ch.step = int(types[ch.op]), 0
        k = c // device.ways_per_channel
        ch.state = XFER
        if arb:
            request(c, ch.type, t)
            return
        xs = max(t, chan_free[k])
        chan_free[k] = xs + xfer[ch.type]
        set_timer(c, xs + xfer[ch.type])

    def check():
        if scheme == "CTRL":
            if st["pool"] + sum(c.ut for c in chips) != tt:
                st["cons_err"] += 1
            return
        for r in range(n_rings):
            held = sum(chips[c].ht + chips[c].ut for c in range(r * m, (r + 1) * m))
            flying = sum(p.tok for p in packets if p.alive and p.ring == r)
            keys = sum(chips[c].key for c in range(r * m, (r + 1) * m))
            keys += sum(p.key for p in packets if p.alive and p.ring == r)
            if held + flying != tt or (scheme != "NOKEY" and keys != 1):
                st["cons_err"] += 1

    for i in range(len(ops)):
        push(int(arr[i]), 0, i)
    if scheme in RING:
        for r in range(n_rings):
            forward(r * m, 0, tt, 0 if scheme == "NOKEY" else 1)
    idle_hops = 0
    while heap:
        t, cat, idx, _, ver = heapq.heappop(heap)
        if cat == 0:
            idle_hops = 0
            c = int(ops.chip[idx])
            if chips[c].state == READY:
                dispatch(c, t)
        elif cat == 1:
            ch = chips[idx]
            if ch.timer != t or ver != ch.version:
                continue  # stale timer
            idle_hops = 0
            c = idx
            ch.timer = None
            if ch.state == XFER:
                op_issue[ch.op] = t
                begin_wait(c, t)
                attempt(c, t)
            elif ch.state == WAIT:
                attempt(c, t)
            else:
                a = ch.atom
                if scheme in ("KMTPM_SA", "CTRL") and ch.sa + 1 < len(rt[a]):
                    surplus = rt[a][ch.sa] - rt[a][ch.sa + 1]
                    ch.sa += 1
                    set_timer(c, t + sa_tok[a][ch.sa])
                    ch.ut -= surplus
                    if scheme == "CTRL":
                        if surplus:
                            ctrl_release(c, t, surplus)
                    else:
                        forward(c, t, surplus, 0)
                else:
                    ut, ch.ut = ch.ut, 0
                    ch.step += 1
                    if scheme == "CTRL":
                        ctrl_release(c, t, ut)
                    else:
                        ch.ht += ut
                    if ch.step < len(tmpl[ch.type]):
                        begin_wait(c, t)
                        attempt(c, t)
                    else:
                        op_done[ch.op] = t
                        if scheme in RING:
                            tok, key = ch.ht, ch.key
                            ch.ht, ch.key = 0, 0
                            forward(c, t, tok, key)
                        dispatch(c, t)
        elif cat == 2:
            arbitrate(idx, t)
        else:
            p = next(q for q in packets if q.alive and phase(q) == idx and q.slot * hop == t)
            c = p.ring * m + p.pos
            if absorbs(c, p):
                idle_hops = 0
                ch = chips[c]
                ch.ht += p.tok
                ch.key |= p.key
                p.alive = False
                attempt(c, t)
            else:
                p.pos, p.slot = (p.pos + 1) % m, p.slot + 1
                idle_hops += 1
                only_packets = all(h[1] == 3 for h in heap)
                finished = all(x >= 0 for x in op_done)
                if only_packets and (finished or idle_hops > 4 * m * (n + 1)):
                    continue  # nothing can change any more (done, or deadlocked): stop it
                push(p.slot * hop, 3, idx)
        if scheme not in ("NPM", "PPM", "DCC"):
            check()
        packets[:] = [p for p in packets if p.alive]
    ks = sorted(current)
    cur = np.array([current[k] for k in ks], dtype=np.int64) if ks else np.zeros(0, np.int64)
    return {
        "op_issue": np.array(op_issue, np.int64),
        "op_start": np.array(op_start, np.int64),
        "op_done": np.array(op_done, np.int64),
        "wait_ns": np.array(wait, np.int64),
        "peak_current": int(cur.max()) if len(cur) else 0,
        "violation_samples": int(np.count_nonzero(cur > pb)),
        "conservation_errors": st["cons_err"],
    }
