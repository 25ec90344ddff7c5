"""Pure-Python reference of skftl.pcm.kernel: the same rules, written for reading, with
Python sets and dicts. Used only by the tests."""

from __future__ import annotations

from collections import Counter


def reference(
    lpn,
    is_write,
    req,
    t_ns,
    block,
    scheme,
    grouping,
    idle_pick,
    n_chips,
    log_pages_per_chip,
    refresh_units,
    flush_timeout_ns,
    include_reads,
    t_clean,
    t_dirty,
    t_read,
    t_refresh,
    flush_rounds=1,
    active_ns=None,
    prewritten=(),
):
    act = list(t_ns) if active_ns is None else list(active_ns)  # the active clock
    c = Counter()
    hist = Counter()
    written = set(prewritten)  # pages holding data before the trace (e.g. an install)
    wear = Counter({p: 1 for p in written})
    chip_of = {p: p % n_chips for p in written} if scheme == 1 else {}
    log = {}  # slot -> lpn (valid copies only)
    where = {}  # lpn -> log slot
    wear_log = Counter()
    buf = []  # (lpn, arrival, arrival on the active clock)
    state = {"row": 0, "free": 0, "rr": 0}
    rnd = {"chips": set(), "dirty": 0, "type": None, "issue": 0, "req": -1}

    def close():
        if not rnd["chips"]:
            return
        if rnd["type"] == "w":
            dur = t_dirty if rnd["dirty"] else t_clean
            c["dirty_rounds" if rnd["dirty"] else "clean_rounds"] += 1
            hist[(len(rnd["chips"]), rnd["dirty"])] += 1
        else:
            dur = t_read
            c["read_rounds"] += 1
        state["free"] = rnd["issue"] + dur
        c["busy_ns"] += dur
        rnd.update(chips=set(), dirty=0, type=None)

    def joinable(typ, t, r):
        if not rnd["chips"] or rnd["type"] != typ:
            return False
        return {0: t <= rnd["issue"], 1: r == rnd["req"], 2: True}[grouping]

    def add(typ, chip, dirty, t, r):
        if not rnd["chips"]:
            rnd.update(type=typ, issue=max(state["free"], t), req=r)
        rnd["chips"].add(chip)
        rnd["dirty"] += dirty

    def place(typ, chip, dirty, t, r):
        if rnd["chips"] and (not joinable(typ, t, r) or chip in rnd["chips"]):
            close()
        add(typ, chip, dirty, t, r)

    def active(issue, i):
        # past op i's arrival the device is busy: active; before it, the capped idle gap
        if i == 0 or issue >= t_ns[i]:
            return act[i] + issue - t_ns[i]
        return act[i - 1] + min(issue - t_ns[i - 1], act[i] - act[i - 1])

    def flush(t, i):
        close()
        issue = max(state["free"], t)
        issue_active = active(issue, i)
        for k, (p, _, arrived) in enumerate(buf):
            if p in where:
                del log[where[p]]
            slot = state["row"] * n_chips + k
            log[slot], where[p] = p, slot
            wear_log[slot] += 1
            c["residency_sum_ns"] += issue_active - arrived
            c["residency_max_ns"] = max(c["residency_max_ns"], issue_active - arrived)
        c["clean_rounds"] += flush_rounds
        c["flushes"] += 1
        c["flushed_pages"] += len(buf)
        hist[(len(buf), 0)] += 1
        if flush_rounds > 1:
            hist[(0, 0)] += flush_rounds - 1
        free = issue + flush_rounds * t_clean
        c["busy_ns"] += flush_rounds * t_clean
        buf.clear()
        state["row"] += 1
        if state["row"] == log_pages_per_chip:
            per_chip = Counter(p % n_chips for p in log.values())
            m = max(per_chip.values(), default=0)
            for p in log.values():
                wear[p] += 1
            c["merge_pages"] += len(log)
            log.clear()
            where.clear()
            for s in range(log_pages_per_chip * n_chips):
                wear_log[s] += 1
            c["merges"] += 1
            c["merge_rounds"] += m
            c["refresh_units"] += refresh_units * n_chips
            free += m * t_dirty + refresh_units * t_refresh
            c["busy_ns"] += m * t_dirty + refresh_units * t_refresh
            state["row"] = 0
        state["free"] = free

    full = scheme == 3
    for i, (p, w, r, t, b) in enumerate(zip(lpn, is_write, req, t_ns, block, strict=True)):
        if full and flush_timeout_ns > 0 and buf and t - buf[0][1] > flush_timeout_ns:
            flush(buf[0][1] + flush_timeout_ns, i)
            c["timeout_flushes"] += 1
        if not w:
            c["host_reads"] += 1
            if not include_reads:
                continue
            chip = {1: chip_of.get(p, p % n_chips), 2: b % n_chips}.get(scheme, p % n_chips)
            if full:
                if any(q == p for q, _, _ in buf):
                    c["buffer_reads"] += 1
                    continue
                if p in where:
                    chip = where[p] % n_chips
            place("r", chip, 0, t, r)
            continue
        c["host_writes"] += 1
        dirty = int(p in written)
        if full and dirty:
            buf.append((p, t, act[i]))
            c["buffered"] += 1
            if len(buf) == n_chips:
                flush(t, i)
            continue
        if scheme == 1:
            if p not in chip_of:
                if rnd["chips"] and (not joinable("w", t, r) or len(rnd["chips"]) == n_chips):
                    close()
                start = state["rr"] if idle_pick == 0 else 0
                order = [(start + k) % n_chips for k in range(n_chips)]
                chip_of[p] = next(x for x in order if x not in rnd["chips"])
                state["rr"] = (chip_of[p] + 1) % n_chips
            chip = chip_of[p]
        elif scheme == 2:
            chip = b % n_chips
        else:
            chip = p % n_chips
        place("w", chip, dirty, t, r)
        written.add(p)
        wear[p] += 1
        c["dirty_pages" if dirty else "clean_pages"] += 1
    close()
    c["residual"] = len(buf)
    for _, _, arrived in buf:
        c["residency_sum_ns"] += act[-1] - arrived
        c["residency_max_ns"] = max(c["residency_max_ns"], act[-1] - arrived)
    c["device_free_ns"] = state["free"]
    return c, wear, wear_log, hist
