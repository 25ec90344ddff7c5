"""The 40 ns current summed over chips, after the run, from each chip's log of atomic starts
(``kernel.simulate`` writes it; no scheme reads the current, so it is not accounted while the
events run): its peak, the samples above the budget and, optionally, the maximum of every bin
of samples."""

from __future__ import annotations

import numpy as np
from numba import njit

from skftl.power.state import (
    A_CP_LEN,
    A_CP_OFF,
    CP_D,
    CP_K,
    INF,
    S_NS,
    STAT_FINAL_CURRENT,
    STAT_FLUSHED_SAMPLES,
    STAT_LAST_SAMPLE,
    STAT_PEAK_CURRENT,
    STAT_VIOLATION_SAMPLES,
    ceil_div,
    inline,
    lowest_bit,
    unsigned,
)


@inline
def _stretch(k0, k1, cur, budget, bin_samples, series):
    """Samples ``k0 .. k1 - 1`` all carry the current ``cur``: raise the recorded bins'
    maxima; returns how many of the samples are above the budget."""
    if bin_samples > 0 and cur > 0 and k1 > k0:
        for bi in range(k0 // bin_samples, min((k1 - 1) // bin_samples + 1, len(series))):
            if cur > series[bi]:
                series[bi] = cur
    return k1 - k0 if cur > budget else 0


CP_BITS = 32  # a prepared log entry packs its first and end change point in one word


@njit(cache=True, _nrt=False)
def _prepare_log(log, i0, i1, tables, table_start):
    """Rewrite one chip's log entries ``i0 .. i1 - 1`` in place as the fill reads them: first
    sample (ceil(start / 40 ns)), first change point | end change point << CP_BITS; entries
    whose current never changes are dropped. Returns the new end. The entries are
    independent, so this loop pipelines; the fill's switch to the next entry (30 per
    operation under the ring schemes, one per atomic operation) is then two loads instead of
    a chain of look-ups."""
    cp_off = table_start[A_CP_OFF]
    cp_len = table_start[A_CP_LEN]
    w = i0
    for i in range(i0, i1):
        a = log[unsigned(i), 1]
        j = tables[unsigned(cp_off + a)]
        n_cp = tables[unsigned(cp_len + a)]
        log[unsigned(w), 0] = ceil_div(log[unsigned(i), 0], S_NS)
        log[unsigned(w), 1] = j | ((j + n_cp) << CP_BITS)
        if n_cp > 0:
            w += 1
    return w


@inline
def _entry(i, i_end, log):
    """Prepared log entry ``i``: (first sample, first and end change point); first sample
    INF past the end."""
    if i >= i_end:
        return INF, 0, 0
    v = log[unsigned(i), 1]
    return log[unsigned(i), 0], v & ((np.int64(1) << CP_BITS) - 1), v >> CP_BITS


@njit(cache=True)
def account_current(
    log, log_first, log_end, tables, table_start, budget, bin_samples, series, stats
):
    """The 40 ns current summed over chips, from the logs of atomic starts ``simulate``
    wrote: peak, samples above ``budget``, and (``bin_samples`` > 0) the maximum of every bin of
    ``bin_samples`` samples in ``series``. An atomic operation starting at ``ts`` covers the samples
    from ceil(ts / 40 ns) on. Each chip's log is in time order, so its change points come
    sorted; blocks of ``block`` samples are filled from every chip's stream in turn (a tight
    loop over local variables) into a small difference array with one bit per changing
    sample, then swept, a stretch of constant current in one step. Rewrites ``log``
    (``_prepare_log``)."""
    n = len(log_end)
    block = 8192
    diff = np.zeros(block, np.int64)
    bits = np.zeros(block // 64, np.int64)
    # per chip: log entry, first sample of the atomic, change point and its end, next change
    li = np.empty(n, np.int64)
    le = np.empty(n, np.int64)
    kb = np.empty(n, np.int64)
    j = np.empty(n, np.int64)
    je = np.empty(n, np.int64)
    nk = np.empty(n, np.int64)
    cpk = table_start[CP_K]
    cpd = table_start[CP_D]
    k_lo = INF
    for c in range(n):
        li[c] = log_first[c]
        le[c] = _prepare_log(log, log_first[c], log_end[c], tables, table_start)
        kb[c], j[c], je[c] = _entry(li[c], le[c], log)
        nk[c] = kb[c] + tables[cpk + j[c]] if kb[c] < INF else INF
        k_lo = min(k_lo, nk[c])
    viol = 0
    cur = 0
    peak = 0
    pos = 0  # samples before ``pos`` are accounted
    while k_lo < INF:
        viol += _stretch(pos, k_lo, cur, budget, bin_samples, series)
        pos = k_lo
        k_hi = k_lo + block
        k_next = INF
        for c in range(n):
            nkc = nk[c]
            if nkc >= k_hi:
                k_next = min(k_next, nkc)
                continue
            i, i_end, kbc, jc, jend = li[c], le[c], kb[c], j[c], je[c]
            while nkc < k_hi:
                x = nkc - k_lo
                diff[unsigned(x)] += tables[unsigned(cpd + jc)]
                bits[unsigned(x >> 6)] |= np.int64(1) << (x & 63)
                jc += 1
                if jc == jend:
                    i += 1
                    kbc, jc, jend = _entry(i, i_end, log)
                    if kbc == INF:
                        nkc = INF
                        break
                nkc = kbc + tables[unsigned(cpk + jc)]
            li[c], kb[c], j[c], je[c], nk[c] = i, kbc, jc, jend, nkc
            k_next = min(k_next, nkc)
        for w in range(block // 64):
            b = bits[w]
            if b == 0:
                continue
            bits[w] = 0
            while b != 0:
                x = (w << 6) + lowest_bit(b)
                b &= b - 1
                kk = k_lo + x
                viol += _stretch(pos, kk, cur, budget, bin_samples, series)
                cur += diff[unsigned(x)]
                diff[unsigned(x)] = 0
                if cur > peak:
                    peak = cur
                pos = kk
        k_lo = k_next
    stats[STAT_FLUSHED_SAMPLES] = pos + 1
    stats[STAT_LAST_SAMPLE] = pos
    stats[STAT_FINAL_CURRENT] = cur
    stats[STAT_PEAK_CURRENT] = peak
    stats[STAT_VIOLATION_SAMPLES] = viol
