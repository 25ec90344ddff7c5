"""Spread: how much each study's headline depends on which requests were taken.

A synthetic stand-in is one draw and a real excerpt one stretch of a longer trace; a verdict
that holds on one window or seed and not on the next rests on that choice. Each selected study
(config ``spread:``) is rerun on every excerpt window of the real traces it loads
(``traces.excerpt`` set to window k of ``windows``, :func:`skftl.run_traces.excerpt`) and on
``seeds`` more seeds of its stand-ins (the config's seed + 1 ..), and its claims rescored.
For every prediction the summary then says (:func:`verdict_spread`):

- ``stable``: the run's verdict in every window and seed;
- ``varies``: not (``held`` says in how many of the variants it is held).

One job per (study, variant) (:func:`run_point`, ``skftl spread point``, the robustness
sweep's point rows), then one table per study (:func:`study_table`: ``results/<study>/
spread.csv``, claim x variant -> verdict, ours) and one for the run (:func:`classify`:
``results/spread.csv``, a row per prediction; :func:`figure`: ``figures/spread.png``).
:func:`study_spread` runs one study's variants in this process (a notebook's)."""

from __future__ import annotations

import argparse
import copy
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import xarray as xr

from skftl.config import validate
from skftl.errors import ConfigError
from skftl.studies.provenance import scope, scope_text
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.robustness import add_steps, counts, study_panels, titled, verdict_rows
from skftl.studies.scorecard import headline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: spread classes of a prediction, best first
CLASSES = ("stable", "varies")
#: the config keys a variant sets: the excerpt window, the run's seed
EXCERPT = "traces.excerpt"
SEED = "seed"
DEFAULT = "(default)"
TABLE_COLUMNS = ["study", "claim", "basis", "varied", "value", "default", "verdict", "ours"]


def points(cfg: Mapping[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Study -> the (varied key, value as JSON) variants the config's ``spread:`` section
    selects: every excerpt window (none when ``windows`` is 1) and every extra seed."""
    section = cfg.get("spread") or {}
    studies = section.get("studies", "all")
    names = [s for s in (STUDIES if studies == "all" else studies) if s in cfg.get("studies", [])]
    windows = int(section.get("windows", 1))
    seed = int(cfg.get("seed", 0))
    variants = [
        (EXCERPT, json.dumps({"windows": windows, "window": k}, sort_keys=True))
        for k in range(windows if windows > 1 else 0)
    ]
    variants += [(SEED, json.dumps(seed + k)) for k in range(1, int(section.get("seeds", 0)) + 1)]
    return {study: list(variants) for study in names}


def verdict_spread(tables: Mapping[str, pd.DataFrame], base: pd.DataFrame) -> pd.DataFrame:
    """Per claim of ``base`` (the run's own scored table): its value and verdict, and over
    the variants in ``tables`` (label -> a scored table of the same claims) the lowest,
    median and highest value, in how many of them it is held, and whether the verdict
    differs between variants or from the run's (``stable``: it does not)."""
    long = pd.concat(
        [t[["claim", "ours", "verdict"]].assign(variant=label) for label, t in tables.items()],
        ignore_index=True,
    )
    long["ours"] = pd.to_numeric(long["ours"], errors="coerce")
    g = long.groupby("claim", sort=False)
    out = pd.DataFrame(
        {
            "lowest": g["ours"].min(),
            "median": g["ours"].median(),
            "highest": g["ours"].max(),
            "held": g["verdict"].agg(lambda v: int((v == "held").sum())),
            "variants": g["verdict"].size(),
        }
    )
    # the paper's value is echoed where the scored table has it
    run = base.set_index("claim")[[c for c in ("paper", "ours", "verdict") if c in base]]
    out = run.join(out, how="inner")
    verdicts = g["verdict"].agg(frozenset)
    out["stable"] = [verdicts[c] == frozenset([run.loc[c, "verdict"]]) for c in out.index]
    return out


def point_config(cfg: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    """``cfg`` with the variant's key (:data:`EXCERPT` or :data:`SEED`) set to ``value``,
    validated against the schema."""
    out = copy.deepcopy(dict(cfg))
    if key == SEED:
        out["seed"] = value
    elif key == EXCERPT:
        out.setdefault("traces", {})["excerpt"] = value
    else:
        raise ConfigError(f"spread: {key!r} is not a varied key ({EXCERPT} or {SEED})")
    validate(out)
    return out


def point_scope_text(cfg: Mapping[str, Any], study: str, key: str, value_json: str) -> str:
    """The scope a variant's job reads (its workflow params: a change reruns it)."""
    return scope_text(point_config(cfg, key, json.loads(value_json)), study)


def _named(rows: pd.DataFrame) -> pd.DataFrame:
    # the robustness point rows, their varied key named for what a spread varies
    return rows.rename(columns={"assumption": "varied"})


def run_point(cfg: Mapping[str, Any], study: str, key: str, value: Any) -> pd.DataFrame:
    """Rerun ``study`` with the variant's key set to ``value`` and score its claims (default
    reading)."""
    ds = study_module(study).run(scope(point_config(cfg, key, value), study), progress=False)
    return _named(verdict_rows(headline(study, ds), key, value, default=False))


def study_table(study: str, ds: xr.Dataset, variants: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Every claim of ``study`` at the default (``ds``) and in each variant."""
    frames = [_named(verdict_rows(headline(study, ds), DEFAULT, None, default=True))]
    table = pd.concat([*frames, *variants], ignore_index=True)
    table.insert(0, "study", study)
    return table[TABLE_COLUMNS]


def study_spread(
    cfg: Mapping[str, Any], study: str, ds: xr.Dataset, progress: bool = False
) -> pd.DataFrame:
    """``study``'s table (:func:`study_table`) with every variant the config's ``spread:``
    section selects for it run here, one after the other (what the workflow's jobs do apart);
    ``ds``: the study's dataset at the default."""
    from tqdm.auto import tqdm

    variants = points(cfg).get(study, [])
    rows = [
        run_point(cfg, study, key, json.loads(value))
        for key, value in tqdm(variants, desc=f"{study} spread", disable=not progress)
    ]
    return study_table(study, ds, rows)


def classify(table: pd.DataFrame) -> pd.DataFrame:
    """A row per prediction of study tables: its default verdict, its spread class, in how
    many variants it is held, the lowest / median / highest value over the variants and the
    variants whose verdict differs from the default's."""
    preds = table[table["basis"] == "prediction"]
    frames = []
    for study, part in preds.groupby("study", sort=False):
        is_default = part["default"].astype(str) == "True"
        base = part[is_default]
        rest = part[~is_default].assign(
            label=lambda t: t["varied"].astype(str) + "=" + t["value"].astype(str)
        )
        if rest.empty:
            continue
        spread = verdict_spread(dict(tuple(rest.groupby("label", sort=False))), base)
        spread = spread[~spread["verdict"].isin(["not modelled", "not evaluated"])]
        flips = rest.merge(base[["claim", "verdict"]], on="claim", suffixes=("", "_default"))
        flips = flips[flips["verdict"] != flips["verdict_default"]]
        flipped = flips.groupby("claim", sort=False)["label"].agg("; ".join)
        frames.append(
            pd.DataFrame(
                {
                    "study": study,
                    "claim": spread.index,
                    "at_default": spread["verdict"].to_numpy(),
                    "class": ["stable" if s else "varies" for s in spread["stable"]],
                    "held": spread["held"].to_numpy(),
                    "variants": spread["variants"].to_numpy(),
                    "share_held": (spread["held"] / spread["variants"]).round(3).to_numpy(),
                    "lowest": spread["lowest"].to_numpy(),
                    "median": spread["median"].to_numpy(),
                    "highest": spread["highest"].to_numpy(),
                    "flipped_by": [flipped.get(c, "") for c in spread.index],
                }
            )
        )
    columns = ["study", "claim", "at_default", "class", "held", "variants", "share_held",
               "lowest", "median", "highest", "flipped_by"]  # fmt: skip
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def class_counts(summary_table: pd.DataFrame) -> pd.DataFrame:
    """Predictions per study and spread class."""
    return counts(summary_table, CLASSES)


def figure(summary_table: pd.DataFrame) -> Figure:
    """Per study, the predictions whose verdict varies over the windows and seeds: in how many
    of the variants each is held (bar), coloured by its verdict at the default; the title of
    each panel counts its stable and varying predictions."""
    studies = list(dict.fromkeys(summary_table["study"])) or ["(none)"]
    varies = summary_table[summary_table["class"] == "varies"]
    sizes = [max(1, (varies["study"] == s).sum()) for s in studies]
    fig, axes = study_panels(sizes, panel_inches=0.9, panel_rows=3)
    colors = {"held": "#55a868", "missed": "#c44e52"}
    for ax, study in zip(axes[:, 0], studies, strict=True):
        part = varies[varies["study"] == study].reset_index(drop=True)
        mine = summary_table[summary_table["study"] == study]
        n_stable = int((mine["class"] == "stable").sum())
        share = part["share_held"].astype(float)
        color = [colors.get(v, "#e0b040") for v in part["at_default"]]
        ax.barh(range(len(part)), share, color=color)
        ax.scatter(share, range(len(part)), color=color, s=10, zorder=3)  # a share of 0 shows
        ax.set_yticks(range(len(part)), list(part["claim"]), fontsize=5)
        ax.set_ylim(max(len(part), 1) - 0.5, -0.5)
        ax.set_xlim(0, 1)
        ax.axvline(0.5, color="grey", lw=0.5, ls=":")
        ax.set_title(f"{study}: {n_stable} predictions stable, {len(part)} vary", fontsize=8)
    axes[-1, 0].set_xlabel("share of the windows and seeds in which the prediction holds")
    return titled(
        fig,
        "Predictions whose verdict depends on the excerpt window or seed\n"
        "(colour: the verdict at the default; green held, red missed, yellow another)",
        fontsize=8,
        title_inches=0.45,
    )


# --- command line ---------------------------------------------------------------------------
def register(subparsers: argparse._SubParsersAction) -> None:
    helps = {
        "spread": "rerun a study on other excerpt windows and seeds, rescore its claims",
        "point": "rerun a study on one excerpt window or seed",
        "table": "a study's spread table from its variants",
        "summary": "every study's predictions: stable or varies",
    }
    pt = add_steps(
        subparsers, "spread", helps, run_point, study_table, classify, figure, class_counts
    )
    pt.add_argument("--key", required=True, choices=[EXCERPT, SEED], help="the varied key")
