"""One Numba kernel for every mapping scheme of the PCM SSD (scheme id argument).

Parallel-operation accounting (the paper's ``parallel_clean_write`` /
``parallel_dirty_write``), precisely:

* The device works in lock-step rounds. A *round* is a set of page operations of one type
  (all writes or all reads) on distinct chips that start together and occupy the device
  until the slowest finishes: a write round lasts ``t_dirty`` if it holds at least one dirty
  write (a page already written since its last refresh) and is then one
  ``parallel_dirty_write``; otherwise it lasts ``t_clean`` and is one
  ``parallel_clean_write``. A read round lasts ``t_read``.
* Page operations are taken in trace order (FIFO, no reordering). The next page joins the
  open round when (a) the round has the same type, (b) its chip is not yet in the round and
  (c) the grouping rule allows it; otherwise the open round is issued and the page opens a
  new one. Grouping rules: ``queue`` -- a round is issued at
  ``max(device free, arrival of its first page)`` and a page joins only if it arrived by
  then (it was waiting in the queue); ``request`` -- only pages of the same host request
  share a round; ``stream`` -- arrival times are ignored (upper bound on parallelism).
* Hence "w 0 A0-3, 4" on an idle device is one round with page mapping (chips 0-3) and four
  rounds with block mapping (all four pages on the block's chip).

Schemes (0 static, 1 dynamic, 2 block, 3 static + full):

* static: chip ``lpn % C``, page fixed; a write is clean the first time, dirty afterwards
  (pure page schemes never refresh).
* dynamic: the first write of an LPN goes to an idle chip -- one not yet in the open round
  (round-robin from the last chip used, or the lowest) -- and is recorded in the mapping
  table; when no chip is idle a new round starts. Updates are written in place on the
  mapped chip as dirty writes ("both static and dynamic ... execute a dirty write operation
  according to its mapping information", Sec. IV.B.2).
* block: a logical block (refresh unit) is bound to chip ``block % C``; pages are written
  at their offset, clean the first time, dirty afterwards.
* static + full: first writes go to the static data page (clean). Updates go to a DRAM
  buffer of C pages; a full buffer is flushed, page i to chip i's log area, in its own
  round after the open round, counted as ``flush_rounds`` parallel clean writes: 1 (Sec.
  IV.C.1: "resulting in one parallel_clean_write") or 2 (Sec. IV.C.2.b: the flush "delays
  the response time by two parallel_clean_writes whenever the buffer is full"; the second
  is the wait for the chips still busy, kept in the histogram as a round of 0 pages).
  When every log row is used, a merge copies each valid log page to its data page (dirty
  writes; time ``t_dirty * max over chips of valid pages destined to that chip``) and
  refreshes the log units of every chip in parallel (time ``t_refresh * refresh_units``)
  -- eq. (1). Reads hit the buffer first, then the log, then the data area.

Wear counts every page write and every refresh of a page. Buffer residency is measured
on an *active clock* (``active_ns``: arrival times with long idle gaps capped by the
caller), so a week without I/O does not count as a week of data at risk.
"""

from __future__ import annotations

import numba
import numpy as np

from skftl.inlining import inlined

# counter indices
CLEAN_ROUNDS = 0  # parallel_clean_writes (includes buffer flushes)
DIRTY_ROUNDS = 1  # parallel_dirty_writes
READ_ROUNDS = 2
CLEAN_PAGES = 3  # host page writes done as clean writes in the data area
DIRTY_PAGES = 4  # host page writes done as dirty writes in the data area
BUFFERED = 5  # host page writes put in the static + full buffer
FLUSHES = 6
FLUSHED_PAGES = 7
MERGES = 8
MERGE_PAGES = 9  # valid log pages copied to the data area
MERGE_ROUNDS = 10  # sum over merges of M_valid_pages (dirty write times in eq. 1)
REFRESH_UNITS = 11  # refresh units refreshed, summed over chips
HOST_WRITES = 12
HOST_READS = 13
BUFFER_READS = 14  # reads served by the buffer
RESIDUAL = 15  # pages still in the buffer at the end of the trace
RESIDENCY_SUM = 16  # active ns, summed over buffered pages (flushed or residual at the end)
RESIDENCY_MAX = 17  # active ns, longest time a page sat in the buffer
TIMEOUT_FLUSHES = 18
DEVICE_FREE = 19  # ns, when the device finishes its last operation
BUSY_NS = 20  # ns the device was busy (rounds, merges, refreshes)
N_COUNTERS = 21
COUNTER_NAMES = (
    "clean_rounds",
    "dirty_rounds",
    "read_rounds",
    "clean_pages",
    "dirty_pages",
    "buffered",
    "flushes",
    "flushed_pages",
    "merges",
    "merge_pages",
    "merge_rounds",
    "refresh_units",
    "host_writes",
    "host_reads",
    "buffer_reads",
    "residual",
    "residency_sum_ns",
    "residency_max_ns",
    "timeout_flushes",
    "device_free_ns",
    "busy_ns",
)

# round state indices
R_MASK = 0
R_N = 1
R_NDIRTY = 2
R_TYPE = 3  # 0 none, 1 write, 2 read
R_ISSUE = 4
R_REQ = 5

WRITE = 1
READ = 2


@inlined()
def _chip(x, n_chips, mask):
    """``x % n_chips`` for non-negative ``x``; a bit mask when ``n_chips`` is a power of two
    (``mask`` >= 0), which is markedly faster than integer division in the hot loop."""
    return x & mask if mask >= 0 else x % n_chips


@numba.njit(cache=True)
def _close(rs, cnt, hist, t_clean, t_dirty, t_read):
    """Issue the open round (if any): count it and advance the device clock."""
    if rs[R_N] == 0:
        return
    if rs[R_TYPE] == WRITE:
        if rs[R_NDIRTY] > 0:
            cnt[DIRTY_ROUNDS] += 1
            dur = t_dirty
        else:
            cnt[CLEAN_ROUNDS] += 1
            dur = t_clean
        hist[rs[R_N], rs[R_NDIRTY]] += 1
    else:
        cnt[READ_ROUNDS] += 1
        dur = t_read
    cnt[DEVICE_FREE] = rs[R_ISSUE] + dur
    cnt[BUSY_NS] += dur
    rs[R_MASK] = 0
    rs[R_N] = 0
    rs[R_NDIRTY] = 0
    rs[R_TYPE] = 0


@numba.njit(cache=True)
def _joinable(rs, typ, t, r, grouping):
    """Whether a page of type ``typ`` arriving at ``t`` from request ``r`` may join the
    open round (chip conflicts are checked by the caller)."""
    if rs[R_N] == 0 or rs[R_TYPE] != typ:
        return False
    if grouping == 0:
        return t <= rs[R_ISSUE]
    if grouping == 1:
        return r == rs[R_REQ]
    return True


@numba.njit(cache=True)
def _add(rs, cnt, typ, chip, dirty, t, r):
    """Put a page operation in the open round, opening one if none is open."""
    if rs[R_N] == 0:
        rs[R_TYPE] = typ
        rs[R_ISSUE] = max(cnt[DEVICE_FREE], t)
        rs[R_REQ] = r
    rs[R_MASK] |= 1 << chip
    rs[R_N] += 1
    rs[R_NDIRTY] += dirty


@numba.njit(cache=True)
def _place(rs, cnt, hist, typ, chip, dirty, t, r, grouping, t_clean, t_dirty, t_read):
    """Page operation on a fixed chip: join the open round or issue it and open a new one."""
    if rs[R_N] > 0 and (not _joinable(rs, typ, t, r, grouping) or (rs[R_MASK] >> chip) & 1):
        _close(rs, cnt, hist, t_clean, t_dirty, t_read)
    _add(rs, cnt, typ, chip, dirty, t, r)


@numba.njit(cache=True)
def _residency(cnt, res):
    """Account how long a buffered page waited for its log write."""
    cnt[RESIDENCY_SUM] += res
    if res > cnt[RESIDENCY_MAX]:
        cnt[RESIDENCY_MAX] = res


@numba.njit(cache=True)
def _active_at(issue, i, t_ns, act):
    """Active-clock time of wall time ``issue`` while operation ``i`` is handled: past its
    arrival the device is busy (active); before it, the idle gap since operation ``i - 1``
    counts at most its capped length. ``issue >= t_ns[i - 1]`` (callers guarantee it)."""
    if issue >= t_ns[i] or i == 0:
        return act[i] + issue - t_ns[i]
    return act[i - 1] + min(issue - t_ns[i - 1], act[i] - act[i - 1])


@numba.njit(cache=True)
def _flush(k, t, i, rs, cnt, hist, log, log_row, log_rows, refresh_units, tm, clock):
    """Write the first ``k`` buffered pages to log row ``log_row`` in a round issued no
    earlier than ``t`` (while handling operation ``i``), counted as ``flush_rounds``
    parallel clean writes; merge when the log is full. Returns the next row. ``log`` holds
    the buffer and log arrays, ``tm`` the four operation times and ``flush_rounds``,
    ``clock`` the wall and active arrival times."""
    buf_lpn, buf_t, buf_a, log_lpn, log_slot, dest_valid, wear_log, wear_data = log
    t_clean, t_dirty, t_read, t_refresh, flush_rounds = tm
    t_ns, act = clock
    n_chips = dest_valid.shape[0]
    _close(rs, cnt, hist, t_clean, t_dirty, t_read)
    issue = max(cnt[DEVICE_FREE], t)
    issue_active = _active_at(issue, i, t_ns, act)
    for j in range(k):
        lpn = buf_lpn[j]
        slot = log_row * n_chips + j
        old = log_slot[lpn]
        if old >= 0:  # an older copy in the log becomes invalid
            log_lpn[old] = -1
            dest_valid[lpn % n_chips] -= 1
        log_lpn[slot] = lpn
        log_slot[lpn] = slot
        dest_valid[lpn % n_chips] += 1
        wear_log[slot] += 1
        _residency(cnt, issue_active - buf_a[j])
    cnt[CLEAN_ROUNDS] += flush_rounds
    cnt[FLUSHES] += 1
    cnt[FLUSHED_PAGES] += k
    hist[k, 0] += 1
    hist[0, 0] += flush_rounds - 1  # the wait for busy chips: a round without pages
    free = issue + flush_rounds * t_clean
    cnt[BUSY_NS] += flush_rounds * t_clean
    log_row += 1
    if log_row == log_rows:  # log full: merge (eq. 1)
        m = 0
        for c in range(n_chips):
            m = max(m, dest_valid[c])
            dest_valid[c] = 0
        for s in range(log_lpn.shape[0]):
            lpn = log_lpn[s]
            if lpn >= 0:
                wear_data[lpn] += 1
                log_slot[lpn] = -1
                log_lpn[s] = -1
                cnt[MERGE_PAGES] += 1
            wear_log[s] += 1  # refresh
        merge = m * t_dirty + refresh_units * t_refresh
        cnt[MERGES] += 1
        cnt[MERGE_ROUNDS] += m
        cnt[REFRESH_UNITS] += refresh_units * n_chips
        free += merge
        cnt[BUSY_NS] += merge
        log_row = 0
    cnt[DEVICE_FREE] = free
    return log_row


@numba.njit(cache=True)
def run_kernel(
    lpn,
    is_write,
    req,
    t_ns,
    active_ns,
    block,
    scheme,
    grouping,
    idle_pick,
    n_chips,
    prewritten,
    log_pages_per_chip,
    refresh_units,
    flush_timeout_ns,
    include_reads,
    t_clean,
    t_dirty,
    t_read,
    t_refresh,
    flush_rounds,
):
    """Simulate one page-operation stream; see the module docstring for the rules.

    ``lpn`` dense logical page numbers (``lpn % n_chips`` is the static chip), ``block``
    the dense logical block of each operation (used by the block scheme), ``req`` the host
    request of each operation, ``t_ns`` non-decreasing arrival times and ``active_ns`` the
    same on the active clock (buffer residency only); ``prewritten[p]``
    (one entry per dense page) marks pages holding data before the trace starts (e.g. an
    app's install): they count one write of wear, their next write is dirty, and dynamic
    mapping has them on their static chip (installed on an idle device). Returns
    ``(counters, wear_data, wear_log, hist)`` where ``hist[n, d]`` counts write rounds of
    ``n`` pages of which ``d`` were dirty.
    """
    cnt = np.zeros(N_COUNTERS, np.int64)
    hist = np.zeros((n_chips + 1, n_chips + 1), np.int64)
    rs = np.zeros(6, np.int64)
    n_lpn = prewritten.shape[0]
    wear_data = prewritten.astype(np.int32)
    chip_of = np.full(n_lpn if scheme == 1 else 0, -1, np.int8)
    if scheme == 1:
        for p in range(n_lpn):
            if prewritten[p]:
                chip_of[p] = p % n_chips
    full = scheme == 3
    log_rows = log_pages_per_chip if full else 0
    log_lpn = np.full(log_rows * n_chips, -1, np.int64)
    log_slot = np.full(n_lpn if full else 0, -1, np.int64)
    wear_log = np.zeros(log_rows * n_chips, np.int32)
    dest_valid = np.zeros(n_chips, np.int64)
    buf_lpn = np.zeros(n_chips, np.int64)
    buf_t = np.zeros(n_chips, np.int64)
    buf_a = np.zeros(n_chips, np.int64)  # arrivals on the active clock
    log = (buf_lpn, buf_t, buf_a, log_lpn, log_slot, dest_valid, wear_log, wear_data)
    tm = (t_clean, t_dirty, t_read, t_refresh, flush_rounds)
    clock = (t_ns, active_ns)
    buf_n = 0
    log_row = 0
    rr = 0
    all_chips = (1 << n_chips) - 1
    mask = n_chips - 1 if n_chips & (n_chips - 1) == 0 else -1
    for i in range(lpn.shape[0]):
        p = lpn[i]
        t = t_ns[i]
        r = req[i]
        if full and flush_timeout_ns > 0 and buf_n > 0 and t - buf_t[0] > flush_timeout_ns:
            t_flush = buf_t[0] + flush_timeout_ns
            log_row = _flush(
                buf_n, t_flush, i, rs, cnt, hist, log, log_row, log_rows, refresh_units, tm, clock
            )
            buf_n = 0
            cnt[TIMEOUT_FLUSHES] += 1
        if not is_write[i]:
            cnt[HOST_READS] += 1
            if not include_reads:
                continue
            if scheme == 1:
                chip = chip_of[p] if chip_of[p] >= 0 else _chip(p, n_chips, mask)
            elif scheme == 2:
                chip = _chip(block[i], n_chips, mask)
            else:
                chip = _chip(p, n_chips, mask)
                if full:
                    in_buf = False
                    for j in range(buf_n):
                        if buf_lpn[j] == p:
                            in_buf = True
                    if in_buf:
                        cnt[BUFFER_READS] += 1
                        continue
                    if log_slot[p] >= 0:
                        chip = log_slot[p] % n_chips
            _place(rs, cnt, hist, READ, chip, 0, t, r, grouping, t_clean, t_dirty, t_read)
            continue
        cnt[HOST_WRITES] += 1
        dirty = 1 if wear_data[p] > 0 else 0  # data pages are never refreshed
        if full and dirty:
            buf_lpn[buf_n] = p
            buf_t[buf_n] = t
            buf_a[buf_n] = active_ns[i]
            buf_n += 1
            cnt[BUFFERED] += 1
            if buf_n == n_chips:
                log_row = _flush(
                    buf_n, t, i, rs, cnt, hist, log, log_row, log_rows, refresh_units, tm, clock
                )
                buf_n = 0
            continue
        if scheme == 1 and chip_of[p] < 0:
            # new page: take an idle chip of the open round, else start a new round
            if rs[R_N] > 0 and (
                not _joinable(rs, WRITE, t, r, grouping) or rs[R_MASK] == all_chips
            ):
                _close(rs, cnt, hist, t_clean, t_dirty, t_read)
            start = rr if idle_pick == 0 else 0
            chip = start
            for k in range(n_chips):
                chip = (start + k) % n_chips
                if not (rs[R_MASK] >> chip) & 1:
                    break
            chip_of[p] = chip
            rr = (chip + 1) % n_chips
        elif scheme == 1:
            chip = chip_of[p]
        elif scheme == 2:
            chip = _chip(block[i], n_chips, mask)
        else:
            chip = _chip(p, n_chips, mask)
        _place(rs, cnt, hist, WRITE, chip, dirty, t, r, grouping, t_clean, t_dirty, t_read)
        wear_data[p] += 1
        if dirty:
            cnt[DIRTY_PAGES] += 1
        else:
            cnt[CLEAN_PAGES] += 1
    _close(rs, cnt, hist, t_clean, t_dirty, t_read)
    cnt[RESIDUAL] = buf_n
    if lpn.shape[0] > 0:
        end = active_ns[lpn.shape[0] - 1]
        for j in range(buf_n):
            _residency(cnt, end - buf_a[j])
    return cnt, wear_data, wear_log, hist
