"""Study `lpmt`: hashed L2P table (LPMT) in DRAM with bank interleaving.

Reproduces Song et al., IEICE ELEX 16 (2019) (``../shared/papers/
lpmt_dram-address-mapping.md``): Table IV (primary-LPMT occupancy per workload and hash
function), Table V (distribution of the DRAM latency cases per placement), Table VI
(average lookup latency per workload and placement, improvement over one bank) and
Fig. 8 (latency per tenth of the workload), then goes past it: a strict DDR4 timing
model on the same access streams, bank groups, and sensitivity to associativity, load
factor, number of banks and hash function (including modern hashes). The paper's numbers
and the scoring of every claim live in :mod:`skftl.studies.lpmt.claims`.

Readings of what the paper leaves open (also in the notebook):

* trace -> files: see :mod:`skftl.dram.files` (a request's start LA is a file);
* hash key: the LA in 512 B sectors; the table size follows the paper's rule (the
  next power of two of entries >= the most files of any workload, 8 ways per set),
  which gives the paper's 2**17 x 8 for Financial1's 700,873 files;
* a set probe reads all its ways (one DRAM burst each) - the row-hit share of ~7/8 in
  the paper's Table V fits this; ``early_exit`` stops it at the matching way
  (``match``) or also at a set's first invalid way (``match_or_empty``), in the
  placement's read order (with Fig. 7's order a stop can come later than in way order:
  inserts fill way 0 first, and the reordering may read way 0's bank last). Every stop
  rule is run under the default reading's paper rule (``early_exit_reads``,
  ``early_exit_cases``, ``early_exit_latency``);
* row hits: Fig. 6 and Table V's column heads class a read by the nearest read of its
  bank within the last 4 reads (``paper_window``: a row hit iff that read had its row;
  none in the window: "b[t] != b[t-4]" whatever the row); or each bank keeps its open
  row however long ago it was read (``paper``); or one activation per set probe, the
  probe's other reads row hits (``paper_per_probe``, what Table V's ~87 % row hits
  under every placement fit). All three are run with the paper rule as "timing
  models" (the window and per-bank rules give the same latencies: only the classes
  differ);
* the strict DDR4 model's penalty over the paper rule is taken apart by switching its
  extra constraints off one at a time (``strict_ablation``);
* reuse: the stand-in traces re-access few files, so the block-table path is rarely
  taken; ``reaccess_latency`` shows the lookup latency against the share of requests
  that re-access an earlier file (:func:`skftl.dram.files.with_reaccess`);
* "occupancy" (Table IV) is the share of primary sets holding at least one entry - the
  only reading that can exceed 67 % with 700,873 files in 2**20 entries; the share of
  primary entries used and the share of files stored in the primary table are kept too;
* placements and the timing rule: see :mod:`skftl.dram.layout` and
  :mod:`skftl.dram.timing`.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
import yaml
from tqdm.auto import tqdm

import skftl
from skftl.config import validate_sections
from skftl.dram.files import FileStream, file_stream, with_reaccess
from skftl.dram.hashes import hash_keys
from skftl.dram.lpmt import EARLY_EXIT, Lpmt, LpmtConfig
from skftl.dram.timing import SC_REFRESHES, DramTiming, case_labels, time_stream
from skftl.errors import ConfigError
from skftl.io import write_csv
from skftl.run_traces import workload_for
from skftl.studies.lpmt.checks import check
from skftl.studies.lpmt.claims import READINGS, model_of

# timing model and row-hit accounting of each run (the dataset's `model` coordinate)
MODELS = ("paper", "paper_per_probe", "paper_window", "ddr4")
ROW_HITS = {
    "paper": "per_bank",
    "paper_per_probe": "per_probe",
    "paper_window": "window",
    "ddr4": "per_bank",
}
# the run the early-exit rules are compared under: the default reading's (a paper rule)
EARLY_EXIT_MODEL = model_of(READINGS.default)
# the strict model with its extra constraints switched off one at a time (finding: which of
# them makes it slower than Fig. 6's rule); DramTiming overrides, ns at the configured clock
ABLATIONS = ("strict", "no_refresh", "tccd_l_as_s", "no_tras", "no_refresh_tccd_l_as_s")

# `simulate` (one run) stays out: the package's star import would shadow its submodule
__all__ = [
    "ABLATIONS",
    "EARLY_EXIT_MODEL",
    "MODELS",
    "ROW_HITS",
    "RunResult",
    "ablated",
    "case_cycles",
    "case_shares",
    "improvement",
    "load_streams",
    "run",
    "table_config",
    "tables",
    "timings",
    "with_overrides",
    "write_tables",
]


# ------------------------------------------------------------------ configuration
def _section(cfg: dict[str, Any]) -> dict[str, Any]:
    if "lpmt" not in cfg:
        raise ConfigError("config has no `lpmt` section")
    return cfg["lpmt"]


def timings(sec: dict[str, Any]) -> dict[str, DramTiming]:
    """The timing of every entry of MODELS: the paper rule (every row-hit accounting) and
    the strict DDR4 model (same clock and Table I)."""
    base = dict(sec.get("timing", {}))
    strict = base | dict(sec.get("strict", {})) | {"model": "ddr4"}
    paper = DramTiming.from_config(base | {"model": "paper"})
    return {"paper": paper, "paper_per_probe": paper, "paper_window": paper,
            "ddr4": DramTiming.from_config(strict)}  # fmt: skip


def ablated(strict: DramTiming, name: str) -> DramTiming:
    """The strict timing with the constraints ``name`` (one of ABLATIONS) switched off:
    refresh, tCCD_L (back-to-back reads in one bank group wait tCCD_S only), tRAS."""
    if name not in ABLATIONS:
        raise ConfigError(f"unknown strict-model ablation {name!r}; known: {ABLATIONS}")
    t = strict
    if "no_refresh" in name:
        t = dataclasses.replace(t, refresh=False)
    if "tccd_l_as_s" in name:
        t = dataclasses.replace(t, tccd_l_ns=t.ccd * t.tck_ns)
    if "no_tras" in name:
        t = dataclasses.replace(t, tras_ns=0.0)
    return t


def load_streams(cfg: dict[str, Any], progress: bool = False) -> dict[str, FileStream]:
    """Every workload of the study as an LPMT operation stream (real trace when present)."""

    sec = _section(cfg)
    tr = cfg.get("traces", {})
    paper = sec.get("scale", "default") == "paper"
    n_req = sec.get("n_requests")
    if n_req is None:
        n_req = tr.get("synthetic_requests")
    out = {}
    for name in tqdm(sec["workloads"], desc="lpmt traces", disable=not progress):
        if paper:
            n_req = (sec.get("paper_requests") or {}).get(name, n_req)
        req = workload_for(name, cfg, n_requests=n_req)
        out[name] = file_stream(req, int(sec["page_size"]), int(sec["la_unit"]))
    return out


def _aligned_pct(stream: FileStream, la_unit: int, sectors: int = 4) -> float:
    """Share (%) of a stream's requests whose start address, in 512 B sectors (the unit
    the paper's SPC traces address in), is a multiple of ``sectors``: Sec. 3 says the
    WebSearch2/3 addresses "are all multiples of four"."""
    if not len(stream):
        return float("nan")
    sector = stream.keys.astype(np.int64) * la_unit // 512
    return float(100.0 * np.mean(sector % sectors == 0))


def _next_pow2(n: int) -> int:
    return 1 << max(0, int(n - 1).bit_length())


def table_config(sec: dict[str, Any], streams: dict[str, FileStream]) -> LpmtConfig:
    """The LPMT shared by all workloads, sized like the paper: entries = next power of two
    >= the most files of any workload; pages for every workload's files."""
    assoc = int(sec["assoc"])
    n_sets = sec.get("n_sets", "auto")
    if n_sets == "auto":
        n_sets = max(1, _next_pow2(max(s.n_files for s in streams.values())) // assoc)
    n_blocks = sec.get("n_blocks", "auto")
    ppb = int(sec["pages_per_block"])
    if n_blocks == "auto":
        need = max(s.pages_needed() for s in streams.values())
        n_blocks = max(1, -(-need // ppb))
    return LpmtConfig(
        n_sets=int(n_sets),
        assoc=assoc,
        n_secondary=sec.get("n_secondary"),
        n_blocks=int(n_blocks),
        pages_per_block=ppb,
        hash=sec["latency_hash"],
        placement="single",
        n_banks=int(sec["n_banks"]),
        early_exit=str(sec.get("early_exit", "none")),
        insert_on_read=bool(sec.get("insert_on_read", True)),
    )


def case_cycles(timing: DramTiming) -> np.ndarray:
    """Latency (cycles) of one read in each Table V class, measured by timing a short probe
    stream from a fresh DRAM: for b[t] = b[t-n] the bank's row is read, n - 1 other banks
    are read, then another row of the bank; for "no repeat" ``window`` other banks come
    between; a row hit re-reads the open row. Back-to-back, like the paper's Figs. 3 and 5,
    so the strict model shows what tRAS adds to the paper's rule."""
    w = timing.window
    probes = [[0] + list(range(1, n)) + [0] for n in range(1, w + 1)]
    probes.append([0] + list(range(1, w + 1)) + [0])  # bank 0 last read w + 1 reads ago
    rows = [[0] * (len(b) - 1) + [1] for b in probes]
    probes.append([0, 0])  # row hit
    rows.append([0, 0])
    out = np.zeros(len(probes), dtype=np.int64)
    for i, (b, r) in enumerate(zip(probes, rows, strict=True)):
        lat, _ = time_stream(np.array(b), np.array(r), timing, n_banks=w + 1)
        out[i] = lat[-1]
    return out


# ------------------------------------------------------------------ one simulation
@dataclasses.dataclass
class RunResult:
    mean_ns: float
    reads_per_lookup: float
    cases: np.ndarray
    by_bin_ns: np.ndarray
    occupancy: dict[str, float]
    failed: int
    refreshes: int


def simulate(
    stream: FileStream,
    config: LpmtConfig,
    timing: DramTiming,
    bins: int = 10,
    homes: np.ndarray | None = None,
) -> RunResult:
    """Run a workload's stream through a fresh LPMT; latencies in ns at ``timing.tck_ns``."""
    table = Lpmt(config, timing)
    out = table.run(stream.ops, stream.keys, stream.pages, homes)
    ns = out.latency * timing.tck_ns
    edges = np.linspace(0, len(ns), bins + 1).astype(np.int64)
    by_bin = np.array(
        [ns[a:b].mean() if b > a else np.nan for a, b in zip(edges[:-1], edges[1:], strict=True)]
    )
    fails = int(table.counters[11] + table.counters[12])
    return RunResult(
        mean_ns=float(ns.mean()) if len(ns) else float("nan"),
        reads_per_lookup=float(out.reads.mean()) if len(ns) else float("nan"),
        cases=table.dram.cases.copy(),
        by_bin_ns=by_bin,
        occupancy=table.occupancy(),
        failed=fails,
        refreshes=int(table.dram.sc[SC_REFRESHES]),
    )


# ------------------------------------------------------------------ the study
def run(cfg: dict[str, Any], progress: bool = True) -> xr.Dataset:
    validate_sections(cfg, "the config given to lpmt.run")  # a notebook may have changed it
    check(cfg)  # every DRAM layout the run builds, before any trace is read
    sec = _section(cfg)
    streams = load_streams(cfg, progress)
    base = table_config(sec, streams)
    tms = timings(sec)
    wls = list(streams)
    hashes = list(sec["hashes"])
    placements = list(sec["placements"])
    sens = sec.get("sensitivity", {}) or {}
    s_pl = list(sens.get("placements", ["single", "set_per_bank", "interleaved"]))
    s_reacc = [float(x) for x in sens.get("reaccess", [])]
    for x in s_reacc:
        if not 0.0 <= x < 1.0:
            raise ConfigError(f"lpmt sensitivity.reaccess values must be in [0, 1), got {x}")
    seed = int(cfg.get("seed", 0) or 0)
    s_assoc = [int(a) for a in sens.get("assoc", [])]
    s_load = [float(x) for x in sens.get("load_factor", [])]
    s_banks = [int(b) for b in sens.get("n_banks", [])]
    s_groups = [int(g) for g in sens.get("bank_groups", [])]
    bins = int(sec.get("progress_bins", 10))
    n_cases = tms["paper"].n_cases
    W, H, P, M = len(wls), len(hashes), len(placements), len(MODELS)
    SP = len(s_pl)

    def nan(*shape: int) -> np.ndarray:
        return np.full(shape, np.nan)

    occ = {k: nan(W, H) for k in ("set_occupancy", "entry_occupancy", "primary_fraction")}
    sec_sets = np.zeros((W, H), dtype=np.int64)
    hash_lat = nan(W, H, SP)
    lat, rpl = nan(W, P, M), nan(W, P, M)
    cases = np.zeros((W, P, M, n_cases), dtype=np.int64)
    by_bin = nan(W, P, M, bins)
    failed = np.zeros((W, P, M), dtype=np.int64)
    refreshes = np.zeros((W, P), dtype=np.int64)
    a_lat, l_lat, b_lat = (
        nan(W, SP, len(s_assoc)),
        nan(W, SP, len(s_load)),
        nan(W, SP, len(s_banks)),
    )
    l_occ, l_sec = nan(W, len(s_load)), nan(W, len(s_load))
    g_lat = nan(W, SP, len(s_groups))
    abl_lat = nan(W, SP, len(ABLATIONS))
    E = len(EARLY_EXIT)
    ee_rpl, ee_lat = nan(W, P, E), nan(W, P, E)
    ee_cases = np.zeros((W, P, E, n_cases), dtype=np.int64)
    r_lat, r_share = nan(W, SP, len(s_reacc)), nan(W, len(s_reacc))

    n_sens = len(s_assoc) + len(s_load) + len(s_banks) + len(s_groups) + len(ABLATIONS)
    n_runs = W * (H * SP + P * M + P * (E - 1) + SP * (n_sens + len(s_reacc)))
    bar = tqdm(total=n_runs, desc="lpmt runs", disable=not progress)

    def sim(stream: FileStream, c: LpmtConfig, t: DramTiming, homes=None) -> RunResult:
        r = simulate(stream, c, t, bins, homes)
        bar.update()
        return r

    for wi, st in enumerate(streams.values()):
        # Table IV and hash latency: every hash, the sensitivity placements
        for hi, h in enumerate(hashes):
            homes = hash_keys(h, st.keys, base.n_sets)
            for pi, pl in enumerate(s_pl):
                r = sim(st, dataclasses.replace(base, hash=h, placement=pl), tms["paper"], homes)
                hash_lat[wi, hi, pi] = r.mean_ns
                if pi == 0:
                    for k in occ:
                        occ[k][wi, hi] = 100.0 * r.occupancy[k]
                    sec_sets[wi, hi] = r.occupancy["secondary_sets"]
        # Tables V, VI, Fig. 8: latency hash, every placement, every timing model
        homes = hash_keys(base.hash, st.keys, base.n_sets)
        for pi, pl in enumerate(placements):
            for mi, m in enumerate(MODELS):
                c = dataclasses.replace(base, placement=pl, row_hits=ROW_HITS[m])
                r = sim(st, c, tms[m], homes)
                lat[wi, pi, mi], rpl[wi, pi, mi] = r.mean_ns, r.reads_per_lookup
                cases[wi, pi, mi], by_bin[wi, pi, mi] = r.cases, r.by_bin_ns
                failed[wi, pi, mi] = r.failed
                if m == "ddr4":
                    refreshes[wi, pi] = r.refreshes
                if m == EARLY_EXIT_MODEL:  # the configured stop rule's row below
                    ei = EARLY_EXIT.index(base.early_exit)
                    ee_rpl[wi, pi, ei], ee_lat[wi, pi, ei] = r.reads_per_lookup, r.mean_ns
                    ee_cases[wi, pi, ei] = r.cases
            # every other stop rule of a set probe, under the same model
            for ei, stop in enumerate(EARLY_EXIT):
                if stop == base.early_exit:
                    continue
                c = dataclasses.replace(
                    base, placement=pl, row_hits=ROW_HITS[EARLY_EXIT_MODEL], early_exit=stop
                )
                r = sim(st, c, tms[EARLY_EXIT_MODEL], homes)
                ee_rpl[wi, pi, ei], ee_lat[wi, pi, ei] = r.reads_per_lookup, r.mean_ns
                ee_cases[wi, pi, ei] = r.cases
        # sensitivity (paper timing rule unless stated)
        entries = base.n_sets * base.assoc
        for ai, a in enumerate(s_assoc):
            c = dataclasses.replace(base, assoc=a, n_sets=max(1, entries // a), n_secondary=None)
            for pi, pl in enumerate(s_pl):
                a_lat[wi, pi, ai] = sim(
                    st, dataclasses.replace(c, placement=pl), tms["paper"]
                ).mean_ns
        for li, lf in enumerate(s_load):
            n_sets = max(1, int(np.ceil(st.n_files / (lf * base.assoc))))
            c = dataclasses.replace(base, n_sets=n_sets, n_secondary=None)
            for pi, pl in enumerate(s_pl):
                r = sim(st, dataclasses.replace(c, placement=pl), tms["paper"])
                l_lat[wi, pi, li] = r.mean_ns
                l_occ[wi, li] = 100.0 * r.occupancy["set_occupancy"]
                l_sec[wi, li] = 100.0 * (1.0 - r.occupancy["primary_fraction"])
        for bi, nb in enumerate(s_banks):
            for pi, pl in enumerate(s_pl):
                c = dataclasses.replace(base, placement=pl, n_banks=nb)
                b_lat[wi, pi, bi] = sim(st, c, tms["paper"], homes).mean_ns
        for gi, g in enumerate(s_groups):
            t = dataclasses.replace(tms["ddr4"], bank_groups=g)
            for pi, pl in enumerate(s_pl):
                g_lat[wi, pi, gi] = sim(
                    st, dataclasses.replace(base, placement=pl), t, homes
                ).mean_ns
        for ai, name in enumerate(ABLATIONS):
            t = ablated(tms["ddr4"], name)
            for pi, pl in enumerate(s_pl):
                c = dataclasses.replace(base, placement=pl)
                abl_lat[wi, pi, ai] = sim(st, c, t, homes).mean_ns
        for ri, share in enumerate(s_reacc):
            rst = with_reaccess(st, share, seed + wi)
            r_share[wi, ri] = 100.0 * rst.reaccess_share
            r_homes = hash_keys(base.hash, rst.keys, base.n_sets)
            for pi, pl in enumerate(s_pl):
                c = dataclasses.replace(base, placement=pl)
                r_lat[wi, pi, ri] = sim(rst, c, tms["paper"], r_homes).mean_ns
    bar.close()

    def var(dims: tuple[str, ...], data: np.ndarray, units: str, long_name: str) -> xr.Variable:
        return xr.Variable(dims, data, attrs={"units": units, "long_name": long_name})

    wpm = ("workload", "placement", "model")
    spl = ("workload", "splacement")
    data = {
        "label": var(("workload",), np.array([s.label for s in streams.values()], dtype=object),
                     "1", "trace used (says '(synthetic)' for a synthetic stand-in)"),
        "synthetic": var(("workload",), np.array([s.synthetic for s in streams.values()]), "1",
                         "workload is a synthetic preset"),
        "sha256": var(("workload",), np.array([s.sha256 for s in streams.values()], dtype=object),
                      "1", "sha256 of the trace file ('' if synthetic)"),
        "requests": var(("workload",), np.array([len(s) for s in streams.values()]), "1",
                        "requests (= LPMT lookups)"),
        "files": var(("workload",), np.array([s.n_files for s in streams.values()]), "1",
                     "distinct files (distinct start LAs)"),
        "aligned4_pct": var(("workload",),
                            np.array([_aligned_pct(s, int(sec["la_unit"]))
                                      for s in streams.values()]),
                            "%", "requests whose start address (512 B sectors) is a multiple "
                            "of 4 (Sec. 3 on WebSearch2/3)"),
        "multi_page_pct": var(("workload",),
                              np.array([100 * s.multi_page_fraction for s in streams.values()]),
                              "%", "requests larger than a page (multi-page files)"),
        "set_occupancy": var(("workload", "hash"), occ["set_occupancy"], "%",
                             "primary sets holding at least one entry (Table IV)"),
        "entry_occupancy": var(("workload", "hash"), occ["entry_occupancy"], "%",
                               "primary entries in use"),
        "primary_fraction": var(("workload", "hash"), occ["primary_fraction"], "%",
                                "files stored in the primary table"),
        "secondary_sets": var(("workload", "hash"), sec_sets, "1",
                              "secondary sets in use at the end"),
        "hash_latency": var(("workload", "hash", "splacement"), hash_lat, "ns",
                            "average lookup latency per hash (paper timing rule)"),
        "latency": var(wpm, lat, "ns", "average lookup latency (Table VI)"),
        "reads_per_lookup": var(wpm, rpl, "1", "DRAM reads per lookup"),
        "cases": var((*wpm, "case"), cases, "1", "DRAM reads per latency case (Table V)"),
        "latency_progress": var((*wpm, "progress"), by_bin, "ns",
                                "average lookup latency per part of the workload (Fig. 8)"),
        "failed_inserts": var(wpm, failed, "1", "inserts refused: no free page or secondary set"),
        "refreshes": var(("workload", "placement"), refreshes, "1", "refreshes (strict DDR4)"),
        "case_cycles": var(("model", "case"), np.stack([case_cycles(tms[m]) for m in MODELS]),
                           "cycles", "latency of one read per Table V class (probe stream)"),
        "assoc_latency": var((*spl, "assoc"), a_lat, "ns",
                             "average lookup latency vs ways per set (same total entries)"),
        "load_latency": var((*spl, "load_factor"), l_lat, "ns",
                            "average lookup latency vs files / primary entries"),
        "load_set_occupancy": var(("workload", "load_factor"), l_occ, "%",
                                  "primary sets in use vs load factor"),
        "load_overflow": var(("workload", "load_factor"), l_sec, "%",
                             "files in secondary sets vs load factor"),
        "banks_latency": var((*spl, "n_banks"), b_lat, "ns", "average lookup latency vs banks"),
        "bank_groups_latency": var((*spl, "bank_groups"), g_lat, "ns",
                                   "average lookup latency, strict DDR4, vs bank groups"),
        "strict_ablation": var((*spl, "ablation"), abl_lat, "ns",
                               "average lookup latency, strict DDR4 with constraints switched off"),
        "early_exit_reads": var(("workload", "placement", "early_exit"), ee_rpl, "1",
                                f"DRAM reads per lookup per stop rule ({EARLY_EXIT_MODEL})"),
        "early_exit_latency": var(("workload", "placement", "early_exit"), ee_lat, "ns",
                                  f"average lookup latency per stop rule ({EARLY_EXIT_MODEL})"),
        "early_exit_cases": var(("workload", "placement", "early_exit", "case"), ee_cases, "1",
                                f"DRAM reads per Table V class per stop rule "
                                f"({EARLY_EXIT_MODEL})"),
        "reaccess_latency": var((*spl, "reaccess"), r_lat, "ns",
                                "average lookup latency vs share of re-access requests added"),
        "reaccess_share": var(("workload", "reaccess"), r_share, "%",
                              "requests that access a file seen before (measured)"),
    }  # fmt: skip
    coords = {
        "workload": wls,
        "hash": hashes,
        "placement": placements,
        "splacement": s_pl,
        "model": list(MODELS),
        "case": case_labels(tms["paper"].window),
        "progress": np.arange(1, bins + 1),
        "assoc": s_assoc,
        "load_factor": s_load,
        "n_banks": s_banks,
        "bank_groups": s_groups,
        "ablation": list(ABLATIONS),
        "early_exit": list(EARLY_EXIT),
        "reaccess": s_reacc,
    }
    ds = xr.Dataset(data, coords=coords)
    ds["progress"].attrs.update(units="1", long_name=f"part of the workload (1..{bins})")
    ds["splacement"].attrs.update(long_name="placements of the sensitivity runs")
    ds.attrs.update(
        study="lpmt",
        skftl_version=skftl.__version__,
        config=yaml.safe_dump({"seed": cfg.get("seed"), "lpmt": sec, "traces": cfg.get("traces")}),
        table=yaml.safe_dump(dataclasses.asdict(base)),
        tck_ns=tms["paper"].tck_ns,
        trace_labels=", ".join(f"{w}: {s.label}" for w, s in streams.items()),
        trace_sha256=", ".join(f"{w}: {s.sha256 or '-'}" for w, s in streams.items()),
    )
    return ds


# ------------------------------------------------------------------ tables
def improvement(ds: xr.Dataset, model: str = "paper") -> xr.DataArray:
    """Latency improvement over the single bank (%), per workload and placement."""
    lat = ds["latency"].sel(model=model)
    return 100.0 * (lat.sel(placement="single") - lat) / lat.sel(placement="single")


def case_shares(ds: xr.Dataset, model: str = "paper") -> pd.DataFrame:
    """Table V: share (%) of DRAM reads per latency case, all workloads together."""
    c = ds["cases"].sel(model=model).sum("workload")
    return (100.0 * c / c.sum("case")).to_pandas()


def _label(ds: xr.Dataset, w: str) -> str:
    lab = str(ds["label"].sel(workload=w).values)
    return w if lab == w else f"{w} [{lab}]"


def tables(ds: xr.Dataset) -> dict[str, pd.DataFrame]:
    """Every CSV table of the study (Tables IV-VI, Fig. 8, beyond-the-paper tables)."""
    out: dict[str, pd.DataFrame] = {}
    t = ds[["label", "requests", "files", "multi_page_pct"]].to_dataframe().reset_index()
    t["synthetic"] = ds["synthetic"].values
    out["files"] = t
    occ = ds["set_occupancy"].to_pandas().round(2)
    occ.insert(0, "trace", [_label(ds, w) for w in occ.index])
    out["table4_occupancy"] = occ.reset_index()
    for m in MODELS:
        cs = case_shares(ds, m).round(2)
        out[f"table5_cases_{m}"] = cs.reset_index()
    lat = ds["latency"].sel(model="paper").to_pandas().round(2)
    imp = improvement(ds).to_pandas().round(2).add_suffix("_improvement_pct")
    t6 = pd.concat([lat, imp.drop(columns="single_improvement_pct")], axis=1)
    t6.insert(0, "trace", [_label(ds, w) for w in t6.index])
    mean = {c: t6[c].mean() for c in t6.columns if c.endswith("_pct")}
    t6 = pd.concat([t6, pd.DataFrame(mean, index=["mean"])])
    out["table6_latency"] = t6.rename_axis("workload").reset_index()
    f8 = ds["latency_progress"].sel(model="paper").to_dataframe().reset_index()
    out["fig8_progress"] = f8[["workload", "placement", "progress", "latency_progress"]]
    strict = (
        ds["latency"]
        .to_dataframe()
        .reset_index()
        .pivot_table(index=["workload", "placement"], columns="model", values="latency")
    )
    strict["ddr4_over_paper"] = strict["ddr4"] / strict["paper"]
    out["strict_vs_paper"] = strict.round(3).reset_index()
    for name in ("hash_latency", "assoc_latency", "load_latency", "banks_latency",
                 "bank_groups_latency", "load_set_occupancy", "load_overflow",
                 "strict_ablation", "early_exit_reads", "reaccess_latency",
                 "reaccess_share"):  # fmt: skip
        table = ds[name].to_dataframe().reset_index().round(3)
        # the sweeps' placement dimension is named apart in the dataset (splacement: a subset
        # of the placements); a reader of the CSV sees a placement
        out[f"sensitivity_{name}"] = table.rename(columns={"splacement": "placement"})
    return out


def write_tables(ds: xr.Dataset, out_dir: str | Path) -> list[Path]:
    """Write :func:`tables` as CSV files into ``out_dir`` (atomically)."""
    return [write_csv(df, Path(out_dir) / f"{n}.csv") for n, df in tables(ds).items()]


def with_overrides(cfg: dict[str, Any], **params: Any) -> dict[str, Any]:
    """A copy of ``cfg`` whose ``lpmt`` section has ``params`` set (the notebook's
    parameters cell goes through this); ``timing_<field>`` keys set timing fields."""
    out = copy.deepcopy(cfg)
    sec = out["lpmt"]
    for k, v in params.items():
        if k.startswith("timing_"):
            sec.setdefault("timing", {})[k.removeprefix("timing_")] = v
        else:
            sec[k] = v
    return out
