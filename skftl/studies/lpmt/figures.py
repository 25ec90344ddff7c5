"""Figures and tables of the lpmt study (used by notebooks/02_lpmt.ipynb): the paper's
Tables IV-VI and Fig. 8 beside ours, the evidence behind the misses, the paper's own
numbers checked against its text, and the beyond-the-paper plots."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr

from skftl.dram.timing import case_labels
from skftl.studies.captions import Caption
from skftl.studies.lpmt import claims as C
from skftl.studies.lpmt.simulate import case_shares, improvement

PAPER_PLACEMENTS = ("single", "fixed", "dynamic")


def ours_of(reading: str = C.READINGS.default) -> dict[str, str]:
    """The paper's three placements -> ours under a reading."""
    return {pl: C.placement_of(pl, reading) for pl in PAPER_PLACEMENTS}


# ------------------------------------------------------------------ labels
def workloads(ds: xr.Dataset) -> list[str]:
    return [str(w) for w in ds["workload"].values]


def tick(ds: xr.Dataset, w: str, sep: str = " ") -> str:
    """Axis label of a workload: says which trace stands for it (synthetic never passes as
    real)."""
    lab = str(ds["label"].sel(workload=w).values)
    return w if lab == w else f"{w}{sep}[{lab}]"


def mix(ds: xr.Dataset) -> str:
    n_syn = int(ds["synthetic"].sum())
    return (
        f"{ds.sizes['workload']} workloads: {n_syn} synthetic, {ds.sizes['workload'] - n_syn} real"
    )


def _xticks(ax: plt.Axes, ds: xr.Dataset) -> None:
    ax.set_xticks(range(ds.sizes["workload"]))
    ax.set_xticklabels([tick(ds, w) for w in workloads(ds)], rotation=30, ha="right", fontsize=6)


# ------------------------------------------------------------------ Table IV
def occupancy_table(ds: xr.Dataset) -> pd.DataFrame:
    """Table IV: share of primary sets in use (%), ours beside the paper's."""
    occ = ds["set_occupancy"].to_pandas().round(2)
    paper = pd.DataFrame(C.TABLE_IV).T.reindex(index=occ.index)
    return pd.concat({"ours": occ, "paper": paper}, axis=1)


def load_table(ds: xr.Dataset) -> pd.DataFrame:
    """What sets the occupancy of a well-spread hash: files per primary entry and per set."""
    t = C._table(ds)
    n_sets, assoc = int(t["n_sets"]), int(t["assoc"])
    files = ds["files"].to_pandas()
    return pd.DataFrame(
        {
            "trace": [tick(ds, w) for w in files.index],
            "files": files,
            "files_per_entry": (files / (n_sets * assoc)).round(3),
            "files_per_set": (files / n_sets).round(3),
            # share of sets a uniform hash leaves non-empty: 1 - exp(-files / sets)
            "uniform_hash_occupancy_pct": (100 * (1 - np.exp(-files / n_sets))).round(2),
        }
    )


def occupancy_figure(ds: xr.Dataset) -> plt.Figure:
    """Table IV: ours (every hash of the run) beside the paper's four columns (a hash has
    the same colour in both panels)."""
    occ = ds["set_occupancy"].to_pandas()
    paper = pd.DataFrame(C.TABLE_IV).T.reindex(index=occ.index)[list(C.HASHES)]
    colour = {h: f"C{i % 10}" for i, h in enumerate(occ.columns)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    occ.plot.bar(ax=axes[0], width=0.8, color=[colour[h] for h in occ.columns], legend=False)
    axes[0].set_title("ours", fontsize=9)
    paper.plot.bar(ax=axes[1], width=0.8, color=[colour.get(h, "k") for h in paper.columns],
                   legend=False)  # fmt: skip
    axes[1].set_title("paper (Table IV)", fontsize=9)
    _xticks(axes[0], ds)
    axes[1].set_xticklabels(list(paper.index), rotation=30, ha="right", fontsize=6)
    for ax in axes:
        ax.set_xlabel("")
    axes[0].set_ylabel("primary sets in use (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(labels), fontsize=7, loc="lower center")
    fig.suptitle("Table IV: primary-LPMT occupancy", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


# ------------------------------------------------------------------ Table V
def cases_table(ds: xr.Dataset, model: str = "paper") -> pd.DataFrame:
    """Table V: share (%) of DRAM reads per class per placement, ours and the paper's."""
    ours = case_shares(ds, model).round(2)
    paper = pd.DataFrame(C.TABLE_V, index=case_labels(4)).T
    return pd.concat({"ours": ours, "paper": paper})


def cycles_table(ds: xr.Dataset) -> pd.DataFrame:
    """Table V's latency row: the paper's cycles and one read of each class in each model."""
    t = ds["case_cycles"].to_pandas().T.add_prefix("ours, ").add_suffix(" timing")
    t.insert(0, "paper (Table V)", [c for _, _, c in C.CASES][: len(t)])
    return t


def cases_figure(ds: xr.Dataset, model: str = "paper") -> plt.Figure:
    """Table V: ours per placement, and below them the paper's three rows (its single-bank
    row sums to 98.01 %, as printed)."""
    cases = case_shares(ds, model)
    cases.index = [f"ours: {p}" for p in cases.index]
    paper = pd.DataFrame(C.TABLE_V, index=case_labels(4)).T
    paper.index = [f"paper: {C.PLACEMENT_NAME[p]}" for p in paper.index]
    both = pd.concat([cases, paper])[::-1]  # barh draws the first row at the bottom
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    both.plot.barh(stacked=True, ax=ax, colormap="tab10")
    ax.axhline(len(paper) - 0.5, color="k", lw=0.8)
    for i, label in enumerate(both.index):
        hits = float(both.loc[label, case_labels(4)[5]])
        ax.text(101, i, f"{hits:.1f} % row hits", va="center", fontsize=6)
    ax.set_xlim(0, 118)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("share of DRAM reads (%)")
    ax.set_title(
        f"Table V: latency classes, ours ({model} timing; {mix(ds)}) above the paper's rows",
        fontsize=8,
    )
    ax.legend(fontsize=6, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    fig.tight_layout()
    return fig


def evidence_table(ds: xr.Dataset, model: str = "paper") -> pd.DataFrame:
    """Per placement, all workloads: what a lookup costs and why (reads per lookup, row
    hits, reads whose activation Fig. 6 hides, cycles per read, mean latency)."""
    shares = case_shares(ds, model)
    lab = case_labels(4)
    req = ds["requests"]
    lat = ds["latency"].sel(model=model)
    reads = ds["reads_per_lookup"].sel(model=model)
    tck = float(ds.attrs["tck_ns"])
    out = pd.DataFrame(
        {
            "reads_per_lookup": ((reads * req).sum("workload") / req.sum()).to_pandas(),
            "row_hit_pct": shares[lab[5]],
            "hidden_activation_pct": shares[lab[4]],
            "same_bank_conflict_pct": shares[lab[:4]].sum(axis=1),
            "cycles_per_read": (
                (lat * req).sum("workload") / tck / (reads * req).sum("workload")
            ).to_pandas(),
            "mean_latency_ns": ((lat * req).sum("workload") / req.sum()).to_pandas(),
        }
    )
    return out.round(3)


# ------------------------------------------------------------------ Table VI
def latency_table(ds: xr.Dataset, model: str = "paper") -> pd.DataFrame:
    """Table VI: average lookup latency (ns) per workload and placement, ours and the paper's."""
    ours = ds["latency"].sel(model=model).to_pandas().round(2)
    paper = pd.DataFrame(C.TABLE_VI).T.reindex(index=ours.index)
    return pd.concat({"ours": ours, "paper": paper}, axis=1)


def improvement_table(ds: xr.Dataset) -> pd.DataFrame:
    """Mean improvement over one bank (%) per placement and timing model, and the paper's."""
    out = pd.DataFrame(
        {
            f"ours, {m} timing": improvement(ds, str(m)).mean("workload").to_pandas()
            for m in ds["model"].values
        }
    )
    paper = {ours: C.TABLE_VI_IMPROVEMENT[pl] for pl, ours in ours_of().items() if pl != "single"}
    out["paper (Table VI), the default reading's placement"] = pd.Series(paper)
    return out.round(2)


def improvement_by_workload(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """Table VI per workload: each four-bank placement's improvement over the same
    workload's one bank (%), ours under a reading beside the paper's own cells."""
    model = C.model_of(reading)
    imp = improvement(ds, model)
    cols = {}
    for pl in ("fixed", "dynamic"):
        ours = C.placement_of(pl, reading)
        cols[(pl, f"ours ({ours}, {model})")] = imp.sel(placement=ours).to_pandas()
        cols[(pl, "paper")] = pd.Series({w: C._paper_improvement(w, pl) for w in C.TABLE_VI})
    out = pd.DataFrame(cols).reindex(workloads(ds))
    out[("order", "ours: dynamic < fixed")] = out.iloc[:, 2] > out.iloc[:, 0]
    out[("order", "paper: dynamic < fixed")] = out.iloc[:, 3] > out.iloc[:, 1]
    return out.round(2)


def _placement_legend(pl: str, reading: str) -> str:
    """A placement's legend entry, saying which of the paper's rows it is by default and
    under the `spread` reading."""
    roles = []
    for r, tag in ((reading, "default"), ("spread", "`spread` reading")):
        for paper, ours in ours_of(r).items():
            if ours == pl and paper != "single":
                roles.append(f"paper's {paper}, {tag}")
    return f"{pl} ({'; '.join(roles)})" if roles else str(pl)


def latency_figure(
    ds: xr.Dataset, model: str = "paper", reading: str = C.READINGS.default
) -> plt.Figure:
    """Table VI: ours (every placement; the default fixed and dynamic hatched and named in
    the legend) beside the paper's rows."""
    lat = ds["latency"].sel(model=model).to_pandas()
    paper = pd.DataFrame(C.TABLE_VI).T.reindex(lat.index)
    defaults = {o for p, o in ours_of(reading).items() if p != "single"}
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    lat.plot.bar(ax=axes[0], width=0.8)
    for cont, pl in zip(axes[0].containers, lat.columns, strict=False):
        if pl in defaults:
            for bar in cont:
                bar.set_hatch("///")
                bar.set_edgecolor("k")
        cont.set_label(_placement_legend(str(pl), reading))
    axes[0].set_title(
        f"ours ({model} timing; hatched: the default reading's fixed and dynamic)", fontsize=8
    )
    axes[0].set_ylabel("average lookup latency (ns)")
    paper.plot.bar(ax=axes[1], width=0.8)
    axes[1].set_title("paper (Table VI)")
    _xticks(axes[0], ds)
    axes[1].set_xticklabels(list(paper.index), rotation=30, ha="right", fontsize=6)
    for ax in axes:
        ax.legend(fontsize=6, ncol=2, loc="lower center", bbox_to_anchor=(0.5, 1.12))
        ax.set_xlabel("")
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ Fig. 8
def progress_figure(
    ds: xr.Dataset, model: str = "paper", reading: str = C.READINGS.default
) -> plt.Figure:
    """Fig. 8: ours per tenth of the workload. Fig. 8's own values are not legible in the
    paper's text; its only numbers for these curves are their means, Table VI's cells,
    drawn as dashed lines in the colour of the placement that stands for each row under
    the reading."""
    prog = ds["latency_progress"].sel(model=model)
    ws = workloads(ds)
    ours = ours_of(reading)
    fig, axes = plt.subplots(2, (len(ws) + 1) // 2, figsize=(10, 5), sharex=True, squeeze=False)
    for ax, w in zip(axes.flat, ws, strict=False):
        for pl in ds["placement"].values:
            y = prog.sel(workload=w, placement=pl)
            (line,) = ax.plot(prog["progress"], y, marker="o", ms=3, label=str(pl))
            for paper_pl, o in ours.items():
                if o == pl and w in C.TABLE_VI:
                    ax.axhline(
                        C.TABLE_VI[w][paper_pl],
                        color=line.get_color(),
                        ls="--",
                        lw=1,
                        label=f"paper's {paper_pl} (Table VI mean)",
                    )
        ax.set_title(tick(ds, w, "\n"), fontsize=8)
        ax.set_xlabel("tenth of the workload")
        ax.set_ylabel("latency (ns)")
    for ax in list(axes.flat)[len(ws) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, ncol=5, loc="lower center")
    fig.suptitle(
        f"Fig. 8: average latency per tenth of progress ({model} timing; dashed: the "
        "paper's Table VI mean of the row each placement stands for)",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def progress_trend_table(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """Fig. 8's two statements per workload under a reading: latency slope (ns per tenth,
    mean of the paper's three placements) and the dynamic order's improvement slope (pp
    per tenth)."""
    prog = ds["latency_progress"].sel(model=C.model_of(reading))
    x = prog["progress"].values.astype(float)
    ours = ours_of(reading)
    rows = {}
    for w in workloads(ds):
        mean = prog.sel(workload=w, placement=list(ours.values())).mean("placement").values
        single = prog.sel(workload=w, placement="single").values
        imp = 100 * (single - prog.sel(workload=w, placement=ours["dynamic"]).values) / single
        rows[w] = {
            "first_tenth_ns": mean[0],
            "last_tenth_ns": mean[-1],
            "latency_slope_ns": np.polyfit(x, mean, 1)[0],
            "dynamic_improvement_slope_pp": np.polyfit(x, imp, 1)[0],
        }
    return pd.DataFrame(rows).T.round(3)


# ------------------------------------------------------------------ the paper against itself
def paper_checks() -> pd.DataFrame:
    """Statements of the paper's text recomputed from its own tables (no simulation)."""
    over = C._paper_three_over_90()
    means = C._paper_mean_occupancy()
    worst = min(means, key=means.get)
    t = C.TABLE_I
    gap = t["rtp"] + t["rp"] + t["rcd"] + t["cl"] + t["dl"] - (t["cl"] + t["dl"]) - t["dl"]
    own = {
        pl: np.mean([100 * (r["single"] - r[pl]) / r["single"] for r in C.TABLE_VI.values()])
        for pl in ("fixed", "dynamic")
    }
    rel = np.mean([100 * (r["fixed"] - r["dynamic"]) / r["fixed"] for r in C.TABLE_VI.values()])
    rows = [
        ("hashes > 90 % on all but WebSearch2/3", "3", f"{len(over)} ({', '.join(over)})"),
        ("hash with the worst set distribution", "folding",
         f"{worst} (mean {means[worst]:.2f} %; folding {means['folding']:.2f} %)"),
        ("Fig. 3 same-bank gap to first data (cycles)", str(C.FIG3_GAP),
         f"{gap} (Fig. 6 with Table I)"),
        ("fixed order: mean improvement (%)", "11.91", f"{own['fixed']:.2f}"),
        ("dynamic order: mean improvement (%)", "16.28", f"{own['dynamic']:.2f}"),
        ("dynamic's additional gain", "4.37 %",
         f"{own['dynamic'] - own['fixed']:.2f} pp over one bank; {rel:.2f} % of fixed's latency"),
        ("Table V single-bank row sums to (%)", "100", f"{sum(C.TABLE_V['single']):.2f}"),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["statement", "text says", "its own numbers give"])


# ------------------------------------------------------------------ beyond the paper
def strict_table(ds: xr.Dataset) -> pd.DataFrame:
    """Strict DDR4 latency over the paper rule's, per workload and placement."""
    lat = ds["latency"]
    return (lat.sel(model="ddr4") / lat.sel(model="paper")).to_pandas().round(3)


def strict_figure(ds: xr.Dataset) -> plt.Figure:
    both = ds["latency"].mean("workload").to_pandas()
    fig, ax = plt.subplots(figsize=(5.5, 3))
    both.plot.bar(ax=ax)
    ax.set_ylabel("average lookup latency (ns)")
    ax.set_title(f"paper rule vs strict DDR4 (mean over {mix(ds)})", fontsize=8)
    ax.tick_params(axis="x", labelrotation=30)
    plt.setp(ax.get_xticklabels(), ha="right")
    ax.legend(title="model", fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def bank_groups_table(ds: xr.Dataset) -> pd.DataFrame:
    """Strict DDR4: mean latency (ns) with the banks in 1 vs several bank groups."""
    return ds["bank_groups_latency"].mean("workload").to_pandas().round(2)


def sensitivity_figure(ds: xr.Dataset) -> plt.Figure:
    fig, axes = plt.subplots(1, 4, figsize=(12, 3))
    panels = [
        ("assoc_latency", "assoc", "ways per set"),
        ("load_latency", "load_factor", "files / primary entries"),
        ("banks_latency", "n_banks", "banks"),
    ]
    for ax, (name, dim, xlabel) in zip(axes, panels, strict=False):
        d = ds[name].mean("workload")
        for pl in d["splacement"].values:
            ax.plot(d[dim], d.sel(splacement=pl), marker="o", label=str(pl))
        ax.set_xlabel(xlabel)
        ax.set_ylabel("latency (ns)")
    axes[0].set_xscale("log", base=2)
    axes[2].set_xscale("log", base=2)
    axes[0].legend(fontsize=7)
    # the same placements and colours as the first panel's legend
    ds["hash_latency"].mean("workload").to_pandas().plot.bar(ax=axes[3], legend=False)
    axes[3].set_ylabel("latency (ns)")
    axes[3].tick_params(axis="x", labelrotation=45, labelsize=7)
    fig.suptitle(f"sensitivity (mean over {mix(ds)})")
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ the paper's consistency
def _cycles_per_read(shares: dict[str, float]) -> float:
    """Fig. 6's cycles per read weighted by a Table V row (shares normalised to 100 %)."""
    cyc = {cid: c for cid, _, c in C.CASES}
    return sum(v * cyc[k] for k, v in shares.items()) / sum(shares.values())


def paper_consistency() -> pd.DataFrame:
    """Table V's class shares weighted by Fig. 6's latencies (Table V's own latency row),
    against Table VI: the improvement over one bank each row implies, against the
    single-bank row as printed and against a single bank that obeys Fig. 6 (with one bank
    every row change is b[t] = b[t-1], so its 4.84 % "no repeat" reads cost 23 cycles,
    and its row sums to 98.01 %: the rest is taken as row hits)."""
    rows = {pl: dict(zip([cid for cid, _, _ in C.CASES], v, strict=True))
            for pl, v in C.TABLE_V.items()}  # fmt: skip
    single = rows["single"]
    obeying = dict(single)
    obeying["b1"] += obeying.pop("other_bank")
    obeying["row_hit"] += 100.0 - sum(single.values())
    base = {"as printed": _cycles_per_read(single), "obeying Fig. 6": _cycles_per_read(obeying)}
    out = {}
    for pl in ("fixed", "dynamic"):
        cpr = _cycles_per_read(rows[pl])
        out[C.PLACEMENT_NAME[pl]] = {
            "Table V row sums to (%)": sum(rows[pl].values()),
            "cycles per read (Fig. 6 x Table V)": cpr,
            "implied improvement vs single as printed (%)": 100 * (1 - cpr / base["as printed"]),
            "implied improvement vs single obeying Fig. 6 (%)": 100
            * (1 - cpr / base["obeying Fig. 6"]),
            "Table VI improvement (%)": C.TABLE_VI_IMPROVEMENT[pl],
        }
    out["one bank (Table V row)"] = {
        "Table V row sums to (%)": sum(single.values()),
        "cycles per read (Fig. 6 x Table V)": base["as printed"],
    }
    out["one bank obeying Fig. 6"] = {
        "Table V row sums to (%)": sum(obeying.values()),
        "cycles per read (Fig. 6 x Table V)": base["obeying Fig. 6"],
    }
    return pd.DataFrame(out).T.round(2)


def paper_clock_check(tck_ns: float = 1.5, reads: int = 8) -> pd.DataFrame:
    """Table VI's single-bank latencies against the clock: a single-bank probe of
    ``reads`` ways that changes row costs Fig. 6's b[t] = b[t-1] read plus ``reads - 1``
    row hits; the lowest latency a lookup can have then, and the clock period or the
    probe length each printed latency implies."""
    t = C.TABLE_I
    first = t["rtp"] + t["rp"] + t["rcd"] + t["cl"] + t["dl"] - (t["cl"] + t["dl"])
    probe = first + (reads - 1) * t["dl"]
    rows = {}
    for w, v in C.TABLE_VI.items():
        cycles = v["single"] / tck_ns
        rows[w] = {
            "single bank (ns)": v["single"],
            f"cycles at tCK {tck_ns} ns": cycles,
            f"min. {reads}-read probe (ns)": probe * tck_ns,
            "implied tCK for that probe (ns)": v["single"] / probe,
            "implied reads per lookup at tCK": 1 + (cycles - first) / t["dl"],
        }
    return pd.DataFrame(rows).T.round(2)


# ------------------------------------------------------------------ explanations
def strict_ablation_table(ds: xr.Dataset) -> pd.DataFrame:
    """Strict DDR4 latency (ns, mean over workloads) with its extra constraints switched
    off one at a time, beside the paper rule: which constraint makes it slower."""
    t = ds["strict_ablation"].mean("workload").to_pandas()
    paper = ds["latency"].sel(model="paper").mean("workload").to_pandas()
    t["paper rule"] = paper.reindex(t.index)
    return t.round(2)


def early_exit_table(ds: xr.Dataset) -> pd.DataFrame:
    """Each stop rule of a set probe (``early_exit``) per placement, all workloads, under
    the default reading's paper rule (simulate.EARLY_EXIT_MODEL): DRAM reads per lookup,
    lookup latency (ns) and the share (%) of the reads in each Table V class."""
    req = ds["requests"]
    reads = (ds["early_exit_reads"] * req).sum("workload") / req.sum()
    lat = (ds["early_exit_latency"] * req).sum("workload") / req.sum()
    c = ds["early_exit_cases"].sum("workload")
    shares = (100.0 * c / c.sum("case")).to_series().unstack("case")
    out = shares[[str(x) for x in ds["case"].values]]
    out.insert(0, "latency_ns", lat.to_series())
    out.insert(0, "reads_per_lookup", reads.to_series())
    return out.round(3)


def early_exit_against_paper(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """The paper's three placements (ours under ``reading``) under each stop rule: reads
    per lookup and Table V's shares (%), beside the paper's Table V rows (which give no
    reads per lookup; paper_clock_check has what Table VI's latencies imply)."""
    t = early_exit_table(ds)
    labels = [str(x) for x in ds["case"].values]
    rows = {}
    for pl, ours in ours_of(reading).items():
        for stop in ds["early_exit"].values:
            row = t.loc[(ours, str(stop))]
            rows[(C.PLACEMENT_NAME[pl], f"ours, {stop}")] = row[["reads_per_lookup", *labels]]
        paper = dict(zip(case_labels(4), C.TABLE_V[pl], strict=True))
        rows[(C.PLACEMENT_NAME[pl], "paper (Table V)")] = pd.Series(paper)
    out = pd.DataFrame(rows).T[["reads_per_lookup", *labels]]
    out.index.names = ["placement", "stop rule"]
    return out.astype(float).round(3)


def early_exit_rhythm(ds: xr.Dataset, reading: str = C.READINGS.default) -> pd.DataFrame:
    """The dynamic order's rhythm under each stop rule (ours under ``reading``, all
    workloads, simulate.EARLY_EXIT_MODEL): reads per lookup, the shares (%) of its reads
    that are b[t]=b[t-4] activations (a pass of Fig. 7's order meets the bank read 4 reads
    before), hidden activations (no read of the bank in the window) and row hits, and the
    b[t]=b[t-4] and hidden shares of its activations (reads that are not row hits); the
    paper's dynamic row beside them."""
    lab = [str(x) for x in ds["case"].values]
    t = early_exit_table(ds).xs(C.placement_of("dynamic", reading), level="placement")
    paper = pd.Series(dict(zip(case_labels(4), C.TABLE_V["dynamic"], strict=True)))
    rows = {f"ours, {stop}": t.loc[stop] for stop in t.index}
    rows["paper (Table V)"] = paper
    out = {}
    for name, r in rows.items():
        acts = 100.0 - float(r[lab[-1]])
        out[name] = {
            "reads_per_lookup": float(r.get("reads_per_lookup", np.nan)),
            "b4_pct": float(r[lab[3]]),
            "hidden_pct": float(r[lab[4]]),
            "row_hit_pct": float(r[lab[-1]]),
            "b4_of_activations_pct": 100.0 * float(r[lab[3]]) / acts,
            "hidden_of_activations_pct": 100.0 * float(r[lab[4]]) / acts,
        }
    return pd.DataFrame(out).T.round(3)


def row_rule_table(ds: xr.Dataset) -> pd.DataFrame:
    """Per placement, all workloads, Fig. 6's rule: Table V's row-hit and "no repeat"
    shares (%) when each bank keeps its open row (``paper``) and under the 4-read window
    (``paper_window``), the share of reads the window moves between them, and whether
    every workload's latency is the same under both."""
    per_bank, window = case_shares(ds, "paper"), case_shares(ds, "paper_window")
    lab = [str(x) for x in ds["case"].values]
    lat = ds["latency"]
    same = (lat.sel(model="paper") == lat.sel(model="paper_window")).all("workload")
    return pd.DataFrame(
        {
            "row hits, per bank": per_bank[lab[-1]],
            "row hits, window": window[lab[-1]],
            "no repeat, per bank": per_bank[lab[-2]],
            "no repeat, window": window[lab[-2]],
            "moved by the window (pp)": per_bank[lab[-1]] - window[lab[-1]],
            "same latency": same.to_pandas(),
        }
    ).round(3)


def reaccess_table(ds: xr.Dataset) -> pd.DataFrame:
    """Lookup latency (ns) and improvement over one bank (%) against the share of
    requests that re-access an earlier file (mean over workloads; paper rule)."""
    lat = ds["reaccess_latency"].mean("workload").to_pandas().T
    out = lat.copy()
    if "single" in lat:
        for pl in lat.columns.drop("single"):
            out[f"{pl} improvement (%)"] = 100 * (lat["single"] - lat[pl]) / lat["single"]
    out.insert(0, "re-access share (%)", ds["reaccess_share"].mean("workload").to_pandas())
    return out.round(2)


def reaccess_figure(ds: xr.Dataset) -> plt.Figure:
    t = reaccess_table(ds)
    fig, ax = plt.subplots(figsize=(5.5, 3))
    for pl in ds["splacement"].values:
        ax.plot(t["re-access share (%)"], t[str(pl)], marker="o", label=str(pl))
    ax.set_xlabel("requests re-accessing an earlier file (%)")
    ax.set_ylabel("average lookup latency (ns)")
    ax.set_title(f"re-access sensitivity (paper rule; mean over {mix(ds)})", fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def folding_table(ds: xr.Dataset) -> pd.DataFrame:
    """Table IV's folding column: the paper's, binary folding and decimal folding."""
    occ = ds["set_occupancy"]
    cols = {"paper (folding)": pd.Series({w: r["folding"] for w, r in C.TABLE_IV.items()})}
    for h in ("folding", "folding_decimal"):
        if h in occ["hash"].values:
            cols[f"ours, {h}"] = occ.sel(hash=h).to_pandas()
    return pd.DataFrame(cols).reindex(workloads(ds)).round(2)


# ------------------------------------------------------------------ Tables V and VI: one rule?
def _fig6(n: int | None) -> int:
    """Fig. 6's latency (cycles, Table I) of a read whose bank was last read n reads ago in
    another row; ``None``: a row hit or a bank not read in the window (DL)."""
    t = C.TABLE_I
    if n is None:
        return t["dl"]
    return t["rtp"] + t["rp"] + t["rcd"] + t["cl"] + t["dl"] - (t["cl"] + n * t["dl"])


def counting_rules(n_banks: int = 4, assoc: int = 8, window: int = 4) -> pd.DataFrame:
    """The paper's three placements on a stream of whole-set probes (every set hashed
    uniformly over the banks, every set in another row than the last, no block-table
    reads), worked by hand from the paper's own numbers (Table I, Fig. 6's rule, 4 banks,
    8 ways, Fig. 7's order), under the two ways of counting activations:

    * per bank (a read of a bank in another row than its last read activates it; Fig. 6's
      4-read window and each bank keeping its open row class these probes alike, as every
      set is in another row than the bank's last): one bank pays b[t]=b[t-1] once per
      probe; a set in one bank ("fixed") pays b[t]=b[t-1] when its bank is the last
      probe's (1 / n_banks), else its activation is hidden (the bank was last read a whole
      probe ago, outside the window); ways interleaved one per bank and read in Fig. 7's
      order ("dynamic") open a row in every bank, each first read of a bank
      b[t]=b[t-n_banks] (Fig. 7 picks the bank read n_banks reads before);
    * per probe (one activation per set probe, the probe's other reads row hits): as per
      bank for one bank and "fixed"; "dynamic" pays one b[t]=b[t-n_banks] per probe.

    Per placement and rule: the shares of Table V's classes, the cycles of one probe and
    its improvement over one bank; then the paper's Table V rows weighted the same way
    (cycles per read x 8; the single-bank row as printed, 98.01 %) and Table VI's
    improvements."""
    if n_banks > window:
        raise ValueError("the hand-worked dynamic order assumes n_banks <= Fig. 6's window")
    q = 1.0 / n_banks  # a probe's set is in the last probe's bank
    labels = case_labels(window)
    col = {f"b{n}": labels[n - 1] for n in range(1, window + 1)}
    col |= {"other_bank": labels[window], "row_hit": labels[window + 1]}
    acts = {  # activations per probe: (class, expected number)
        "single": [("b1", 1.0)],
        "fixed": [("b1", q), ("other_bank", 1.0 - q)],
        ("dynamic", "per bank"): [(f"b{n_banks}", float(n_banks))],
        ("dynamic", "per probe"): [(f"b{n_banks}", 1.0)],
    }
    cyc = {"b1": _fig6(1), f"b{n_banks}": _fig6(n_banks), "other_bank": _fig6(None)}
    rows = {}
    for rule in ("per bank", "per probe"):
        probe = {}
        for pl in PAPER_PLACEMENTS:
            a = acts.get((pl, rule), acts.get(pl))
            n_act = sum(k for _, k in a)
            shares = dict.fromkeys(col, 0.0)
            for cls, k in a:
                shares[cls] += 100.0 * k / assoc
            shares["row_hit"] = 100.0 * (assoc - n_act) / assoc
            probe[pl] = sum(k * cyc[c] for c, k in a) + (assoc - n_act) * _fig6(None)
            rows[(rule, pl)] = {col[k]: v for k, v in shares.items()} | {
                "cycles per probe": probe[pl],
            }
        for pl in PAPER_PLACEMENTS:
            rows[(rule, pl)]["improvement over one bank (%)"] = 100.0 * (
                1.0 - probe[pl] / probe["single"]
            )
    paper = {
        pl: assoc * _cycles_per_read(dict(zip([c for c, _, _ in C.CASES], v, strict=True)))
        for pl, v in C.TABLE_V.items()
    }
    for pl in PAPER_PLACEMENTS:
        rows[("paper's Table V", pl)] = dict(zip(labels, C.TABLE_V[pl], strict=True)) | {
            "cycles per probe": paper[pl],
            "improvement over one bank (%)": 100.0 * (1.0 - paper[pl] / paper["single"]),
            "Table VI improvement (%)": 0.0 if pl == "single" else C.TABLE_VI_IMPROVEMENT[pl],
        }
    out = pd.DataFrame(rows).T
    out.index.names = ["counting", "placement"]
    return out.round(3)


def paper_activations() -> pd.DataFrame:
    """The paper's own Table V rows as activations per probe (one read in 8 activates a
    row: ~87.5 % row hits): the share of the fixed order's activations that are
    b[t]=b[t-1] (a uniform hash over 4 banks gives 1/4) and of the dynamic order's that are
    hidden (no read of the bank in the window; Fig. 7's order on whole-set probes: none),
    and the same-bank share above which a set in one bank loses to Fig. 7's order."""
    fx = dict(zip([c for c, _, _ in C.CASES], C.TABLE_V["fixed"], strict=True))
    dy = dict(zip([c for c, _, _ in C.CASES], C.TABLE_V["dynamic"], strict=True))
    act_fx = 100.0 - fx["row_hit"]
    act_dy = 100.0 - dy["row_hit"]
    rows = {
        "fixed: activations per probe (Table V)": 8 * act_fx / 100.0,
        "fixed: b[t]=b[t-1] share of its activations (%)": 100.0 * fx["b1"] / act_fx,
        "fixed: same-bank share from a uniform hash (%)": 100.0 / 4,
        "fixed loses to an always-b[t]=b[t-4] dynamic above (%)": 100.0 * fixed_break_even(),
        "dynamic: activations per probe (Table V)": 8 * act_dy / 100.0,
        "dynamic: hidden share of its activations (%)": 100.0 * dy["other_bank"] / act_dy,
        "dynamic: hidden share under Fig. 7 on whole-set probes (%)": 0.0,
    }
    return pd.Series(rows, name="value").to_frame().round(3)


def fixed_break_even(n_banks: int = 4) -> float:
    """Per probe, the share of probes whose set is in the last probe's bank above which a
    set in one bank ("fixed") is slower than Fig. 7's order ("dynamic", always
    b[t]=b[t-n_banks]): q * b1 + (1 - q) * DL = b[t-n_banks]."""
    b1, bn, dl = _fig6(1), _fig6(n_banks), _fig6(None)
    return (bn - dl) / (b1 - dl)


def counting_rule_run(ds: xr.Dataset) -> pd.DataFrame:
    """The same question on the run (block-table reads included): per run (row-hit
    accounting and timing model), the default reading's fixed and dynamic placements'
    row hits and mean improvement over one bank, and on how many workloads the dynamic
    order beats the fixed one (Table VI: all); for the strict model, also with tCCD_L
    set to tCCD_S (Table I has one CCD, 4 cycles) from its ablation."""
    ours = ours_of(C.READINGS.default)
    fx, dy = ours["fixed"], ours["dynamic"]
    ws = workloads(ds)
    rows = {}
    for m in ds["model"].values:
        m = str(m)
        shares = case_shares(ds, m)
        imp = improvement(ds, m)
        lat = ds["latency"].sel(model=m)
        rows[m] = {
            "fixed row hits (%)": shares.loc[fx, case_labels(4)[5]],
            "dynamic row hits (%)": shares.loc[dy, case_labels(4)[5]],
            "fixed improvement (%)": float(imp.sel(placement=fx).mean()),
            "dynamic improvement (%)": float(imp.sel(placement=dy).mean()),
            "workloads with dynamic < fixed": int(
                (lat.sel(placement=dy) < lat.sel(placement=fx)).sum()
            ),
            "workloads": len(ws),
        }
    if "strict_ablation" in ds and "tccd_l_as_s" in ds["ablation"].values:
        abl = ds["strict_ablation"]
        have = set(map(str, abl["splacement"].values))
        if {"single", fx, dy} <= have:
            for name, tag in (
                ("strict", "ddr4 (ablation run)"),
                ("tccd_l_as_s", "ddr4, tCCD_L = tCCD_S"),
            ):
                a = abl.sel(ablation=name)
                single = a.sel(splacement="single")
                rows[tag] = {
                    "fixed improvement (%)": float(
                        (100 * (single - a.sel(splacement=fx)) / single).mean()
                    ),
                    "dynamic improvement (%)": float(
                        (100 * (single - a.sel(splacement=dy)) / single).mean()
                    ),
                    "workloads with dynamic < fixed": int(
                        (a.sel(splacement=dy) < a.sel(splacement=fx)).sum()
                    ),
                    "workloads": len(ws),
                }
    paper = {w: C.TABLE_VI[w]["dynamic"] < C.TABLE_VI[w]["fixed"] for w in C.TABLE_VI}
    rows["paper (Table V / VI)"] = {
        "fixed row hits (%)": C.TABLE_V["fixed"][5],
        "dynamic row hits (%)": C.TABLE_V["dynamic"][5],
        "fixed improvement (%)": C.TABLE_VI_IMPROVEMENT["fixed"],
        "dynamic improvement (%)": C.TABLE_VI_IMPROVEMENT["dynamic"],
        "workloads with dynamic < fixed": sum(paper.values()),
        "workloads": len(paper),
    }
    return pd.DataFrame(rows).T.round(2)


#: figure file stem (as the notebook saves it) -> what it shows and the claims it bears on
CAPTIONS: dict[str, Caption] = {
    "table4_occupancy": Caption(
        "The paper's Table IV as bars: the share of primary LPMT sets in use (%) at the end "
        "of each workload per hash function, ours (every hash of the run, including the extra "
        "modern hashes and decimal folding) on the left beside the paper's four columns on "
        "the right (a hash has the same colour in both).",
        ("tab4",),
    ),
    "table5_cases": Caption(
        "The paper's Table V as stacked bars: the share of all DRAM reads in each latency "
        "class of its Fig. 6 (row hit, or an activation after the bank was read 1, 2, 3, 4 "
        "reads before) per placement of the table's sets over the banks, ours above and the "
        "paper's three rows (one bank, fixed order, dynamic order) below, each row's row-hit "
        "share written beside it.",
        ("tab5.cases", "tab5.text"),
    ),
    "table6_latency": Caption(
        "The paper's Table VI as bars: average lookup latency (ns) per workload and placement, "
        "ours (every placement run; the default reading's fixed and dynamic placements "
        "hatched) on the left beside the paper's single-bank, fixed and dynamic rows on the "
        "right; the improvements over one bank follow from these latencies.",
        ("tab6",),
    ),
    "fig08_progress": Caption(
        "The paper's Fig. 8: average lookup latency (ns) in each tenth of the request stream, "
        "one panel per workload, a line per placement; dashed lines are the paper's Table VI "
        "means of the row each placement stands for under the reading (Fig. 8's own values "
        "are not legible in the paper).",
        ("fig8",),
    ),
    "strict_vs_paper": Caption(
        "Beyond the paper: average lookup latency (ns, mean over the workloads) per placement "
        "under the paper's timing rule and its readings beside strict DDR4 timing "
        "(command-by-command scheduling with tRAS, tRC, tRRD, tFAW, bank groups and refresh). "
        "It bears on no scored claim.",
    ),
    "sensitivity": Caption(
        "Beyond the paper: average lookup latency (ns, mean over the workloads, paper timing "
        "rule) per placement against the ways per set, the load factor (files per primary "
        "entry), the number of banks and the hash function. It bears on no scored claim.",
    ),
    "reaccess": Caption(
        "Beyond the paper: average lookup latency (ns, mean over the workloads, paper timing "
        "rule) per placement against the share of requests that re-access an earlier file. "
        "It bears on no scored claim.",
    ),
}
