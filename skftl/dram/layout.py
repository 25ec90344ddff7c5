"""Where the LPMT sets and the block tables live in the DRAM banks (the placements).

DRAM geometry: one x8 DDR4 device, a BL8 burst carries 8 bytes, which holds one
42-bit LPMT entry (20-bit LA + 20-bit PA + valid + single, Table II) or one BT entry;
one read = one entry. A row (page) of the MT40A512M8 is 1 KB = 128 entries.

A *set* of ``assoc`` ways is cut into ``k`` chunks of ``wpb = assoc / k`` ways; chunk
j goes to bank ``(base + j) mod n_banks``, all chunks of set g at the same offset in
their bank, the ways of a chunk in consecutive columns of one row. Which ways form a
chunk is the layout: *spread* puts consecutive ways together (chunk j = ways j*wpb ..
j*wpb + wpb - 1, read chunk by chunk), *interleaved* deals the ways out one per bank
(chunk j = ways j, j + k, j + 2k, ..., so way w is in bank ``(base + w) mod n_banks``
with k = n_banks) and reads them in passes: one way from every bank of the set, then
the next. The placements:

* ``single``: one bank (``n_banks = 1``); a set is 8 consecutive entries of a row.
* ``set_per_bank``: the paper's "4 banks fixed order" as Table VI's text defines it
  ("each set is mapped to one of the four banks in turn"): ``k = 1``, set g entirely
  in bank ``g mod n_banks``.
* ``interleaved``: the paper's dynamic scheme (Sec. 2.2: "we distribute each set over
  the four banks"; Fig. 7: "the four banks are accessed in the order of
  access_{t-3} .. access_t"): ways interleaved over ``k = gcd(assoc, n_banks)`` banks,
  each pass reads the set's banks least recently read first. ``base`` rotates with the
  set (set g starts in bank g mod 4), so consecutive lookups meet the banks in
  different orders - which is what Fig. 7 reorders.
* ``interleaved_fixed``: the same layout read way 0, 1, 2, ... (no Fig. 7): isolates
  what the reordering itself gains.
* ``spread_fixed`` / ``spread_dynamic``: a set spread over the 4 banks with 2
  *consecutive* ways per bank, read bank by bank in order 0..3 / in Fig. 7's order
  (this study's earlier reading). Every set then starts in bank 0 and a full probe
  leaves the recency order 0, 1, 2, 3, so Fig. 7 changes nothing without block-table
  reads in between: the two differ only there.

Secondary sets follow the primary ones in the same mapping (global set id). Block
tables follow the LPMT region: the BT of flash block B (``pages_per_block`` entries) is
in bank ``B mod n_banks``, so a file's consecutive pages are row hits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from skftl.dram.state import inline
from skftl.dram.timing import B_STRIDE
from skftl.errors import ConfigError

PLACEMENTS = (
    "single",
    "set_per_bank",
    "interleaved",
    "interleaved_fixed",
    "spread_fixed",
    "spread_dynamic",
)
DYNAMIC = ("interleaved", "spread_dynamic")  # read in Fig. 7's order
INTERLEAVED = ("interleaved", "interleaved_fixed")

# indices into the int64 layout vector
LP_NB, LP_K, LP_WPB, LP_EPR, LP_DYNAMIC, LP_BT_ROW_BASE, LP_PPB = range(7)
LP_NB_SHIFT, LP_EPR_SHIFT, LP_PPB_SHIFT = range(7, 10)  # log2 of a power of two, else -1
LP_INTERLEAVED = 10
LP_LEN = 11


def log2_or_minus1(n: int) -> int:
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else -1


@dataclass(frozen=True)
class Layout:
    placement: str
    n_banks: int
    banks_per_set: int
    ways_per_bank: int
    entries_per_row: int
    dynamic: bool
    bt_row_base: int
    pages_per_block: int
    interleaved: bool = False

    @classmethod
    def build(
        cls,
        placement: str,
        n_banks: int,
        assoc: int,
        n_sets_total: int,
        pages_per_block: int,
        row_bytes: int = 1024,
        entry_bytes: int = 8,
    ) -> Layout:
        if placement not in PLACEMENTS:
            raise ConfigError(f"placement must be one of {PLACEMENTS}, got {placement!r}")
        if n_banks < 1 or assoc < 1 or row_bytes < entry_bytes:
            raise ConfigError(
                f"bad DRAM geometry: n_banks={n_banks}, assoc={assoc}, row={row_bytes}"
            )
        nb = 1 if placement == "single" else n_banks
        k = 1 if placement in ("single", "set_per_bank") else math.gcd(assoc, nb)
        wpb = assoc // k
        epr = row_bytes // entry_bytes
        if epr % wpb:
            raise ConfigError(f"{wpb} ways per bank do not tile a row of {epr} entries")
        sets_per_bank = -(-n_sets_total * k // nb)
        bt_row_base = -(-sets_per_bank * wpb // epr)
        return cls(placement, nb, k, wpb, epr, placement in DYNAMIC, bt_row_base,
                   pages_per_block, placement in INTERLEAVED)  # fmt: skip

    def params(self) -> np.ndarray:
        lp = np.zeros(LP_LEN, dtype=np.int64)
        lp[LP_NB], lp[LP_K], lp[LP_WPB] = self.n_banks, self.banks_per_set, self.ways_per_bank
        lp[LP_EPR], lp[LP_DYNAMIC] = self.entries_per_row, int(self.dynamic)
        lp[LP_BT_ROW_BASE], lp[LP_PPB] = self.bt_row_base, self.pages_per_block
        lp[LP_NB_SHIFT] = log2_or_minus1(self.n_banks)
        lp[LP_EPR_SHIFT] = log2_or_minus1(self.entries_per_row)
        lp[LP_PPB_SHIFT] = log2_or_minus1(self.pages_per_block)
        lp[LP_INTERLEAVED] = int(self.interleaved)
        return lp


@inline
def layout_tuple(a):
    """The layout vector as a tuple (see timing.params_tuple)."""
    return (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10])


@inline
def with_shape(lp, n_banks, nb_shift, k, wpb, dynamic, interleaved):
    """``lp`` (a layout tuple) with the set's shape replaced (``nb_shift``: log2_or_minus1
    of ``n_banks``): a kernel compiled for one placement passes constants, which then
    fold into every layout function below."""
    return (n_banks, k, wpb, lp[LP_EPR], dynamic, lp[LP_BT_ROW_BASE], lp[LP_PPB], nb_shift,
            lp[LP_EPR_SHIFT], lp[LP_PPB_SHIFT], interleaved)  # fmt: skip


@inline
def _divmod(x, d, shift):
    """(x // d, x % d) for x >= 0; shifts when d = 2**shift (hardware divides are slow)."""
    if shift >= 0:
        return x >> shift, x & (d - 1)
    return x // d, x % d


@inline
def set_address(g, lp):
    """(bank of chunk 0, row) of set g; chunk j is in bank ``chunk_bank(base, j, lp)``,
    same row (all chunks of a set sit at the same offset in their banks). Interleaved:
    the sets of one slot are rotated by the slot, so set g starts in bank g mod n_banks
    when a set spans every bank (a cyclic shift keeps the slot's sets apart)."""
    k = lp[LP_K]
    slot, base = _divmod(g * k, lp[LP_NB], lp[LP_NB_SHIFT])  # slot: the set's index in a bank
    if lp[LP_INTERLEAVED] != 0:
        base = _divmod(base + slot, lp[LP_NB], lp[LP_NB_SHIFT])[1]
    return base, _divmod(slot * lp[LP_WPB], lp[LP_EPR], lp[LP_EPR_SHIFT])[0]


@inline
def chunk_bank(base, j, lp):
    """Bank of chunk j of a set whose chunk 0 is in bank ``base``: (base + j) mod
    n_banks, with j < k <= n_banks."""
    b = base + j
    return b - lp[LP_NB] if b >= lp[LP_NB] else b


@inline
def bt_address(page, lp):
    """(bank, row) of the block-table entry of physical page ``page``."""
    block, offset = _divmod(page, lp[LP_PPB], lp[LP_PPB_SHIFT])
    bt_slot, bank = _divmod(block, lp[LP_NB], lp[LP_NB_SHIFT])
    idx = bt_slot * lp[LP_PPB] + offset
    return bank, lp[LP_BT_ROW_BASE] + _divmod(idx, lp[LP_EPR], lp[LP_EPR_SHIFT])[0]


@inline
def chunk_order(base, lp, banks, recency_col, order):
    """Fill ``order[:k]`` with the chunk indices of a set (chunk 0 in bank ``base``) in
    read order: 0..k-1 (fixed), or by the recency of their banks, least recent first
    (Fig. 7); ``banks[bank * B_STRIDE + recency_col]`` holds it (larger = more recent)."""
    k = lp[LP_K]
    for j in range(k):
        order[j] = j
    if lp[LP_DYNAMIC] == 0:
        return
    for a in range(1, k):  # insertion sort on the banks' last-access stamps
        j = order[a]
        key = banks[chunk_bank(base, j, lp) * B_STRIDE + recency_col]
        b = a - 1
        while b >= 0 and banks[chunk_bank(base, order[b], lp) * B_STRIDE + recency_col] > key:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = j
