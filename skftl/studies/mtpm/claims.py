"""Claims of the `mtpm` study: every number and direction of the evaluation of You et al.,
*Multi-token based Power Management for NAND Flash Storage Devices*, as data, scored by
:mod:`skftl.studies.claims`.

Covered, section by section: Sec. III-E (area and register sizes: not modelled; Table III and
T_trans of eq. 3, analytic); Sec. III-F2 (the multi-channel arrangements' directions, which the
study's beyond-the-paper part runs); Sec. IV-A (the real traces' read ratios); Sec. IV-B
(Fig. 11: peaks over the budget); Sec. IV-C1 (Fig. 12: token granularity); Sec. IV-C2
(Fig. 13, synthetic throughput; Fig. 14, real traces); Sec. IV-C3 (Fig. 15: the power budget);
Sec. IV-C4 (Figs. 16-17: latency); Sec. IV-C5 (Fig. 18: waits); Sec. V (no violation; its
other numbers repeat Sec. IV's and are the claims there).

Readings (:data:`READINGS`), one departure from the default each: how fine DCC's current
model is (the peak of every sub-atomic or of every atomic operation); what "KMTPM (sub-atomic)
improves the throughput by 22.85 % compared to DCC" measures (a ratio of the NPM-normalised
throughputs, or their difference in points); how many verifies an MSB loop takes ("up to 3");
and two labelled set-ups that are not readings of the text: the earlier read model (data-out
inside the chip) and DCC's decision latency CALIBRATED to the paper's 8.21 %. Every claim
that rests on the simulation is scored under each (the dataset's ``setup`` dimension holds
the runs). The default is argued from the text in ``notebooks/03_mtpm.ipynb``; the readings
that are alternatives of an unstated choice (``atomic``, ``verify2``, ``read_on_chip``) are
declared with the study's other assumptions in :mod:`skftl.studies.mtpm.assumptions`.

Basis (what a row rests on; only predictions are results): Table III and T_trans are eq. (3)
over configured constants (by construction) and Table IV's latencies (inputs); Sec. IV-A's
read ratios are properties of the configured workloads (inputs), or of synthetic presets set
from the paper's ratios (calibrated); the budget guarantees (Fig. 11(c), DCC's, Sec. V) and
NPM's falling violations hold for any workload by design (by construction); the budget-caused
loss and the Table III bound on the alpha-8 overhead are our inferences. Everything else is
computed by the simulation from the workload (prediction).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from itertools import combinations

import numpy as np
import xarray as xr

from skftl.studies.claims import (
    POINTS_TOLERANCE,
    Claim,
    MissingInput,
    Readings,
    Relation,
    Trend,
    Value,
    kind_of_labels,
    sel,
    var,
)

# ------------------------------------------------------------------ the paper's numbers
SYNTH = "synthetic stand-in"  # R0..R100 follow the paper's recipe; its bursts are ours
GUARDED = ("DCC", "MTPM", "KMTPM_A", "KMTPM_SA")  # the schemes that keep the budget
TOKEN = ("MTPM", "KMTPM_A", "KMTPM_SA")
LABEL = {"KMTPM_A": "KMTPM (atomic)", "KMTPM_SA": "KMTPM (sub-atomic)"}

# Table III: atomic operations, overhead cycles for n = 0 and n = 7, the operation latency (us)
# and the largest overhead in % of it
TABLE_III = {
    "program_lsb": {"n_atomic": 20, "min": 40, "max": 1020, "latency_us": 770, "max_pct": 0.66},
    "read": {"n_atomic": 3, "min": 6, "max": 153, "latency_us": 52, "max_pct": 1.47},
    "erase": {"n_atomic": 2, "min": 4, "max": 102, "latency_us": 7400, "max_pct": 0.01},
}
T_TRANS = 7  # cycles: 1 key bit + 6 token bits (TG = 4, alpha = 4)
# Sec. IV-A: read ratio (%) of the real traces (our workload names)
READ_RATIO = {"Financial1": 23, "Financial2": 82, "WebSearch1": 99, "MSR": 12, "TPCC": 64}
PAPER_TRACE = {"Financial1": "Financial1", "Financial2": "Financial2", "WebSearch1": "Web1",
               "MSR": "MSR1", "TPCC": "TPC-C"}  # fmt: skip
FIG11_PEAK = {"NPM": 53.18, "PPM": 38.01}  # % over the budget, R50, alpha = 4
FIG13_VS_NPM = {"KMTPM_SA": -6.21, "MTPM": -22.44, "KMTPM_A": -21.65}  # % throughput
KMTPM_A_VS_MTPM = -0.79  # "lower by 0.79 %" (Sec. IV-C2)
SA_VS_DCC = 22.85  # % (Sec. IV-C2, Sec. V)
FIG14_SA_VS_NPM = -7.1  # %
ALPHA8_OVERHEAD = {"KMTPM_SA": 3.8, "DCC": 8.21}  # % at alpha = 8
# Figs. 16-17: latency vs MTPM (%), mean over traces or on one trace ("by up to ... in Rx")
LATENCY = (
    ("fig16", "program_latency", "KMTPM_A", None, 3.6),
    ("fig16", "program_latency", "KMTPM_SA", None, -33.9),
    ("fig16", "program_latency", "KMTPM_SA", "R0", -37.27),
    ("fig17", "read_latency", "KMTPM_A", None, -9.12),
    ("fig17", "read_latency", "KMTPM_SA", None, -41.45),
    ("fig17", "read_latency", "KMTPM_A", "R25", -13.39),
    ("fig17", "read_latency", "KMTPM_SA", "R25", -59.28),
)
LATENCY_SA_VS_NPM = {"program_latency": 5.97, "read_latency": 3.98}  # %

READINGS = Readings(
    options={
        "subatomic": "default: DCC's controller models each operation's current as the peak "
        "of every sub-atomic operation (a time-resolved envelope); 'improves by 22.85 % "
        "compared to DCC' is the ratio of the NPM-normalised throughputs, minus 1; read "
        "data-out on the channel; 3 verifies in every MSB loop; DCC decides in the config's "
        "dcc_decision_ns",
        "atomic": "as the default, but DCC models each operation by the peak of every atomic "
        "operation (coarser, more conservative)",
        "points": "as the default, but 22.85 % is the difference of the NPM-normalised "
        "throughputs in percentage points",
        "verify2": "as the default, but 2 verifies per MSB loop ('several ... up to 3'), "
        "execution and verify re-split so Table IV's tPROG (LSB, MSB) still hold",
        "read_on_chip": "SET-UP VARIANT, not a reading: the earlier read model (data-out a "
        "9 us phase inside the chip, never on the channel)",
        "dcc_calibrated": "CALIBRATION, not a reading: DCC's decision latency set so that its "
        "overhead at alpha = 8 is the paper's 8.21 % (that claim then agrees by construction)",
    },
    default="subatomic",
)
ALL = tuple(READINGS.options)
# reading -> (DCC current model, 22.85 % as "ratio" | "points", simulated set-up)
_READING = {
    "subatomic": ("subatomic", "ratio", "default"),
    "atomic": ("atomic", "ratio", "default"),
    "points": ("subatomic", "points", "default"),
    "verify2": ("subatomic", "ratio", "verify2"),
    "read_on_chip": ("subatomic", "ratio", "read_on_chip"),
    "dcc_calibrated": ("subatomic", "ratio", "dcc_calibrated"),
}


def dcc_model_of(reading: str) -> str:
    """The DCC current model ("subatomic" | "atomic") of a reading."""
    return _READING[reading][0]


def setup_of(reading: str) -> str:
    """The simulated set-up (the dataset's ``setup``) a reading is scored on."""
    return _READING[reading][2]


def at_setup(ds: xr.Dataset, reading: str) -> xr.Dataset:
    """The dataset as the reading's set-up ran it (unchanged if it has no ``setup``)."""
    return ds.sel(setup=setup_of(reading)) if "setup" in ds.dims else ds


# ------------------------------------------------------------------ helpers over the dataset
def _scheme(ds: xr.Dataset, name: str, dcc_name: str, scheme: str, reading: str) -> xr.DataArray:
    """One scheme's values; DCC's from the per-model variable under the reading's model."""
    if scheme == "DCC":
        return sel(var(ds, dcc_name), dcc_model=dcc_model_of(reading))
    return sel(var(ds, name), scheme=scheme)


_SOURCES = {  # kind -> (variable, DCC's per-model variable)
    "synthetic": ("throughput", "dcc_model_throughput"),
    "real": ("real_throughput", "dcc_model_real_throughput"),
    "alpha": ("alpha_throughput", "dcc_model_alpha_throughput"),
}


def norm(ds: xr.Dataset, scheme: str, reading: str, kind: str = "synthetic") -> xr.DataArray:
    """Throughput of ``scheme`` / NPM's, per trace (and alpha)."""
    name, dcc_name = _SOURCES[kind]
    return _scheme(ds, name, dcc_name, scheme, reading) / sel(var(ds, name), scheme="NPM")


def avg(da: xr.DataArray, dim: str = "trace") -> float:
    """Mean over ``dim`` (the paper's "Avg" bars: the mean of the normalised values)."""
    return float(da.mean(dim, skipna=True))


def traces_except(ds: xr.Dataset, *drop: str) -> list[str]:
    out = [str(t) for t in var(ds, "throughput").trace.values if str(t) not in drop]
    if not out:
        raise MissingInput(f"no synthetic trace other than {', '.join(drop)} in this run")
    return out


def _pct(x: float) -> float:
    return 100.0 * (x - 1.0)


def _labels(ds: xr.Dataset, workloads: list[str] | None = None) -> list[str]:
    lab = var(ds, "workload_label")
    if workloads is not None:
        lab = sel(lab, workload=workloads)
    if lab.size == 0:
        raise MissingInput("no real workload in this run")
    return [str(x) for x in np.atleast_1d(lab.values)]


def _real_kind(workloads: list[str] | None = None) -> Callable[[xr.Dataset], str]:
    """The kind of the real workloads a claim rests on: the paper's own trace only where the
    same trace (not a preset) was found under the paper's name."""

    def kind(ds: xr.Dataset) -> str:
        labels = _labels(ds, workloads)
        names = workloads or [str(w) for w in var(ds, "real_throughput").workload.values]
        same = all(lab == n for lab, n in zip(labels, names, strict=True))
        return kind_of_labels(labels, same=same)

    return kind


def _mc_stream(ds: xr.Dataset, suffix: str = " via FTL") -> str:
    streams = [str(s) for s in var(ds, "mc_throughput").mc_stream.values]
    hit = [s for s in streams if s.endswith(suffix)]
    if not hit:
        raise MissingInput(f"no multi-channel stream '*{suffix}' in this run")
    return hit[0]


def _mc_norm(ds: xr.Dataset, stream: str, arrangement: str, scheme: str) -> float:
    thr = var(ds, "mc_throughput")
    base = sel(thr, mc_stream=stream, arrangement=arrangement, mc_scheme="NPM")
    return float(sel(thr, mc_stream=stream, arrangement=arrangement, mc_scheme=scheme) / base)


def _mc_kind(ds: xr.Dataset) -> str:
    return kind_of_labels([_mc_stream(ds)])


def _tg_norm(ds: xr.Dataset) -> xr.DataArray:
    return var(ds, "tg_throughput") / var(ds, "tg_mtpm_reference")


def _spread(x: xr.DataArray) -> float:
    return float((x.max("tg") - x.min("tg")) / x.mean("tg"))


def _latency(ds: xr.Dataset, name: str, scheme: str, ref: str = "MTPM") -> xr.DataArray:
    lat = var(ds, name)
    return sel(lat, scheme=scheme) / sel(lat, scheme=ref)


def _alpha(ds: xr.Dataset, a: float) -> float:
    alphas = [float(x) for x in var(ds, "alpha_throughput").alpha.values]
    if float(a) not in alphas:
        raise MissingInput(f"alpha_throughput: alpha={a:g} not in this run ({alphas})")
    return float(a)


def _overhead(ds: xr.Dataset, scheme: str, reading: str) -> float:
    """1 - throughput / NPM at alpha = 8 (no binding budget), mean over the traces, in %."""
    return 100.0 * (1.0 - avg(sel(norm(ds, scheme, reading, "alpha"), alpha=_alpha(ds, 8.0))))


def _wait_ratio(ds: xr.Dataset, scheme: str, atomics: list[str]) -> float:
    w = sel(var(ds, "wait_time"), atomic=atomics).sum(("trace", "atomic"))
    base = float(sel(w, scheme="MTPM"))
    if base == 0:
        raise MissingInput(f"MTPM never waits before {atomics} in this run")
    return float(sel(w, scheme=scheme)) / base


# ------------------------------------------------------------------ notes (why a claim misses)
def _atomic_note(ds: xr.Dataset, reading: str) -> str:
    tok = var(ds, "atomic_tokens")
    dur = var(ds, "atomic_duration")
    p1, p2 = (float(sel(dur, atomic=a)) for a in ("P_A1", "P_A2"))
    rt = int(sel(tok, atomic="P_A1"))
    tt = int(var(ds, "total_tokens"))
    return (
        f"Atomic token schemes hold {rt} of the {tt} tokens for a program execution's whole "
        f"{p1:.1f} us of every {p1 + p2:.1f} us LSB loop (the paper's tPROG with 10 loops and "
        f"1 / 3 verifies forces that split), so at most {tt // rt} chips run a program loop at "
        "once; the paper's smaller loss implies a much shorter high-current share of the loop "
        "than its own timing gives (only its unpublished profiles would settle it; see the "
        "short_exec variant in the notebook's sensitivity study)."
    )


def _dcc_note(ds: xr.Dataset, reading: str) -> str:
    d = {m: avg(sel(var(ds, "dcc_model_throughput"), dcc_model=m) / sel(
        var(ds, "throughput"), scheme="NPM")) for m in ("subatomic", "atomic")}  # fmt: skip
    sa = avg(norm(ds, "KMTPM_SA", reading))
    return (
        "DCC's throughput / NPM is {:.3f} with sub-atomic peaks and {:.3f} with atomic peaks "
        "(KMTPM sub-atomic: {:.3f}): the comparison is decided by how fine DCC's current model "
        "is, which the paper does not state (readings)."
    ).format(d["subatomic"], d["atomic"], sa)


def _sa_note(ds: xr.Dataset, reading: str) -> str:
    tok = var(ds, "atomic_tokens")
    text = (
        f"Our KMTPM (sub-atomic) loses less than the paper's: after the program pre-charge "
        f"(peak, {int(sel(tok, atomic='P_A1'))} tokens atomically) the sub-atomic model asks "
        "for far fewer tokens, so several pre-charges and many low phases fit the budget; "
        "the pre-charge length is our assumption (long_precharge variant in the notebook), and "
        "so is when the surplus tokens return (assumption device.subatomic_guard_pct: Sec. "
        "III-F1 times sub-atomic steps by a fixed worst-case delay)."
    )
    if "guard_throughput" not in ds:
        return text
    x = var(ds, "guard_throughput") / sel(var(ds, "throughput"), scheme="NPM")
    per = ", ".join(
        f"{int(g)} % {100 * (avg(sel(x, guard_pct=g)) - 1):+.2f} %" for g in x.guard_pct.values
    )
    return f"{text} Mean throughput vs NPM on the synthetic traces per guard band: {per}."


def _overhead_note(ds: xr.Dataset, reading: str) -> str:
    ovh = var(ds, "latency_overhead")
    pct = float(sel(ovh, operation="read", overhead_case="max_percent"))
    x = sel(norm(ds, "KMTPM_SA", reading, "alpha"), alpha=_alpha(ds, 8.0))
    per = ", ".join(f"{t} {100 * (1 - float(v)):+.2f}" for t, v in zip(x.trace.values, x.values,
                                                                      strict=True))  # fmt: skip
    return (
        "At alpha = 8 no budget binds, so only the protocol's latency is left: eq. (3) gives "
        f"the ring at most {pct:.2f} % of a read (Table III), so the ±5-point window around "
        "the paper's 3.8 % holds every overhead eq. (3) allows and only its sign is tested. "
        f"KMTPM (sub-atomic)'s overhead per trace, %: {per}: a few 10 ns decisions and ring "
        "hops shift when chips ask for the shared channel, which can order its transfers "
        "slightly better or worse than NPM's simultaneous starts, so the sign of a near-zero "
        "overhead is the channel's, not the protocol's. DCC is left only its decision latency "
        "(assumption dcc_decision_ns, 1-16 us from the paper's description of DCC; the sweep, "
        "0 included, is in the notebook)."
    )


def _calibration_label(ds: xr.Dataset) -> str:
    ns = float(var(ds, "dcc_calibrated_decision_ns"))
    return (
        f"[CALIBRATION: DCC's decision latency is {ns:g} ns, chosen so that DCC's alpha-8 "
        f"overhead is the paper's {ALPHA8_OVERHEAD['DCC']} %; DCC's values here follow from "
        "that choice] "
    )


def _peak_note(ds: xr.Dataset, reading: str) -> str:
    peak = float(sel(var(ds, "atomic_peak"), atomic="R_A2"))
    return (
        "How high the unmanaged peak gets depends on how operations line up in time: the "
        "channel transfer before each program (8 KiB at 200 MB/s, assumed) and the phase "
        "lengths of the calibrated profiles decide it, and so does the read current (here "
        f"{peak:.3f} I_max, assumption device.read_current_scale): PPM keeps pre-charges "
        "apart but not the reads that overlap them (its peak is pre-charge + reads)."
    )


def _kmtpm_a_vs_mtpm_note(ds: xr.Dataset, reading: str) -> str:
    return (
        "The paper contradicts itself here: its own averages (MTPM -22.44 %, KMTPM (atomic) "
        "-21.65 % vs NPM) put KMTPM (atomic) 0.79 points ABOVE MTPM, not below. We score the "
        "sentence as written (lower), which Sec. IV-C4 explains by KMTPM (atomic)'s longer "
        "program latency."
    )


def _kmtpm_a_read_note(ds: xr.Dataset, reading: str) -> str:
    """KMTPM (atomic)'s read latency against MTPM's over the read current (the study's
    ``read_scale_*`` variables, default set-up)."""
    text = (
        "MTPM keeps the key at a waiting chip until that chip has gathered its tokens (Sec. "
        "III-B): while a chip waits for a program execution's 15 tokens no other chip starts, "
        "however many tokens are free, so under MTPM a read waits for the key. KMTPM (atomic) "
        "lets a chip start on tokens alone, but a chip without the key keeps none (it passes on "
        "what it cannot use): a read starts when one passing packet covers its need. Whether "
        "that is sooner than MTPM's key order depends on how many tokens a read needs, i.e. on "
        "the read current, which the paper does not give (assumption device.read_current_scale)"
    )
    if "read_scale_read_latency" not in ds:
        return text
    lat = var(ds, "read_scale_read_latency")
    x = (sel(lat, rs_scheme="KMTPM_A") / sel(lat, rs_scheme="MTPM")).mean("trace", skipna=True)
    tok = sel(var(ds, "read_scale_tokens"), read_atomic="R_A2")
    per = ", ".join(
        f"{float(s):g} ({int(sel(tok, read_scale=s))} tokens) {100 * (float(v) - 1):+.1f} %"
        for s, v in zip(x.read_scale.values, x.values, strict=True)
    )
    return f"{text}: KMTPM (atomic) read latency vs MTPM per read current scale: {per}"


def _dcc_reads_note(ds: xr.Dataset, reading: str) -> str:
    d = norm(ds, "DCC", reading)
    per = ", ".join(f"{t} {float(v):.3f}" for t, v in zip(d.trace.values, d.values, strict=True))
    first, last = float(d.values[0]), float(d.values[-1])
    trend = "rises" if last > first else "falls"
    return (
        f"DCC / NPM per trace: {per} (it {trend} with the read share). DCC holds back whole "
        "operations until their modelled current fits: the program loops' long high-current "
        "execution is what it must space out and short reads fit in the gaps, while each "
        "decision's latency delays a short read relatively more than a long program"
    )


def _r100_tg_note(ds: xr.Dataset, reading: str) -> str:
    x = sel(_tg_norm(ds), trace="R100")
    per = ", ".join(
        f"TG {int(g)} {float(v):.3f}" for g, v in zip(x.tg.values, x.values, strict=True)
    )
    text = (
        f"R100 / MTPM (first TG) per TG: {per}. Reads only: every page crosses the one "
        "channel, which bounds R100 whatever the tokens allow, as long as the channel is "
        "arbitrated as it frees (assumption device.channel_arbitration; a FIFO channel queued "
        "NPM's simultaneous reads in lock-step, and how each TG staggered the reads' starts "
        "then moved R100)"
    )
    if "read_scale_tg_throughput" not in ds:
        return text
    tg = sel(var(ds, "read_scale_tg_throughput"), trace="R100")
    spread = (tg.max("tg") - tg.min("tg")) / tg.mean("tg")
    sp = ", ".join(
        f"{float(s):g} {float(v):.3f}" for s, v in zip(spread.read_scale.values, spread.values,
                                                       strict=True)
    )  # fmt: skip
    return f"{text}. R100's spread over TG per read current scale: {sp}"


def _read_ratio_note(workload: str) -> Callable[[xr.Dataset, str], str]:
    def note(ds: xr.Dataset, reading: str) -> str:
        (label,) = _labels(ds, [workload])
        if "(synthetic)" in label:
            return (
                f"{label}: a synthetic preset whose read share is a calibration (set from a "
                "published read % of this trace), so agreement is by construction"
            )
        return (
            f"measured on {label}: share of NAND page operations that are reads (erases "
            f"count too); the paper's {PAPER_TRACE[workload]} may be another trace"
        )

    return note


_BUDGET_BY_DESIGN = (
    "[by construction: a token scheme starts an atomic or sub-atomic operation only with "
    "ceil(peak / I_token) tokens and the ring holds TT = PB / I_token of them, so the summed "
    "current never exceeds PB for any workload; the row checks the simulator, it predicts "
    "nothing]"
)
_DCC_BY_DESIGN = (
    "[by construction: DCC starts an operation only where its envelope (the peak of every "
    "atomic or sub-atomic operation, an upper bound of the profile) fits under the budget with "
    "every operation already scheduled, so no workload makes it exceed PB]"
)


# ------------------------------------------------------------------ the registry
# Table III's cells are eq. (3) over configured constants and Table IV's latencies: none is a
# result of the simulation (key -> basis, why)
_TABLE3_BASIS = {
    "n_atomic": ("by_construction", "Table I's operation structure with the configured 10 "
                 "program loops (2 per loop), 3 per read, 2 per erase, for any workload"),
    "min": ("by_construction", "eq. (3) at n = 0 over the configured T_comp"),
    "max": ("by_construction", "eq. (3) at n = 7 over the configured T_trans, T_comp and 8 chips"),
    "latency_us": ("input", "Table IV's tPROG (LSB) / tR / tBER, which the shipped profiles "
                   "are built to; a Table IV input echoed"),
    "max_pct": ("by_construction", "eq. (3)'s largest overhead over Table IV's latency, both "
                "configured"),
}  # fmt: skip


_ERASE_MAX_DERIVED = (
    "the paper's 102 is DERIVED from eq. (3) (2 x (7 x 7 + 2)), not printed: Table III as we "
    "have it gives no value in that cell; ours is eq. (3) too, so the row checks the "
    "arithmetic, nothing the paper states"
)


def _table3() -> list[Claim]:
    out = []
    rows = (
        ("n_atomic", "table3_n_atomic", None, "atomic ops", "the number of atomic operations"),
        ("min", "latency_overhead", "min_cycles", "cycles", "eq. (3) overhead for n = 0"),
        ("max", "latency_overhead", "max_cycles", "cycles", "eq. (3) overhead for n = 7"),
        ("latency_us", "table3_op_latency", None, "us", "the operation latency"),
        ("max_pct", "latency_overhead", "max_percent", "%", "the largest overhead in % of latency"),
    )  # fmt: skip
    for op, paper in TABLE_III.items():
        for key, name, case, unit, what in rows:
            basis, why = _TABLE3_BASIS[key]
            statement = f"{op.replace('_', ' ')}: {what}"
            if (key, op) == ("max", "erase"):
                basis, why = "inferred", _ERASE_MAX_DERIVED
                statement += " (the paper's cell is missing: its 102 is derived from eq. (3))"

            def ours(ds: xr.Dataset, reading: str, name=name, case=case, op=op) -> float:
                da = sel(var(ds, name), operation=op)
                return float(sel(da, overhead_case=case) if case else da)

            out.append(
                Claim(
                    id=f"tab3.{key}.{op}",
                    where="Table III",
                    statement=statement,
                    paper=Value(
                        value=paper[key],
                        unit=unit,
                        # printed as "0.01 %": half its last digit (ours 0.0069 rounds to it)
                        abs_tol=0.005 if key == "max_pct" else 0.0,
                    ),
                    ours=ours,
                    workload="none",
                    basis=basis,
                    note=f"[{basis.replace('_', ' ')}: {why}] eq. (3) with T_trans = key + token "
                    "bits, T_comp = 2 cycles, 200 MHz; atomic operations and latency from the "
                    "model's operation structure (Table I, 10 program loops) and its calibrated "
                    "profiles",
                )
            )
    return out


def _sec3e() -> list[Claim]:
    area = "RTL synthesis (Design Compiler, TSMC 180 nm) is outside a behavioural simulator"
    return [
        # a result of RTL synthesis (a prediction, of a model we do not have)
        Claim("sec3e.area.MTPM", "Sec. III-E", "cell area of MTPM",
              paper=Value(value=17124.48, unit="um^2"), not_modelled=area, basis="prediction"),
        Claim("sec3e.area.KMTPM_A", "Sec. III-E", "cell area of KMTPM (atomic)",
              paper=Value(value=17965.44, unit="um^2"), not_modelled=area, basis="prediction"),
        Claim("sec3e.area.KMTPM_SA", "Sec. III-E", "cell area of KMTPM (sub-atomic), the largest",
              paper=Value(value=18950.4, unit="um^2"), not_modelled=area, basis="prediction"),
        Claim("sec3e.area_share", "Sec. III-E / Sec. V",
              "KMTPM (sub-atomic) takes under 0.015 % of an NFM chip's area",
              paper=Relation(op="<", ref=0.015, unit="%"), not_modelled=area,
              basis="prediction"),
        # sums of register widths and data-structure sizes: fixed by the design, any workload
        Claim("sec3e.register_bits", "Sec. III-E",
              "KMTPM (sub-atomic) needs 77 register bits at TG = 4, alpha = 4",
              paper=Value(value=77, unit="bits"), basis="by_construction",
              not_modelled="register layout (token table, HT / UT, RT, sender / receiver) is "
              "hardware detail the simulator does not build; only T_trans is modelled"),
        Claim("sec3e.dcc_bytes", "Sec. III-E", "DCC needs 144 bytes of controller state",
              paper=Value(value=144, unit="bytes"), basis="by_construction",
              not_modelled="DCC's controller data structures are not modelled, only its "
              "scheduling rule"),
        Claim("sec3e.t_trans", "Sec. III-E (eq. 3)",
              "key + tokens take 7 bits, sent in 7 cycles, at TG = 4 and alpha = 4",
              paper=Value(value=T_TRANS, unit="cycles"),
              ours=lambda ds, r: float(var(ds, "token_transfer_cycles")),
              basis="by_construction",
              note="[by construction: eq. (3)'s definition over the configured alpha and TG, "
              "for any workload] 1 key bit + ceil(log2(TT + 1)) token bits at the run's alpha "
              "and TG"),
    ]  # fmt: skip


def _sec3f2() -> list[Claim]:
    def sa_vs_mtpm(ds: xr.Dataset, r: str) -> float:
        st = _mc_stream(ds)
        return _mc_norm(ds, st, "single_ring", "KMTPM_SA") - _mc_norm(ds, st, "single_ring", "MTPM")

    def ctrl(ds: xr.Dataset, r: str) -> float:
        st = _mc_stream(ds)
        return _mc_norm(ds, st, "via_controller", "KMTPM_SA") / _mc_norm(
            ds, st, "single_ring", "KMTPM_SA"
        )

    def chips(ds: xr.Dataset, r: str) -> float:
        st = _mc_stream(ds, "R50 (synthetic)")
        return _mc_norm(ds, st, "single_ring", "MTPM") / float(
            sel(norm(ds, "MTPM", r), trace="R50")
        )

    return [
        Claim("sec3f2.single_ring_kmtpm_sa", "Sec. III-F2",
              "one ring over every channel's chips: KMTPM (sub-atomic) reduces MTPM's overhead "
              "(throughput / NPM, KMTPM sub-atomic minus MTPM)",
              paper=Relation(op=">", ref=0.0), ours=sa_vs_mtpm, workload=_mc_kind,
              basis="prediction",
              note="4 channels x 8 ways on the NAND operations the FTL kernel issues for the "
              "multi-channel trace (beyond the paper's experiments)"),
        Claim("sec3f2.via_controller_costs", "Sec. III-F2",
              "tokens passed via the controller compete with data on the channel: KMTPM "
              "(sub-atomic) via the controller / on one ring",
              paper=Relation(op="<", ref=1.0), ours=ctrl, workload=_mc_kind,
              basis="prediction",
              note="grants and returns queue behind page transfers on the chip's channel"),
        Claim("sec3f2.mtpm_more_chips", "Sec. III-F2",
              "MTPM's overhead grows with the number of chips on one ring: its throughput / "
              "NPM on 32 chips over that on 8 (R50, budget = chips / 2)",
              paper=Relation(op="<", ref=1.0), ours=chips, workload=SYNTH,
              basis="prediction",
              note="the paper expects a trend (more chips, more overhead) but runs no "
              "experiment, so there is no change of its own to measure ours against (a "
              "relation, not a Trend); a larger ring also pools a larger budget: more chips "
              "share the tokens, which works against the longer trips of the key"),
    ]  # fmt: skip


# Sec. IV-A's read ratios are properties of the workloads we configure, not results of the
# power model: where no trace of the paper's name is found the configured stand-in is a
# synthetic preset whose read share was set from a published read % of that trace (calibrated);
# elsewhere the row echoes a property of the configured trace file (input): it checks the
# stand-in, it predicts nothing
READ_RATIO_BASIS = {"Financial1": "calibrated", "Financial2": "calibrated", "WebSearch1": "input",
                    "MSR": "input", "TPCC": "input"}  # fmt: skip


def _sec4a() -> list[Claim]:
    out = []
    for w, pct in READ_RATIO.items():

        def ours(ds: xr.Dataset, r: str, w=w) -> float:
            frac = sel(var(ds, "workload_read_fraction"), workload=w)
            return 100.0 * float(frac)

        out.append(
            Claim(
                id=f"sec4a.read_ratio.{w}",
                where="Sec. IV-A",
                statement=f"read ratio of {PAPER_TRACE[w]}",
                paper=Value(value=pct, unit="%"),
                ours=ours,
                workload=_real_kind([w]),
                basis=READ_RATIO_BASIS[w],
                note=_read_ratio_note(w),
            )
        )
    return out


def _fig11() -> list[Claim]:
    out = [
        Claim(
            id=f"fig11.peak.{s}",
            where="Fig. 11 / Sec. IV-B",
            statement=f"{s}'s maximum current exceeds the budget on R50 (alpha = 4)",
            paper=Value(value=v, unit="% over PB", direction=(">", 0.0)),
            ours=lambda ds, r, s=s: (
                100.0 * float(sel(var(ds, "peak_over_budget"), scheme=s, trace="R50"))
            ),
            workload=SYNTH,
            basis="prediction",
            note=_peak_note,
        )
        for s, v in FIG11_PEAK.items()
    ]
    out += [
        Claim(
            id=f"fig11.violates_all.{s}",
            where="Sec. IV-B",
            statement=f"{s} violates the budget on every trace (smallest peak over PB)",
            paper=Relation(op=">", ref=0.0),
            ours=lambda ds, r, s=s: float(sel(var(ds, "peak_over_budget"), scheme=s).min()),
            workload=SYNTH,
            basis="prediction",
        )
        for s in ("NPM", "PPM")
    ]
    out.append(
        Claim(
            id="fig11.kmtpm_sa_within",
            where="Fig. 11(c) / Sec. IV-B",
            statement="KMTPM (sub-atomic) stays within the budget on R50 (peak / PB - 1)",
            paper=Relation(op="<=", ref=0.0),
            ours=lambda ds, r: float(
                sel(var(ds, "peak_over_budget"), scheme="KMTPM_SA", trace="R50")
            ),
            workload=SYNTH,
            basis="by_construction",
            note=_BUDGET_BY_DESIGN,
        )
    )
    return out


def _fig12() -> list[Claim]:
    def mean_others(ds: xr.Dataset) -> xr.DataArray:
        return sel(_tg_norm(ds), trace=traces_except(ds, "R100")).mean("trace")

    def best(ds: xr.Dataset, r: str) -> float:
        m = mean_others(ds)
        return float(m.tg.values[int(np.argmax(m.values))])

    def step(a: int, b: int) -> Callable[[xr.Dataset, str], float]:
        return lambda ds, r: float(sel(mean_others(ds), tg=b) / sel(mean_others(ds), tg=a))

    def flat(ds: xr.Dataset, r: str) -> float:
        x = _tg_norm(ds)
        others = [_spread(sel(x, trace=t)) for t in traces_except(ds, "R100")]
        return _spread(sel(x, trace="R100")) / float(np.mean(others))

    return [
        Claim("fig12.best_tg", "Fig. 12 / Sec. IV-C1",
              "KMTPM (sub-atomic) throughput peaks at TG = 4 (traces other than R100)",
              paper=Relation(op="==", ref=4.0, unit="TG"), ours=best, workload=SYNTH,
              basis="prediction",
              note="TG 5 quantises currents more finely, but each hop of the ring carries "
              "one more token bit (one more cycle)"),
        Claim("fig12.tg4_over_tg2", "Sec. IV-C1",
              "a larger TG improves throughput: TG 4 / TG 2 (mean over traces but R100)",
              paper=Relation(op=">", ref=1.0), ours=step(2, 4), workload=SYNTH,
              basis="prediction",
              note="a trend the paper states without a number (Fig. 12's values are not in its "
              "text), so no change of its own to measure ours against: a relation"),
        Claim("fig12.tg5_below_tg4", "Sec. IV-C1",
              "at TG = 5 throughput falls again: TG 5 / TG 4 (mean over traces but R100)",
              paper=Relation(op="<", ref=1.0), ours=step(4, 5), workload=SYNTH,
              basis="prediction",
              note="the token-transfer cost of TG 5 is a few cycles against operations of "
              "tens of microseconds, so the fall is small either way"),
        Claim("fig12.r100_flat", "Sec. IV-C1",
              "R100 shows little difference across TG: its spread over TG / the other "
              "traces' mean spread",
              paper=Relation(op="<", ref=1.0), ours=flat, workload=SYNTH,
              basis="prediction", note=_r100_tg_note),
    ]  # fmt: skip


FIG13_COMPARISON = {  # a Fig. 13 mean -> the comparison the paper states it under
    "KMTPM_SA": "fig13.kmtpm_sa_best",
    "MTPM": "fig13.atomic_over_dcc.MTPM",
    "KMTPM_A": "fig13.atomic_over_dcc.KMTPM_A",
}


def _fig13() -> list[Claim]:
    out = []
    for s, v in FIG13_VS_NPM.items():
        out.append(
            Claim(
                id=f"fig13.vs_npm.{s}",
                where="Fig. 13 / Sec. IV-C2",
                statement=f"{LABEL.get(s, s)}: mean throughput vs NPM, synthetic traces",
                paper=Value(value=v, unit="%", direction=("<", 0.0)),
                ours=lambda ds, r, s=s: _pct(avg(norm(ds, s, r))),
                workload=SYNTH,
                basis="prediction",
                # the paper gives each mean beside a comparison: KMTPM (sub-atomic) loses least
                # (in every trace but R100), MTPM and KMTPM (atomic) less than DCC
                part_of=FIG13_COMPARISON[s],
                note=_sa_note if s == "KMTPM_SA" else _atomic_note,
            )
        )

    def sa_vs_dcc(ds: xr.Dataset, r: str) -> float:
        sa, dcc = avg(norm(ds, "KMTPM_SA", r)), avg(norm(ds, "DCC", r))
        return 100.0 * (sa - dcc) if _READING[r][1] == "points" else _pct(sa / dcc)

    def sa_best(ds: xr.Dataset, r: str) -> float:
        tr = traces_except(ds, "R100")
        sa = sel(norm(ds, "KMTPM_SA", r), trace=tr)
        rest = [sel(norm(ds, s, r), trace=tr) for s in GUARDED if s != "KMTPM_SA"]
        return float((sa > xr.concat(rest, "s").max("s")).mean())

    def sa_best_note(ds: xr.Dataset, r: str) -> str:
        tr = traces_except(ds, "R100")
        lost = []
        for t in tr:
            sa = float(sel(norm(ds, "KMTPM_SA", r), trace=t))
            best = max((float(sel(norm(ds, s, r), trace=t)), s) for s in GUARDED
                       if s != "KMTPM_SA")  # fmt: skip
            if best[0] >= sa:
                lost.append(f"{t}: {best[1]} {best[0]:.3f} vs {sa:.3f}")
        return (
            "'less degradation compared to other methods ... in most traces except for R100' "
            "(Sec. IV-C2) names R100 as the exception: a share of 1 over the other traces (it "
            "was a majority, > 0.5, before). "
            + ("beaten on " + "; ".join(lost) if lost else "best on every trace but R100")
        )

    def r100_small(ds: xr.Dataset, r: str) -> float:
        tr = traces_except(ds, "R100")
        at = [float(sel(norm(ds, s, r), trace="R100")) for s in TOKEN]
        other = [avg(sel(norm(ds, s, r), trace=tr)) for s in TOKEN]
        return float(np.mean(at) - np.mean(other))

    def dcc_reads(ds: xr.Dataset, r: str) -> float:
        d = norm(ds, "DCC", r)
        return avg(sel(d, trace=traces_except(ds, "R0"))) / float(sel(d, trace="R0"))

    def guarded_below(ds: xr.Dataset, r: str) -> float:
        return max(avg(norm(ds, s, r)) for s in GUARDED)

    out += [
        Claim("fig13.atomic_over_dcc.MTPM", "Sec. IV-C2",
              "MTPM loses less throughput than DCC (mean throughput ratio MTPM / DCC)",
              paper=Relation(op=">", ref=1.0), readings=ALL, workload=SYNTH,
              ours=lambda ds, r: avg(norm(ds, "MTPM", r)) / avg(norm(ds, "DCC", r)),
              basis="prediction", note=_dcc_note),
        Claim("fig13.atomic_over_dcc.KMTPM_A", "Sec. IV-C2",
              "KMTPM (atomic) loses less throughput than DCC (KMTPM atomic / DCC)",
              paper=Relation(op=">", ref=1.0), readings=ALL, workload=SYNTH,
              ours=lambda ds, r: avg(norm(ds, "KMTPM_A", r)) / avg(norm(ds, "DCC", r)),
              basis="prediction", note=_dcc_note),
        Claim("fig13.kmtpm_a_vs_mtpm", "Sec. IV-C2",
              "KMTPM (atomic)'s throughput is lower than MTPM's (points of NPM)",
              paper=Value(value=KMTPM_A_VS_MTPM, unit="pts", direction=("<", 0.0)),
              ours=lambda ds, r: 100.0 * (avg(norm(ds, "KMTPM_A", r)) - avg(norm(ds, "MTPM", r))),
              workload=SYNTH, basis="prediction", note=_kmtpm_a_vs_mtpm_note),
        Claim("fig13.kmtpm_sa_vs_dcc", "Sec. IV-C2 / Sec. V",
              "KMTPM (sub-atomic) outperforms DCC (NPM-normalised mean throughputs)",
              paper=Value(value=SA_VS_DCC, unit="%", direction=(">", 0.0)),
              ours=sa_vs_dcc, readings=ALL, workload=SYNTH, basis="prediction", note=_dcc_note),
        Claim("fig13.kmtpm_sa_best", "Sec. IV-C2",
              "KMTPM (sub-atomic) loses least of the budget-keeping schemes in every trace "
              "but R100 (share of those traces)",
              paper=Relation(op=">=", ref=1.0), ours=sa_best, readings=ALL, workload=SYNTH,
              basis="prediction", note=sa_best_note),
        Claim("fig13.r100_small", "Sec. IV-C2",
              "on R100 (reads only) the token schemes lose less: their mean throughput / NPM "
              "on R100 minus that on the other traces",
              paper=Relation(op=">", ref=0.0), ours=r100_small, workload=SYNTH,
              basis="prediction",
              note="on R100 every scheme is bounded by the one channel a page crosses per "
              "read, which the token schemes keep as busy as NPM; on the other traces the "
              "atomic schemes lose their program executions' tokens"),
        Claim("fig13.dcc_low_with_reads", "Sec. IV-C2",
              "DCC is slower on traces with reads: its throughput / NPM on R25-R100 over R0",
              paper=Relation(op="<", ref=1.0), ours=dcc_reads, readings=ALL, workload=SYNTH,
              basis="prediction", note=_dcc_reads_note),
        Claim("fig13.ppm_like_npm", "Sec. IV-C2",
              "PPM's throughput is similar to NPM's ('similar': within the ±5 points a "
              "percentage is judged by)",
              paper=Value(value=0.0, unit="%"),
              ours=lambda ds, r: _pct(avg(norm(ds, "PPM", r))), workload=SYNTH,
              basis="prediction"),
        Claim("fig13.budget_costs", "Sec. IV-C2",
              "keeping the budget costs throughput: the best budget-keeping scheme / NPM",
              paper=Relation(op="<", ref=1.0), ours=guarded_below, readings=ALL,
              workload=SYNTH, basis="prediction"),
        Claim("fig13.dcc_within", "Sec. IV-C2",
              "DCC keeps the budget (largest peak / PB - 1 over the traces)",
              paper=Relation(op="<=", ref=0.0), readings=ALL, workload=SYNTH,
              ours=lambda ds, r: float(sel(var(ds, "dcc_model_peak_over_budget"),
                                           dcc_model=dcc_model_of(r)).max()),
              basis="by_construction", note=_DCC_BY_DESIGN),
    ]  # fmt: skip
    return out


#: "good performance" of KMTPM (sub-atomic) on a real trace: it loses at most this many % of
#: NPM's throughput there (the paper's own "only 7.1 %" average plus the points tolerance)
GOOD_LOSS = round(-FIG14_SA_VS_NPM + POINTS_TOLERANCE, 2)


def _pct_da(x: xr.DataArray) -> xr.DataArray:
    return 100.0 * (x - 1.0)


def _fig14() -> list[Claim]:
    def sa(ds: xr.Dataset, r: str) -> float:
        _labels(ds)
        return _pct(avg(norm(ds, "KMTPM_SA", r, "real"), "workload"))

    def trend(ds: xr.Dataset, r: str) -> float:
        """Kendall's tau of the six schemes' mean throughput / NPM, synthetic vs real."""
        schemes = [str(s) for s in var(ds, "throughput").scheme.values]
        _labels(ds)
        syn = [avg(norm(ds, s, r)) for s in schemes]
        real = [avg(norm(ds, s, r, "real"), "workload") for s in schemes]
        pairs = list(combinations(range(len(schemes)), 2))
        agree = sum(np.sign(syn[i] - syn[j]) * np.sign(real[i] - real[j]) for i, j in pairs)
        return float(agree / len(pairs))

    def read_heavy(ds: xr.Dataset, r: str) -> float:
        wl = [str(w) for w in var(ds, "real_throughput").workload.values]
        if "WebSearch1" not in wl or len(wl) < 2:
            raise MissingInput("real_throughput: WebSearch1 and another workload needed")
        loss = {w: np.mean([1 - float(sel(norm(ds, s, r, "real"), workload=w))
                            for s in ("PPM",) + GUARDED]) for w in wl}  # fmt: skip
        others = [loss[w] for w in wl if w != "WebSearch1"]
        return float(loss["WebSearch1"] / np.mean(others))

    def sa_all(ds: xr.Dataset, r: str) -> float:
        _labels(ds)
        loss = -_pct_da(norm(ds, "KMTPM_SA", r, "real"))
        return float((loss <= GOOD_LOSS).mean())

    def sa_all_note(ds: xr.Dataset, r: str) -> str:
        sa = norm(ds, "KMTPM_SA", r, "real")
        per = []
        for w in sa.workload.values:
            x = float(sel(sa, workload=w))
            best = max(
                (float(sel(norm(ds, s, r, "real"), workload=w)), s)
                for s in GUARDED
                if s != "KMTPM_SA"
            )
            per.append(f"{w} {100.0 * (x - 1.0):+.1f} (best other: {best[1]} "
                       f"{100.0 * (best[0] - 1.0):+.1f})")  # fmt: skip
        return (
            "'KMTPM (sub-atomic) shows good performance for all traces and, on average, the "
            "throughput is decreased only by 7.1 % compared to NPM' (Sec. IV-C2): the "
            "sentence measures performance against NPM and calls a 7.1 % average loss small, so "
            f"a trace counts as good when KMTPM (sub-atomic) loses at most {GOOD_LOSS:g} % "
            f"there (7.1 % plus the {POINTS_TOLERANCE:g} points a percentage is judged by). "
            "The earlier encoding (beats every other budget-keeping scheme on every trace) "
            "asked more than the paper says. Throughput vs NPM, %: " + "; ".join(per)
        )

    kind = _real_kind()
    return [
        Claim("fig14.vs_npm.KMTPM_SA", "Fig. 14 / Sec. IV-C2",
              "KMTPM (sub-atomic): mean throughput vs NPM on the real traces",
              paper=Value(value=FIG14_SA_VS_NPM, unit="%", direction=("<", 0.0)), ours=sa,
              workload=kind, basis="prediction", note=_sa_note),
        Claim("fig14.trend", "Sec. IV-C2",
              "the schemes rank on the real traces as on the synthetic ones (Kendall's tau "
              "of the six means; 'similar' read as tau > 0.5)",
              paper=Relation(op=">", ref=0.5), ours=trend, readings=ALL, workload=kind,
              basis="prediction"),
        Claim("fig14.read_heavy_small", "Sec. IV-C2",
              "on the read-intensive Web1 every scheme loses little: its mean loss vs NPM / "
              "the other traces' mean loss",
              paper=Relation(op="<", ref=1.0), ours=read_heavy, readings=ALL,
              workload=_real_kind(["WebSearch1"]), basis="prediction"),
        Claim("fig14.kmtpm_sa_all", "Sec. IV-C2",
              "KMTPM (sub-atomic) shows good performance on every real trace (share of traces "
              f"where it loses at most {GOOD_LOSS:g} % of NPM's throughput)",
              paper=Relation(op=">=", ref=1.0), ours=sa_all, readings=ALL, workload=kind,
              basis="prediction", note=sa_all_note),
    ]  # fmt: skip


def _fig15() -> list[Claim]:
    def npm_v(ds: xr.Dataset) -> xr.DataArray:
        return sel(var(ds, "alpha_violations_per_ms"), scheme="NPM").mean("trace")

    def falls(ds: xr.Dataset, r: str) -> float:
        v = npm_v(ds).sortby("alpha")
        if v.sizes["alpha"] < 2:
            raise MissingInput("alpha_violations_per_ms: fewer than two alphas in this run")
        return float(np.diff(v.values).max())

    def gain_4_8(ds: xr.Dataset, s: str, r: str) -> float:
        x = norm(ds, s, r, "alpha")
        return 100.0 * (avg(sel(x, alpha=_alpha(ds, 8.0))) - avg(sel(x, alpha=_alpha(ds, 4.0))))

    def rises(ds: xr.Dataset, r: str) -> float:
        return min(gain_4_8(ds, s, r) for s in GUARDED)

    def rises_note(ds: xr.Dataset, r: str) -> str:
        per = ", ".join(f"{LABEL.get(s, s)} {gain_4_8(ds, s, r):+.2f}" for s in GUARDED)
        return (
            "the paper's change is read from its own numbers over alpha 4 -> 8 (Fig. 15's "
            "values are not in its text): KMTPM (sub-atomic), its smallest riser, goes from "
            f"{FIG13_VS_NPM['KMTPM_SA']} % (Fig. 13) to -{ALPHA8_OVERHEAD['KMTPM_SA']} % (Sec. "
            f"IV-C3), +{paper_gain} points; the others rise more (DCC to -8.21 %, MTPM and "
            f"KMTPM (atomic) from about -22 %). Ours per scheme, points of NPM: {per}"
        )

    def npm_45(ds: xr.Dataset, r: str) -> float:
        return float(sel(npm_v(ds), alpha=[_alpha(ds, 4.0), _alpha(ds, 5.0)]).min())

    def npm_from_6(ds: xr.Dataset, r: str) -> float:
        v = npm_v(ds)
        high = [float(a) for a in v.alpha.values if float(a) >= 6.0]
        if not high:
            raise MissingInput("alpha_violations_per_ms: no alpha >= 6 in this run")
        return float(sel(v, alpha=high).max())

    def npm_from_6_note(ds: xr.Dataset, r: str) -> str:
        v = npm_v(ds)
        per = ", ".join(f"alpha {float(a):g}: {float(x):.3g}" for a, x in zip(v.alpha.values,
                                                                            v.values, strict=True)
                        if float(a) >= 6.0)  # fmt: skip
        return (
            "[inferred: the paper states violations 'for alpha = 4 and 5' only, and Fig. 15's "
            "log axis has no values in its text; that NPM stays within the budget from alpha = 6 "
            "on is our reading of the sentence] NPM's violations per ms (mean over the traces): "
            f"{per}. A violation at alpha = 6 needs more than 6 I_max at once: several "
            "pre-charges together with reads and erases, which an unmanaged burst can line up"
        )

    def saturates(ds: xr.Dataset, r: str) -> float:
        x = norm(ds, "KMTPM_SA", r, "alpha")
        return 100.0 * (avg(sel(x, alpha=_alpha(ds, 8.0))) - avg(sel(x, alpha=_alpha(ds, 4.0))))

    paper_gain = round(-FIG13_VS_NPM["KMTPM_SA"] - ALPHA8_OVERHEAD["KMTPM_SA"], 2)
    out = [
        Claim("fig15.npm_violations_fall", "Fig. 15 / Sec. IV-C3",
              "NPM's violations per ms fall as the budget grows (largest rise between "
              "neighbouring alphas)",
              paper=Relation(op="<=", ref=0.0, unit="1/ms"), ours=falls, workload=SYNTH,
              basis="by_construction",
              note="[by construction: NPM ignores the budget, so its current over time is the "
              "same at every alpha and the 40 ns samples above a higher budget can only be "
              "fewer, for any workload]"),
        Claim("fig15.throughput_rises", "Sec. IV-C3",
              "every budget-keeping scheme gains throughput with the budget (the smallest "
              "gain of throughput / NPM from alpha 4 to 8 over the schemes, points of NPM)",
              paper=Trend(op=">", paper_change=paper_gain, unit="pts of NPM"), ours=rises,
              readings=ALL, workload=SYNTH, basis="prediction", note=rises_note),
        Claim("fig15.npm_violates_alpha_4_5", "Sec. IV-C3",
              "NPM violates the budget at alpha = 4 and 5 (fewer violations per ms of the two)",
              paper=Relation(op=">", ref=0.0, unit="1/ms"), ours=npm_45, workload=SYNTH,
              basis="prediction"),
        Claim("fig15.npm_within_alpha_6_8", "Sec. IV-C3",
              "NPM no longer violates the budget from alpha = 6 on (most violations per ms over "
              "the alphas >= 6 of the run)",
              paper=Relation(op="<=", ref=0.0, unit="1/ms"), ours=npm_from_6, workload=SYNTH,
              basis="inferred", note=npm_from_6_note),
        Claim("fig15.kmtpm_sa_saturates", "Sec. IV-C3",
              "KMTPM (sub-atomic)'s throughput saturates beyond alpha = 4: its gain from "
              "alpha 4 to 8, at most the paper's own numbers imply",
              paper=Relation(op="<=", ref=paper_gain, unit="pts of NPM"), ours=saturates,
              workload=SYNTH, basis="prediction",
              note=f"bound from the paper: -6.21 % at alpha = 4 (Fig. 13) and a 3.8 % overhead "
              f"at alpha = 8 put its own rise at {paper_gain} points"),
    ]  # fmt: skip

    def budget_loss(ds: xr.Dataset, r: str) -> float:
        x = norm(ds, "KMTPM_SA", r, "alpha")
        return 100.0 * (avg(sel(x, alpha=_alpha(ds, 4.0))) - avg(sel(x, alpha=_alpha(ds, 8.0))))

    bound = TABLE_III["read"]["max_pct"]
    budget_paper = round(FIG13_VS_NPM["KMTPM_SA"] + ALPHA8_OVERHEAD["KMTPM_SA"], 2)
    out += [
        Claim("fig15.budget_loss.KMTPM_SA", "Sec. IV-C2 / IV-C3",
              "KMTPM (sub-atomic): the loss the budget causes at alpha = 4, its alpha-8 "
              "(protocol) overhead taken out: throughput / NPM at alpha 4 minus at alpha 8",
              paper=Value(value=budget_paper, unit="pts of NPM", direction=("<", 0.0)),
              ours=budget_loss, workload=SYNTH, basis="inferred",
              note=f"[inferred: the paper states no budget-caused loss; we split its two "
              f"numbers] the paper's {FIG13_VS_NPM['KMTPM_SA']} % (Fig. 13) less its "
              f"{ALPHA8_OVERHEAD['KMTPM_SA']} % alpha-8 overhead; the raw figure is "
              "fig13.vs_npm.KMTPM_SA"),
        Claim("fig15.overhead_within_table3.KMTPM_SA", "Table III vs Sec. IV-C3",
              f"KMTPM (sub-atomic)'s overhead at alpha = 8 stays within eq. (3)'s largest "
              f"(Table III: {bound} % of a read)",
              paper=Relation(op="<=", ref=bound, unit="%"),
              ours=lambda ds, r: _overhead(ds, "KMTPM_SA", r), workload=SYNTH,
              basis="inferred",
              note=f"[inferred: the paper never relates its alpha-8 overhead to Table III; the "
              f"bound is our implication of eq. (3)] the paper contradicts itself here: its "
              f"own {ALPHA8_OVERHEAD['KMTPM_SA']} % exceeds its Table III bound by "
              f"{ALPHA8_OVERHEAD['KMTPM_SA'] - bound:.2f} points"),
    ]  # fmt: skip
    for s, v in ALPHA8_OVERHEAD.items():
        out.append(
            Claim(
                id=f"fig15.overhead_alpha8.{s}",
                where="Sec. IV-C3 / Sec. V" if s == "KMTPM_SA" else "Sec. IV-C3",
                statement=f"{LABEL.get(s, s)}: throughput overhead vs NPM at alpha = 8 (no "
                "binding budget)",
                paper=Value(value=v, unit="%", direction=(">", 0.0)),
                ours=lambda ds, r, s=s: _overhead(ds, s, r),
                readings=ALL if s == "DCC" else (),
                workload=SYNTH,
                basis="prediction",
                note=_overhead_note,
            )
        )
    return out


# a latency number -> the comparison the paper states it in: "by as much as 37.27 % ... in R0",
# "by up to 13.39 % and 59.28 % in R25" (the largest cut is there), and KMTPM (atomic)'s +3.6 %
# program / -9.12 % read ("significantly improves read latency compared to program latency")
_LATENCY_COMPARISON = {
    ("fig16", "KMTPM_SA", "R0"): "fig16.program.KMTPM_SA.largest_at_R0",
    ("fig17", "KMTPM_A", "R25"): "fig17.read.KMTPM_A.largest_at_R25",
    ("fig17", "KMTPM_SA", "R25"): "fig17.read.KMTPM_SA.largest_at_R25",
    ("fig16", "KMTPM_A", None): "fig17.kmtpm_a_read_beats_program",
    ("fig17", "KMTPM_A", None): "fig17.kmtpm_a_read_beats_program",
}


def _latency_claims() -> list[Claim]:
    out = []
    what = {"program_latency": "program", "read_latency": "read"}
    for fig, name, s, trace, v in LATENCY:

        def ours(ds: xr.Dataset, r: str, name=name, s=s, trace=trace) -> float:
            x = _latency(ds, name, s)
            return _pct(float(sel(x, trace=trace)) if trace else avg(x))

        where = f"Fig. {fig[3:]} / Sec. IV-C4"
        out.append(
            Claim(
                id=f"{fig}.{what[name]}.{s}" + (f".{trace}" if trace else ""),
                where=where,
                statement=f"{LABEL[s]}: {what[name]} latency vs MTPM, "
                + (f"on {trace} (the paper's largest change)" if trace else "mean over traces"),
                paper=Value(value=v, unit="%", direction=("<", 0.0) if v < 0 else (">", 0.0)),
                ours=ours,
                workload=SYNTH,
                basis="prediction",
                part_of=_LATENCY_COMPARISON.get((fig, s, trace), ""),
                note=(
                    _kmtpm_a_read_note
                    if s == "KMTPM_A"
                    else "consistent with KMTPM (sub-atomic)'s larger throughput gain here"
                ),
            )
        )
    for name, v in LATENCY_SA_VS_NPM.items():
        fig = "fig16" if name == "program_latency" else "fig17"
        out.append(
            Claim(
                id=f"{fig}.{what[name]}.KMTPM_SA.vs_npm",
                where=f"Sec. IV-C4 (Fig. {fig[3:]})",
                statement=f"KMTPM (sub-atomic): {what[name]} latency vs NPM, mean over traces",
                paper=Value(value=v, unit="%", direction=(">", 0.0)),
                ours=lambda ds, r, name=name: _pct(avg(_latency(ds, name, "KMTPM_SA", "NPM"))),
                workload=SYNTH,
                basis="prediction",
            )
        )
    for name, fig in (("program_latency", "fig16"), ("read_latency", "fig17")):
        out.append(
            Claim(
                id=f"{fig}.{what[name]}.KMTPM_SA.all_traces",
                where=f"Fig. {fig[3:]} / Sec. IV-C4",
                statement=f"KMTPM (sub-atomic) cuts {what[name]} latency vs MTPM on every "
                "trace (largest ratio - 1)",
                paper=Relation(op="<", ref=0.0),
                ours=lambda ds, r, name=name: float(_latency(ds, name, "KMTPM_SA").max() - 1),
                workload=SYNTH,
                basis="prediction",
            )
        )
    for name, fig, trace in (("program_latency", "fig16", "R0"), ("read_latency", "fig17", "R25")):
        for s in ("KMTPM_SA",) if name == "program_latency" else ("KMTPM_A", "KMTPM_SA"):
            out.append(
                Claim(
                    id=f"{fig}.{what[name]}.{s}.largest_at_{trace}",
                    where=f"Sec. IV-C4 (Fig. {fig[3:]})",
                    statement=f"{LABEL[s]}: the largest {what[name]} latency cut vs MTPM is on "
                    f"{trace} (its ratio minus the smallest ratio)",
                    paper=Relation(op="<=", ref=0.0),
                    ours=lambda ds, r, name=name, s=s, trace=trace: float(
                        sel(_latency(ds, name, s), trace=trace) - _latency(ds, name, s).min()
                    ),
                    workload=SYNTH,
                    basis="prediction",
                    note=_kmtpm_a_read_note if s == "KMTPM_A" else "",
                )
            )
    out.append(
        Claim(
            id="fig17.kmtpm_a_read_beats_program",
            where="Sec. IV-C4",
            statement="KMTPM (atomic) improves read latency more than program latency (read "
            "change minus program change vs MTPM, points)",
            paper=Relation(op="<", ref=0.0, unit="pts"),
            ours=lambda ds, r: (
                100.0
                * (
                    avg(_latency(ds, "read_latency", "KMTPM_A"))
                    - avg(_latency(ds, "program_latency", "KMTPM_A"))
                )
            ),  # fmt: skip
            workload=SYNTH,
            basis="prediction",
            note=_kmtpm_a_read_note,
        )
    )
    return out


def _fig18() -> list[Claim]:
    def sa_all(ds: xr.Dataset, r: str) -> float:
        w = var(ds, "wait_time").sum("trace")
        base = sel(w, scheme="MTPM")
        keep = [str(a) for a in w.atomic.values if float(sel(base, atomic=str(a))) > 0]
        if not keep:
            raise MissingInput("MTPM never waits in this run")
        return float((sel(w, scheme="KMTPM_SA", atomic=keep) / sel(base, atomic=keep)).max())

    reads = ["R_A1", "R_A2", "R_A3"]
    return [
        Claim("fig18.kmtpm_sa_all", "Fig. 18 / Sec. IV-C5",
              "KMTPM (sub-atomic) waits less than MTPM before every atomic operation "
              "(largest wait ratio)",
              paper=Relation(op="<", ref=1.0), ours=sa_all, workload=SYNTH,
              basis="prediction"),
        Claim("fig18.kmtpm_a_read", "Sec. IV-C5",
              "KMTPM (atomic) waits less than MTPM before reads (wait ratio, read atomics)",
              paper=Relation(op="<", ref=1.0), workload=SYNTH,
              ours=lambda ds, r: _wait_ratio(ds, "KMTPM_A", reads),
              basis="prediction", note=_kmtpm_a_read_note),
        Claim("fig18.kmtpm_a_program", "Sec. IV-C5",
              "KMTPM (atomic) waits longer than MTPM before program execution (P_A1)",
              paper=Relation(op=">", ref=1.0), workload=SYNTH,
              ours=lambda ds, r: _wait_ratio(ds, "KMTPM_A", ["P_A1"]), basis="prediction"),
    ]  # fmt: skip


def _sec5() -> list[Claim]:
    return [
        Claim("sec5.token_no_violation", "Sec. V (Fig. 11)",
              "the token schemes never exceed the budget (largest peak / PB - 1, every trace)",
              paper=Relation(op="<=", ref=0.0), workload=SYNTH, basis="by_construction",
              note=_BUDGET_BY_DESIGN,
              ours=lambda ds, r: float(sel(var(ds, "peak_over_budget"), scheme=list(TOKEN)).max())),
        Claim("sec5.token_no_violation_any_alpha", "Sec. V (Fig. 15)",
              "the token schemes never violate the budget at any alpha (largest violations "
              "per ms)",
              paper=Relation(op="<=", ref=0.0, unit="1/ms"), workload=SYNTH,
              basis="by_construction", note=_BUDGET_BY_DESIGN,
              ours=lambda ds, r: float(
                  sel(var(ds, "alpha_violations_per_ms"), scheme=list(TOKEN)).max())),
    ]  # fmt: skip


def _scored_per_setup(claim: Claim) -> Claim:
    """The claim evaluated on its reading's set-up, under every reading (the simulation's
    claims: all but the analytic and trace-property ones)."""
    if claim.not_modelled or claim.id.startswith(("sec3e.", "sec4a.")):
        return claim
    ours, note = claim.ours, claim.note

    def ours_at(ds: xr.Dataset, r: str) -> float:
        return ours(at_setup(ds, r), r)  # type: ignore[misc]

    def note_at(ds: xr.Dataset, r: str) -> str:
        text = note(at_setup(ds, r), r) if callable(note) else note
        return (_calibration_label(ds) if setup_of(r) == "dcc_calibrated" else "") + text

    return replace(claim, ours=ours_at, note=note_at, readings=ALL)


CLAIMS: tuple[Claim, ...] = tuple(
    _scored_per_setup(c)
    for c in _sec3e()
    + _table3()
    + _sec3f2()
    + _sec4a()
    + _fig11()
    + _fig12()
    + _fig13()
    + _fig14()
    + _fig15()
    + _latency_claims()
    + _fig18()
    + _sec5()
)
