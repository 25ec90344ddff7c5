"""The power kernel's state: one ``PowerState`` tuple of numpy arrays, the named indices into
its arrays, and the small arithmetic every part of the kernel shares.

Every kernel function takes the one tuple ``S`` (as ``skftl.nand``'s kernel takes its
``FtlArrays``): inputs (the operation stream and the tables of ``sim.build_tables``), outputs
(per-operation times, waits, the log of atomic starts, ``stats``) and the simulation's own
state (chips, packets, event times, channels). Scalars live in arrays at named indices, one
prefix per array: ``PARAM_*`` in ``prm`` (set once per run), ``CHIP_*`` in ``chip`` (a row per
chip), ``PACKET_*`` and ``RING_*`` in ``packet``, ``STAT_*`` in ``stats`` (the run's shared
scalars and counters, returned to Python by name, ``STAT_NAMES``). Tables are one flat array
``tables`` with the start of each table in ``table_start`` (``lookup``).
"""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from skftl.inlining import inlined
from skftl.numba_cache import drop_stale_cache
from skftl.power import profiles
from skftl.power.profiles import SAMPLE_NS

# Numba caches a function under its own file only; the kernel inlines code from every module
# below (and SAMPLE_NS from profiles), so all of them carry one tag of all their sources
KERNEL_MODULES = (
    "state",
    "chip",
    "hooks",
    "schemes_ppm",
    "schemes_dcc",
    "schemes_ring",
    "schemes_controller",
    "schemes",
    "kernel",
    "current",
)
drop_stale_cache(
    __file__,
    *(Path(__file__).with_name(f"{name}.py") for name in KERNEL_MODULES[1:]),
    profiles.__file__,
)

# the 40 ns sample period is a compile-time constant: divisions by it become multiplications
S_NS = SAMPLE_NS
INF = np.int64(2**62)  # "never": an event time no event reaches

# the schemes (``SCHEMES`` maps their names); ``schemes.py`` routes each to its family's hooks
NPM, PPM, DCC, MTPM, KMTPM_A, KMTPM_SA, NOKEY, CTRL = 0, 1, 2, 3, 4, 5, 6, 7
SCHEMES = {
    "NPM": NPM,
    "PPM": PPM,
    "DCC": DCC,
    "MTPM": MTPM,
    "KMTPM_A": KMTPM_A,
    "KMTPM_SA": KMTPM_SA,
    "NOKEY": NOKEY,
    "CTRL": CTRL,
}
TOKEN_RING_SCHEMES = (MTPM, KMTPM_A, KMTPM_SA, NOKEY)
MAX_RING = 64  # chips per ring: a ring's masks (RING_*) have one bit per chip

# chip states (Figs. 4, 5 and 9 of You et al.): nothing to do, operation on the channel,
# waiting for the scheme (key / tokens / lock / start time), operating
READY, XFER, WAIT, OPER = 0, 1, 2, 3
# where a running operation releases tokens (hooks.release): a sub-atomic operation's end, an
# atomic operation's end, the operation's end
SUBATOMIC_END, ATOMIC_END, OPERATION_END = 0, 1, 2

# --- prm: the run's parameters ------------------------------------------------------------
PARAM_SCHEME = 0  # SCHEMES value
PARAM_CHIPS = 1
PARAM_RING_CHIPS = 2  # M: chips per ring
PARAM_TOKENS = 3  # tokens of a ring (ring schemes), of the controller's pool (CTRL)
PARAM_BUDGET = 4  # PB, current units
PARAM_HOP_NS = 5  # one ring hop: (1 + token bits) cycles
PARAM_DECISION_NS = 6  # a ring chip's decision to start (2 cycles)
PARAM_WAYS = 7  # chips per channel
PARAM_MESSAGE_NS = 8  # CTRL: channel time of one grant or return message
PARAM_CHECK_TOKENS = 9  # 1: count conservation errors after every event
PARAM_RING_MASK = 10  # M - 1 when M is a power of two (ring arithmetic by masks), else -1
PARAM_DCC_HOT = 11  # budget minus the highest DCC envelope level: lower levels fit any envelope
PARAM_DCC_DECISION_NS = 12  # controller time of one DCC scheduling decision
PARAM_ARBITRATED = 13  # 1: the channel is arbitrated when it frees; 0: booked as requested
PARAM_SUBATOMIC_STEPS = 14  # 1: tokens return at sub-atomic boundaries (an event at each)
PARAM_FAMILY = 15  # the scheme's family (schemes.FAMILY_OF), whose hooks the kernel calls
# bit ty set: no atomic operation of an operation of type ty waits for the scheme's decision
PARAM_UNDECIDED_TYPES = 16
N_PARAMS = 17

# --- chip[c, CHIP_*]: one row per chip (its next event time is event_time[c]) ---------------
CHIP_STATE = 0  # READY, XFER, WAIT or OPER
CHIP_OP = 1  # the operation it runs (-1: none)
CHIP_TYPE = 2  # that operation's type (read, program LSB, program MSB, erase)
CHIP_STEP = 3  # index of its current atomic operation in the type's template
CHIP_SUBATOMIC = 4  # index of the running sub-atomic operation (sub-atomic steps)
CHIP_HELD_TOKENS = 5  # tokens the chip holds and does not use (ring schemes)
CHIP_USED_TOKENS = 6  # tokens its running (sub-)atomic operation uses
CHIP_KEY = 7  # 1 while it holds the ring's key
CHIP_WAIT_SINCE = 8  # when it began waiting for its current atomic operation
CHIP_NEED = 9  # tokens its current atomic operation needs to start
CHIP_QUEUE_NEXT = 10  # its next operation in chip_queue
CHIP_QUEUE_END = 11  # end of its operations in chip_queue
CHIP_DCC_START = 12  # the start DCC's controller decided for it
# what that decision was for: 2 * op + 1 for an operation's channel atomic operation (the read
# data-out, decided apart: its start also waits for the channel), 2 * op for the rest; -1 none
CHIP_DCC_DECIDED = 13
CHIP_ATOMIC = 14  # its current atomic operation (id in ATOMICS order)
CHIP_CHANNEL = 15
CHIP_LOG_NEXT = 16  # next free row of its part of atomic_log
# its request for the channel (arbitrated channel): rank (-1: none), when it is ready, and its
# sequence number (the order requests were made, for equal times)
CHIP_REQUEST_RANK = 17
CHIP_REQUEST_READY = 18
CHIP_REQUEST_SEQ = 19
N_CHIP_FIELDS = 20

# --- packet[p, PACKET_*]: one row per packet (ring * M + phase) ----------------------------
# A ring's packets are identified by their phase (position - slot) mod M; packet p arrives at
# event_time[n + p], in slot PACKET_SLOT, at chip packet_target[p]
PACKET_ALIVE = 0
PACKET_TOKENS = 1
PACKET_KEY = 2
PACKET_SLOT = 3  # slot of its next arrival
PACKET_LAST_SLOT = 4  # slot of its last arrival (or of its creation)
# in the row of a ring's first packet only: bit ``phase`` set while that packet is alive, bit
# ``position`` set while that chip waits (the ring's waiting chips, kept by schemes_ring)
RING_LIVE_PACKETS = 5
RING_WAITING_CHIPS = 6
N_PACKET_FIELDS = 7

# --- stats[STAT_*]: the run's shared scalars and counters ---------------------------------
(STAT_FLUSHED_SAMPLES, STAT_LAST_SAMPLE, STAT_FINAL_CURRENT, STAT_PEAK_CURRENT,
 STAT_VIOLATION_SAMPLES) = range(5)  # fmt: skip
STAT_PPM_UNTIL = 5  # PPM: the pre-charge zone is taken until then
STAT_POOL = 6  # CTRL: tokens in the controller's pool
STAT_EVENTS = 7
STAT_CONSERVATION_ERRORS = 8
STAT_COMPLETED_OPS = 9
STAT_PACKET_ARRIVALS = 10
STAT_POOL_QUEUE_HEAD = 11  # CTRL: chips waiting for the pool, a ring buffer in pool_queue
STAT_POOL_QUEUE_LEN = 12
STAT_ATOMIC_STARTS = 13
STAT_MAX_PACKETS = 14
# DCC's skyline (schemes_dcc._schedule): end and head of the live boundaries, level before the
# head, row set in use; its controller is busy deciding until STAT_DCC_FREE
STAT_DCC_BOUNDARIES, STAT_DCC_BASE_LEVEL, STAT_DCC_HEAD, STAT_DCC_ROW_SET = 15, 16, 17, 18
STAT_DCC_FREE = 19
STAT_CHANNEL_REQUESTS = 20  # channel requests made so far (the next one's sequence number)
N_STATS = 21
STAT_NAMES = (
    "flushed_samples", "last_sample", "final_current", "peak_current", "violation_samples",
    "ppm_until", "pool", "events", "conservation_errors",
    "completed_ops", "packet_arrivals", "ctrl_queue_head", "ctrl_queue_len", "atomic_starts",
    "max_packets", "dcc_boundaries", "dcc_base_level", "dcc_head", "dcc_row_set", "dcc_free",
    "channel_requests",
)  # fmt: skip

# --- tables (sim.build_tables), ids into table_start -------------------------------------
# TMPL_*: each operation type's template of atomic operations (offset, length, atomic ids,
# cumulative duration; one pad slot after each), and TMPL_LOOP: the atomic operations of its
# first loop (up to the second pre-charge). A_*: per atomic operation (id in ATOMICS order):
# duration, peak, its sub-atomic operations (offset, count), its pre-charge zone (PPM), its
# current's change points (offset, count) and A_CHAN: 1 when it occupies its chip's channel
# (read data-out under the channel read model): it starts when both the scheme and the channel
# let it. SA_DUR: time from one sub-atomic token return to the next (the nominal durations, or
# those of a guard band); SA_RT: a sub-atomic operation's tokens. CP_K, CP_D: change points,
# sample offset from the first sample and change of level (the last returns to zero); the ids
# after the atomic ones are each operation type's whole sequence, then its first loop, run back
# to back. ENV_*: DCC's envelopes, one per operation type up to its first channel atomic
# operation, then (id = number of types) the channel atomic operation alone: offset, pieces,
# cumulative duration, level. CHANNEL_RANK: the rank of a channel request per kind (an
# operation type's command transfer, then, as the number of types, a channel atomic operation).
(TMPL_OFF, TMPL_LEN, TMPL_ATOM, TMPL_CUM, A_DUR, A_PEAK, A_SA_OFF, A_SA_LEN, A_PPZ, SA_DUR,
 SA_RT, A_CP_OFF, A_CP_LEN, CP_K, CP_D, ENV_OFF, ENV_LEN, ENV_CUM, ENV_LVL,
 TMPL_LOOP, A_CHAN, CHANNEL_RANK) = range(22)  # fmt: skip
N_TABLES = 22

PowerState = namedtuple(
    "PowerState",
    [
        # parameters and tables
        "prm",  # PARAM_*
        "tables",  # every table, flat
        "table_start",  # start of each table in ``tables`` (N_TABLES + 1 entries)
        # the operation stream, sorted by arrival
        "op_chip",
        "op_type",
        "op_arrival",
        "chip_queue",  # operation indices grouped by chip, each group in arrival order
        "chip_queue_first",  # CSR offsets of chip_queue (n + 1)
        "transfer_ns",  # channel time of each operation type's command (and data) transfer
        # outputs
        "op_issue",  # operation handed to its chip (transfer done), ns; -1 never
        "op_start",  # its first atomic operation starts
        "op_done",
        "wait_ns",  # per atomic id: time waited for the scheme, summed over chips
        "wait_count",
        # per chip, the atomic starts in time order: rows (time, change-point id) from
        # atomic_log_first[c] to atomic_log_end[c] (current.account_current reads them)
        "atomic_log",
        "atomic_log_first",
        "atomic_log_end",
        "stats",  # STAT_*
        # the simulation's state
        "chip",  # CHIP_*
        "packet",  # PACKET_*, RING_*
        "packet_target",  # the chip packet p arrives at next (-1: none)
        # next event time of every chip, then of every packet, then of every channel's
        # arbitration (INF: none)
        "event_time",
        "channel_free",  # each channel is booked until then
        "pool_queue",  # CTRL: chips waiting for the pool, in order (STAT_POOL_QUEUE_*)
        "skyline",  # DCC: the scheduled envelopes' boundaries (schemes_dcc._schedule)
    ],
)


def allocate(
    prm: np.ndarray,
    tables: np.ndarray,
    table_start: np.ndarray,
    op_chip: np.ndarray,
    op_type: np.ndarray,
    op_arrival: np.ndarray,
    transfer_ns: np.ndarray,
) -> PowerState:
    """A run's state before its first event: nothing issued, every chip ready with its
    operations queued, no packet, no event due (``kernel.simulate`` puts the tokens in
    place). Each chip's part of the atomic log holds at most its operations' atomic
    operations."""
    n = int(prm[PARAM_CHIPS])
    n_ops = len(op_chip)
    n_channels = n // int(prm[PARAM_WAYS])
    counts = np.bincount(op_chip, minlength=n)
    chip_queue_first = np.zeros(n + 1, np.int64)
    chip_queue_first[1:] = np.cumsum(counts)
    n_atomic = tables[table_start[TMPL_LEN] + op_type]
    log_first = np.zeros(n + 1, np.int64)
    log_first[1:] = np.cumsum(np.bincount(op_chip, weights=n_atomic, minlength=n)).astype(np.int64)
    # DCC's skyline: two row sets of four rows, at most one live envelope per chip
    max_env = int(tables[table_start[ENV_LEN] : table_start[ENV_LEN + 1]].max(initial=0))
    chip = np.zeros((n, N_CHIP_FIELDS), np.int64)
    chip[:, CHIP_STATE] = READY
    chip[:, CHIP_OP] = -1
    chip[:, CHIP_QUEUE_NEXT] = chip_queue_first[:-1]
    chip[:, CHIP_QUEUE_END] = chip_queue_first[1:]
    chip[:, CHIP_DCC_DECIDED] = -1
    chip[:, CHIP_CHANNEL] = np.arange(n) // int(prm[PARAM_WAYS])
    chip[:, CHIP_LOG_NEXT] = log_first[:-1]
    chip[:, CHIP_REQUEST_RANK] = -1
    packet = np.zeros((n, N_PACKET_FIELDS), np.int64)
    packet[:, PACKET_LAST_SLOT] = -1
    return PowerState(
        prm=prm,
        tables=tables,
        table_start=table_start,
        op_chip=op_chip,
        op_type=op_type,
        op_arrival=op_arrival,
        chip_queue=np.lexsort((np.arange(n_ops), op_chip)).astype(np.int64),
        chip_queue_first=chip_queue_first,
        transfer_ns=transfer_ns,
        op_issue=np.full(n_ops, -1, np.int64),
        op_start=np.full(n_ops, -1, np.int64),
        op_done=np.full(n_ops, -1, np.int64),
        wait_ns=np.zeros(len(profiles.ATOMICS), np.int64),
        wait_count=np.zeros(len(profiles.ATOMICS), np.int64),
        atomic_log=np.zeros((int(log_first[-1]), 2), np.int64),
        atomic_log_first=log_first,
        atomic_log_end=np.zeros(n, np.int64),
        stats=np.zeros(N_STATS, np.int64),
        chip=chip,
        packet=packet,
        packet_target=np.full(n, -1, np.int64),
        event_time=np.full(2 * n + n_channels, INF, np.int64),
        channel_free=np.zeros(n_channels, np.int64),
        pool_queue=np.zeros(n, np.int64),
        skyline=np.zeros((8, n * (max_env + 1) + 2), np.int64),
    )


# --- how kernel functions are compiled ---------------------------------------------------
# The kernel allocates nothing, so it runs without Numba's reference counting. ``inline``:
# LLVM inlines the function into every caller (skftl.inlining): the hooks and the event
# handlers, whose call sites lie on the event loop's path, where a real call costs the loop
# registers (and passing the state tuple copies it) even when it is not taken. ``helper``:
# small enough that LLVM's own heuristics inline it wherever it is called.
inline = inlined(_nrt=False)
helper = njit(cache=True, _nrt=False)


# --- arithmetic ----------------------------------------------------------------------------
@helper
def lookup(S, table, i):
    """Entry ``i`` of table ``table`` (TMPL_OFF ... CHANNEL_RANK)."""
    return S.tables[S.table_start[table] + i]


@helper
def n_types(S):
    """Operation types (the id of a channel atomic operation's request and envelope)."""
    return S.table_start[TMPL_LEN + 1] - S.table_start[TMPL_LEN]


@helper
def ceil_div(a, b):
    return -((-a) // b)


@helper
def ring_mod(S, x):
    """``x`` mod M (in 0 .. M - 1 for any sign of ``x``): a mask for the usual M = 8, whose
    division would cost a good part of every ring event."""
    mask = S.prm[PARAM_RING_MASK]
    if mask >= 0:
        return x & mask  # two's complement: equals x % M for negative x too
    return x % S.prm[PARAM_RING_CHIPS]


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zero bits (one ``tzcnt`` / ``bsf`` instruction); undefined
    for 0."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@helper
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int64 (the accounting's sweep finds every
    changing sample by it, a ring its live packets and waiting chips)."""
    return _cttz(np.int64(x))


@helper
def unsigned(i):
    """A non-negative index as unsigned: Numba then omits the negative-index wrap-around
    (three instructions per access, a third of the accounting's inner loops)."""
    return np.uint64(i)
