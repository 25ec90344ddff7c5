"""Explore one LPMT configuration: one workload, one placement, one timing model (reading),
against one bank on the same workload. The knobs a researcher turns most: banks, placement,
hash, ways per set, where a probe stops, the timing model. The study's runs do the rest
(every placement x workload x model, the sweeps).

The table is sized by the paper's rule (entries = next power of two >= the workload's
files) from the shown workload alone, as a study run on that one workload would size it.
The workload's operation stream is kept in memory, so a knob's change costs two LPMT runs
(tens of milliseconds at the default 200,000 requests) and the drawing; a table shape whose
kernel variant this machine has never compiled (``skftl.dram.kernel.kernel_for``: the
paper's shapes get their own) compiles it once, 5-10 s, cached on disk.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from skftl.dram.files import FileStream, file_stream
from skftl.dram.hashes import HASHES, hash_keys
from skftl.dram.layout import PLACEMENTS
from skftl.dram.lpmt import EARLY_EXIT
from skftl.dram.timing import case_labels
from skftl.errors import ConfigError
from skftl.explore import Knob, Memo, new_figure, styled
from skftl.run_traces import workload_for
from skftl.studies.lpmt import claims as C
from skftl.studies.lpmt.simulate import MODELS, ROW_HITS, RunResult, simulate, table_config, timings

__all__ = ["KEYS", "Result", "compute", "defaults", "figure", "knobs"]

# knob -> the config key it sets (the panel checks a starting value against the schema)
KEYS = {"n_banks": "lpmt.n_banks", "hash": "lpmt.latency_hash", "assoc": "lpmt.assoc",
        "early_exit": "lpmt.early_exit"}  # fmt: skip

BANKS = (1, 2, 4, 8, 16)
ASSOC = (2, 4, 8, 16)
# operation streams of the workloads shown (a few MB each at the default request count)
_STREAMS = Memo(maxsize=6)


def knobs(cfg: dict[str, Any]) -> list[Knob]:
    """The panel's controls: workload, banks, placement, hash, ways, stop rule, timing."""
    sec = cfg["lpmt"]
    return [
        Knob("workload", "workload", tuple(sec["workloads"]),
             help="the trace standing for the paper's workload (real when present)"),
        Knob("n_banks", "banks", BANKS, slider=True,
             help="DRAM banks of the multi-bank placements (the paper: 4)"),
        Knob("placement", "placement", PLACEMENTS,
             help="set_per_bank = the paper's fixed order, interleaved = its dynamic order"),
        Knob("hash", "hash", tuple(sorted(HASHES)),
             help="hash of the logical address to a set (Tables V/VI: folding)"),
        Knob("assoc", "ways per set", ASSOC, slider=True,
             help="at the same total entries (the paper: 8)"),
        Knob("early_exit", "probe stops", EARLY_EXIT,
             help="none: every way is read; match: at the matching way; match_or_empty: "
             "also at the first invalid way"),
        Knob("model", "timing", MODELS,
             help="Fig. 6's rule with its 4-read window classes (the default reading), each "
             "bank's open row, one activation per probe, or the strict DDR4 model"),
    ]  # fmt: skip


def defaults(cfg: dict[str, Any]) -> dict[str, Any]:
    """The knobs at the config's values and the default reading (the paper's dynamic order
    on the first workload)."""
    sec = cfg["lpmt"]
    return {
        "workload": str(sec["workloads"][0]),
        "n_banks": int(sec["n_banks"]),
        "placement": C.placement_of("dynamic", C.READINGS.default),
        "hash": str(sec["latency_hash"]),
        "assoc": int(sec["assoc"]),
        "early_exit": str(sec.get("early_exit", "none")),
        "model": C.model_of(C.READINGS.default),
    }


@dataclass(frozen=True)
class Result:
    """One configuration and the one-bank run on the same workload and table."""

    values: dict[str, Any]
    label: str
    requests: int
    files: int
    n_sets: int
    run: RunResult
    single: RunResult
    cases: list[str]
    # the paper's placement this one stands for under the default reading ("" if none) and
    # the paper's Table VI means of that row and of one bank, where the paper has the workload
    paper_row: str
    paper_ns: float
    paper_single_ns: float

    @property
    def improvement(self) -> float:
        """Latency improvement over one bank (%)."""
        return 100.0 * (self.single.mean_ns - self.run.mean_ns) / self.single.mean_ns


def _requests(cfg: dict[str, Any]) -> int:
    sec = cfg["lpmt"]
    n = sec.get("n_requests")
    return int(n if n is not None else cfg.get("traces", {}).get("synthetic_requests"))


def stream(cfg: dict[str, Any], workload: str) -> FileStream:
    """The workload's operation stream (kept in memory across knob changes)."""
    sec = cfg["lpmt"]
    n = _requests(cfg)
    key = (workload, n, cfg.get("seed"), cfg.get("traces"), sec["page_size"], sec["la_unit"])

    def load() -> FileStream:
        req = workload_for(workload, cfg, n_requests=n)
        return file_stream(req, int(sec["page_size"]), int(sec["la_unit"]))

    return _STREAMS.get(key, load)


def compute(
    cfg: dict[str, Any],
    workload: str,
    n_banks: int,
    placement: str,
    hash: str,  # noqa: A002 - the config's word for it
    assoc: int,
    early_exit: str,
    model: str,
) -> Result:
    """Run ``placement`` and one bank on ``workload`` under ``model``'s timing."""
    if model not in MODELS:
        raise ConfigError(f"lpmt explore: timing model must be one of {MODELS}, got {model!r}")
    sec = cfg["lpmt"]
    st = stream(cfg, workload)
    scoped = {**sec, "n_banks": int(n_banks), "assoc": int(assoc), "latency_hash": hash,
              "early_exit": early_exit}  # fmt: skip
    base = table_config(scoped, {workload: st})
    base = dataclasses.replace(base, row_hits=ROW_HITS[model])
    timing = timings(sec)[model]
    bins = int(sec.get("progress_bins", 10))
    homes = hash_keys(hash, st.keys, base.n_sets)
    run = simulate(st, dataclasses.replace(base, placement=placement), timing, bins, homes)
    single = (
        run
        if placement == "single"
        else simulate(st, dataclasses.replace(base, placement="single"), timing, bins, homes)
    )
    rows = [p for p in ("fixed", "dynamic") if C.placement_of(p, C.READINGS.default) == placement]
    row = "single" if placement == "single" else (rows[0] if rows else "")
    table = C.TABLE_VI.get(workload, {})
    return Result(
        values={"workload": workload, "n_banks": int(n_banks), "placement": placement,
                "hash": hash, "assoc": int(assoc), "early_exit": early_exit, "model": model},
        label=st.label,
        requests=len(st),
        files=st.n_files,
        n_sets=base.n_sets,
        run=run,
        single=single,
        cases=case_labels(timing.window),
        paper_row=row,
        paper_ns=float(table.get(row, np.nan)) if row else float("nan"),
        paper_single_ns=float(table.get("single", np.nan)),
    )  # fmt: skip


def _shares(r: RunResult) -> np.ndarray:
    total = r.cases.sum()
    return 100.0 * r.cases / total if total else np.zeros(len(r.cases))


@styled
def figure(result: Result) -> Figure:
    """Left: lookup latency per tenth of the workload (Fig. 8) of the placement and of one
    bank, with the paper's Table VI means dashed where it has the workload and the placement
    stands for one of its rows. Right: the share of DRAM reads per Table V class, with the
    paper's Table V row where the placement stands for one."""
    v, r, s = result.values, result.run, result.single
    fig = new_figure(10.0, 4.2)
    ax, bx = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1.0]})
    x = np.arange(1, len(r.by_bin_ns) + 1)
    ax.plot(x, r.by_bin_ns, marker="o", ms=3, color="C0", label=v["placement"])
    if v["placement"] != "single":
        ax.plot(x, s.by_bin_ns, marker="o", ms=3, color="0.5", label="single (one bank)")
    as_paper = v["n_banks"] == 4 and v["assoc"] == 8  # the paper's geometry
    if np.isfinite(result.paper_ns) and (as_paper or v["placement"] == "single"):
        ax.axhline(result.paper_ns, color="C0", ls="--", lw=1,
                   label=f"paper's {result.paper_row} (Table VI mean)")  # fmt: skip
    if np.isfinite(result.paper_single_ns) and v["placement"] != "single":
        ax.axhline(result.paper_single_ns, color="0.5", ls="--", lw=1,
                   label="paper's single (Table VI mean)")  # fmt: skip
    ax.set_xlabel("tenth of the workload")
    ax.set_ylabel("average lookup latency (ns)")
    ax.set_xticks(x)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=7)
    shares = {v["placement"]: _shares(r)}
    if v["placement"] != "single":
        shares["single"] = _shares(s)
    paper = {"single": "single", **{k: k for k in ("fixed", "dynamic")}}.get(result.paper_row)
    if paper and v["model"] == "paper_window" and (as_paper or paper == "single"):
        shares[f"paper's {paper} (Table V)"] = np.array(C.TABLE_V[paper])
    y = np.arange(len(result.cases))
    h = 0.8 / len(shares)
    colours = ["C0", "0.5", "C3"]
    for i, (name, sh) in enumerate(shares.items()):
        bx.barh(y + (i - (len(shares) - 1) / 2) * h, sh, height=h, label=name, color=colours[i])
    bx.set_yticks(y, result.cases, fontsize=7)
    bx.invert_yaxis()
    bx.set_xlabel("share of DRAM reads (%)")
    bx.set_xlim(0, 100)
    bx.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=7)
    fig.suptitle(
        f"{v['workload']} [{result.label}], {result.requests:,} lookups, {result.files:,} files, "
        f"{result.n_sets:,} sets x {v['assoc']} ways | {v['placement']}, {v['n_banks']} banks, "
        f"{v['hash']}, stop: {v['early_exit']}, {v['model']} timing\n"
        f"{r.mean_ns:.1f} ns per lookup, {r.reads_per_lookup:.2f} reads per lookup, "
        f"{result.improvement:+.1f} % vs one bank ({s.mean_ns:.1f} ns)",
        fontsize=8,
    )
    return fig
