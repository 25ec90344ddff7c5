"""The SK-RM cost model of L2P entry updates: one Numba pass over (lpn, old_ppn, new_ppn).

State (structure of arrays):

* ``cnt[lpn]`` (uint8): skyrmions physically in the entry's interport segment. A valid
  entry holds ``popcount(ppn)``. What a free entry (never written or trimmed) holds
  depends on the scheme: without buffering a trimmed entry keeps its old skyrmions (they
  are garbage, reused by the next permutation write of that entry); with active SK
  buffering they join the racetrack's pool and ``cnt`` is 0.
* ``buf[track, 0]`` / ``buf[track, 1]`` (int32): skyrmions parked in the free entries of a
  racetrack, and the capacity of those entries (``W`` per free entry). Parked skyrmions
  are only counted per racetrack: which free segment holds them changes no count in our
  model, because a horizontal move within the racetrack rides on the entry's own
  shift-out / shift-back (see ``skftl.skrm.model`` for the conventions).

Updates with ``new < 0`` are trims. ``ctr`` accumulates the ``C_*`` counters below.
"""

from __future__ import annotations

import numba
import numpy as np

from skftl.inlining import inlined

# one popcount and one nearest-first search order for the allocator and the cost model (inlined)
from skftl.nand import policies_skftl
from skftl.nand.policies_skftl import nearest, popcount
from skftl.numba_cache import drop_stale_cache

drop_stale_cache(__file__, policies_skftl.__file__)

# --- parameters prm[Q_*] ---------------------------------------------------------------
Q_W = 0  # bits per entry (interport distance)
Q_K = 1  # entries per racetrack
Q_SCHEME = 2  # S_NAIVE | S_PW | S_SK
Q_CONV = 3  # CONV_PAPER | CONV_SKRMSIM
Q_BUFFER = 4  # 1: active SK buffering (SK-FTL only)
Q_REACH = 5  # racetracks above/below usable as buffer (0: same racetrack only)
Q_VCOST = 6  # VCOST_PER_MOVE | VCOST_PER_SKYRMION
Q_BASE_SHIFT = 7  # shifts of one entry write (paper convention; SK-RMSim uses 2W / 2W+2)
Q_NTRACKS = 8
Q_STACK = 9  # racetracks per vertical stack (vertical moves stay inside); 0 = one stack
N_Q = 10

S_NAIVE = 0
S_PW = 1
S_SK = 2
CONV_PAPER = 0
CONV_SKRMSIM = 1
VCOST_PER_MOVE = 0  # moving N racetracks costs N shifts per move (the paper's wording)
VCOST_PER_SKYRMION = 1  # ... N shifts per skyrmion moved (one skyrmion at a time)

# --- counters ctr[K_*] -------------------------------------------------------------------
K_UPDATES = 0  # entry writes (trims excluded)
K_TRIMS = 1
K_INJECT = 2
K_REMOVE = 3
K_DETECT = 4
K_SHIFT = 5  # all explicit shifts, vertical included
K_VSHIFT = 6  # of which vertical
K_REUSED = 7  # skyrmions taken from the pool instead of injected
K_PARKED = 8  # skyrmions put into the pool instead of removed
K_SUCCESSIVE = 9  # updates of an entry that held a valid mapping
K_BITDIFF = 10  # sum |pop(new) - pop(old)| over successive updates
K_HAMMING = 11  # sum pop(new ^ old) over successive updates
K_INJECT_FIRST = 12  # of K_INJECT, injected by first writes of free entries
N_K = 13
COUNTER_NAMES = (
    "updates",
    "trims",
    "inject",
    "remove",
    "detect",
    "shift",
    "vshift",
    "reused",
    "parked",
    "successive",
    "bitdiff",
    "hamming",
    "inject_first",
)

njit = numba.njit(cache=True)
inline = inlined()


@inline
def _vcost(prm, dist, n):
    if prm[Q_VCOST] == VCOST_PER_SKYRMION:
        return dist * n
    return dist


@inline
def _count_vshift(prm, ctr, t, u, m):
    """Account moving ``m`` skyrmions vertically between racetracks ``u`` and ``t``."""
    if u != t:
        s = _vcost(prm, abs(u - t), m)
        ctr[K_SHIFT] += s
        ctr[K_VSHIFT] += s


@inline
def _reachable(prm, t, u):
    """Racetrack ``u`` exists and shares ``t``'s vertical stack."""
    if u < 0 or u >= prm[Q_NTRACKS]:
        return False
    st = prm[Q_STACK]
    return st == 0 or u // st == t // st


@inline
def _take(prm, buf, ctr, t, need):
    """Reuse up to ``need`` parked skyrmions, nearest racetrack first; returns how many are
    still missing (they are injected)."""
    for k in range(2 * prm[Q_REACH] + 1):
        if need == 0:
            break
        u = nearest(t, k)
        if not _reachable(prm, t, u) or buf[u, 0] == 0:
            continue
        m = min(buf[u, 0], need)
        buf[u, 0] -= m
        need -= m
        ctr[K_REUSED] += m
        _count_vshift(prm, ctr, t, u, m)
    return need


@inline
def _park(prm, buf, ctr, t, extra):
    """Park up to ``extra`` surplus skyrmions in free entries, nearest racetrack first;
    returns how many found no room (they are removed)."""
    for k in range(2 * prm[Q_REACH] + 1):
        if extra == 0:
            break
        u = nearest(t, k)
        if not _reachable(prm, t, u) or buf[u, 1] <= buf[u, 0]:
            continue
        m = min(buf[u, 1] - buf[u, 0], extra)
        buf[u, 0] += m
        extra -= m
        ctr[K_PARKED] += m
        _count_vshift(prm, ctr, t, u, m)
    return extra


@njit
def apply_updates(prm, cnt, buf, ctr, lpn, old, new):
    """Account the entry updates ``(lpn[i], old[i], new[i])`` in order. Returns -1, or
    the index of the first update whose entry lies outside the table or whose address
    does not fit ``W`` bits (nothing from it on is accounted)."""
    W = prm[Q_W]
    K = prm[Q_K]
    n_entries = len(cnt)
    scheme = prm[Q_SCHEME]
    skrmsim = prm[Q_CONV] == CONV_SKRMSIM
    buffering = scheme == S_SK and prm[Q_BUFFER] != 0
    base = prm[Q_BASE_SHIFT]
    # racetrack of an entry: a shift instead of a 64-bit division when K is a power of 2
    k_shift = -1
    if K & (K - 1) == 0:
        k_shift = 0
        while (1 << k_shift) < K:
            k_shift += 1
    for i in range(len(lpn)):
        e = lpn[i]
        o = old[i]
        n = new[i]
        if e < 0 or e >= n_entries or (n >> W) > 0 or (o >> W) > 0:
            return i
        t = e >> k_shift if k_shift >= 0 else e // K
        if n < 0:
            ctr[K_TRIMS] += 1
            if buffering and o >= 0:
                # the entry becomes free: its skyrmions are parked where they are
                buf[t, 0] += cnt[e]
                buf[t, 1] += W
                cnt[e] = 0
            continue
        ctr[K_UPDATES] += 1
        pn = popcount(n)
        if o >= 0:
            po = popcount(o)
            ctr[K_SUCCESSIVE] += 1
            ctr[K_BITDIFF] += abs(pn - po)
            ctr[K_HAMMING] += popcount(n ^ o)
        c = np.int64(cnt[e])
        injected_before = ctr[K_INJECT]
        if scheme == S_NAIVE:
            # remove every skyrmion of the segment, inject one per 1-bit, no detect
            ctr[K_REMOVE] += W if skrmsim else c
            ctr[K_INJECT] += pn
            ctr[K_SHIFT] += 2 * W if skrmsim else base
        else:
            # permutation write: detect the segment, keep its skyrmions, fix the count
            ctr[K_DETECT] += W
            ctr[K_SHIFT] += 2 * W + 2 if skrmsim else base
            need = pn - c
            if buffering:
                if o < 0:
                    buf[t, 1] -= W  # a free entry is taken: it no longer buffers
                if need > 0:
                    if buf[t, 0] >= need:  # common case: the own racetrack has enough
                        buf[t, 0] -= need
                        ctr[K_REUSED] += need
                    else:
                        ctr[K_INJECT] += _take(prm, buf, ctr, t, need)
                elif need < 0:
                    if buf[t, 1] - buf[t, 0] >= -need:
                        buf[t, 0] -= need
                        ctr[K_PARKED] -= need
                    else:
                        ctr[K_REMOVE] += _park(prm, buf, ctr, t, -need)
                if buf[t, 0] > buf[t, 1]:
                    # the taken entry held parked skyrmions beyond what the remaining free
                    # entries of its racetrack can hold: move them away or remove them
                    over = buf[t, 0] - buf[t, 1]
                    buf[t, 0] = buf[t, 1]
                    ctr[K_REMOVE] += _park(prm, buf, ctr, t, over)
            elif need > 0:
                ctr[K_INJECT] += need
            else:
                ctr[K_REMOVE] -= need
        if o < 0:
            ctr[K_INJECT_FIRST] += ctr[K_INJECT] - injected_before
        cnt[e] = pn
    return -1
