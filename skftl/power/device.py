"""The NAND device of Table IV (1 channel x 8 ways, 200 MHz controller clock) and how each
NAND operation decomposes into atomic operations (Table I, Section IV-A)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from skftl.errors import ConfigError
from skftl.power.profiles import (
    ERASE_EXEC,
    ERASE_VERIFY,
    PROG_EXEC,
    PROG_VERIFY,
    READ_DATAOUT,
    READ_EXEC,
    READ_SETUP,
    SAMPLE_NS,
)

# NAND operation kinds as the op streams carry them
OP_READ, OP_PROGRAM, OP_ERASE = 0, 1, 2
# operation types the kernel distinguishes (program split by LSB / MSB page)
T_READ, T_PROG_LSB, T_PROG_MSB, T_ERASE = 0, 1, 2, 3
READ_MODELS = ("channel", "chip")
# how the controller hands its shared channel to the chips waiting for it: "commands_first"
# (when the channel frees, a waiting read command goes first, then erase commands, program
# commands with their data in, and read data-outs last, the oldest first within a kind: the
# Cosmos+ OpenSSD controller's request scheduler), "dataout_first" (waiting data-outs first,
# then the commands, oldest first: MQSim's ONFI channel model) or "fifo" (each transfer booked
# when it is requested, behind everything booked before it)
CHANNEL_ARBITRATIONS = ("commands_first", "dataout_first", "fifo")
TYPE_NAMES = ("read", "program_lsb", "program_msb", "erase")


@dataclass(frozen=True)
class Device:
    """Chips, channel sharing and operation structure. Timings of the atomic operations
    come from the current profiles (their lengths), see ``profiles``."""

    n_chips: int = 8  # chips on the token ring(s) (Table IV: 1 channel x 8 ways)
    ways_per_channel: int = 8  # chips sharing one channel (bus)
    clock_mhz: float = 200.0  # controller / MTPM clock (Table IV)
    program_loops: int = 10  # program-execution + verify loops per program (Sec. IV-A)
    msb_verifies: int = 3  # verifies per loop of an MSB program (LSB: 1)
    t_comp_cycles: int = 2  # MTPM token computation (Sec. III-E)
    xfer_read_ns: int = 0  # channel time to issue a read command (assumption)
    xfer_program_ns: int = 0  # channel time for a program command + data in (assumption)
    xfer_erase_ns: int = 0  # channel time to issue an erase command (assumption)
    subatomic_interval_ns: int = 500  # modelling interval of the merge rule (Sec. III-D2)
    # read data-out: "channel" = the page goes over the chip's channel at the bus rate (the
    # data-out atomic operation occupies the channel; Sec. II-A: "transmitting data in the
    # page buffer to the NFM controller"); "chip" = the earlier model, a phase inside the chip
    read_model: str = "channel"
    read_dataout_ns: int = 40960  # channel time of a page's data out (8 KiB at 200 MB/s)
    # every read phase's current times this (setup, execution, data-out): the shipped profiles
    # carry the 85.43 % of I_max that Sec. II-B cites from another chip family [8]
    read_current_scale: float = 1.0
    channel_arbitration: str = "commands_first"  # see CHANNEL_ARBITRATIONS
    # KMTPM (sub-atomic) and the controller pool return a sub-atomic operation's surplus
    # tokens this many percent after its nominal end (from its atomic operation's start; at
    # the atomic operation's end at the latest): the guard band of a chip that times
    # sub-atomic steps by a fixed worst-case delay (Sec. III-F1)
    subatomic_guard_pct: int = 0

    def __post_init__(self) -> None:
        if self.n_chips < 1 or self.ways_per_channel < 1 or self.n_chips % self.ways_per_channel:
            raise ConfigError(
                f"n_chips ({self.n_chips}) must be a positive multiple of ways_per_channel "
                f"({self.ways_per_channel})"
            )
        if self.program_loops < 1 or self.msb_verifies < 1:
            raise ConfigError("program_loops and msb_verifies must be >= 1")
        if min(self.xfer_read_ns, self.xfer_program_ns, self.xfer_erase_ns) < 0:
            raise ConfigError("channel transfer times must be >= 0")
        if self.read_model not in READ_MODELS:
            raise ConfigError(
                f"mtpm.device.read_model must be one of {READ_MODELS}, got {self.read_model!r}"
            )
        if not 0.0 < self.read_current_scale <= 1.0:
            raise ConfigError(
                f"mtpm.device.read_current_scale must be in (0, 1], got {self.read_current_scale}"
            )
        if self.channel_arbitration not in CHANNEL_ARBITRATIONS:
            raise ConfigError(
                f"mtpm.device.channel_arbitration must be one of {CHANNEL_ARBITRATIONS}, "
                f"got {self.channel_arbitration!r}"
            )
        if self.subatomic_guard_pct < 0:
            raise ConfigError(
                f"mtpm.device.subatomic_guard_pct must be >= 0, got {self.subatomic_guard_pct}"
            )
        if self.read_dataout_ns <= 0 or self.read_dataout_ns % SAMPLE_NS:
            raise ConfigError(
                f"mtpm.device.read_dataout_ns must be a positive multiple of {SAMPLE_NS}, "
                f"got {self.read_dataout_ns}"
            )

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> Device:
        names = {f.name for f in fields(cls)}
        unknown = set(section) - names
        if unknown:
            raise ConfigError(f"unknown device parameter(s): {', '.join(sorted(unknown))}")
        return cls(**section)

    @property
    def cycle_ns(self) -> float:
        return 1000.0 / self.clock_mhz

    @property
    def n_channels(self) -> int:
        return self.n_chips // self.ways_per_channel

    def xfer_ns(self) -> tuple[int, int, int, int]:
        """Channel occupancy per operation type (read, program LSB, program MSB, erase)."""
        return (self.xfer_read_ns, self.xfer_program_ns, self.xfer_program_ns, self.xfer_erase_ns)

    def templates(self) -> tuple[list[int], ...]:
        """Atomic-operation sequence of each operation type (Table I; Table III counts
        20 atomic operations for an LSB program)."""
        return (
            [READ_SETUP, READ_EXEC, READ_DATAOUT],
            [PROG_EXEC, PROG_VERIFY] * self.program_loops,
            ([PROG_EXEC] + [PROG_VERIFY] * self.msb_verifies) * self.program_loops,
            [ERASE_EXEC, ERASE_VERIFY],
        )
