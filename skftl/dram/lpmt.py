"""LA-PN Mapping Table (LPMT) with block tables, timed in DRAM: the Python face of
:mod:`skftl.dram.kernel` (configuration, state, operations, invariants, statistics).

Paper: Song et al., "An implementation of low latency address-mapping logic for SSD
controllers", IEICE Electronics Express 16 (2019). Figs. 1-2 define the tables;
Table II the sizes (2**20 entries = 2**17 sets x 8 ways; 2**12 blocks x 2**8 pages).

The secondary table holds as many sets as the primary one by default: the paper sizes
the LPMT at "twice the size of the total of LA-PN entries" for the worst case.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from skftl.dram import state
from skftl.dram.hashes import hash_keys
from skftl.dram.kernel import kernel_for
from skftl.dram.layout import Layout
from skftl.dram.state import Ops, Tables
from skftl.dram.steady import M_HITS, new_memo
from skftl.dram.timing import DramState, DramTiming, recency_col
from skftl.errors import ConfigError
from skftl.hugepages import huge_full, huge_zeros

# row-hit accountings (kernel module docstring), in the order of state.ROW_*
ROW_HITS = ("per_bank", "per_probe", "window")
# where a set probe stops (kernel module docstring), in the order of state.EARLY_*
EARLY_EXIT = ("none", "match", "match_or_empty")


@dataclass(frozen=True)
class LpmtConfig:
    """Shape and policies of the LPMT and block tables."""

    n_sets: int = 1 << 17  # primary sets (Table II: 2**20 entries / 8 ways)
    assoc: int = 8  # ways per set
    n_secondary: int | None = None  # secondary sets; None = n_sets (paper: 2x capacity)
    n_blocks: int = 1 << 12  # flash blocks, one block table each (PA = 12 + 8 bits)
    pages_per_block: int = 1 << 8
    hash: str = "folding"
    placement: str = "interleaved"  # skftl.dram.layout.PLACEMENTS
    n_banks: int = 4
    # where a set probe stops (EARLY_EXIT): after every way (none), at the matching way
    # (match), or also at the first invalid way of a set without the key (match_or_empty),
    # in the placement's read order. With Fig. 7's order a stop can come *later* than in way
    # order: inserts fill way 0 first, and the reordering may read way 0's bank last
    early_exit: str = "none"
    # ROW_HITS: per_bank (each bank's open row) | per_probe (one ACT per set probe) |
    # window (Fig. 6 / Table V: the nearest read of the bank in the last 4; paper timing)
    row_hits: str = "per_bank"
    insert_on_read: bool = True  # a read of an unknown LA maps the file
    row_bytes: int = 1024  # MT40A512M8 page size
    entry_bytes: int = 8  # one BL8 burst of an x8 device holds one 42-bit entry

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> LpmtConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in section.items() if k in names})

    @property
    def secondary(self) -> int:
        return self.n_sets if self.n_secondary is None else self.n_secondary

    @property
    def n_pages(self) -> int:
        return self.n_blocks * self.pages_per_block

    @property
    def entries(self) -> int:
        return self.n_sets * self.assoc

    def layout(self) -> Layout:
        return Layout.build(
            self.placement,
            self.n_banks,
            self.assoc,
            self.n_sets + self.secondary,
            self.pages_per_block,
            self.row_bytes,
            self.entry_bytes,
        )

    def validate(self) -> None:
        if self.row_hits not in ROW_HITS:
            raise ConfigError(f"lpmt row_hits must be one of {ROW_HITS}, got {self.row_hits!r}")
        if self.early_exit not in EARLY_EXIT:
            raise ConfigError(
                f"lpmt early_exit must be one of {EARLY_EXIT}, got {self.early_exit!r}"
            )
        for name in ("n_sets", "assoc", "n_blocks", "pages_per_block", "n_banks"):
            if getattr(self, name) < 1:
                raise ConfigError(f"lpmt {name} must be >= 1, got {getattr(self, name)}")
        if self.secondary < 0:
            raise ConfigError(f"lpmt n_secondary must be >= 0, got {self.secondary}")
        if self.n_pages >= 1 << 31:  # PAs are stored as int32
            raise ConfigError(f"lpmt needs n_blocks * pages_per_block < 2**31, got {self.n_pages}")


def _aligned_sets(n: int, assoc: int) -> np.ndarray:
    """``n`` empty set records starting on a 128-byte boundary (numpy aligns to 16): a
    two-line record is then one aligned 128-byte pair, the unit in which the L2
    prefetcher fetches the neighbour of a missed line. On huge pages where possible
    (skftl.hugepages): lookups probe sets at random."""
    dt = state.set_record_dtype(assoc)
    sets = huge_zeros(n * dt.itemsize, np.uint8, align=128).view(dt)
    for name in ("key", "pa", "next", "prev"):
        sets[name] = -1
    return sets


@dataclass
class OpResult:
    latency: np.ndarray  # cycles per operation (lookup reads)
    reads: np.ndarray  # DRAM reads per operation
    status: np.ndarray  # state.ST_*


class Lpmt:
    """An LPMT + block tables + DRAM timing state. Operations run through the kernel;
    the state persists between calls."""

    def __init__(self, config: LpmtConfig, timing: DramTiming | None = None, record: int = 0):
        config.validate()
        self.config = config
        self.timing = timing or DramTiming()
        self.timing.validate()
        if config.row_hits == "window" and self.timing.model != "paper":
            raise ConfigError(
                "lpmt row_hits 'window' is Fig. 6's classification under the paper's timing "
                f"rule; the {self.timing.model!r} model keeps each bank's row open until a "
                "command closes it (row_hits per_bank or per_probe)"
            )
        self.layout = config.layout()
        P, S, A, NP = config.n_sets, config.secondary, config.assoc, config.n_pages
        # the per-field arrays below are views of one record per set (state.set_record_dtype)
        # The kernel gets strided views of at least two records: numpy calls the views
        # of a single record contiguous, which would compile every kernel variant a
        # second time for that layout (a padding record is never addressed).
        padded = _aligned_sets(max(P + S, 2), A)
        set_views = [padded[f] for f in ("key", "pa", "flags", "next", "prev", "count")]
        self.sets = padded[: P + S]
        self._records = padded.view(np.uint8)  # the records as flat bytes (state.SetRecords)
        self.ent_key = self.sets["key"]
        self.ent_pa = self.sets["pa"]
        self.ent_flags = self.sets["flags"]
        self.set_next = self.sets["next"]
        self.set_prev = self.sets["prev"]
        self.set_count = self.sets["count"]
        self.free_sets = np.arange(P + S - 1, P - 1, -1, dtype=np.int64)  # pops P first
        self.bt_next = huge_full(NP, -1, np.int64)  # read at random: see _aligned_sets
        self.bt_prev = huge_full(NP, -1, np.int64)
        self.bt_flags = huge_zeros(NP, np.uint8)
        self.free_pages = np.arange(NP - 1, -1, -1, dtype=np.int64)  # pops page 0 first
        self.free_top = np.array([S, NP], dtype=np.int64)  # state.FREE_*
        self.dram = DramState(self.layout.n_banks, self.timing)
        self.counters = np.zeros(state.CT_LEN, dtype=np.int64)
        self.record = np.zeros((2, record), dtype=np.int64)
        # state.CONFIG_*
        self.config_vector = np.array(
            [P, A, int(config.insert_on_read), EARLY_EXIT.index(config.early_exit),
             ROW_HITS.index(config.row_hits), *state.record_index(A), recency_col(self.timing)],
            dtype=np.int64,
        )  # fmt: skip
        assert len(self.config_vector) == state.CONFIG_LEN  # one entry per CONFIG_* index
        self._tp = self.timing.params()
        self._lp = self.layout.params()
        self._order = np.empty(self.layout.banks_per_set, dtype=np.int64)  # kernel scratch
        self._kernel = kernel_for(self._tp, A, self.layout)
        self._memo = new_memo()  # the strict model's steady probes (skftl.dram.steady)
        self._tables = Tables(
            *set_views, self.free_sets,
            self.bt_next, self.bt_prev, self.bt_flags, self.free_pages, self.free_top,
        )  # fmt: skip
        self._bank_state = self.dram.bank_state()

    # ------------------------------------------------------------------ operations
    def homes(self, keys: np.ndarray) -> np.ndarray:
        return hash_keys(self.config.hash, keys, self.config.n_sets)

    def run(
        self,
        ops: np.ndarray,
        keys: np.ndarray,
        args: np.ndarray,
        homes: np.ndarray | None = None,
    ) -> OpResult:
        """Apply an operation stream (state.OP_* codes, keys < 2**63, page counts or page
        indices); ``homes`` (home sets) default to the configured hash of ``keys``."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        if keys.size and keys.min() < 0:
            raise ConfigError("LPMT keys must be non-negative")
        ops = np.ascontiguousarray(ops, dtype=np.int64)
        args = np.ascontiguousarray(args, dtype=np.int64)
        homes = self.homes(keys) if homes is None else np.ascontiguousarray(homes, dtype=np.int64)
        if not (len(ops) == len(keys) == len(args) == len(homes)):
            raise ConfigError("ops, keys, args and homes must have the same length")
        writes = (ops == state.OP_WRITE) | (ops == state.OP_READ)
        if np.any(writes & (args < 1)):
            raise ConfigError("read/write operations need a page count >= 1")
        n = len(ops)
        out = OpResult(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int8))
        self._kernel(
            Ops(ops, keys, homes, args, out.latency, out.reads, out.status),
            self._tables, self._records, self._bank_state, self.dram.sc,
            self.config_vector, self._lp, self._tp,
            self.counters, self.record, self._memo, self._order,
        )  # fmt: skip
        return out

    def _one(self, op: int, key: int, arg: int) -> tuple[int, int]:
        r = self.run(np.array([op]), np.array([key]), np.array([arg]))
        return int(r.status[0]), int(r.latency[0])

    def insert(self, key: int, n_pages: int = 1) -> int:
        """Map a new file (or remap an existing one); returns the kernel status."""
        return self._one(state.OP_WRITE, key, n_pages)[0]

    update = insert

    def lookup(self, key: int) -> tuple[bool, int]:
        """(found, latency cycles); never inserts."""
        saved = self.config_vector[state.CONFIG_INSERT_ON_MISS]
        self.config_vector[state.CONFIG_INSERT_ON_MISS] = 0
        try:
            status, lat = self._one(state.OP_READ, key, 1)
        finally:
            self.config_vector[state.CONFIG_INSERT_ON_MISS] = saved
        return status == state.ST_HIT, lat

    def delete(self, key: int) -> bool:
        return self._one(state.OP_DELETE, key, 0)[0] == state.ST_HIT

    def delete_page(self, key: int, index: int) -> bool:
        return self._one(state.OP_DELETE_PAGE, key, index)[0] == state.ST_HIT

    # ------------------------------------------------------------------ inspection
    @property
    def memo_probes(self) -> int:
        """Set probes the strict model timed from its memo of earlier probes
        (skftl.dram.steady) rather than command by command."""
        return int(self._memo[M_HITS])

    def location(self, key: int) -> tuple[int, int] | None:
        """(set, way) holding ``key``, found by walking its chain (no timing)."""
        g = int(self.homes(np.array([key]))[0])
        while g >= 0:
            hit = np.nonzero(
                (self.ent_flags[g] & state.F_VALID).astype(bool) & (self.ent_key[g] == key)
            )[0]
            if hit.size:
                return g, int(hit[0])
            g = int(self.set_next[g])
        return None

    def pages(self, key: int) -> list[int]:
        """Physical pages of a file, in chain order (empty if not mapped)."""
        loc = self.location(key)
        if loc is None:
            return []
        out, p = [], int(self.ent_pa[loc])
        while True:
            out.append(p)
            if self.bt_flags[p] & state.BT_LAST:
                return out
            p = int(self.bt_next[p])

    def live_keys(self) -> np.ndarray:
        return self.ent_key[(self.ent_flags & state.F_VALID).astype(bool)]

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of every state array (tables, free lists, DRAM state, counters)."""
        st = {
            name: getattr(self, name).copy()
            for name in (
                "ent_key", "ent_pa", "ent_flags", "set_next", "set_prev", "set_count",
                "bt_next", "bt_prev", "bt_flags", "counters",
            )
        }  # fmt: skip
        st["free_sets"] = self.free_sets[: self.free_top[state.FREE_SETS]].copy()
        st["free_pages"] = self.free_pages[: self.free_top[state.FREE_PAGES]].copy()
        st["cases"] = self.dram.cases.copy()
        return st

    def occupancy(self) -> dict[str, float]:
        """Primary-table statistics (Table IV's candidates): fraction of primary sets
        holding at least one entry, fraction of primary entries valid, fraction of the
        files that sit in the primary table, secondary sets in use."""
        P = self.config.n_sets
        valid = (self.ent_flags & state.F_VALID).astype(bool)
        files = int(valid.sum())
        in_primary = int(valid[:P].sum())
        return {
            "set_occupancy": float((self.set_count[:P] > 0).mean()),
            "entry_occupancy": in_primary / valid[:P].size,
            "primary_fraction": in_primary / files if files else float("nan"),
            "secondary_sets": int((self.set_count[P:] > 0).sum()),
            "files": files,
        }

    def check_invariants(self) -> None:
        """Raise AssertionError naming the first broken invariant: every live key found
        exactly once and in its home chain; set counts; symmetric set chains; no leaked
        or doubly-owned secondary set; every file's BT chain consistent; every page
        either in exactly one chain or free."""
        cfg = self.config
        P, S, A = cfg.n_sets, cfg.secondary, cfg.assoc
        valid = (self.ent_flags & state.F_VALID).astype(bool)
        keys = self.ent_key[valid]
        assert len(np.unique(keys)) == len(keys), "a key is stored twice"
        assert np.array_equal(valid.sum(axis=1), self.set_count), "set_count mismatch"
        # set chains
        owner = np.full(P + S, -1, dtype=np.int64)
        for h in range(P):
            assert self.set_prev[h] == -1, f"primary set {h} has a previous set"
            g = h
            while self.set_next[g] >= 0:
                s = int(self.set_next[g])
                assert s >= P, f"set {g} links to primary set {s}"
                assert owner[s] == -1, f"secondary set {s} in two chains"
                assert self.set_prev[s] == g, f"set {s}: prev {self.set_prev[s]} != {g}"
                assert self.set_count[s] > 0, f"empty secondary set {s} left in a chain"
                owner[s] = h
                g = s
        free = self.free_sets[: self.free_top[state.FREE_SETS]]
        assert len(np.unique(free)) == len(free), "a secondary set is free twice"
        used = set(np.nonzero(owner >= 0)[0].tolist())
        assert not used & set(free.tolist()), "a chained secondary set is also free"
        assert len(used) + len(free) == S, "leaked secondary sets"
        # keys live in the chain of their home set
        g_idx, w_idx = np.nonzero(valid)
        if len(g_idx):
            homes = self.homes(self.ent_key[g_idx, w_idx])
            root = np.where(g_idx < P, g_idx, owner[g_idx])
            assert np.array_equal(root, homes), "a key is outside its home chain"
        # block-table chains
        seen = np.zeros(cfg.n_pages, dtype=bool)
        for g, w in zip(g_idx.tolist(), w_idx.tolist(), strict=True):
            p, prev, n = int(self.ent_pa[g, w]), g * A + w, 0
            while True:
                f = self.bt_flags[p]
                assert f & state.BT_VALID, f"page {p} in a chain but not valid"
                assert not seen[p], f"page {p} in two chains"
                seen[p] = True
                assert bool(f & state.BT_FIRST) == (n == 0), f"page {p}: first flag wrong"
                assert self.bt_prev[p] == prev, f"page {p}: prev {self.bt_prev[p]} != {prev}"
                n += 1
                if f & state.BT_LAST:
                    break
                prev, p = p, int(self.bt_next[p])
            single = bool(self.ent_flags[g, w] & state.F_SINGLE)
            assert single == (n == 1), f"entry ({g},{w}): single flag vs {n} pages"
        fp = self.free_pages[: self.free_top[state.FREE_PAGES]]
        assert len(np.unique(fp)) == len(fp), "a page is free twice"
        assert not seen[fp].any(), "a chained page is also free"
        assert seen.sum() + len(fp) == cfg.n_pages, "leaked pages"
        assert not (self.bt_flags[fp] & state.BT_VALID).any(), "a free page is marked valid"
