"""Claims of the `skrm` study: every number and direction of SK-FTL's evaluation (Yang et al.,
Sec. IV; the abstract and Secs. I and V repeat its averages), scored on the study's dataset.

- Sec. IV-A, the set-up: the simulated device (64 GB, 16 KB pages) and Table II's operation
  latencies, as the run used them; the authors' PC trace (not modelled: not public).
- Figs. 9 and 10 (Sec. IV-B): SK-FTL's average cut of the accumulated inject and remove
  latency against PW FTL, and per trace that SK-FTL is below both other schemes.
- Fig. 11: FTL detects nothing; PW FTL and SK-FTL detect the same.
- Fig. 12 and Sec. V: the three schemes' shift latencies are similar, set by the interport
  distance; SK-FTL adds no shift.
- Fig. 13: SK-FTL's average cut of the accumulated 1-bit difference; FTL's and PW FTL's are
  identical; per trace SK-FTL is below them.
- Fig. 14: SK-FTL's NAND read / write latency differs from FTL's by 0.89 % / 0.28 % on
  average, i.e. is similar.

Every claim of Figs. 9-14 is scored under each set-up of the run (``simulate.SETUPS``):
``cold`` keeps the plain ids, ``warm`` and ``multi-pass`` add ``.warm`` / ``.multipass``
and say so in the statement (the one exception, W's effect on shifts, comes from the cold
sweep and does not depend on the set-up). The paper gives no per-trace number in its text
(its bars are images), so per-trace claims are directions, one per trace of the config's
default list (``TRACE_KEYS``; a run without a trace says "not evaluated"). "On average" is
the mean over traces of the per-trace change, as the paper's figures are per trace; it is
scored separately over the real traces and over the synthetic stand-ins (``.real`` /
``.synthetic``). Readings: the counting convention of the operation counts (``paper`` /
``skrmsim``), what "1-bit difference" counts (``paper``: the popcount change /
``hamming``) and the SK-aware allocator's row rule (``paper``: the configured
``skrm.rows`` / ``lockstep`` / ``match``), all in the dataset.

Basis (``skftl.studies.claims.BASES``): only the rows computed by the model from the workload
are predictions: the averages and per-trace directions of Figs. 9, 10 and 13 and Sec. V's
shift claim. The set-up (Sec. IV-A, Table II) echoes the configuration (``input``). Figs. 11
and 14, Fig. 12's similar shifts and their dependence on W, and Fig. 13's identical FTL and
PW FTL bars hold for any workload by the model's design while no GC runs (``by_construction``;
each note says why). Tolerances follow ``skftl.studies.claims``: the averages are percentages,
judged in points; the paper's "only 0.89 % / 0.28 %" (Fig. 14), "always zero in every trace"
(Fig. 11), "the same" and "identical for each trace" are upper bounds (relations). The
unstated parameters the verdicts rest on are declared in ``assumptions.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import xarray as xr
import yaml

from skftl.studies.claims import (
    Claim,
    MissingInput,
    Order,
    Readings,
    Relation,
    Value,
    kind_of_labels,
    sel,
    var,
)

READINGS = Readings(
    options={
        "paper": "the paper's counting: an operation per physical skyrmion injected, removed or "
        "detected (naive FTL removes the skyrmions the entry holds, Sec. IV-A); the 1-bit "
        "difference is the change in the number of 1 bits (Sec. I: 'the number of data bits 1'); "
        "the SK-aware allocator's row rule as configured (skrm.rows; default lockstep)",
        "skrmsim": "the public SK-RMSim's counting: naive removes W and shifts 2W, permutation "
        "write shifts 2W + 2 per write (operation counts only; 1-bit difference as 'paper')",
        "hamming": "the 1-bit difference is the Hamming distance between successive entries "
        "(operation counts as 'paper')",
        "lockstep": "SK-FTL's open blocks of a class advance row by row ('horizontal allocation "
        "ensures the page number is identical', Sec. III-B); counts as 'paper'",
        "match": "SK-FTL takes, among its open blocks of the class, the one whose next page has "
        "the popcount closest to the old page's (ours, beyond the text); counts as 'paper'",
    },
    default="paper",
)
ROW_READINGS = ("lockstep", "match")  # select SK-FTL's NAND replay under that row rule
OP_READINGS = ("paper", "skrmsim", *ROW_READINGS)  # claims on operation counts
BIT_READINGS = ("paper", "hamming", *ROW_READINGS)  # claims on the 1-bit difference
NAND_READINGS = ("paper", *ROW_READINGS)  # claims on NAND response times

# the default trace list of config/config.yaml (skrm.traces); per-trace claims use these keys
TRACE_KEYS = ("web_0", "mds", "mobile", "desktop")
# the default entry-width sweep (skrm.sensitivity.entry_bits)
ENTRY_BITS = (24, 32, 48)
# set-up -> claim id suffix and statement prefix
SETUP_TAGS = {
    "cold": ("", ""),
    "warm": (".warm", "[warm table] "),
    "multi-pass": (".multipass", "[multi-pass] "),
}
KINDS = {"real": "real stand-in", "synthetic": "synthetic stand-in"}

# Sec. IV-B averages; the abstract and Secs. I and V give the two latency cuts to 2 decimals
PAPER = {
    "inject": -62.69,
    "remove": -93.25,
    "bitdiff": -68.7,
    "nand_read": 0.89,
    "nand_write": 0.28,
}
TABLE_II_NS = {"detect": 0.1, "shift": 0.5, "remove": 0.8, "inject": 1.0}
# Table I's SK-RM column (Sec. I), for the disagreement with Table II on removes
TABLE_I_SKRM_NS = {"read": 0.1, "write 0->1": 1.0, "write 1->0": 0.6}
FIG_NUM = {"inject": 9, "remove": 10, "detect": 11, "shift": 12}


# --- inputs ----------------------------------------------------------------------------------
def _at(da: xr.DataArray, setup: str) -> xr.DataArray:
    """``da`` at ``setup`` (datasets without a set-up dimension are the cold run)."""
    if "setup" not in da.dims:
        if setup != "cold":
            raise MissingInput(f"{da.name}: no set-up dimension (only the cold run)")
        return da
    return sel(da, setup=setup)


def _with_rows(da: xr.DataArray, ds: xr.Dataset, name: str, reading: str, setup: str):
    """``da`` (trace, scheme, ...) with SK-FTL's values taken from the replay under the
    reading's row rule (``rows_<name>``) when the reading names one."""
    if reading not in ROW_READINGS:
        return da
    sk = sel(_at(var(ds, f"rows_{name}"), setup), rows=reading)
    out = da.astype(float).copy()
    out.loc[{"scheme": "SK-FTL"}] = sk.transpose(*[d for d in da.dims if d != "scheme"]).values
    return out


def _latency(ds: xr.Dataset, reading: str, setup: str) -> xr.DataArray:
    """Accumulated operation latency (trace, scheme, op) under the reading."""
    conv = "skrmsim" if reading == "skrmsim" else "paper"
    lat = _at(sel(var(ds, "op_latency"), convention=conv), setup)
    return _with_rows(lat, ds, "op_latency", reading, setup)


def _bits(ds: xr.Dataset, reading: str, setup: str) -> xr.DataArray:
    """Accumulated 1-bit difference (trace, scheme) under the reading."""
    name = "hamming" if reading == "hamming" else "bitdiff"
    return _with_rows(_at(var(ds, name), setup), ds, name, reading, setup)


def _nand(ds: xr.Dataset, direction: str, reading: str, setup: str) -> xr.DataArray:
    """Mean NAND response time (trace, scheme) under the reading."""
    name = f"nand_{direction}_latency"
    return _with_rows(_at(var(ds, name), setup), ds, name, reading, setup)


def _one_trace(da: xr.DataArray, key: str) -> xr.DataArray:
    """``da`` at the trace whose config key is ``key``."""
    keys = [str(k) for k in da["trace_key"].values] if "trace_key" in da.coords else []
    if key not in keys:
        raise MissingInput(f"{da.name}: trace {key!r} not in this run")
    return da.isel(trace=keys.index(key))


def _changes(da: xr.DataArray, new: str, base: str) -> np.ndarray:
    """Per trace, 100 (new - base) / base over ``da``'s scheme dimension (NaN on a zero base)."""
    b = sel(da, scheme=base).values.astype(float)
    n = sel(da, scheme=new).values.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, 100.0 * (n - b) / b, np.nan)


def _mean(x: np.ndarray, what: str) -> float:
    if not np.isfinite(x).any():
        raise MissingInput(f"{what}: no trace with a nonzero base")
    return float(np.nanmean(x))


def _labels(ds: xr.Dataset) -> list[str]:
    return [str(t) for t in var(ds, "op_latency")["trace"].values]


def _of_kind(ds: xr.Dataset, kind: str | None) -> np.ndarray:
    """Mask over the run's traces: those of workload ``kind`` (``real`` / ``synthetic``;
    None: all)."""
    labels = _labels(ds)
    mask = np.array([kind is None or kind_of_labels([lab]) == KINDS[kind] for lab in labels])
    if not mask.any():
        raise MissingInput(f"no {kind} trace in this run")
    return mask


def _all_traces(ds: xr.Dataset) -> str:
    return kind_of_labels(_labels(ds))


def _trace_kind(key: str) -> Callable[[xr.Dataset], str]:
    return lambda ds: kind_of_labels([str(_one_trace(var(ds, "op_latency"), key)["trace"].values)])


def _config(ds: xr.Dataset) -> dict:
    return (yaml.safe_load(ds.attrs.get("config", "") or "{}") or {}).get("skrm", {})


def _setup_label(ds: xr.Dataset, setup: str) -> str:
    if "setup_label" not in ds.coords:
        return setup
    return str(ds["setup_label"].sel(setup=setup).values)


# --- notes: the data behind the misses --------------------------------------------------------
def conservation(ds: xr.Dataset, setup: str = "cold") -> dict[str, float]:
    """Why SK-FTL's inject cut is bounded: every skyrmion is injected once, then removed or
    still on the racetracks (injected - removed = stored + parked). SK-FTL saves injections
    only by reusing skyrmions PW FTL would remove, so its cut is about PW FTL's remove /
    inject ratio at most. Returns that ratio (mean over traces), the share of PW FTL's
    injections that fill never-mapped entries, and SK-FTL's inject change on updates of
    mapped entries alone (both %, paper counting)."""
    cnt = _at(sel(var(ds, "op_count"), convention="paper"), setup)
    pw = sel(cnt, scheme="PW FTL")
    inj, rem = sel(pw, op="inject").values.astype(float), sel(pw, op="remove").values
    first = _at(var(ds, "inject_first"), setup)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(inj > 0, rem / inj, np.nan)
    over = sel(cnt, op="inject") - first
    return {
        "pw_remove_per_inject_pct": 100 * _mean(ratio, "PW FTL injections"),
        "pw_first_write_share_pct": 100
        * float(sel(first, scheme="PW FTL").sum() / max(inj.sum(), 1)),
        "sk_inject_change_on_updates_pct": _mean(
            _changes(over.rename("inject beyond first writes"), "SK-FTL", "PW FTL"),
            "updates of mapped entries",
        ),
    }


def _inject_note(setup: str) -> Callable[[xr.Dataset, str], str]:
    def note(ds: xr.Dataset, reading: str) -> str:
        c = conservation(ds, setup)
        return (
            f"{_setup_label(ds, setup)}: conservation (injected - removed = stored + parked) caps "
            "SK-FTL's inject cut at about PW FTL's remove / inject ratio: "
            f"{c['pw_remove_per_inject_pct']:.0f} % (mean over traces); "
            f"{c['pw_first_write_share_pct']:.0f} % of PW FTL's injections fill never-mapped "
            "entries. The paper's cut needs PW FTL to remove at least ~63 % of what it injects. "
            "On updates of mapped entries alone SK-FTL's inject change is "
            f"{c['sk_inject_change_on_updates_pct']:.1f} %"
        )

    return note


def _remove_note(setup: str) -> Callable[[xr.Dataset, str], str]:
    def note(ds: xr.Dataset, reading: str) -> str:
        sk = sel(_at(var(ds, "parked"), setup), scheme="SK-FTL").sum()
        cnt = _at(sel(var(ds, "op_count"), convention="paper"), setup)
        rem = sel(cnt, scheme="SK-FTL", op="remove").sum()
        share = 100 * float(sk / max(float(sk + rem), 1))
        return (
            f"{_setup_label(ds, setup)}: SK-FTL parks {share:.0f} % of its surplus skyrmions in "
            "free entries instead of removing them (a racetrack with a free entry within reach)"
        )

    return note


def _bitdiff_note(setup: str) -> Callable[[xr.Dataset, str], str]:
    def note(ds: xr.Dataset, reading: str) -> str:
        cfg = _config(ds)
        rows = reading if reading in ROW_READINGS else cfg.get("rows")
        out = (
            f"{_setup_label(ds, setup)}: row rule {rows}, open_per_class = "
            f"{cfg.get('open_per_class')} (the paper allocates 'horizontally across blocks in "
            "the same list' without saying across how many)"
        )
        has_sweep = "sens_open_per_class" in ds.coords and ds["sens_open_per_class"].size > 0
        if has_sweep and rows in ROW_READINGS:
            sk = ds["sens_open_per_class_rows_bitdiff"].sel(rows=rows).values
            pw = ds["sens_open_per_class_bitdiff"].sel(scheme="PW FTL").values
            pts = ", ".join(
                f"{int(v)}: {100 * (a / b - 1):.0f} %"
                for v, a, b in zip(ds["sens_open_per_class"].values, sk, pw, strict=True)
            )
            out += f"; cold {ds.attrs.get('sensitivity_trace', '?')} by open blocks: {pts}"
        return out

    return note


def _nand_note(direction: str, setup: str) -> Callable[[xr.Dataset, str], str]:
    def note(ds: xr.Dataset, reading: str) -> str:
        x = _nand(ds, direction, reading, setup)
        signed = np.nanmean(_changes(x, "SK-FTL", "FTL"))
        gc = int(_at(var(ds, "gc_copies"), setup).sum())
        return (
            f"{_setup_label(ds, setup)}: ours is the mean of per-trace |change| (signed mean "
            f"{signed:+.3f} %); GC copies: {gc}. Zero by construction: every page reads and "
            "programs in the same time and a page's chip is fixed by its LPN, so which block of "
            "the chip takes it cannot change a response time; only GC could (the paper states "
            "no page-type latency)"
        )

    return note


# --- the claims ------------------------------------------------------------------------------
def _tag(setup: str) -> tuple[str, str]:
    return SETUP_TAGS[setup]


def _kind_suffix(kind: str | None) -> tuple[str, str]:
    return ("", "") if kind is None else (f".{kind}", f" ({kind} traces)")


def _mean_cut(op: str, setup: str, kind: str) -> Claim:
    def ours(ds: xr.Dataset, reading: str) -> float:
        lat = sel(_latency(ds, reading, setup), op=op)
        return _mean(_changes(lat, "SK-FTL", "PW FTL")[_of_kind(ds, kind)], f"PW FTL {op}")

    sfx, pre = _tag(setup)
    ksfx, kst = _kind_suffix(kind)
    return Claim(
        id=f"fig{FIG_NUM[op]}.{op}.sk_vs_pw.mean{ksfx}{sfx}",
        where=f"Fig. {FIG_NUM[op]}, Sec. IV-B (abstract, Secs. I, V)",
        statement=f"{pre}SK-FTL cuts the accumulated {op} latency against PW FTL, on average{kst}",
        paper=Value(value=PAPER[op], unit="%", direction=("<", 0)),
        ours=ours,
        workload=KINDS[kind],
        readings=OP_READINGS,
        note=_inject_note(setup) if op == "inject" else _remove_note(setup),
        basis="prediction",
    )


def _lowest(op: str, key: str, setup: str) -> Claim:
    def ours(ds: xr.Dataset, reading: str) -> float:
        lat = _one_trace(sel(_latency(ds, reading, setup), op=op), key)
        others = min(float(sel(lat, scheme=s)) for s in ("FTL", "PW FTL"))
        if others == 0:
            raise MissingInput(f"no {op} latency of FTL or PW FTL on {key}")
        return float(sel(lat, scheme="SK-FTL")) / others

    def note(ds: xr.Dataset, reading: str) -> str:
        lat = _one_trace(sel(_latency(ds, reading, setup), op=op), key)
        ns = ", ".join(f"{s} {float(sel(lat, scheme=s)):.4g}" for s in lat["scheme"].values)
        return f"{lat['trace'].values}: accumulated {op} latency (ns) {ns}"

    sfx, pre = _tag(setup)
    return Claim(
        id=f"fig{FIG_NUM[op]}.{op}.sk_lowest.{key}{sfx}",
        where=f"Fig. {FIG_NUM[op]}, Sec. IV-B",
        statement=f"{pre}{key}: SK-FTL's accumulated {op} latency is below FTL's and PW FTL's",
        paper=Relation(op="<", ref=1.0, unit="(SK-FTL / min(FTL, PW FTL))"),
        ours=ours,
        workload=_trace_kind(key),
        readings=OP_READINGS,
        note=note,
        basis="prediction",
    )


def _bitdiff_below(key: str, setup: str) -> Claim:
    def ours(ds: xr.Dataset, reading: str) -> float:
        b = _one_trace(_bits(ds, reading, setup), key)
        base = float(sel(b, scheme="PW FTL"))
        if base == 0:
            raise MissingInput(f"no 1-bit difference of PW FTL on {key}")
        return float(sel(b, scheme="SK-FTL")) / base

    def note(ds: xr.Dataset, reading: str) -> str:
        one = sel(_one_trace(_at(var(ds, "successive"), setup), key), scheme="SK-FTL")
        writes = sel(_one_trace(_at(var(ds, "updates"), setup), key), scheme="SK-FTL")
        return (
            f"{one['trace'].values}: {int(one):,} of {int(writes):,} entry writes update a "
            "mapped entry (only those have a 1-bit difference)"
        )

    sfx, pre = _tag(setup)
    return Claim(
        id=f"fig13.bitdiff.sk_below.{key}{sfx}",
        where="Fig. 13, Sec. IV-B",
        statement=f"{pre}{key}: SK-FTL's accumulated 1-bit difference is below FTL's and PW FTL's",
        paper=Relation(op="<", ref=1.0, unit="(SK-FTL / PW FTL)"),
        ours=ours,
        workload=_trace_kind(key),
        readings=BIT_READINGS,
        note=note,
        basis="prediction",
    )


def _nand_diff(direction: str, setup: str, kind: str | None) -> Callable[[xr.Dataset, str], float]:
    def ours(ds: xr.Dataset, reading: str) -> float:
        ch = _changes(_nand(ds, direction, reading, setup), "SK-FTL", "FTL")
        return _mean(np.abs(ch)[_of_kind(ds, kind)], f"FTL {direction} latency")

    return ours


def _nand_claim(direction: str, setup: str, kind: str) -> Claim:
    sfx, pre = _tag(setup)
    ksfx, kst = _kind_suffix(kind)
    return Claim(
        id=f"fig14.nand_{direction}.difference{ksfx}{sfx}",
        where="Fig. 14, Sec. IV-B",
        statement=f"{pre}SK-FTL's mean NAND {direction} latency differs from FTL's by only "
        f"this much, on average{kst}",
        # "the differences are only 0.89% and 0.28% on average ... which are negligible":
        # an upper bound ('only X'), not a number to match
        paper=Relation(op="<=", ref=PAPER[f"nand_{direction}"], unit="% (mean per-trace |change|)"),
        ours=_nand_diff(direction, setup, kind),
        workload=KINDS[kind],
        readings=NAND_READINGS,
        note=_nand_note(direction, setup),
        basis="by_construction",
    )


def _figure_claims(setup: str) -> tuple[Claim, ...]:
    """Every claim of Figs. 9-14 (and Sec. V's shift claim) on ``setup``."""
    sfx, pre = _tag(setup)

    def detect_ftl_zero(ds: xr.Dataset, reading: str) -> float:
        return float(sel(_latency(ds, reading, setup), op="detect", scheme="FTL").max())

    def detect_same(ds: xr.Dataset, reading: str) -> float:
        ch = _changes(sel(_latency(ds, reading, setup), op="detect"), "SK-FTL", "PW FTL")
        return float(np.nanmax(np.abs(ch))) if np.isfinite(ch).any() else np.nan

    def shift_spread(ds: xr.Dataset, reading: str) -> float:
        sh = sel(_latency(ds, reading, setup), op="shift", scheme=["FTL", "PW FTL", "SK-FTL"])
        lo = sh.min("scheme")
        return float((sh.max("scheme") / lo.where(lo > 0)).max())

    def shift_extra(kind: str) -> Callable[[xr.Dataset, str], float]:
        def ours(ds: xr.Dataset, reading: str) -> float:
            ch = _changes(sel(_latency(ds, reading, setup), op="shift"), "SK-FTL", "PW FTL")
            return _mean(ch[_of_kind(ds, kind)], "PW FTL shifts")

        return ours

    def vshift_note(ds: xr.Dataset, reading: str) -> str:
        v = int(sel(_at(var(ds, "vshift"), setup), scheme="SK-FTL").sum())
        return (
            "SK-FTL's vertical moves to a buffer on another racetrack cost shifts (Sec. III-A: "
            f"one per racetrack crossed; here {v:,} over all traces); moves within a racetrack "
            "ride on the entry's own shifts"
        )

    def bitdiff_cut(kind: str) -> Callable[[xr.Dataset, str], float]:
        def ours(ds: xr.Dataset, reading: str) -> float:
            ch = _changes(_bits(ds, reading, setup), "SK-FTL", "PW FTL")
            return _mean(ch[_of_kind(ds, kind)], "PW FTL 1-bit difference")

        return ours

    def bitdiff_same(ds: xr.Dataset, reading: str) -> float:
        b = _bits(ds, reading, setup).astype(float)
        return float(np.abs(sel(b, scheme="FTL") - sel(b, scheme="PW FTL")).max())

    def nand_similar(ds: xr.Dataset, reading: str) -> float:
        return max(_nand_diff(d, setup, None)(ds, reading) for d in ("read", "write"))

    return (
        # Figs. 9-10: inject and remove
        *(_mean_cut("inject", setup, k) for k in KINDS),
        *(_lowest("inject", k, setup) for k in TRACE_KEYS),
        *(_mean_cut("remove", setup, k) for k in KINDS),
        *(_lowest("remove", k, setup) for k in TRACE_KEYS),
        # Fig. 11: detect
        Claim(
            id=f"fig11.detect.ftl_zero{sfx}",
            where="Fig. 11, Sec. IV-B",
            statement=f"{pre}FTL's detect latency is zero in every trace (naive writes detect "
            "nothing)",
            # "always zero in every trace": the largest over traces is at most 0
            paper=Relation(op="<=", ref=0.0, unit="ns (largest over traces)"),
            ours=detect_ftl_zero,
            workload=_all_traces,
            readings=OP_READINGS,
            note="by construction: the naive write detects nothing in our model (Sec. IV-A's "
            "definition), so this holds for any workload",
            basis="by_construction",
        ),
        Claim(
            id=f"fig11.detect.sk_equals_pw{sfx}",
            where="Fig. 11, Sec. IV-B",
            statement=f"{pre}PW FTL and SK-FTL have the same detect latency",
            # 'the same' on a log-scale bar chart: equal to within 0.5 % (an upper bound on
            # the largest difference, not a share judged in points)
            paper=Relation(op="<=", ref=0.5, unit="% (largest per-trace |difference|)"),
            ours=detect_same,
            workload=_all_traces,
            readings=OP_READINGS,
            note="by construction: both detect W bits per entry write, so they differ only "
            "where their GC copies differ (none in any set-up of this run); 'the same' read "
            "as within 0.5 % (what a log-scale bar can show)",
            basis="by_construction",
        ),
        # Fig. 12 and Sec. V: shift
        Claim(
            id=f"fig12.shift.similar{sfx}",
            where="Fig. 12, Sec. IV-B",
            statement=f"{pre}the three schemes' shift latencies are similar",
            paper=Value(value=1.0, unit="(largest / smallest scheme, worst trace)"),
            ours=shift_spread,
            workload=_all_traces,
            readings=OP_READINGS,
            note="by construction: every scheme is charged the same shifts per entry write (2W; "
            "SK-RMSim: 2W naive, 2W + 2 permutation) and SK-FTL adds only its vertical moves "
            "(per_move, reach 1: a few per write at most against 2W = 64), so the ratio stays "
            "near 1 for any workload without GC; 'similar' read as a ratio of 1 within 25 % "
            "(a quantity)",
            basis="by_construction",
        ),
        *(
            Claim(
                id=f"sec5.shift.no_extra.{k}{sfx}",
                where="Sec. V (conclusion), Fig. 12",
                statement=f"{pre}SK-FTL induces no extra shift operation against PW FTL "
                f"({k} traces)",
                paper=Relation(op="<=", ref=0.0, unit="% (SK-FTL vs PW FTL shift latency, mean)"),
                ours=shift_extra(k),
                workload=KINDS[k],
                readings=OP_READINGS,
                note=vshift_note,
                basis="prediction",
            )
            for k in KINDS
        ),
        # Fig. 13: 1-bit difference
        *(
            Claim(
                id=f"fig13.bitdiff.sk_vs_pw.mean.{k}{sfx}",
                where="Fig. 13, Sec. IV-B",
                statement=f"{pre}SK-FTL cuts the accumulated 1-bit difference against FTL and "
                f"PW FTL, on average ({k} traces)",
                paper=Value(value=PAPER["bitdiff"], unit="%", direction=("<", 0)),
                ours=bitdiff_cut(k),
                workload=KINDS[k],
                readings=BIT_READINGS,
                note=_bitdiff_note(setup),
                basis="prediction",
            )
            for k in KINDS
        ),
        Claim(
            id=f"fig13.bitdiff.ftl_equals_pw{sfx}",
            where="Fig. 13, Sec. IV-B",
            statement=f"{pre}FTL's and PW FTL's 1-bit differences are identical in every trace",
            # "identical for each trace": the largest per-trace difference is at most 0
            paper=Relation(op="<=", ref=0.0, unit="bits (largest per-trace |FTL - PW FTL|)"),
            ours=bitdiff_same,
            workload=_all_traces,
            readings=BIT_READINGS,
            note="by construction here: FTL and PW FTL are costed on one NAND replay with the "
            "conventional allocator, which the paper's reason ('allocation strategies are not "
            "tuned') implies",
            basis="by_construction",
        ),
        *(_bitdiff_below(k, setup) for k in TRACE_KEYS),
        # Fig. 14: NAND latency
        *(_nand_claim(d, setup, k) for d in ("read", "write") for k in KINDS),
        Claim(
            id=f"fig14.nand.similar{sfx}",
            where="Fig. 14, Sec. IV-B",
            statement=f"{pre}SK-FTL's NAND performance is similar to FTL's (differences "
            "negligible)",
            paper=Relation(op="<", ref=1.0, unit="% (larger of read / write mean |difference|)"),
            ours=nand_similar,
            workload=_all_traces,
            readings=NAND_READINGS,
            note="'similar' read as below 1 %, the bound both of the paper's own differences "
            "(0.89 %, 0.28 %) fall under; zero by construction here (see the difference rows)",
            basis="by_construction",
        ),
    )


def _shift_by_width(ds: xr.Dataset, reading: str) -> dict[str, float]:
    lat = sel(var(ds, "sens_entry_bits_latency"), op="shift", scheme="PW FTL")
    widths = lat["sens_entry_bits"].values
    return {f"W={int(w)}": float(v) for w, v in zip(widths, lat.values, strict=True)}


def _sensitivity_kind(ds: xr.Dataset) -> str:
    var(ds, "sens_entry_bits_latency")
    return kind_of_labels([str(ds.attrs.get("sensitivity_trace", ""))])


def _setup(key: str, where: str, statement: str, paper: Value, unit_var: str) -> Claim:
    return Claim(
        id=key,
        where=where,
        statement=statement,
        paper=paper,
        ours=lambda ds, reading: float(var(ds, unit_var)),
        note="an input of the run (skrm.nand), not a result: checks the run used the paper's "
        "device; organisation and timing are assumed (skftl/nand/presets.py)",
        basis="input",
    )


def _table_ii(op: str) -> Claim:
    note = "an input of the run (skrm.costs), not a result"
    if op == "remove":
        # the paper's two tables disagree; per-operation % changes do not depend on it
        note += (
            f"; Table I gives SK-RM's '1' to '0' write as {TABLE_I_SKRM_NS['write 1->0']} ns, "
            f"Table II (which Sec. IV-A says the evaluation uses) {TABLE_II_NS['remove']} ns. "
            "Per-operation changes are ratios of counts, so neither value moves a percentage"
        )
    return Claim(
        id=f"tab2.{op}_ns",
        where="Table II (Sec. IV-A)",
        statement=f"latency of one {op} operation",
        paper=Value(value=TABLE_II_NS[op], unit="ns"),
        ours=lambda ds, reading: float(sel(var(ds, "op_unit_latency"), op=op)),
        note=note,
        basis="input",
    )


CLAIMS: tuple[Claim, ...] = (
    # Sec. IV-A: set-up
    _setup(
        "sec4a.capacity",
        "Sec. IV-A",
        "simulated flash capacity",
        Value(value=64, unit="GB"),
        "nand_capacity",
    ),
    _setup(
        "sec4a.page_size", "Sec. IV-A", "flash page size", Value(value=16, unit="KB"), "page_size"
    ),
    *(_table_ii(op) for op in ("detect", "shift", "remove", "inject")),
    Claim(
        id="sec4a.pc_trace",
        where="Sec. IV-A",
        statement="a self-collected one-month I/O trace of a personal computer",
        not_modelled="the authors' trace is not public; a real Pixel 6a app-usage trace "
        "(mobile) and the synthetic pc_desktop preset (desktop) stand in for it",
        basis="input",  # a statement of the set-up (the workload), not of a result
    ),
    Claim(
        id="fig12.shift.follows_interport",
        where="Fig. 12, Sec. IV-B",
        statement="shift counts depend on the interport distance (= entry width W): PW FTL's "
        "shift latency grows with W",
        paper=Order(keys=tuple(f"W={w}" for w in ENTRY_BITS)),
        ours=_shift_by_width,
        workload=_sensitivity_kind,
        note="by construction: from the entry-width sweep on the sensitivity trace (cold "
        "set-up, paper counting); our model charges 2W shifts per entry write, so this holds "
        "for any workload and only checks the model states the paper's cause. An order, not a "
        "Trend: the paper never varies W, so it has no change of its own to size ours against",
        basis="by_construction",
    ),
    *(c for st in SETUP_TAGS for c in _figure_claims(st)),
)
