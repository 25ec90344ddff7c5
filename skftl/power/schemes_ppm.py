"""PPM: one chip at a time may be in the pre-charge zone (the first sub-atomic operation of
program execution, ``A_PPZ``); every other atomic operation starts at once. The zone is a lock
held until ``STAT_PPM_UNTIL``; a chip that finds it taken retries when it frees. Hooks as in
``skftl.power.hooks``."""

from __future__ import annotations

from skftl.power.chip import chain, start_atomic
from skftl.power.state import (
    A_PPZ,
    CHIP_ATOMIC,
    STAT_PPM_UNTIL,
    TMPL_ATOM,
    TMPL_LEN,
    TMPL_OFF,
    inline,
    lookup,
)


@inline
def attempt(S, c, t):
    ppz = lookup(S, A_PPZ, S.chip[c, CHIP_ATOMIC])
    if ppz == 0 or t >= S.stats[STAT_PPM_UNTIL]:
        if ppz > 0:
            S.stats[STAT_PPM_UNTIL] = t + ppz
        start_atomic(S, c, t, 0, False)
        chain(S, c, 0, True)  # up to the next pre-charge
    else:
        S.event_time[c] = S.stats[STAT_PPM_UNTIL]


def undecided_types(arrays: tuple) -> int:
    """Reads and erases: no pre-charge to wait for."""
    ppz, atoms, first, count = arrays[A_PPZ], arrays[TMPL_ATOM], arrays[TMPL_OFF], arrays[TMPL_LEN]
    bits = 0
    for ty in range(len(count)):
        if not any(ppz[atoms[first[ty] + i]] > 0 for i in range(count[ty])):
            bits |= 1 << ty
    return bits
