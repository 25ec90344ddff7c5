"""DRAM bank timing for the LPMT study: the paper's latency rule (Fig. 6 / Table V) and
a stricter DDR4 command-level model, both over one stream of (bank, row) reads.

**Part and clock.** The paper cites Micron's MT40A512M8 (4 Gb, x8, 16 banks in 4 bank
groups, 1 KB rows) and gives Table I in cycles: RCD 9, CL 9, RTP 5, CCD 4, RP 9, DL 4.
These are exactly the MT40A512M8-083E (DDR4-2400, 16-16-16, tAA = tRCD = tRP =
13.32 ns) run at tCK = 1.5 ns (667 MHz, 1333 MT/s): its speed-bin table lists CL 9
as supported for tCK 1.5-1.9 ns, 9 x 1.5 ns = 13.5 ns >= 13.32 ns, tRTP = max(4 nCK,
7.5 ns) = 5 nCK, tCCD_S = 4 nCK and DL = BL8 / 2 = 4 nCK. So the default clock is
tCK = 1.5 ns; it is a parameter (``tck_ns``), and the strict model's ns-specified
limits are converted with it.

**Paper model** (``model="paper"``). Open-row policy. For the read at time t to bank
b[t] and row r[t], let n be the smallest of 1..window (window 4) with b[t] = b[t-n]:

* r[t] equals the bank's open row -> DL (row hit);
* otherwise, if n exists -> ``RTP + RP + RCD + CL + DL - (CL + n * DL)``, i.e. 23, 19,
  15, 11 cycles for n = 1..4 with Table I (Fig. 6; Fig. 5's banks 3,1,2,3 give 15);
* otherwise (no access to b in the window) -> DL: the precharge and activation are
  hidden behind the other banks' transfers.

The latency is the time from the end of the previous read's data to the end of this
read's data, so a lookup's latency is the sum over its reads. Table V's six classes
(b[t] = b[t-1..4] with a row change, no bank repeat in the window, row hit) are
counted for both models.

**Strict DDR4 model** (``model="ddr4"``). The same stream is scheduled command by
command: READs in order (tCCD_S between bank groups, tCCD_L within one), ACT/PRE as
early as tRCD, tRP, tRAS, tRC, tRTP, tRRD_S/tRRD_L and tFAW allow (a controller with
look-ahead, as the paper's Fig. 5 assumes), and all-bank refresh every tREFI taking
tRFC, which closes every row. A read's latency is again the distance between data
ends, so both models are directly comparable. Writes are not timed in either model
(the paper reports read latency only; LPMT/BT updates are posted writes).
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass, fields

import numba
import numpy as np

from skftl.dram.state import BankState, inline
from skftl.errors import ConfigError
from skftl.hugepages import huge_zeros

# indices into the int64 timing-parameter vector
TP_MODEL, TP_RCD, TP_CL, TP_RTP, TP_CCD_S, TP_RP, TP_DL, TP_WINDOW = range(8)
TP_RAS, TP_RC, TP_RRD_S, TP_RRD_L, TP_FAW, TP_CCD_L, TP_REFI, TP_RFC = range(8, 16)
TP_GROUPS, TP_REORDER_ON_ACT = 16, 17
TP_LEN = 18

# indices into the scalar state vector
SC_COUNT, SC_PREV_RD, SC_PREV_RD_GROUP, SC_LAST_ACT, SC_LAST_ACT_GROUP = range(5)
SC_ACT_POS, SC_NEXT_REF, SC_STAMP, SC_REFRESHES = range(5, 9)
SC_LEN = 9

# columns of the per-bank state matrix (banks x B_STRIDE): open row, last READ / ACT
# time, earliest ACT after a refresh, recency stamp (Fig. 7 order), index of the bank's
# last read in the stream
B_OPEN, B_LAST_RD, B_LAST_ACT, B_READY, B_RECENCY, B_LAST_IDX = range(6)
B_STRIDE = 8  # 64 bytes: one cache line per bank

MODEL_PAPER, MODEL_DDR4 = 0, 1
MODELS = {"paper": MODEL_PAPER, "ddr4": MODEL_DDR4}
ANY_MODEL = -1  # a kernel for either model: it reads tp[TP_MODEL] at run time
NEVER = -(1 << 40)  # "long ago": makes every time constraint slack


@dataclass(frozen=True)
class DramTiming:
    """Timing of the LPMT DRAM. Cycle values are Table I; ns values are the DDR4
    datasheet limits of the MT40A512M8 (DDR4-1600 column, the slowest listed, as the
    part runs at 1333 MT/s) used only by the strict model."""

    model: str = "paper"
    tck_ns: float = 1.5
    rcd: int = 9
    cl: int = 9
    rtp: int = 5
    ccd: int = 4
    rp: int = 9
    dl: int = 4
    window: int = 4  # Fig. 6 looks back over the last 4 reads
    # strict DDR4 limits (ns unless noted; converted to cycles with tck_ns, then
    # raised to the datasheet's nCK minimum)
    tras_ns: float = 32.0
    trrd_s_ns: float = 5.0
    trrd_l_ns: float = 6.0
    tfaw_ns: float = 25.0
    tccd_l_ns: float = 6.25
    trefi_ns: float = 7800.0
    trfc_ns: float = 260.0  # 4 Gb die
    bank_groups: int = 4
    refresh: bool = True
    reorder_on_act: bool = False  # Fig. 7 updates on ACT; default: on every read

    @classmethod
    def from_config(cls, section: dict) -> DramTiming:
        names = {f.name for f in fields(cls)}
        unknown = set(section) - names
        if unknown:
            raise ConfigError(f"unknown DRAM timing keys: {sorted(unknown)}")
        t = cls(**section)
        t.validate()
        return t

    def validate(self) -> None:
        if self.model not in MODELS:
            raise ConfigError(f"timing model must be one of {sorted(MODELS)}, got {self.model!r}")
        for name in ("rcd", "cl", "rtp", "ccd", "rp", "dl", "window", "bank_groups"):
            if getattr(self, name) < 1:
                raise ConfigError(f"DRAM timing {name} must be >= 1, got {getattr(self, name)}")
        if self.tck_ns <= 0:
            raise ConfigError(f"tck_ns must be positive, got {self.tck_ns}")

    def cycles(self, ns: float, min_nck: int = 0) -> int:
        """ns limit -> cycles at tck_ns (rounded up), at least min_nck."""
        return max(min_nck, math.ceil(ns / self.tck_ns - 1e-9))

    def params(self) -> np.ndarray:
        """The int64 parameter vector the kernels read."""
        tp = np.zeros(TP_LEN, dtype=np.int64)
        tp[TP_MODEL] = MODELS[self.model]
        tp[TP_RCD], tp[TP_CL], tp[TP_RTP] = self.rcd, self.cl, self.rtp
        tp[TP_CCD_S], tp[TP_RP], tp[TP_DL], tp[TP_WINDOW] = self.ccd, self.rp, self.dl, self.window
        tras = self.cycles(self.tras_ns)
        tp[TP_RAS] = tras
        tp[TP_RC] = tras + self.rp
        tp[TP_RRD_S] = self.cycles(self.trrd_s_ns, 4)
        tp[TP_RRD_L] = self.cycles(self.trrd_l_ns, 4)
        tp[TP_FAW] = self.cycles(self.tfaw_ns, 20)
        tp[TP_CCD_L] = self.cycles(self.tccd_l_ns, self.ccd)
        tp[TP_REFI] = self.cycles(self.trefi_ns) if self.refresh else 0
        tp[TP_RFC] = self.cycles(self.trfc_ns)
        tp[TP_GROUPS] = self.bank_groups
        tp[TP_REORDER_ON_ACT] = int(self.reorder_on_act)
        return tp

    @property
    def n_cases(self) -> int:
        return self.window + 2


def case_labels(window: int = 4) -> list[str]:
    """Names of the Table V latency classes, in the order the kernels count them."""
    return [f"b[t]=b[t-{n}]" for n in range(1, window + 1)] + [
        f"b[t]!=b[t-1..{window}]",
        "row hit",
    ]


class DramState:
    """Mutable timing state of the banks (kept between kernel calls)."""

    def __init__(self, n_banks: int, timing: DramTiming):
        # bank-major, one 64-byte cache line per bank (padded): a bank's fields are one
        # base address plus constant offsets, one address register per bank
        self.banks = huge_zeros(n_banks * B_STRIDE, np.int64, align=64).reshape(n_banks, B_STRIDE)
        self.banks[:, B_OPEN] = -1
        self.banks[:, B_LAST_RD] = NEVER
        self.banks[:, B_LAST_ACT] = NEVER
        self.banks[:, B_READY] = 0
        self.banks[:, B_RECENCY] = -np.arange(n_banks, 0, -1)  # ties: lower bank is older
        # long ago, the lower bank older (Fig. 7's initial order, whatever bank a set starts in)
        self.banks[:, B_LAST_IDX] = NEVER + np.arange(n_banks)
        self.acts = np.full(4, NEVER, dtype=np.int64)
        self.sc = np.zeros(SC_LEN, dtype=np.int64)
        self.sc[SC_PREV_RD] = NEVER
        self.sc[SC_PREV_RD_GROUP] = -1
        self.sc[SC_LAST_ACT] = NEVER
        self.sc[SC_LAST_ACT_GROUP] = -1
        tp = timing.params()
        self.sc[SC_NEXT_REF] = tp[TP_REFI] if tp[TP_REFI] > 0 else np.iinfo(np.int64).max
        self.cases = np.zeros(timing.n_cases, dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        # the kernels index banks flat (bank * B_STRIDE + field): a constant shift, where
        # a 2-D index multiplies by a row length held in memory
        return self.banks.reshape(-1), self.acts, self.sc, self.cases

    def bank_state(self) -> BankState:
        """The arrays the kernels' reads change (the scalars, ``sc``, apart)."""
        return BankState(self.banks.reshape(-1), self.acts, self.cases)


# The hot path keeps the scalar state in a tuple of locals (S_* positions below) and
# only the per-bank state in arrays: loads that follow stores to the same small arrays
# serialise on CPUs with store-bypass mitigations, a multiple of the loop's cost.
# Only what the next read needs: the refresh count follows from S_NEXT_REF and the
# previous data end from S_PREV_RD (store_state, _strict_core), so the hot loops carry
# two values fewer (the kernel's loop has more live values than registers).
S_COUNT, S_STAMP, S_PREV_RD, S_PREV_RD_GROUP = range(4)
S_LAST_ACT, S_LAST_ACT_GROUP, S_ACT_POS, S_NEXT_REF = range(4, 8)


@inline
def params_tuple(a, model):
    """The timing vector as a tuple: kernels read parameters from registers, not from an
    array that every store to the state arrays might alias. ``model`` replaces
    ``a[TP_MODEL]``: a kernel compiled for one model passes a constant, so the other
    model's code drops out of its hot loop."""
    return (model, a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
            a[13], a[14], a[15], a[16], a[17])  # fmt: skip


@inline
def load_state(sc):
    return (sc[SC_COUNT], sc[SC_STAMP], sc[SC_PREV_RD], sc[SC_PREV_RD_GROUP], sc[SC_LAST_ACT],
            sc[SC_LAST_ACT_GROUP], sc[SC_ACT_POS], sc[SC_NEXT_REF])  # fmt: skip


@inline
def store_state(sc, s, tp):
    sc[SC_COUNT], sc[SC_STAMP], sc[SC_PREV_RD], sc[SC_PREV_RD_GROUP] = s[0], s[1], s[2], s[3]
    sc[SC_LAST_ACT], sc[SC_LAST_ACT_GROUP], sc[SC_ACT_POS] = s[4], s[5], s[6]
    sc[SC_NEXT_REF] = s[7]
    # DramState starts next_ref at tREFI and each refresh adds tREFI
    sc[SC_REFRESHES] = s[7] // tp[TP_REFI] - 1 if tp[TP_REFI] > 0 else 0


@inline
def advanced(s, reads):
    """The state ``reads`` stream positions on, nothing else changed."""
    return (s[0] + reads, s[1], s[2], s[3], s[4], s[5], s[6], s[7])


@inline
def read_to(s, reads, rd, group):
    """The state ``reads`` stream positions on, the last of those READs at ``rd`` in bank
    group ``group`` (row hits: no ACT, no refresh)."""
    return (s[0] + reads, s[1], rd, group, s[4], s[5], s[6], s[7])


@inline
def bank_at(bank):
    """Offset of ``bank``'s fields in the flat bank state. The mask (banks are < 2**31)
    tells LLVM the index is not negative, so numba's negative-index fix-up (three
    instructions per access) drops out of the hot loops."""
    return (bank & 0x7FFFFFFF) * B_STRIDE


@numba.njit(cache=True)
def _refresh(tp, banks, next_ref):
    """All-bank refresh due at ``next_ref``, issued once every open bank can be
    precharged; closes every row. Returns when the banks can be activated again."""
    start = next_ref
    for at in range(0, banks.shape[0], B_STRIDE):
        if banks[at + B_OPEN] >= 0:
            pre = max(banks[at + B_LAST_RD] + tp[TP_RTP], banks[at + B_LAST_ACT] + tp[TP_RAS])
            start = max(start, pre + tp[TP_RP])
    end = start + tp[TP_RFC]
    for at in range(0, banks.shape[0], B_STRIDE):
        banks[at + B_OPEN] = -1
        banks[at + B_READY] = end
    return end


@inline
def bank_group(bank, tp):
    """Bank group of ``bank`` (strict model)."""
    n_groups = tp[TP_GROUPS]  # a mask when a power of two: a divide takes tens of cycles
    return bank & (n_groups - 1) if n_groups & (n_groups - 1) == 0 else bank % n_groups


@inline
def _classify(bank, row, tp, banks, count):
    """(row hit, Table V class index, see case_labels) of a read of (bank, row) at stream
    position ``count``."""
    window, at = tp[TP_WINDOW], bank_at(bank)
    n = count - banks[at + B_LAST_IDX]  # reads since this bank's last read
    if n > window:
        n = 0
    hit = banks[at + B_OPEN] == row
    return hit, window + 1 if hit else (n - 1 if n > 0 else window)


@inline
def _after_read(bank, hit, tp, banks, s):
    """Bank recency after the read at stream position ``s[S_COUNT]``; the new state."""
    count, at = s[S_COUNT], bank_at(bank)
    banks[at + B_LAST_IDX] = count  # also the Fig. 7 recency, unless reorder_on_act
    stamp = s[S_STAMP]
    if tp[TP_REORDER_ON_ACT] != 0 and not hit:
        stamp += 1
        banks[at + B_RECENCY] = stamp
    return (count + 1, stamp, s[2], s[3], s[4], s[5], s[6], s[7])


@inline
def _strict_core(bank, row, tp, banks, acts, s):
    """:func:`read_core` under the strict model: schedule one READ (plus PRE/ACT when the
    row is not open) under DDR4 rules, between :func:`_classify` and :func:`_after_read`.
    Written out with few live values (one loop, the refresh out of line): in the kernels'
    hot loops the scheduler's state otherwise spills to the stack, and every spilled
    value lengthens its dependency chain."""
    count, stamp, prev_rd, prev_rd_group, last_act, last_act_group, act_pos, next_ref = s
    at = bank_at(bank)  # the bank's fields are banks[at + B_*]
    group = bank_group(bank, tp)
    hit0, cls = _classify(bank, row, tp, banks, count)
    # tCCD after the previous READ; before the first READ prev_rd is NEVER (no bound)
    rd_min = prev_rd + (tp[TP_CCD_L] if group == prev_rd_group else tp[TP_CCD_S])
    hit = hit0
    while True:
        if hit:
            rd = max(rd_min, banks[at + B_LAST_ACT] + tp[TP_RCD])
            first = rd
        else:
            if banks[at + B_OPEN] >= 0:
                pre = max(banks[at + B_LAST_RD] + tp[TP_RTP], banks[at + B_LAST_ACT] + tp[TP_RAS])
                act = pre + tp[TP_RP]
            else:
                act = banks[at + B_READY]
            act = max(act, banks[at + B_LAST_ACT] + tp[TP_RC])
            act = max(act, last_act + (tp[TP_RRD_L] if group == last_act_group else tp[TP_RRD_S]))
            act = max(act, acts[act_pos & 3] + tp[TP_FAW])  # oldest of the last 4 ACTs
            rd = max(rd_min, act + tp[TP_RCD])
            first = act
        if tp[TP_REFI] > 0 and first >= next_ref:
            _refresh(tp, banks, next_ref)  # closes every row
            next_ref += tp[TP_REFI]
            hit = False
            continue
        break
    if not hit:
        banks[at + B_OPEN] = row
        banks[at + B_LAST_ACT] = act
        acts[act_pos & 3] = act
        act_pos += 1
        last_act = act
        last_act_group = group
    banks[at + B_LAST_RD] = rd
    # latency: data end to data end, each READ + CL + DL (from time 0 for the first)
    lat = rd - prev_rd if count > 0 else rd + tp[TP_CL] + tp[TP_DL]
    s = (count, stamp, rd, group, last_act, last_act_group, act_pos, next_ref)
    return lat, cls, _after_read(bank, hit0, tp, banks, s)


@numba.njit(cache=True, _nrt=False)  # no refcounting: see state.out_of_line
def read_core(bank, row, tp, banks, acts, s):
    """One read of (bank, row): classify it (Table V class index, see case_labels), time
    it under the selected model, update the open rows, the look-back window and the
    bank recency. Returns (cycles, class, new scalar state). The kernels' hot loops time
    runs of reads through the timing hook instead (TIMING_HOOKS)."""
    if tp[TP_MODEL] != 0:
        return _strict_core(bank, row, tp, banks, acts, s)
    hit, cls = _classify(bank, row, tp, banks, s[S_COUNT])
    n = cls + 1 if cls < tp[TP_WINDOW] else 0
    if hit or n == 0:
        lat = tp[TP_DL]
    else:
        lat = paper_conflict(n, tp)
    banks[bank_at(bank) + B_OPEN] = row
    return lat, cls, _after_read(bank, hit, tp, banks, s)


def recency_col(timing: DramTiming) -> int:
    """Column of the bank-state matrix that orders banks for Fig. 7 (larger = more recent)."""
    return B_RECENCY if timing.reorder_on_act else B_LAST_IDX


@inline
def _tally(cls, window, cases, tally):
    """Count a read's class: "no bank repeat" in the local tally (see load_state for
    why), the rare bank conflicts in ``cases``; row hits are the rest (flush_tally)."""
    if cls == window:
        return tally + 1
    if cls < window:
        cases[cls] += 1
    return tally


@inline
def paper_conflict(n, tp):
    """Paper-model cycles of a read whose bank was last read ``n`` reads before (1 <=
    n <= window) with another row open: ``RTP + RP + RCD + CL + DL - (CL[t-n] +
    sum_{k=1..n} DL[t-k])`` (Fig. 6), at least DL."""
    dl = tp[TP_DL]
    return max(dl, tp[TP_RTP] + tp[TP_RP] + tp[TP_RCD] + dl - n * dl)


@inline
def _paper_run(bank, row, m, count, stamp, tp, banks, cases):
    """``m`` reads of (bank, row) under the paper model, the first at stream position
    ``count``: :func:`read_core` for the first read, then ``m - 1`` row hits, written
    out with scalars only (the generic path costs several times as much here). Returns
    (cycles, no-repeat reads, stamp); bank conflicts go to ``cases``."""
    window, dl, at = tp[TP_WINDOW], tp[TP_DL], bank_at(bank)
    n = count - banks[at + B_LAST_IDX]
    if n > window:
        n = 0
    hit = banks[at + B_OPEN] == row
    lat, no_repeat = dl, 0
    if hit:
        pass
    elif n == 0:
        no_repeat = 1
    else:
        cases[n - 1] += 1
        lat = paper_conflict(n, tp)
    if not hit and tp[TP_REORDER_ON_ACT] != 0:
        stamp += 1
        banks[at + B_RECENCY] = stamp
    banks[at + B_OPEN] = row
    banks[at + B_LAST_IDX] = count + m - 1
    return lat + (m - 1) * dl, no_repeat, stamp


@inline
def close_idle(bank, tp, banks, count):
    """Fig. 6 / Table V's window rule (the LPMT's ``row_hits: window``), before the paper
    model reads ``bank`` at stream position ``count``: a read is a row hit only if the
    nearest read of its bank within the last ``window`` reads had its row, so a bank not
    read in the window keeps no open row. The read is then of class "no repeat" whatever
    its row, at the DL the paper rule charges a row hit too, and it activates its row (the
    Fig. 7 stamp under ``reorder_on_act``). Paper model only: the strict model's rows stay
    open until a command closes them."""
    at = bank_at(bank)
    if count - banks[at + B_LAST_IDX] > tp[TP_WINDOW]:
        banks[at + B_OPEN] = -1


@inline
def repeat_pass_ok(tp, s, next_ref0, reads):
    """Whether ``reads`` more reads, each of a row that the pass just read opened in its
    bank (the later passes of an interleaved probe), are all row hits that
    :func:`repeat_read` may time: always under the paper model (rows stay open until
    another row of the bank is read); under the strict model if no refresh closed the
    rows since the pass began and none can fall before the last of them (each READ
    comes at most tCCD_L after the one before). ``next_ref0``: the state's S_NEXT_REF
    when the pass began (it moves with every refresh)."""
    if tp[TP_MODEL] == 0:
        return True
    return s[S_NEXT_REF] == next_ref0 and s[S_PREV_RD] + reads * tp[TP_CCD_L] < s[S_NEXT_REF]


@inline
def repeat_read(bank, tp, banks, s):
    """A read of the row open in ``bank`` under :func:`repeat_pass_ok`'s guarantee, in
    closed form: what the hook's read_run gives for it, without classifying it (a row hit: no
    class to count, row hits are the reads left over, see flush_tally) or scheduling
    it. Paper model: DL. Strict model: the READ waits only tCCD_S/tCCD_L after the
    previous READ: the bank's ACT was at least tRCD before the pass's earlier READ of
    it, and no PRE/ACT is needed. Returns (cycles, new state)."""
    count, at = s[S_COUNT], bank_at(bank)
    banks[at + B_LAST_IDX] = count
    if tp[TP_MODEL] == 0:
        return tp[TP_DL], advanced(s, 1)
    group = bank_group(bank, tp)
    lat = tp[TP_CCD_L] if group == s[S_PREV_RD_GROUP] else tp[TP_CCD_S]
    rd = s[S_PREV_RD] + lat  # the data end moves by as much as the READ
    banks[at + B_LAST_RD] = rd
    return lat, read_to(s, 1, rd, group)


# --- the timing hook ------------------------------------------------------------------------
# A kernel times its reads through one hook, a namespace bound to the timing model it is
# compiled for (TIMING_HOOKS; kernel.ops_kernel binds it as ``timing_hook``):
#
# * ``read_run(bank, row, m, tp, dram, s, tally)`` -> ``(cycles, s, tally)``: ``m``
#   consecutive reads of the same (bank, row); ``dram`` is the state.BankState, ``s`` the
#   scalar state (S_*), ``tally`` the no-repeat reads not yet in ``dram.cases`` (add them
#   with flush_tally). The reads after the first are row hits, added in one step when
#   nothing (a refresh) can intervene: the same result as ``m`` calls of read_core.
# * ``lean_read_run``: the same, on the kernel's lean path (a probe's first pass without
#   early exit, recorded stream or per-probe row hits: the common case), where the strict
#   model inlines its scheduler; read_run calls it out of line (every inlined copy is optimised
#   again, and the scheduler is most of a kernel's compile time).


@inline
def paper_read_run(bank, row, m, tp, dram, s, tally):
    """The timing hook's read_run under the paper model."""
    lat, no_repeat, stamp = _paper_run(bank, row, m, s[S_COUNT], s[S_STAMP], tp, dram.banks,
                                       dram.cases)  # fmt: skip
    s = (s[0] + m, stamp, s[2], s[3], s[4], s[5], s[6], s[7])
    return lat, s, tally + no_repeat


@inline
def strict_read_run(bank, row, m, tp, dram, s, tally):
    """The timing hook's read_run under the strict model: the scheduler, looped only when
    a refresh may fall inside the run."""
    banks, window, left, lat = dram.banks, tp[TP_WINDOW], m, 0
    while True:
        dlat, cls, s = _strict_core(bank, row, tp, banks, dram.acts, s)
        tally = _tally(cls, window, dram.cases, tally)
        lat += dlat
        left -= 1
        if left == 0:
            return lat, s, tally
        last_rd = s[S_PREV_RD] + left * tp[TP_CCD_L]
        if last_rd < s[S_NEXT_REF]:
            # the row is open and its ACT long done, so each further READ waits only
            # tCCD_L after the previous one (same bank group)
            at = bank_at(bank)
            banks[at + B_LAST_RD] = last_rd
            banks[at + B_LAST_IDX] = s[S_COUNT] + left - 1
            step = left * tp[TP_CCD_L]
            s = read_to(s, left, last_rd, s[S_PREV_RD_GROUP])
            return lat + step, s, tally


@numba.njit(cache=True, _nrt=False)  # no refcounting: see state.out_of_line
def strict_read_run_call(bank, row, m, tp, dram, s, tally):
    """:func:`strict_read_run` out of line."""
    return strict_read_run(bank, row, m, tp, dram, s, tally)


@inline
def either_read_run(bank, row, m, tp, dram, s, tally):
    """The timing hook's read_run under the model ``tp[TP_MODEL]``, read at run time."""
    if tp[TP_MODEL] == MODEL_PAPER:
        return paper_read_run(bank, row, m, tp, dram, s, tally)
    return strict_read_run(bank, row, m, tp, dram, s, tally)


def _timing_hook(name: str, read_run: object, lean_read_run: object) -> types.ModuleType:
    hook = types.ModuleType(f"{__name__}.{name}")
    hook.read_run, hook.lean_read_run = read_run, lean_read_run
    return hook


TIMING_HOOKS = {
    MODEL_PAPER: _timing_hook("paper", paper_read_run, paper_read_run),
    MODEL_DDR4: _timing_hook("ddr4", strict_read_run_call, strict_read_run),
    ANY_MODEL: _timing_hook("either", either_read_run, either_read_run),
}


@inline
def conflicts(tp, cases):
    """Reads counted so far in the bank-conflict classes b[t] = b[t-1..window]."""
    return cases[: tp[TP_WINDOW]].sum()


@inline
def flush_tally(tp, cases, tally, reads, conflicts_before):
    """Add a run of ``reads`` reads to ``cases``: ``tally`` of them had no bank repeat,
    the bank conflicts are in ``cases`` already (``conflicts_before`` before the run),
    the others were row hits. Every read has exactly one class, so the row hits need
    no counter of their own in the hot loop."""
    window = tp[TP_WINDOW]
    cases[window] += tally
    cases[window + 1] += reads - tally - (conflicts(tp, cases) - conflicts_before)


@numba.njit(cache=True, _nrt=False)  # no refcounting: see state.out_of_line
def time_stream_kernel(bank_seq, row_seq, tp_arr, banks, acts, sc, cases, out):
    tp = params_tuple(tp_arr, tp_arr[TP_MODEL])
    s = load_state(sc)
    for i in range(bank_seq.shape[0]):
        out[i], cls, s = read_core(bank_seq[i], row_seq[i], tp, banks, acts, s)
        cases[cls] += 1
    store_state(sc, s, tp)


def time_stream(
    banks: np.ndarray, rows: np.ndarray, timing: DramTiming, n_banks: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Latency (cycles) of each read of a (bank, row) stream from a fresh state, and the
    Table V class counts."""
    banks = np.ascontiguousarray(banks, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    nb = int(n_banks if n_banks is not None else (banks.max() + 1 if banks.size else 1))
    st = DramState(nb, timing)
    out = np.zeros(banks.shape[0], dtype=np.int64)
    time_stream_kernel(banks, rows, timing.params(), *st.arrays(), out)
    return out, st.cases
