"""The scorecard: every study's claims registry evaluated on its dataset
(``results/<id>/headline.csv``, ``readings.csv``), combined into ``results/scorecard.csv``
and ``figures/scorecard.png``, and printed by ``skftl scorecard``; and the tables a study's
notebook shows of its own registry (coverage, verdict counts, rows, changed readings)."""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import xarray as xr

from skftl.errors import ConfigError
from skftl.io import write_csv
from skftl.plot import save_figure, use_style
from skftl.studies.claims import BASES, VERDICTS, WORKLOAD_KINDS, by_reading, evaluate
from skftl.studies.provenance import check_shared_settings
from skftl.studies.registry import STUDIES, dataset_file, study_module

VERDICT_COLORS = {
    "held": "#4c9a5b",
    "direction only": "#e0b040",
    "missed": "#c44e52",
    "not modelled": "#9a9a9a",
    "not evaluated": "#d9d9d9",
}


def headline(study: str, ds: xr.Dataset) -> pd.DataFrame:
    """The study's registry evaluated under its default reading: its scorecard rows."""
    module = study_module(study)
    return evaluate(module.CLAIMS, ds, module.READINGS.default)


def readings(study: str, ds: xr.Dataset) -> pd.DataFrame:
    """Every reading-dependent claim of the study under every named reading."""
    module = study_module(study)
    return by_reading(module.CLAIMS, ds, module.READINGS)


def write_scored(study: str, ds: xr.Dataset, out_dir: str | Path) -> list[Path]:
    """Write ``headline.csv`` and ``readings.csv`` of a study into ``out_dir`` (atomically)."""
    out = Path(out_dir)
    return [
        write_csv(headline(study, ds), out / "headline.csv"),
        write_csv(readings(study, ds), out / "readings.csv"),
    ]


def combine(headlines: dict[str, str | Path]) -> pd.DataFrame:
    """One table of every study's scorecard rows (study -> its headline.csv), study first."""
    frames = []
    for study, path in headlines.items():
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"scorecard: {path} (study {study}) not found; run the study first")
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
        missing = {"claim", "verdict", "workload_kind"} - set(df.columns)
        if missing:
            raise ConfigError(
                f"scorecard: {path} has no column(s) {sorted(missing)}; it predates the claims "
                "registry: run the study again"
            )
        frames.append(df.assign(study=study))
    cols = ["study"] + [c for c in frames[0].columns if c != "study"] if frames else ["study"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def _tally(rows: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    table = rows.groupby(index + ["verdict"]).size().unstack("verdict", fill_value=0)
    table = table.reindex(columns=list(VERDICTS), fill_value=0)
    table["total"] = table.sum(axis=1)
    return table


_ORDER = {"study": list(STUDIES), "workload_kind": list(WORKLOAD_KINDS), "basis": list(BASES)}


def predictions(card: pd.DataFrame) -> pd.DataFrame:
    """The rows that are results: claims whose basis is ``prediction``."""
    if "basis" not in card.columns:
        raise ConfigError("scorecard: rows without a basis predate it: run the studies again")
    return card[card["basis"] == "prediction"]


def counts(card: pd.DataFrame, by_kind: bool = False) -> pd.DataFrame:
    """Predictions per verdict (columns, in :data:`VERDICTS` order), per study (and workload
    kind), in the registry's study order and :data:`WORKLOAD_KINDS` order. Claims of any
    other basis are not results: :func:`not_results` counts them apart."""
    table = _tally(predictions(card), ["study", "workload_kind"] if by_kind else ["study"])
    return table.sort_index(key=lambda idx: idx.map(_ORDER[idx.name].index))


def not_results(card: pd.DataFrame, by: Sequence[str] = ("study",)) -> pd.DataFrame:
    """The claims that are not predictions, per ``by`` and basis (input, by construction,
    calibrated, inferred) and verdict: listed apart, never counted as results."""
    rest = card[card["basis"] != "prediction"]
    if rest.empty:
        return pd.DataFrame(columns=[*VERDICTS, "total"])
    table = _tally(rest, [*by, "basis"])
    return table.sort_index(key=lambda idx: idx.map(_ORDER[idx.name].index))


# --- a study's own registry, as its notebook shows it ----------------------------------------
def coverage(study: str) -> pd.DataFrame:
    """The study's registry by place in the paper (figure, table, section): how many claims,
    and their ids, so a reader can check nothing the paper states is missing."""
    rows: dict[str, list[str]] = {}
    for c in study_module(study).CLAIMS:
        rows.setdefault(c.where, []).append(c.id)
    return pd.DataFrame(
        {"claims": [len(v) for v in rows.values()], "ids": [", ".join(v) for v in rows.values()]},
        index=pd.Index(list(rows), name="where"),
    )


def verdict_counts(head: pd.DataFrame) -> pd.DataFrame:
    """Predictions per workload kind and verdict, of one study's scorecard rows (the claims
    of other bases: :func:`other_bases`)."""
    return _tally(predictions(head), ["workload_kind"])


def scale_comparison(heads: Mapping[str, pd.DataFrame | str | Path]) -> pd.DataFrame:
    """One study's predictions per verdict under several runs side by side (e.g. this run and
    the paper-scale one, ``runs/paper/results/<study>/headline.csv``), a row per run; a run
    whose headline file is absent is a row of NaN named so, with how to make it."""
    rows = {}
    for label, head in heads.items():
        if not isinstance(head, pd.DataFrame):
            path = Path(head)
            if not path.is_file():
                rows[f"{label}: not run ({path})"] = pd.Series(dtype=float)
                continue
            head = pd.read_csv(path, keep_default_na=False, na_values=[""])
        preds = predictions(head)
        rows[label] = preds["verdict"].value_counts().reindex(VERDICTS, fill_value=0)
    table = pd.DataFrame(rows).T.reindex(columns=list(VERDICTS))
    table["total"] = table.sum(axis=1, min_count=1)
    return table


def other_bases(head: pd.DataFrame) -> pd.DataFrame:
    """One study's claims that are not predictions, per basis and verdict: listed apart."""
    return not_results(head, by=())


def claim_rows(head: pd.DataFrame, *prefixes: str) -> pd.DataFrame:
    """The scorecard rows whose claim id starts with any of ``prefixes``."""
    cols = ["claim", "paper", "ours", "rel_diff", "verdict", "workload_kind", "note"]
    return head.loc[head["claim"].str.startswith(prefixes), cols].set_index("claim")


def verdicts_by_reading(table: pd.DataFrame) -> pd.DataFrame:
    """How many reading-dependent claims each reading gives each verdict (rows of
    :func:`readings`)."""
    cols = [c for c in table.columns if c.endswith(": verdict")]
    t = table[cols].apply(lambda col: col.value_counts()).fillna(0).astype(int)
    t.columns = [c.removesuffix(": verdict") for c in cols]
    return t


def changed_readings(table: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict is not the same under every reading (rows of
    :func:`readings`)."""
    cols = ["claim"] + [c for c in table.columns if c.endswith(": verdict")]
    return table.loc[table["changes"].astype(bool), cols].set_index("claim")


def _bars(ax: plt.Axes, table: pd.DataFrame, labels: list[str]) -> None:
    left = pd.Series(0, index=table.index)
    y = range(len(labels))
    for verdict in VERDICTS:
        vals = table[verdict]
        ax.barh(y, vals, left=left, color=VERDICT_COLORS[verdict], label=verdict)
        left = left + vals
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.grid(axis="y", visible=False)


def figure(card: pd.DataFrame) -> plt.Figure:
    """Predictions per study and workload kind, held / direction only / missed / not modelled /
    not evaluated, as stacked horizontal bars; below, apart, the claims that are not results
    (inputs echoed, by construction, calibrated, our inferences) per study and basis."""
    use_style()
    table = counts(card, by_kind=True).drop(columns="total")
    rest = not_results(card).drop(columns="total")
    n_top, n_low = len(table), max(len(rest), 1)
    fig, (ax, low) = plt.subplots(
        2,
        1,
        figsize=(7.5, 0.32 * (n_top + n_low) + 2.4),
        height_ratios=[n_top + 0.5, n_low + 0.5],
        sharex=True,
    )
    _bars(ax, table, [f"{s} · {k}" for s, k in table.index])
    ax.set_title("Which of the papers' predictions hold here (per study and workload)")
    ax.legend(loc="lower right", ncols=len(VERDICTS), bbox_to_anchor=(1.0, 1.08), fontsize=7)
    if len(rest):
        _bars(low, rest, [f"{s} · {b.replace('_', ' ')}" for s, b in rest.index])
    low.set_title("Not results, listed apart: inputs, by construction, calibrated, inferred")
    low.set_xlabel("claims of the paper")
    fig.tight_layout()
    return fig


def draw(card: pd.DataFrame, png: str | Path) -> list[Path]:
    """Save :func:`figure` of the scorecard as PNG + PDF (atomically)."""
    fig = figure(card)
    try:
        return save_figure(fig, png)
    finally:
        plt.close(fig)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scorecard", help="which of the papers' claims hold: counts per study, or every claim"
    )
    p.add_argument("--results", default="results", help="results folder (default results/)")
    p.add_argument("studies", nargs="*", help="studies to show (default: every one found)")
    p.add_argument("--claims", action="store_true", help="list every claim with its verdict")
    p.add_argument("--by-kind", action="store_true", help="split counts by workload kind")
    p.add_argument("--csv", help="also write the combined scorecard here")
    p.add_argument("--figure", help="also draw it here (PNG + PDF)")
    p.set_defaults(func=_cmd_scorecard)


def _cmd_scorecard(args: argparse.Namespace) -> int:
    root = Path(args.results)
    wanted: Sequence[str] = args.studies or [s for s in STUDIES if (root / s).is_dir()]
    unknown = [s for s in wanted if s not in STUDIES]
    if unknown:
        raise ConfigError(f"unknown study {unknown}; known: {', '.join(STUDIES)}")
    paths = {s: root / s / "headline.csv" for s in wanted}
    if not paths:
        raise ConfigError(f"no study results under {root}/; run `make` (or `skftl run STUDY`)")
    check_shared_settings({s: dataset_file(root, s) for s in wanted})
    card = combine(paths)
    if args.csv:
        write_csv(card, args.csv)
    if args.figure:
        draw(card, args.figure)
    with pd.option_context("display.width", 200, "display.max_colwidth", 70):
        print("Predictions (the results): claims per verdict")
        print(counts(card, by_kind=args.by_kind).to_string())
        rest = not_results(card)
        if len(rest):
            print("\nNot results, listed apart (inputs, by construction, calibrated, inferred):")
            print(rest.to_string())
        robust = root / "robustness.csv"
        if robust.is_file():
            from skftl.studies.robustness import counts as robustness_counts

            classes = pd.read_csv(robust, keep_default_na=False)
            classes = classes[classes["study"].isin(wanted)]
            print(
                f"\nPredictions over every plausible value of the unstated assumptions ({robust}):"
            )
            print(robustness_counts(classes).to_string())
            card = card.merge(
                classes[["study", "claim", "class"]], how="left", on=["study", "claim"]
            )
        if args.claims:
            cols = ["study", "claim", "basis", "paper", "ours", "verdict", "workload_kind"]
            cols += ["class"] if "class" in card.columns else []
            shown = card.assign(
                paper=card["paper"].astype(object).fillna(""),
                ours=[with_unit(p, o) for p, o in zip(card["paper"], card["ours"], strict=True)],
            )
            print()
            print(shown[cols].to_string(index=False))
        print("\n" + LEGEND)
    return 0


LEGEND = "\n".join(
    textwrap.fill(line, 96, subsequent_indent="  ")
    for line in [
        "Verdicts: held = the direction and the size hold (a quantity within ±25 % of the "
        "paper's, a share within ±5 points, a bound or order as stated); direction only = the "
        "direction holds, the size does not; missed = the direction fails; not modelled = the "
        "model cannot address it (kept, with why); not evaluated = an input is absent from "
        "this run.",
        "Bases: " + "; ".join(f"{b} = {text}" for b, text in BASES.items()) + ". Only "
        "predictions are counted as results.",
        "Robustness classes: robust = held under every plausible value of every unstated "
        "assumption (each varied alone); reachable = held under some; unreachable = under none.",
    ]
)
_LEADING_NUMBER = re.compile(r"^\s*(?:[<>]=?|=|±)?\s*-?[\d.,]+(?:\s*-\s*-?[\d.,]+)?\s*")


def with_unit(paper: object, ours: object) -> str:
    """Our value to 4 significant digits in the unit of the paper's statement (what follows
    its number: ``%``, ``GB``, ``x``, ``(SK-FTL / PW FTL)``); non-numbers as they are."""
    try:
        x = float(ours)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "" if ours is None else str(ours)
    if x != x:  # NaN: not evaluated
        return ""
    unit = _LEADING_NUMBER.sub("", str(paper)) if isinstance(paper, str) else ""
    return f"{x:.4g}" + (f" {unit}" if unit else "")
