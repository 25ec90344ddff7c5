"""Robustness: which verdicts the unstated assumptions decide.

Each study's assumptions (:mod:`skftl.studies.assumptions`) are varied one at a time over
their plausible values, the study rerun under each (its named readings are rescored from the
default dataset) and its claims rescored. For every prediction the table then says:

- ``robust``: held at the default and at every plausible value of every assumption;
- ``reachable``: held at the default or at some value, not at all (``held_at`` says where);
- ``unreachable``: held at none.

One job per (study, assumption, value) (:func:`run_point`, ``skftl robustness point``), then one
table per study (:func:`study_table`: ``results/<study>/robustness.csv``, claim x assumption x
value -> verdict) and one for the run (:func:`summary`: ``results/robustness.csv``, a row per
prediction, and ``figures/robustness.png``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from skftl.config import load_config, validate
from skftl.errors import ConfigError
from skftl.io import write_csv
from skftl.studies.assumptions import READING, Assumption, with_value
from skftl.studies.claims import evaluate
from skftl.studies.provenance import scope, scope_text
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.scorecard import headline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: robustness classes of a prediction, best first
CLASSES = ("robust", "reachable", "unreachable")
POINT_COLUMNS = ["claim", "basis", "assumption", "value", "default", "verdict", "ours"]


def assumptions(study: str) -> tuple[Assumption, ...]:
    """The study's declared assumptions (its ``ASSUMPTIONS``)."""
    found = getattr(study_module(study), "ASSUMPTIONS", None)
    if found is None:
        raise ConfigError(f"study {study!r} declares no ASSUMPTIONS")
    return tuple(found)


def points(cfg: Mapping[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Study -> the (assumption key, value as JSON) points the config's ``robustness:`` section
    selects: every alternative of every selected assumption except readings (rescored from
    the default dataset, no rerun)."""
    sec = cfg.get("robustness") or {}
    studies = sec.get("studies", "all")
    wanted = sec.get("assumptions", "all")
    names = [s for s in (STUDIES if studies == "all" else studies) if s in cfg.get("studies", [])]
    out: dict[str, list[tuple[str, str]]] = {}
    for study in names:
        keys = [a for a in assumptions(study) if wanted == "all" or f"{study}.{a.key}" in wanted]
        out[study] = [
            (a.key, json.dumps(v, sort_keys=True))
            for a in keys
            if a.key != READING
            for v in a.alternatives
        ]
    return out


def point_config(cfg: Mapping[str, Any], study: str, key: str, value: Any) -> dict[str, Any]:
    """``cfg`` with ``<study>.<key>`` set to ``value`` (and the assumption's ``trim``),
    validated against the schema."""
    trim = next((a.trim for a in assumptions(study) if a.key == key), {})
    try:
        out = with_value(cfg, study, key, value)
        for k, v in trim.items():
            out = with_value(out, study, k, v)
    except KeyError as exc:
        raise ConfigError(f"assumption {study}.{key}: {exc.args[0]}") from None
    validate(out)
    return out


def verdict_rows(head: pd.DataFrame, assumption: str, value: Any, default: bool) -> pd.DataFrame:
    """A scored table's verdicts as the rows of one point (``value`` as JSON)."""
    out = head[["claim", "basis", "verdict", "ours"]].copy()
    out.insert(2, "assumption", assumption)
    out.insert(3, "value", json.dumps(value, sort_keys=True))
    out.insert(4, "default", default)
    return out[POINT_COLUMNS]


def point_scope_text(cfg: Mapping[str, Any], study: str, key: str, value_json: str) -> str:
    """The scope a point's job reads (its workflow params: a change reruns it)."""
    return scope_text(point_config(cfg, study, key, json.loads(value_json)), study)


def run_point(cfg: Mapping[str, Any], study: str, key: str, value: Any) -> pd.DataFrame:
    """Rerun ``study`` with ``<study>.<key> = value`` and score its claims (default reading)."""
    ds = study_module(study).run(scope(point_config(cfg, study, key, value), study), progress=False)
    return verdict_rows(headline(study, ds), key, value, default=False)


def study_table(study: str, ds: xr.Dataset, points: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Every claim of ``study`` at the default (``ds``), under each reading, and at each point."""
    claims = study_module(study).CLAIMS
    frames = [verdict_rows(headline(study, ds), "(default)", None, default=True)]
    for a in assumptions(study):
        if a.key != READING:
            continue
        for reading in a.alternatives:
            frames.append(verdict_rows(evaluate(claims, ds, reading), READING, reading, False))
    frames += list(points)
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "study", study)
    return table


def classify(table: pd.DataFrame) -> pd.DataFrame:
    """A row per prediction of a study table: its default verdict, its robustness class, the
    points where it is held (if not at the default) and the points that flip it."""
    rows = []
    preds = table[table["basis"] == "prediction"]
    for (study, claim), g in preds.groupby(["study", "claim"], sort=False):
        default = g[g["default"]]
        at_default = str(default["verdict"].iloc[0]) if len(default) else "n/a"
        if at_default in ("not modelled", "not evaluated"):
            continue
        # a point that trimmed away what a claim rests on says nothing about it
        rest = g[~g["default"] & (g["verdict"] != "not evaluated")]
        points = [f"{a}={v}" for a, v in zip(rest["assumption"], rest["value"], strict=True)]
        held = [p for p, v in zip(points, rest["verdict"], strict=True) if v == "held"]
        flips = [p for p, v in zip(points, rest["verdict"], strict=True) if v != at_default]
        if at_default == "held" and len(held) == len(points):
            cls = "robust"
        elif at_default == "held" or held:
            cls = "reachable"
        else:
            cls = "unreachable"
        rows.append(
            {
                "study": study,
                "claim": claim,
                "at_default": at_default,
                "class": cls,
                "held_at": "" if at_default == "held" else "; ".join(held),
                "flipped_by": "; ".join(flips),
                "points": len(rest),
            }
        )
    cols = ["study", "claim", "at_default", "class", "held_at", "flipped_by", "points"]
    return pd.DataFrame(rows, columns=cols)


def counts(summary_table: pd.DataFrame, classes: Sequence[str] = CLASSES) -> pd.DataFrame:
    """Predictions per study and class (robustness classes unless ``classes`` says others)."""
    t = summary_table.groupby(["study", "class"]).size().unstack("class", fill_value=0)
    return t.reindex(columns=list(classes), fill_value=0)


def figure(summary_table: pd.DataFrame) -> Figure:
    """Per study, claim by claim (the predictions that are not robust), which of the study's
    assumptions flip its verdict at some plausible value: a dot per (claim, assumption),
    yellow where the claim is reachable, red where it is held nowhere (a red row without dots:
    no plausible value moves it)."""
    rows = summary_table[summary_table["class"] != "robust"]
    studies = list(dict.fromkeys(rows["study"])) or ["(none)"]
    sizes = [max(1, (rows["study"] == s).sum()) for s in studies]
    fig, axes = study_panels(sizes, panel_inches=1.1, panel_rows=4)
    colors = {"reachable": "#e0b040", "unreachable": "#c44e52"}
    for ax, study in zip(axes[:, 0], studies, strict=True):
        part = rows[rows["study"] == study].reset_index(drop=True)
        flips = [{p.split("=", 1)[0] for p in f.split("; ") if p} for f in part["flipped_by"]]
        keys = sorted(set().union(*flips)) if flips else []
        for i, (flipped, cls) in enumerate(zip(flips, part["class"], strict=True)):
            xs = [keys.index(k) for k in flipped]
            ax.scatter(xs, [i] * len(xs), color=colors[cls], s=14, zorder=3)
        ax.set_yticks(range(len(part)), list(part["claim"]), fontsize=5)
        for label, cls in zip(ax.get_yticklabels(), part["class"], strict=True):
            label.set_color(colors[cls] if cls == "unreachable" else "black")
        ax.set_xticks(range(len(keys)), keys, rotation=30, ha="right", fontsize=6)
        ax.set_xlim(-0.5, max(len(keys), 1) - 0.5)
        ax.set_ylim(len(part) - 0.5, -0.5)
        ax.set_title(
            f"{study}: predictions not robust, and the assumptions that flip them", fontsize=8
        )
    return titled(
        fig,
        "Which assumption flips which prediction (yellow: reachable, red: unreachable)",
        fontsize=9,
        title_inches=0.35,
    )


def study_panels(
    sizes: Sequence[int], panel_inches: float, panel_rows: int
) -> tuple[Figure, np.ndarray]:
    """A sweep figure's panels, one per study stacked (axes ``[:, 0]``): each as tall as its
    ``sizes`` rows (claims) plus ``panel_rows`` for its title and axis, the figure 0.16 inch
    per row plus ``panel_inches`` per panel and an inch for the title."""
    import matplotlib.pyplot as plt

    from skftl.plot import use_style

    use_style()
    return plt.subplots(
        len(sizes),
        1,
        figsize=(7.5, 0.16 * sum(sizes) + panel_inches * len(sizes) + 1.0),
        height_ratios=[n + panel_rows for n in sizes],
        squeeze=False,
    )


def titled(fig: Figure, title: str, fontsize: float, title_inches: float) -> Figure:
    """``fig`` with ``title`` above its panels, laid out with ``title_inches`` kept for it."""
    fig.suptitle(title, fontsize=fontsize)
    fig.tight_layout(rect=(0, 0, 1, 1 - title_inches / fig.get_figheight()))
    return fig


# --- command line ---------------------------------------------------------------------------
def add_steps(
    subparsers: argparse._SubParsersAction,
    command: str,
    helps: Mapping[str, str],
    run: Callable[[Mapping[str, Any], str, str, Any], pd.DataFrame],
    table: Callable[[str, xr.Dataset, Sequence[pd.DataFrame]], pd.DataFrame],
    summarise: Callable[[pd.DataFrame], pd.DataFrame],
    draw: Callable[[pd.DataFrame], Figure],
    count: Callable[[pd.DataFrame], pd.DataFrame],
) -> argparse.ArgumentParser:
    """A sweep's command ``command`` with its steps ``point`` (``run(cfg, study, key,
    value)``, written as CSV), ``table`` (``table(study, default dataset, points)``) and
    ``summary`` (``summarise(the study tables)``, written as CSV, ``draw`` its figure with
    ``--figure``, ``count`` printed) and their arguments (``helps``: the command's and each
    step's help). Returns the point's parser: each sweep adds its ``--key``."""
    p = subparsers.add_parser(command, help=helps[command])
    sub = p.add_subparsers(dest=f"{command}_command", metavar="STEP", required=True)
    pt = sub.add_parser("point", help=helps["point"])
    pt.add_argument("study", choices=sorted(STUDIES))
    pt.add_argument("--value", required=True, help="its value, as JSON")
    pt.add_argument("--out", required=True, help="CSV of the claims' verdicts at this point")
    tb = sub.add_parser("table", help=helps["table"])
    tb.add_argument("study", choices=sorted(STUDIES))
    tb.add_argument("--dataset", required=True, help="the study's default dataset (.nc)")
    tb.add_argument("--out", required=True)
    tb.add_argument("--points", nargs="*", default=[], help="point CSVs")
    sm = sub.add_parser("summary", help=helps["summary"])
    sm.add_argument("tables", nargs="+", help=f"study tables (results/<study>/{command}.csv)")
    sm.add_argument("--out", required=True)
    sm.add_argument("--figure", help="also draw it here (PNG + PDF)")

    def point(args: argparse.Namespace) -> int:
        cfg = load_config(args.config)
        write_csv(run(cfg, args.study, args.key, json_value(args.value)), args.out)
        return 0

    def study(args: argparse.Namespace) -> int:
        ds = xr.open_dataset(args.dataset, engine="h5netcdf")
        write_csv(table(args.study, ds, [read_table(p) for p in args.points]), args.out)
        return 0

    def summary(args: argparse.Namespace) -> int:
        tables = pd.concat([read_table(p) for p in args.tables], ignore_index=True)
        tables["default"] = tables["default"].astype(str) == "True"
        summary_table = summarise(tables)
        write_csv(summary_table, args.out)
        if args.figure:
            _save_figure(draw, summary_table, args.figure)
        print(count(summary_table).to_string())
        return 0

    pt.set_defaults(func=point)
    tb.set_defaults(func=study)
    sm.set_defaults(func=summary)
    return pt


def read_table(path: str | Path) -> pd.DataFrame:
    """A point's or a study table's CSV, as written (``null`` and ``n/a`` kept as text)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def json_value(text: str) -> Any:
    """A point's ``--value``, parsed (a ConfigError naming it where it is not JSON)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--value {text!r}: not JSON ({exc.msg})") from None


def register(subparsers: argparse._SubParsersAction) -> None:
    helps = {
        "robustness": "vary a study's unstated assumptions and rescore its claims",
        "point": "rerun a study with one assumption changed",
        "table": "a study's robustness table from its points",
        "summary": "every study's predictions by robustness class",
    }
    pt = add_steps(
        subparsers, "robustness", helps, run_point, study_table, classify, figure, counts
    )
    pt.add_argument("--key", required=True, help="the assumption's key below the study section")


def _save_figure(
    draw: Callable[[pd.DataFrame], Figure], summary_table: pd.DataFrame, path: str | Path
) -> None:
    """A sweep summary's figure ``draw(summary_table)`` saved at ``path`` (PNG + PDF)."""
    import matplotlib.pyplot as plt

    from skftl.plot import save_figure

    fig = draw(summary_table)
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
