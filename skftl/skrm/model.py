"""SK-RM layout of the L2P table, operation costs and write schemes (Yang et al., SK-FTL).

Readings of the paper (each a parameter where a different reading is cheap):

* **Layout.** Entry ``lpn`` (a ``W``-bit PPN: block bits then page bits) fills one
  interport segment; racetrack ``lpn // K`` holds ``K`` consecutive entries; racetracks are
  stacked, and skyrmions move vertically through the access ports. Moving ``N`` racetracks
  costs ``N`` shifts (Sec. III-A: "from racetrack N to racetrack N+2, two shift operations
  are required"). Whether that is per move of a segment's skyrmions (all move together
  through the port, our default ``per_move``) or per skyrmion (``per_skyrmion``) the paper
  does not say. Racetracks shift in lockstep, so segment ``s`` of racetrack ``t`` sits at
  the same port as segment ``s`` of ``t +- 1``; moving between segments of one racetrack
  rides on the entry's own shift-out and shift-back and costs no extra shift. This is
  how the paper can claim SK-FTL "induce[s] no extra shift operation".
* **Costs** (Table II): detect 0.1 ns, shift 0.5 ns, remove 0.8 ns and insert 1.0 ns, the
  last two including their one shift, so explicit shifts are counted separately. Every
  entry write costs ``shifts_per_write`` explicit shifts (default ``2W``: the segment goes
  out to the overhead region past the port and back, Fig. 4), the same for every scheme
  (Fig. 12: "similar because the number of shift operations depends on the interport
  distance"); vertical moves add theirs.
* **Naive FTL** (paper): remove the skyrmions the segment holds, inject one per 1-bit of
  the new entry, no detect. **PW FTL** (Yang et al., DAC'20): detect the ``W`` bits, keep
  the segment's skyrmions, inject ``max(0, pop(new) - held)`` or remove
  ``max(0, held - pop(new))``. **SK-FTL**: PW plus the SK-aware allocator (NAND side,
  ``skftl.nand.policies_skftl``), the vertical shift mechanism (buffers on racetracks up
  to ``vertical_reach`` away; off = the entry's own racetrack only) and active SK
  buffering (surplus skyrmions parked in free entries, parked skyrmions reused before
  injecting). A free entry belongs to a logical page with no valid mapping (never
  written or trimmed). SK-FTL detects exactly what PW FTL detects (Fig. 11): the FTL
  knows from its own bookkeeping how many skyrmions each free entry holds. Without
  buffering the vertical mechanism changes no count (a buffer is a buffer); it matters
  only through where skyrmions can be parked.
* **SK-RMSim convention** (the public simulator): Naive counts inject ``pop(new)``, remove
  ``W``, shift ``2W``, detect 0 per write; Permutation_Write counts inject/remove the
  popcount change, shift ``2W + 2``, detect ``W``. Its naive remove of ``W`` is not a
  count of physical skyrmions, so conservation holds under the paper convention only.
* **1-bit difference** (Fig. 13): over successive updates of an entry (old mapping
  valid), ``|pop(new) - pop(old)|`` — the paper calls the bit difference "the number of
  data bits 1" and the Fig. 2 example's 7 injected skyrmions are the popcount change
  1 -> 8. The Hamming distance ``pop(new ^ old)`` is counted beside it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from skftl.errors import ConfigError
from skftl.skrm import kernel as k

VCOSTS = {"per_move": k.VCOST_PER_MOVE, "per_skyrmion": k.VCOST_PER_SKYRMION}
CONVENTIONS = {"paper": k.CONV_PAPER, "skrmsim": k.CONV_SKRMSIM}
WRITES = {"naive": k.S_NAIVE, "pw": k.S_PW, "sk": k.S_SK}
OPS = ("inject", "remove", "detect", "shift")


@dataclass(frozen=True)
class Layout:
    entry_bits: int = 32  # W: bits per mapping entry = interport distance
    entries_per_track: int = 16  # K
    vertical_reach: int = 1  # racetracks above/below a buffer may be on
    vertical_cost: str = "per_move"  # per_move | per_skyrmion
    shifts_per_write: int | None = None  # explicit shifts per entry write; None = 2W
    tracks_per_stack: int = 0  # racetracks per vertical stack (moves stay inside); 0 = one

    def __post_init__(self) -> None:
        if not 1 <= self.entry_bits <= 63:
            raise ConfigError(f"skrm: entry_bits must be in 1..63, got {self.entry_bits}")
        if self.entries_per_track < 1:
            raise ConfigError(f"skrm: entries_per_track must be >= 1, got {self.entries_per_track}")
        if self.vertical_reach < 0:
            raise ConfigError(f"skrm: vertical_reach must be >= 0, got {self.vertical_reach}")
        if self.tracks_per_stack < 0:
            raise ConfigError(f"skrm: tracks_per_stack must be >= 0, got {self.tracks_per_stack}")
        if self.vertical_cost not in VCOSTS:
            raise ConfigError(
                f"skrm: vertical_cost must be one of {sorted(VCOSTS)}, got {self.vertical_cost!r}"
            )

    @property
    def base_shifts(self) -> int:
        return 2 * self.entry_bits if self.shifts_per_write is None else self.shifts_per_write

    @classmethod
    def from_config(cls, section: dict) -> Layout:
        known = set(cls.__dataclass_fields__)
        return cls(**{key: v for key, v in (section or {}).items() if key in known})


@dataclass(frozen=True)
class OpCosts:
    """Per-operation latency (Table II) and energy (not in the paper: assumed values)."""

    detect_ns: float = 0.1
    shift_ns: float = 0.5
    remove_ns: float = 0.8
    inject_ns: float = 1.0
    detect_pj: float = 0.01
    shift_pj: float = 0.05
    remove_pj: float = 0.2
    inject_pj: float = 1.0

    @classmethod
    def from_config(cls, section: dict) -> OpCosts:
        known = set(cls.__dataclass_fields__)
        return cls(**{key: float(v) for key, v in (section or {}).items() if key in known})


@dataclass(frozen=True)
class Scheme:
    """One write strategy. ``allocator`` is NAND-side: it selects which mapping-update
    stream (conventional or SK-aware allocation) the scheme is costed on."""

    name: str
    write: str = "pw"  # naive | pw | sk
    allocator: bool = False
    vertical: bool = False
    buffering: bool = False
    convention: str = "paper"  # paper | skrmsim

    def __post_init__(self) -> None:
        if self.write not in WRITES:
            raise ConfigError(f"skrm scheme {self.name}: write must be one of {sorted(WRITES)}")
        if self.convention not in CONVENTIONS:
            raise ConfigError(
                f"skrm scheme {self.name}: convention must be one of {sorted(CONVENTIONS)}"
            )


# The paper's three schemes (Sec. IV-A).
FTL = Scheme("FTL", write="naive")
PW_FTL = Scheme("PW FTL", write="pw")
SK_FTL = Scheme("SK-FTL", write="sk", allocator=True, vertical=True, buffering=True)
PAPER_SCHEMES = (FTL, PW_FTL, SK_FTL)


def ablation_schemes() -> tuple[Scheme, ...]:
    """PW FTL plus each SK-FTL component alone, each left out, and all three."""
    out = [PW_FTL]
    for a, v, b, name in (
        (True, False, False, "+allocator"),
        (False, False, True, "+buffering (own racetrack)"),
        (False, True, True, "+buffering +vertical"),
        (True, False, True, "SK-FTL - vertical"),
        (False, True, True, "SK-FTL - allocator"),
        (True, True, False, "SK-FTL - buffering"),
    ):
        out.append(Scheme(name, write="sk", allocator=a, vertical=v, buffering=b))
    out.append(SK_FTL)
    # "+buffering +vertical" and "SK-FTL - allocator" are the same scheme: keep one
    seen, uniq = set(), []
    for s in out:
        key = (s.write, s.allocator, s.vertical, s.buffering)
        if key not in seen:
            seen.add(key)
            uniq.append(s)
    return tuple(uniq)


class CostModel:
    """Racetrack state of an L2P table of ``n_entries`` entries under one scheme; feed it
    entry updates with ``update(lpn, old_ppn, new_ppn)`` (chunks, in order)."""

    def __init__(self, layout: Layout, scheme: Scheme, n_entries: int) -> None:
        self.layout = layout
        self.scheme = scheme
        self.n_entries = int(n_entries)
        K = layout.entries_per_track
        n_tracks = -(-self.n_entries // K)
        self.prm = np.zeros(k.N_Q, np.int64)
        self.prm[k.Q_W] = layout.entry_bits
        self.prm[k.Q_K] = K
        self.prm[k.Q_SCHEME] = WRITES[scheme.write]
        self.prm[k.Q_CONV] = CONVENTIONS[scheme.convention]
        self.prm[k.Q_BUFFER] = int(scheme.buffering)
        self.prm[k.Q_REACH] = layout.vertical_reach if scheme.vertical else 0
        self.prm[k.Q_VCOST] = VCOSTS[layout.vertical_cost]
        self.prm[k.Q_BASE_SHIFT] = layout.base_shifts
        self.prm[k.Q_NTRACKS] = n_tracks
        self.prm[k.Q_STACK] = layout.tracks_per_stack
        self.cnt = np.zeros(self.n_entries, np.uint8)
        # every entry starts free: W bits of buffer room each
        per_track = np.full(n_tracks, K, np.int64)
        per_track[-1] = self.n_entries - K * (n_tracks - 1)
        # per racetrack: [parked skyrmions, room for them]
        self.buf = np.zeros((n_tracks, 2), np.int32)
        self.buf[:, 1] = per_track * layout.entry_bits
        self.ctr = np.zeros(k.N_K, np.int64)

    def update(self, lpn: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        lpn = np.ascontiguousarray(lpn, np.int64)
        old = np.ascontiguousarray(old, np.int64)
        new = np.ascontiguousarray(new, np.int64)
        bad = k.apply_updates(self.prm, self.cnt, self.buf, self.ctr, lpn, old, new)
        if bad >= 0:
            e, o, n = int(lpn[bad]), int(old[bad]), int(new[bad])
            if not 0 <= e < self.n_entries:
                raise ConfigError(
                    f"skrm: update {bad}: entry {e} outside the table of {self.n_entries}"
                )
            raise ConfigError(
                f"skrm: update {bad}: physical address {max(o, n)} does not fit the "
                f"{self.layout.entry_bits}-bit entry (updates before it were accounted)"
            )

    @property
    def pool(self) -> np.ndarray:
        """Skyrmions parked per racetrack (view)."""
        return self.buf[:, 0]

    @property
    def room(self) -> np.ndarray:
        """Capacity of the free entries per racetrack (view)."""
        return self.buf[:, 1]

    # --- results ---------------------------------------------------------------------------
    def counters(self) -> dict[str, int]:
        return {n: int(v) for n, v in zip(k.COUNTER_NAMES, self.ctr, strict=True)}

    def stored(self) -> int:
        """Skyrmions on the racetracks: in entries plus parked."""
        return int(self.cnt.sum(dtype=np.int64) + self.pool.sum(dtype=np.int64))

    def latency_ns(self, costs: OpCosts) -> dict[str, float]:
        c = self.counters()
        return {op: c[op] * getattr(costs, f"{op}_ns") for op in OPS}

    def energy_pj(self, costs: OpCosts) -> dict[str, float]:
        c = self.counters()
        return {op: c[op] * getattr(costs, f"{op}_pj") for op in OPS}


def scheme_dict(s: Scheme) -> dict:
    return asdict(s)
