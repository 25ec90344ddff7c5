"""The naive fast/slow split of PPB's Fig. 3 (Chen et al., DAC'17) as an allocation policy:
one area, the first-stage class decides the page speed (hot -> the fast virtual block,
cold -> the slow one) in the same blocks. PPB's virtual-block machinery
(``skftl.nand.policies_ppb``); the hooks' contract: ``skftl.nand.hooks``. Its state is PPB's
(``policies_ppb.attach``)."""

from __future__ import annotations

from skftl.nand.core import inline
from skftl.nand.policies_ppb import H_K, set_level, vb_select
from skftl.nand.policies_ppb import gc_stream as gc_stream  # GC copies keep the write's level
from skftl.nand.policies_ppb import prefetch as prefetch

NAME = "ppb_split"


@inline
def write_stream(S, lpn, given):
    """The first-stage class decides: hot -> fast (1), cold -> slow (0)."""
    lv = 1 if given != 0 else 0
    set_level(S, lpn, lv)
    return lv


@inline
def select_block(S, chip, stream, lpn, old_ppn, is_gc):
    want = S.pstate[H_K] - 1 if stream & 1 else 0
    return vb_select(S, chip, 0, want, -1)
