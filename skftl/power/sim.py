"""Plain-Python orchestration around the kernel: build the tables from profiles, device and
token model; run one scheme on one operation stream (``state.allocate``, the scheme's kernel,
``current.account_current``); summarise."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skftl.errors import ConfigError
from skftl.power import state
from skftl.power.current import account_current
from skftl.power.device import OP_ERASE, OP_PROGRAM, OP_READ, T_ERASE, T_PROG_LSB, T_READ, Device
from skftl.power.kernel import simulate as run_kernel
from skftl.power.profiles import ATOMICS, PROG_EXEC, READ_DATAOUT, SAMPLE_NS, Profiles
from skftl.power.schemes import FAMILY_OF, SUBATOMIC_STEPS, undecided_types
from skftl.power.tokens import TokenModel


@dataclass
class OpStream:
    """NAND operations in arrival order: kind 0 read / 1 program / 2 erase, target chip,
    MSB page flag (programs) and arrival time in ns."""

    kind: np.ndarray
    chip: np.ndarray
    msb: np.ndarray
    arrival_ns: np.ndarray
    label: str = ""

    def __post_init__(self) -> None:
        self.kind = np.ascontiguousarray(self.kind, dtype=np.int64)
        self.chip = np.ascontiguousarray(self.chip, dtype=np.int64)
        self.msb = np.ascontiguousarray(self.msb, dtype=np.int64)
        self.arrival_ns = np.ascontiguousarray(self.arrival_ns, dtype=np.int64)
        n = len(self.kind)
        if not (len(self.chip) == len(self.msb) == len(self.arrival_ns) == n):
            raise ValueError("op stream columns differ in length")
        if n and np.any(np.diff(self.arrival_ns) < 0):
            raise ValueError("op stream must be sorted by arrival time")
        if n and (self.kind.min() < OP_READ or self.kind.max() > OP_ERASE):
            raise ValueError("op kind must be 0 (read), 1 (program) or 2 (erase)")

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def op_type(self) -> np.ndarray:
        """Kernel operation type: 0 read, 1 program LSB, 2 program MSB, 3 erase."""
        t = np.where(self.kind == OP_READ, T_READ, T_ERASE)
        return np.where(self.kind == OP_PROGRAM, T_PROG_LSB + (self.msb != 0), t).astype(np.int64)


@dataclass(frozen=True)
class Tables:
    """Kernel tables (see ``state``) for one profile set, device and token model."""

    arrays: tuple[np.ndarray, ...]  # in kernel table order (state.TMPL_OFF ... CHANNEL_RANK)
    sa_rt: np.ndarray
    atomic_rt: np.ndarray
    n_subatomic: np.ndarray

    def packed(self) -> tuple[np.ndarray, np.ndarray]:
        """(flat table array, start offset of each table) as the kernel takes them."""
        lens = np.array([len(a) for a in self.arrays], np.int64)
        to = np.zeros(len(lens) + 1, np.int64)
        to[1:] = np.cumsum(lens)
        return np.concatenate(self.arrays).astype(np.int64), to


DCC_MODELS = ("atomic", "subatomic")
# rank of each channel request when the channel frees (lower first; equal ranks: the oldest
# request first), per request kind: a read, LSB program, MSB program or erase operation's
# command transfer (program: with its data in), then a read's data-out. Cosmos+ OpenSSD's
# request scheduler serves read commands, then erases, then programs, then read transfers;
# MQSim's channel serves waiting data-outs before any new command. "fifo" books each transfer
# when it is requested and never consults the ranks.
CHANNEL_RANKS = {
    "commands_first": (0, 2, 2, 1, 3),
    "dataout_first": (1, 1, 1, 1, 0),
    "fifo": (0, 0, 0, 0, 0),
}


def _guarded(sa, atomic_ns: int, guard_pct: int) -> np.ndarray:
    """Durations between the token returns of one atomic operation's sub-atomic operations:
    each nominal end ``e`` (ns from the atomic operation's start) becomes
    ceil(e x (100 + guard_pct) / 100) on the 40 ns grid, at most ``atomic_ns``; the last one is
    the atomic operation's end."""
    ends = sa.stop * SAMPLE_NS
    unit = 100 * SAMPLE_NS
    late = -(-ends.astype(np.int64) * (100 + guard_pct) // unit) * SAMPLE_NS
    late = np.minimum(late, atomic_ns)
    late[-1] = atomic_ns
    return np.diff(np.concatenate(([0], late)))


def build_tables(
    profiles: Profiles, device: Device, tokens: TokenModel, dcc_model: str = "subatomic"
) -> Tables:
    """Kernel tables. ``dcc_model`` is the resolution of the current model DCC's controller
    holds per operation: the peak of every atomic or of every sub-atomic operation."""
    if dcc_model not in DCC_MODELS:
        raise ConfigError(f"dcc_model must be one of {DCC_MODELS}, got {dcc_model!r}")
    tmpl = device.templates()
    # each template is followed by one pad slot so tmpl_cum[off + len] is its total duration
    tmpl_off = np.zeros(len(tmpl), np.int64)
    tmpl_len = np.array([len(t) for t in tmpl], np.int64)
    tmpl_off[1:] = np.cumsum(tmpl_len + 1)[:-1]
    tmpl_atom = np.zeros(int((tmpl_len + 1).sum()), np.int64)
    tmpl_cum = np.zeros_like(tmpl_atom)
    a_dur = np.array([profiles.duration_ns(a) for a in range(len(ATOMICS))], np.int64)
    for i, seq in enumerate(tmpl):
        o = tmpl_off[i]
        tmpl_atom[o : o + len(seq)] = seq
        tmpl_cum[o + 1 : o + len(seq) + 1] = np.cumsum(a_dur[seq])
    a_peak = np.array([profiles.peak(a) for a in range(len(ATOMICS))], np.int64)
    sas = [profiles.sub_atomic(a, device.subatomic_interval_ns) for a in range(len(ATOMICS))]
    a_sa_len = np.array([len(s.peak) for s in sas], np.int64)
    a_sa_off = np.concatenate(([0], np.cumsum(a_sa_len)[:-1])).astype(np.int64)
    sa_dur = np.concatenate([(s.stop - s.start) * SAMPLE_NS for s in sas]).astype(np.int64)
    sa_peak = np.concatenate([s.peak for s in sas]).astype(np.int64)
    # when the token schemes return each sub-atomic operation's surplus: its nominal end plus
    # the guard band, on the 40 ns grid, at its atomic operation's end at the latest (PPM's
    # pre-charge zone and DCC's envelopes keep the nominal times: only the token protocol
    # times sub-atomic steps by a fixed delay)
    sa_time = np.concatenate(
        [_guarded(s, a_dur[a], device.subatomic_guard_pct) for a, s in enumerate(sas)]
    ).astype(np.int64)
    sa_rt = np.array([tokens.required_tokens(p) for p in sa_peak], np.int64)
    # pre-charge zone (PPM): the first sub-atomic operation of program execution
    a_ppz = np.zeros(len(ATOMICS), np.int64)
    a_ppz[PROG_EXEC] = sa_dur[a_sa_off[PROG_EXEC]]
    # current of each atomic operation as change points: (sample offset, change of level)
    # (and, as ids len(ATOMICS) + type, of every operation type's atomic operations back to
    # back; then, as ids len(ATOMICS) + len(tmpl) + type, of its first loop: up to its second
    # pre-charge), so that a chain of atomic operations is accounted in one go (chip.chain)
    cps = []
    loops = [
        seq[: next((i for i in range(1, len(seq)) if a_ppz[seq[i]]), len(seq))] for seq in tmpl
    ]
    for seq in [[a] for a in range(len(ATOMICS))] + list(tmpl) + loops:
        cur = np.concatenate([profiles.samples[a] for a in seq])
        d = np.diff(np.concatenate(([0], cur, [0])).astype(np.int64))
        k = np.flatnonzero(d)
        cps.append((k, d[k]))
    a_cp_len = np.array([len(k) for k, _ in cps], np.int64)
    a_cp_off = np.concatenate(([0], np.cumsum(a_cp_len)[:-1])).astype(np.int64)
    cp_k = np.concatenate([k for k, _ in cps]).astype(np.int64)
    cp_d = np.concatenate([d for _, d in cps]).astype(np.int64)
    # atomic operations on the channel (read data-out under the channel read model)
    a_chan = np.zeros(len(ATOMICS), np.int64)
    if device.read_model == "channel":
        a_chan[READ_DATAOUT] = 1
    # DCC envelope per operation type up to its first channel atomic operation (DCC decides
    # that one apart, when the channel is known), then the channel atomic alone: (duration,
    # level) pieces, one pad slot per envelope
    env_dur: list[list[int]] = []
    env_lvl: list[list[int]] = []
    segments = [seq[: next((i for i, a in enumerate(seq) if a_chan[a]), len(seq))] for seq in tmpl]
    for seq in segments + [[READ_DATAOUT]]:
        if dcc_model == "atomic":
            env_dur.append([int(a_dur[a]) for a in seq])
            env_lvl.append([int(a_peak[a]) for a in seq])
        else:
            env_dur.append(
                [int(d) for a in seq for d in sa_dur[a_sa_off[a] : a_sa_off[a] + a_sa_len[a]]]
            )
            env_lvl.append(
                [int(x) for a in seq for x in sa_peak[a_sa_off[a] : a_sa_off[a] + a_sa_len[a]]]
            )
    env_len = np.array([len(d) for d in env_dur], np.int64)
    env_off = np.zeros(len(env_dur), np.int64)
    env_off[1:] = np.cumsum(env_len + 1)[:-1]
    env_cum = np.zeros(int((env_len + 1).sum()), np.int64)
    env_lv = np.zeros_like(env_cum)
    for i, (d, lv) in enumerate(zip(env_dur, env_lvl, strict=True)):
        o = env_off[i]
        env_cum[o + 1 : o + len(d) + 1] = np.cumsum(d)
        env_lv[o : o + len(d)] = lv
    arrays = (
        tmpl_off, tmpl_len, tmpl_atom, tmpl_cum, a_dur, a_peak, a_sa_off, a_sa_len, a_ppz,
        sa_time, sa_rt, a_cp_off, a_cp_len, cp_k, cp_d,
        env_off, env_len, env_cum, env_lv, np.array([len(lp) for lp in loops], np.int64), a_chan,
        np.array(CHANNEL_RANKS[device.channel_arbitration], np.int64),
    )  # fmt: skip
    return Tables(
        arrays=arrays,
        sa_rt=sa_rt,
        atomic_rt=sa_rt[a_sa_off],
        n_subatomic=a_sa_len,
    )


@dataclass
class SimResult:
    scheme: str
    op_issue: np.ndarray  # operation handed to the chip (channel transfer done), ns
    op_start: np.ndarray
    op_done: np.ndarray
    wait_ns: np.ndarray  # per atomic id (ATOMICS order), summed over chips
    wait_count: np.ndarray
    series: np.ndarray  # max current (micro-I_max) per recording bin
    stats: dict[str, int]
    budget_units: int
    makespan_ns: int
    first_arrival_ns: int

    @property
    def completed(self) -> bool:
        return bool(np.all(self.op_done >= 0))

    @property
    def throughput_ops_per_s(self) -> float:
        return len(self.op_done) / max(self.makespan_ns, 1) * 1e9

    def mean_latency_ns(self, kinds: np.ndarray, kind: int) -> float:
        """Mean time from handing an operation of ``kind`` to its chip until it completes
        (the paper's latency, Sec. IV-C4); nan if there is none."""
        sel = kinds == kind
        if not sel.any():
            return float("nan")
        return float(np.mean(self.op_done[sel] - self.op_issue[sel]))

    @property
    def violations(self) -> int:
        return self.stats["violation_samples"]

    @property
    def violations_per_ms(self) -> float:
        return self.violations / max(self.makespan_ns, 1) * 1e6

    @property
    def peak_over_budget(self) -> float:
        """Peak current relative to the budget, minus one (0.53 = 53 % above budget)."""
        return self.stats["peak_current"] / self.budget_units - 1.0


def simulate(
    ops: OpStream,
    scheme: str,
    profiles: Profiles,
    device: Device,
    tokens: TokenModel,
    *,
    n_rings: int = 1,
    ctrl_msg_ns: int = 0,
    record_bin_samples: int = 0,
    check_tokens: bool = False,
    dcc_model: str = "subatomic",
    dcc_decision_ns: int = 0,
    tables: Tables | None = None,
) -> SimResult:
    """Simulate ``ops`` under ``scheme`` (a key of ``state.SCHEMES``).

    ``n_rings`` splits the chips into that many rings of consecutive chips, each with
    TT / n_rings tokens (a ring per channel). ``record_bin_samples`` > 0 records the maximum
    current of every bin of that many 40 ns samples. ``check_tokens`` verifies token
    conservation after every event (counted in ``stats['conservation_errors']``).
    ``dcc_model`` sets DCC's current model (see ``build_tables``); ignored when ``tables``
    are given. ``dcc_decision_ns``: DCC's controller time per scheduling decision (one per
    operation, one more for a read's data-out on the channel), decisions taken one at a time.
    """
    if scheme not in state.SCHEMES:
        raise ConfigError(f"unknown scheme {scheme!r}; known: {', '.join(state.SCHEMES)}")
    n = device.n_chips
    if n_rings < 1 or n % n_rings:
        raise ConfigError(f"n_rings ({n_rings}) must divide n_chips ({n})")
    if scheme in ("MTPM", "KMTPM_A", "KMTPM_SA", "NOKEY") and n // n_rings > state.MAX_RING:
        raise ConfigError(
            f"a token ring of {n // n_rings} chips: at most {state.MAX_RING}; use more rings"
        )
    tt = tokens.total_tokens
    if tt % n_rings:
        raise ConfigError(f"total tokens {tt} cannot be split evenly over {n_rings} rings")
    if dcc_decision_ns < 0:
        raise ConfigError(f"dcc_decision_ns must be >= 0, got {dcc_decision_ns}")
    if len(ops) and (ops.chip.min() < 0 or ops.chip.max() >= n):
        raise ConfigError(f"op stream addresses chips outside 0..{n - 1}")
    tables = tables or build_tables(profiles, device, tokens, dcc_model)
    if tables.atomic_rt.max() > tt // n_rings:
        raise ConfigError(
            f"an atomic operation needs {tables.atomic_rt.max()} tokens but a ring holds "
            f"only {tt // n_rings}: raise alpha or use fewer rings"
        )
    op_type = ops.op_type
    hop_ns = int(round(tokens.transfer_cycles() * device.cycle_ns))
    comp_ns = int(round(device.t_comp_cycles * device.cycle_ns))
    sch = state.SCHEMES[scheme]
    prm = np.zeros(state.N_PARAMS, np.int64)
    prm[state.PARAM_SCHEME] = sch
    prm[state.PARAM_CHIPS] = n
    prm[state.PARAM_RING_CHIPS] = m = n // n_rings
    prm[state.PARAM_RING_MASK] = m - 1 if m & (m - 1) == 0 else -1
    prm[state.PARAM_TOKENS] = tt // n_rings if scheme != "CTRL" else tt
    prm[state.PARAM_BUDGET] = tokens.budget_units
    highest_envelope = int(tables.arrays[state.ENV_LVL].max(initial=0))
    prm[state.PARAM_DCC_HOT] = tokens.budget_units - highest_envelope
    prm[state.PARAM_HOP_NS] = hop_ns
    prm[state.PARAM_DECISION_NS] = comp_ns
    prm[state.PARAM_WAYS] = device.ways_per_channel
    prm[state.PARAM_MESSAGE_NS] = ctrl_msg_ns
    prm[state.PARAM_CHECK_TOKENS] = int(check_tokens)
    prm[state.PARAM_DCC_DECISION_NS] = dcc_decision_ns
    prm[state.PARAM_ARBITRATED] = int(device.channel_arbitration != "fifo")
    prm[state.PARAM_SUBATOMIC_STEPS] = int(sch in SUBATOMIC_STEPS)
    prm[state.PARAM_FAMILY] = FAMILY_OF[sch]
    prm[state.PARAM_UNDECIDED_TYPES] = undecided_types(sch, tables.arrays)
    if record_bin_samples > 0:
        bound = _makespan_bound(ops, tables, device, hop_ns, comp_ns, ctrl_msg_ns, dcc_decision_ns)
        series = np.zeros(bound // (SAMPLE_NS * record_bin_samples) + 2, np.int64)
    else:
        series = np.zeros(0, np.int64)
    flat_tables, table_start = tables.packed()
    xfer = np.asarray(device.xfer_ns(), np.int64)
    S = state.allocate(prm, flat_tables, table_start, ops.chip, op_type, ops.arrival_ns, xfer)
    run_kernel(S)
    stats = S.stats
    account_current(S.atomic_log, S.atomic_log_first, S.atomic_log_end, flat_tables, table_start,
                    prm[state.PARAM_BUDGET], record_bin_samples, series, stats)  # fmt: skip
    op_issue, op_start, op_done = S.op_issue, S.op_start, S.op_done
    wait_ns, wait_cnt = S.wait_ns, S.wait_count
    st = dict(zip(state.STAT_NAMES, (int(x) for x in stats), strict=True))
    first = int(ops.arrival_ns[0]) if len(ops) else 0
    last = int(op_done.max()) if len(ops) else 0
    if record_bin_samples > 0:
        used = last // (SAMPLE_NS * record_bin_samples) + 1
        series = series[:used]
    return SimResult(
        scheme=scheme,
        op_issue=op_issue,
        op_start=op_start,
        op_done=op_done,
        wait_ns=wait_ns,
        wait_count=wait_cnt,
        series=series,
        stats=st,
        budget_units=tokens.budget_units,
        makespan_ns=max(last - first, 0),
        first_arrival_ns=first,
    )


def _makespan_bound(ops, tables, device, hop_ns, comp_ns, msg_ns, dcc_ns) -> int:
    """Completion-time bound: every operation serialised after the last arrival, each atomic
    operation paying a full ring round, compute time, controller messages and DCC decisions
    (of every chip), and every channel atomic operation waiting for all the others."""
    tmpl_len = tables.arrays[state.TMPL_LEN]
    tmpl_cum = tables.arrays[state.TMPL_CUM]
    tmpl_off = tables.arrays[state.TMPL_OFF]
    ty = ops.op_type
    per = tmpl_cum[tmpl_off[ty] + tmpl_len[ty]] + tmpl_len[ty] * (
        (device.n_chips + 1) * (hop_ns + dcc_ns) + comp_ns + 2 * msg_ns * device.n_chips
    )
    xfer = np.asarray(device.xfer_ns())[ty]
    chan_dur = tables.arrays[state.A_DUR] * tables.arrays[state.A_CHAN]
    on_chan = np.array([sum(int(chan_dur[a]) for a in seq) for seq in device.templates()])[ty]
    total = per.sum() + xfer.sum() + on_chan.sum()
    return int(ops.arrival_ns.max() + total + 1) if len(ops) else 1
