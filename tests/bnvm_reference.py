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
    prewritten=(),
):
    c = Counter()
    hist = Counter()
    written = set(prewritten)  # pages holding data before the trace (e.g. an install)
    wear = Counter({p: 1 for p in written})
    chip_of = {p: p % n_chips for p in written} if scheme == 1 else {}
    log = {}  # slot -> lpn (valid copies only)
    where = {}  # lpn -> log slot
    wear_log = Counter()
    buf = []  # (lpn, arrival)
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

    def flush(t):
        close()
        issue = max(state["free"], t)
        for i, (p, arrived) in enumerate(buf):
            if p in where:
                del log[where[p]]
            slot = state["row"] * n_chips + i
            log[slot], where[p] = p, slot
            wear_log[slot] += 1
            c["residency_sum_ns"] += issue - arrived
            c["residency_max_ns"] = max(c["residency_max_ns"], issue - arrived)
        c["clean_rounds"] += 1
        c["flushes"] += 1
        c["flushed_pages"] += len(buf)
        hist[(len(buf), 0)] += 1
        free = issue + t_clean
        c["busy_ns"] += t_clean
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
    for p, w, r, t, b in zip(lpn, is_write, req, t_ns, block, strict=True):
        if full and flush_timeout_ns > 0 and buf and t - buf[0][1] > flush_timeout_ns:
            flush(buf[0][1] + flush_timeout_ns)
            c["timeout_flushes"] += 1
        if not w:
            c["host_reads"] += 1
            if not include_reads:
                continue
            chip = {1: chip_of.get(p, p % n_chips), 2: b % n_chips}.get(scheme, p % n_chips)
            if full:
                if any(q == p for q, _ in buf):
                    c["buffer_reads"] += 1
                    continue
                if p in where:
                    chip = where[p] % n_chips
            place("r", chip, 0, t, r)
            continue
        c["host_writes"] += 1
        dirty = int(p in written)
        if full and dirty:
            buf.append((p, t))
            c["buffered"] += 1
            if len(buf) == n_chips:
                flush(t)
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
    for _, arrived in buf:
        c["residency_sum_ns"] += t_ns[-1] - arrived
        c["residency_max_ns"] = max(c["residency_max_ns"], t_ns[-1] - arrived)
    c["device_free_ns"] = state["free"]
    return c, wear, wear_log, hist
