"""Preset files for the papers' workloads, with the source of every number.

The papers' own traces (UMass Financial1/2 and WebSearch1-3, the full MSR Cambridge volumes,
SNIA Nexus 5) are not shipped. Published characteristics of the full traces that we could
find and cite are few: the LPMT paper's Table III (mean request size, read %, sequential read
and write %) and its remark that Financial1 "includes 700,873 files". No publication we could
consult gives their reuse, rewrite shares, footprint growth or burstiness. So each preset is:

- the profile **measured on the nearest real excerpt** in the shared trace folder (named in
  the preset, with its sha256, and why it is the nearest), which gives every locality number;
- with the **LPMT Table III cells written over** the excerpt's where the paper has the
  workload (read share, sequential shares, mean size), and the request-size distributions of
  the synthetic preset of the same name, which are tilted to Table III's mean size. This keeps
  the Table III calibration of the synthetic presets.

``citations`` in each file maps every profile field to its source, and ``basis`` says what
kind of number it is: ``measured`` (on the excerpt), ``published`` (a paper's number, or one
computed from published numbers alone) or ``assumed`` (our choice). Published numbers that
could not be applied to a profile of a different length (Financial1's 700,873 files at the
full trace's length) are kept in ``notes``. Build with :func:`write_all` (needs the excerpts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from skftl.traces.profile import Preset, preset_from_dict, profile_trace, write_preset
from skftl.traces.requests import Requests
from skftl.traces.synthetic import PRESETS
from skftl.traces.workload import PRESET_DIR

TABLE3 = "LPMT paper (lpmt_dram-address-mapping), Table III"


@dataclass(frozen=True)
class PaperWorkload:
    """One paper workload: the excerpt standing in for its locality, and its Table III row
    (mean size KB, read %, sequential read %, sequential write %) where the paper has one."""

    name: str
    excerpt: str  # registered name of the nearest real excerpt
    why: str  # why that excerpt is the nearest
    table3: tuple[float, float, float, float] | None = None
    notes: str = ""
    files: FileCount | None = None  # a published count of distinct files, when there is one


@dataclass(frozen=True)
class FileCount:
    """Distinct files (request start addresses) of a full trace over its request count."""

    files: int
    requests: int
    source: str

    @property
    def new_share(self) -> float:
        return self.files / self.requests


_FIN = (
    "tpcc-small: the only OLTP (TPC-C) block trace we have; Financial1/2 are OLTP "
    "(UMass SPC). A different application and system: its locality is a stand-in"
)
_WS = (
    "wsrch-small: the first ~60 s of a UMass WebSearch trace (probably WebSearch2, see "
    "skftl/traces/stats.py); the same service, a short prefix"
)
# Financial1's files (LPMT paper, Sec. 3) over its record count. Financial2 has no published
# count: Financial1's share is assumed (the same UMass OLTP collection) rather than tpcc-small's
# (a 7,000-request TPC-C excerpt with 29 reuses, far from a multi-million-request trace).
_FIN1_FILES = FileCount(
    700_873,
    5_334_987,
    "LPMT paper Sec. 3: financial1 'includes 700,873 files'; 5,334,987 = the record count of "
    "the UMass Financial1.spc trace (config lpmt.paper_requests)",
)
_FIN2_FILES = FileCount(
    _FIN1_FILES.files,
    _FIN1_FILES.requests,
    "ASSUMPTION: Financial1's share of new files (" + _FIN1_FILES.source + "); no count is "
    "published for Financial2",
)


def _at_most_financial1(requests: int) -> FileCount:
    """A workload the paper says has fewer files than financial1 ("the workload financial1 that
    includes the largest number of files", LPMT Sec. 3), taken at that bound."""
    return FileCount(
        _FIN1_FILES.files,
        requests,
        "ASSUMPTION at a published bound: LPMT paper Sec. 3 sizes the table for 'financial1 "
        "that includes the largest number of files' (700,873), so this trace has at most as "
        f"many in its {requests:,} records (the UMass trace's record count, config "
        "lpmt.paper_requests); taken at the bound, the least reuse the paper allows. The "
        "excerpt's own reuse (3 reuses in 24,783 requests) would give several times more files",
    )


# the BNVM study's real stand-in for the letter (config bnvm.stand_ins; tested equal), so
# the synthetic stand-in and the real one stand for the same thing
_BNVM = "the BNVM study's real stand-in for this trace (config bnvm.stand_ins; why: 05_bnvm.ipynb)"
_MOBILE = (
    "Pixel 6a excerpt (acsl-technion/MobileBlockIOTraces): a phone's block trace, as Nexus 5 "
    "traces are; no shared trace records the same app. Chosen by kind of activity "
    "(ASSUMPTION): "
)
WORKLOADS = (
    PaperWorkload("Financial1", "tpcc-small", _FIN, (3.38, 23.16, 1.61, 0.01),
                  "LPMT paper Sec. 3: financial1 'includes 700,873 files' (the full trace; "
                  "applied as a share of new files at every length, i.e. linear footprint growth "
                  "(assumption)). The MTPM paper's experimental setup gives the same read share, "
                  "23 %.", _FIN1_FILES),
    PaperWorkload("Financial2", "tpcc-small", _FIN, (2.39, 82.35, 0.94, 0.22),
                  "The MTPM paper's experimental setup gives the same read share, 82 %.",
                  _FIN2_FILES),
    PaperWorkload("WebSearch1", "wsrch-small", _WS, (15.15, 99.98, 0.0, 0.0),
                  files=_at_most_financial1(1_055_448)),
    PaperWorkload("WebSearch2", "wsrch-small", _WS, (15.07, 99.98, 0.0, 0.0),
                  files=_at_most_financial1(4_579_809)),
    PaperWorkload("WebSearch3", "wsrch-small", _WS, (15.41, 99.97, 0.0, 0.0),
                  files=_at_most_financial1(4_261_709)),
    PaperWorkload("MSR", "msr_web_0_excerpt",
                  "Table III's MSR row does not name its volume; web_0 is the MSR Cambridge "
                  "volume the study's real stand-in is (config traces.workloads.MSR)",
                  (29.812, 34.0, 0.0, 0.0)),
    PaperWorkload("msr_web", "msr_web_0_excerpt",
                  "100,000 consecutive records of the web_0 volume itself (of ~2.03 M)"),
    PaperWorkload("msr_media", "msr_web_0_excerpt",
                  "no media-server (mds) volume is shared; web_0 is a volume of the same "
                  "MSR Cambridge data centre (stand-in, not the same workload)"),
    PaperWorkload("nexus5_A", "pixel6a_telegram_precond", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: music + Twitter, write-intensive"),
    PaperWorkload("nexus5_B", "pixel6a_pubg_precond", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: writes of multiple copy operations"),
    PaperWorkload("nexus5_C", "pixel6a_pubg_exec", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: OS installation, reads and writes"),
    PaperWorkload("nexus5_D", "pixel6a_slideshow_exec", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: Facebook"),
    PaperWorkload("nexus5_E", "pixel6a_genshin_impact_exec", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: Google Maps"),
    PaperWorkload("nexus5_F", "pixel6a_diablo_exec", _MOBILE + _BNVM,
                  notes="BNVM paper, experimental setup: web-browser activities"),
)  # fmt: skip


_PHASES = (
    "phase_read_fractions",
    "phase_read_size_ratios",
    "phase_write_size_ratios",
    *(f"phase_{c}_{k}_size_ratios" for c in ("head", "follow") for k in ("read", "write")),
    "phase_seq_read_ratios",
    "phase_seq_write_ratios",
    *(f"phase_touch_{k}{s}_ratios" for k in ("read", "write") for s in ("", "_single")),
)
# the excerpt's sizes per class of request (run heads at a new address, continuations,
# reuses): the fit takes them before a type's sizes, so they go where Table III sets the sizes
_CLASS_SIZES = tuple(
    key
    for c, k in (
        *((c, k) for c in ("head", "follow", "copy") for k in ("read", "write")),
        *(("copy", f"{k}_of_{o}") for k in ("read", "write") for o in ("read", "write")),
    )
    for key in (f"{c}_{k}_sizes", f"{c}_{k}_size_probs", f"mean_{c}_{k}_size_kb")
)


def _with_table3(profile: dict, name: str, row: tuple[float, float, float, float]) -> dict:
    """``profile`` with Table III's read share and sequential shares, and the request-size
    distributions of the synthetic preset ``name`` (already tilted to Table III's mean size:
    an excerpt of another trace may not reach it, e.g. tpcc-small has no requests small
    enough for Financial2's 2.39 KB). The excerpt's phases (read share and sizes per time
    slice) are dropped: they are another trace's, and Table III fixes the mix and sizes."""
    mean_kb, read_pct, seq_r, seq_w = row
    spec = PRESETS[name]
    sizes = {}
    for kind, dist in (("read", spec.read_sizes), ("write", spec.write_sizes)):
        sizes[f"{kind}_sizes"] = [int(x) for x in dist.sizes]
        sizes[f"{kind}_size_probs"] = [float(x) for x in dist.probs]
        sizes[f"mean_{kind}_size_kb"] = dist.mean_bytes / 1024
    return {
        **profile,
        **sizes,
        "read_fraction": read_pct / 100,
        "seq_read_fraction": seq_r / 100,
        "seq_write_fraction": seq_w / 100,
        "mean_size_kb": mean_kb,
        **{key: [] for key in _PHASES},
        **{key: None if key.startswith("mean_") else [] for key in _CLASS_SIZES},
    }


_REUSE_MECHANICS = (
    "reuse_source_single_share",
    "copy_single_run_share",
    "copy_read_single_run_share",
    "copy_write_single_run_share",
    "reuse_single_run_share",
    "reuse_same_size_share",
    "copy_run_requests",
    "copy_run_old_share",
    "copy_read_run_old_share",
    "copy_write_run_old_share",
    # runs over pages touched before from another start page: the excerpt's, of its few
    # dozen reuses, cannot say how the full trace's reuses lie
    "touch_read_share",
    "touch_write_share",
    "touch_read_written_share",
    "touch_write_written_share",
    "touch_run_old_share",
    "new_read_run_old_share",
    "new_write_run_old_share",
    "footprint_read_pages",
)
_EMPTIED = ("touch_pages", "touch_page_probs", "touch_distance_levels", "touch_distance_quantiles")
_FROM_FILES = (
    "reuse_share",
    *(f"{k}_share" for k in ("reread", "read_after_write", "write_after_read", "rewrite_start")),
    "footprint_pages",
    "footprint_half_share",
    "footprint_growth",
    "phase_footprint_shares",
    "rewrite_share",
    "read_hit_written_share",
    *_REUSE_MECHANICS,
    *_EMPTIED,
    *(f"reuse_{k}_size{s}" for k in ("read", "write") for s in ("s", "_probs")),
    *(f"mean_reuse_{k}_size_kb" for k in ("read", "write")),
    *(f"copy_{k}_size{s}" for k in ("read", "write") for s in ("s", "_probs")),
    *(f"mean_copy_{k}_size_kb" for k in ("read", "write")),
)


def _with_files(profile: dict, count: FileCount, excerpt_requests: int) -> dict:
    """``profile`` with the reuse a published file count implies: a share ``1 - files /
    requests`` of requests goes to an existing file at every point of the trace (linear
    footprint growth: an assumption, the count is only known at the end). A reused file was
    last read or written in the trace's read / write proportions (assumption: the excerpt's
    few reuses say nothing about the split, and a split the mix cannot supply, e.g. reads
    re-reading only written files in a read-mostly trace, caps the reuse); the excerpt's
    footprint is scaled by the ratio of new-file shares; the page-level rewrite and read-hit
    shares and how reuses pick their source (single runs, same size) are left undefined (no
    source: the excerpt has a few dozen reuses) instead of contradicting the reuse; reusing requests
    take the sizes of fresh ones (assumption), so the (Table III) mean size holds."""
    reuse = 1.0 - count.new_share
    out = {**profile, "reuse_share": reuse}
    r = profile["read_fraction"]
    out["reread_share"] = out["write_after_read_share"] = reuse * r
    out["read_after_write_share"] = out["rewrite_start_share"] = reuse * (1.0 - r)
    # the profile now describes the full trace (build sets n_requests to its record count):
    # its footprint is the files times the excerpt's pages per new start page
    new_starts = excerpt_requests * (1.0 - profile["reuse_share"])
    out["footprint_pages"] = max(
        int(round(profile["footprint_pages"] / new_starts * count.files)), 1
    )
    points = len(profile["footprint_growth"])
    out["footprint_growth"] = [i / (points - 1) for i in range(points)]
    edges = profile.get("phase_edges") or []
    out["phase_footprint_shares"] = [b - a for a, b in zip(edges[:-1], edges[1:], strict=True)]
    out["footprint_half_share"] = 0.5
    out["rewrite_share"] = out["read_hit_written_share"] = None
    for key in _REUSE_MECHANICS:  # the excerpt's few reuses cannot say how most requests reuse
        out[key] = None
    for key in _EMPTIED:
        out[key] = []
    for kind in ("read", "write"):  # reuses are most requests now: they keep the mean size
        for label in ("reuse", "copy"):
            out[f"{label}_{kind}_sizes"] = list(profile[f"{kind}_sizes"])
            out[f"{label}_{kind}_size_probs"] = list(profile[f"{kind}_size_probs"])
            out[f"mean_{label}_{kind}_size_kb"] = profile[f"mean_{kind}_size_kb"]
    return out


_FROM_TABLE3 = ("read_fraction", "seq_read_fraction", "seq_write_fraction", "mean_size_kb")


def build(work: PaperWorkload, excerpt: Requests) -> Preset:
    """The preset of ``work`` from its excerpt (see the module docstring)."""
    measured = profile_trace(excerpt, name=work.excerpt)
    prov = measured.provenance.model_dump()
    profile = measured.profile.model_dump()
    src = f"measured on the excerpt {work.excerpt} (sha256 in provenance)"
    citations = {key: src for key in profile}
    basis = dict.fromkeys(profile, "measured")
    if work.table3 is not None:
        profile = _with_table3(profile, work.name, work.table3)
        citations.update({key: TABLE3 for key in _FROM_TABLE3})
        basis.update(dict.fromkeys(_FROM_TABLE3, "published"))
        sized = (
            f"synthetic preset {work.name} (skftl/traces/synthetic.py): its size shape, "
            f"tilted to the {TABLE3} mean size (the shape's source is stated there)"
        )
        for kind in ("read", "write"):
            for key in (f"{kind}_sizes", f"{kind}_size_probs", f"mean_{kind}_size_kb"):
                citations[key] = sized
                basis[key] = PRESETS[work.name].basis.get(f"{kind}_sizes", "assumed")
        off = "none (off: Table III fixes the mix and sizes)"
        citations.update(dict.fromkeys((*_PHASES, *_CLASS_SIZES), off))
        basis.update(dict.fromkeys((*_PHASES, *_CLASS_SIZES), "assumed"))
    notes = f"nearest excerpt: {work.why}. {work.notes}".strip()
    if work.files is not None:
        profile = _with_files(profile, work.files, measured.provenance.n_requests)
        cited = f"{work.files.source}; applied by paper_presets._with_files (see its docstring)"
        citations.update({key: cited for key in _FROM_FILES})
        # the share of new files is the published count's (or, ASSUMPTION in its source, taken
        # from another trace or a bound); how it spreads over time and types is assumed
        published = work.files.source.startswith("LPMT paper")
        basis.update(dict.fromkeys(_FROM_FILES, "assumed"))
        basis.update(dict.fromkeys(("reuse_share",), "published" if published else "assumed"))
        # the reuse is the full trace's: so is the length the profile describes
        prov["n_requests"] = work.files.requests
        notes += (
            f" The profile describes the full trace ({work.files.requests:,} requests, from "
            f"its file count); its other numbers are the excerpt's "
            f"({measured.provenance.n_requests:,} requests)."
        )
    prov.update(
        kind="paper" if work.table3 is not None else "excerpt",
        source=f"{work.name}: {TABLE3 + ' + ' if work.table3 else ''}excerpt {work.excerpt}",
        citations=citations,
        basis=basis,
        notes=notes,
    )
    return preset_from_dict(
        {"name": work.name, "provenance": prov, "profile": profile}, f"preset {work.name}"
    )


def write_all(load: Callable[[str], Requests], out_dir: Path = PRESET_DIR) -> list[Path]:
    """Build every paper preset (``load(name)`` gives a registered excerpt) into ``out_dir``."""
    cache: dict[str, Requests] = {}
    paths = []
    for work in WORKLOADS:
        if work.excerpt not in cache:
            cache[work.excerpt] = load(work.excerpt)
        paths.append(write_preset(build(work, cache[work.excerpt]), out_dir / f"{work.name}.yaml"))
    return paths
