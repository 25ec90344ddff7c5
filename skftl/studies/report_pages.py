"""Pages of Snakemake's report (``make report``): the landing page that opens on the verdicts
(the scorecard's predictions per study, the robustness classes once ``make robustness`` ran,
the scorecard figure), each study's claims as an HTML table the report shows in place
(the report only offers a CSV for download), and the caption of every study figure (what it
shows, from the study's ``figures.CAPTIONS``, and the verdicts of the claims it bears on, from
the run's ``headline.csv``). Built by ``skftl report-page``; the workflow's ``report_landing``,
``claims_page`` and ``figure_captions`` rules run it."""

from __future__ import annotations

import argparse
import base64
import html
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from skftl.io import write_text
from skftl.studies.captions import Caption, bears_on, patterns
from skftl.studies.claims import BASES, VERDICTS
from skftl.studies.registry import study_module
from skftl.studies.scorecard import LEGEND, VERDICT_COLORS, counts, not_results, with_unit

#: the landing page's text before the tables (the report's own title is the workflow's)
INTRO = """\
skftl reproduces five storage papers (SK-FTL, LPMT, MTPM/KMTPM, PPB, BNVM-SSD) as simulation
software and scores every claim of each paper's evaluation. Only *predictions* count as
results; the claims that are not (inputs echoed, by construction, calibrated, our inferences)
are listed apart. Each study's category in the menu holds its claims, scored (one table per
study), and its figures, each captioned with what it shows and the verdicts of the claims it
bears on."""

CLAIM_COLUMNS = ("claim", "where", "statement", "basis", "paper", "ours", "rule", "verdict",
                 "workload_kind", "reading", "note")  # fmt: skip


def _rst_table(df: pd.DataFrame, index_name: str) -> str:
    """``df`` as an RST list-table (the report renders RST with docutils)."""
    head = [index_name, *map(str, df.columns)]
    rows = [[" / ".join(map(str, i)) if isinstance(i, tuple) else str(i), *map(str, r)]
            for i, r in zip(df.index, df.to_numpy(), strict=True)]  # fmt: skip
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [head, *rows]:
        lines.append("   * - " + (row[0] or " "))
        lines += [f"     - {c or ' '}" for c in row[1:]]
    return "\n".join(lines) + "\n"


def _summary_section(
    csv: str | Path | None,
    sweep: str,
    title: str,
    count: Callable[[pd.DataFrame], pd.DataFrame],
    explained: str,
) -> list[str]:
    """The landing page's section of a sweep's summary (its classes per study), or a line
    saying that ``make <sweep>`` makes it."""
    if csv is None or not Path(csv).is_file():
        return [f"The {sweep} classes appear here after ``make {sweep}``.\n"]
    table = _rst_table(count(pd.read_csv(csv, keep_default_na=False)), "study")
    return [title, "-" * len(title), "", explained + "\n", table]


def landing_rst(scorecard_csv: str | Path, figure_png: str | Path,
                robustness_csv: str | Path | None = None,
                spread_csv: str | Path | None = None) -> str:  # fmt: skip
    """The report's landing page (RST): predictions per verdict and study, the claims that
    are not results, the robustness and spread classes when given, the scorecard figure
    inline, the legend."""
    card = pd.read_csv(scorecard_csv, keep_default_na=False)
    parts = [INTRO, "", "Predictions per verdict", "-----------------------", ""]
    parts.append(_rst_table(counts(card), "study"))
    rest = not_results(card)
    if len(rest):
        parts += ["Not results, listed apart", "--------------------------", ""]
        parts.append(_rst_table(rest, "study / basis"))
    from skftl.studies.robustness import counts as robustness_counts
    from skftl.studies.spread import class_counts as spread_counts

    parts += _summary_section(
        robustness_csv, "robustness", "Robustness of the predictions", robustness_counts,
        "Each unstated assumption varied alone over its plausible values; a prediction is "
        "*robust* when it holds at every value, *reachable* at some, *unreachable* at none.",
    )  # fmt: skip
    parts += _summary_section(
        spread_csv, "spread", "Spread over windows and seeds", spread_counts,
        "Each study rerun on every excerpt window of the real traces and on more seeds of "
        "the synthetic stand-ins; a prediction is *stable* when its verdict is the same in "
        "every one, else it *varies*.",
    )  # fmt: skip
    # docutils refuses lines over 10,000 characters and browsers skip the whitespace of a
    # base64 data URI, so the image's data goes in lines of 76
    data = base64.encodebytes(Path(figure_png).read_bytes()).decode().split()
    parts += [".. raw:: html", "", '   <img style="width:100%" src="data:image/png;base64,']
    parts += [f"   {line}" for line in data] + ['   ">', ""]
    parts += ["Legend", "------", "", *[ln.strip() + "\n" for ln in LEGEND.split("\n\n")]]
    return "\n".join(parts)


def claims_html(study: str, headline_csv: str | Path) -> str:
    """One study's scored claims as a self-contained HTML page: predictions first, each
    verdict coloured, ours in the paper's unit."""
    head = pd.read_csv(headline_csv, keep_default_na=False)
    head["ours"] = [with_unit(p, o) for p, o in zip(head["paper"], head["ours"], strict=True)]
    head = head.assign(_pred=head["basis"] != "prediction").sort_values("_pred", kind="stable")
    cols = [c for c in CLAIM_COLUMNS if c in head.columns]
    rows = []
    for _, r in head.iterrows():
        cells = []
        for c in cols:
            style = ""
            if c == "verdict":
                style = f' style="background:{VERDICT_COLORS.get(r[c], "#fff")}"'
            cells.append(f"<td{style}>{html.escape(str(r[c]))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    n_pred = int((head["basis"] == "prediction").sum())
    bases = "; ".join(f"<b>{html.escape(b)}</b>: {html.escape(t)}" for b, t in BASES.items())
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{study}: claims</title>
<style>
body {{ font-family: sans-serif; font-size: 13px; margin: 1em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; text-align: left; }}
th {{ background: #eee; position: sticky; top: 0; }}
</style></head><body>
<h2>{html.escape(study)}: every claim, scored</h2>
<p>{len(head)} claims, {n_pred} of them predictions (listed first; only they count as results).
The same rows as <code>results/{html.escape(study)}/headline.csv</code>; the study's notebook
explains each miss beside its evidence. Bases: {bases}.</p>
<table><thead><tr>{"".join(f"<th>{html.escape(c)}</th>" for c in cols)}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table></body></html>
"""


#: the caption of a figure without its own (the template's last branch)
GENERIC_CAPTION = """\
A figure of this study (the category names it), drawn by the study's ``figures`` module
(``skftl.studies.<study>.figures``) from its dataset; the study's notebook narrates it. It has
no caption of its own (``CAPTIONS`` in that module)."""

#: at most this many claim ids a caption names as not held
MAX_NAMED = 8


def _basis_label(basis: str) -> str:
    return basis.replace("_", " ")


def caption_rst(study: str, caption: Caption, headline: pd.DataFrame) -> str:
    """One figure's caption (RST): what it shows, then the verdicts of the claims it bears
    on in the run's ``headline`` (predictions per verdict, the claims that are not results
    per basis, the predictions not held by id)."""
    ids = bears_on(caption, headline["claim"])
    keep, drop = patterns(caption)
    pats = ", ".join(f"``{p}``" for p in keep)
    pats += f" except {', '.join(f'``{p}``' for p in drop)}" if drop else ""
    parts = [caption.shows.strip(), ""]
    if not caption.claims:
        parts.append("**Claims:** none of the study's scored claims rests on this figure.")
        return "\n".join(parts) + "\n"
    rows = headline[headline["claim"].isin(ids)]
    pred = rows[rows["basis"] == "prediction"]
    rest = rows[rows["basis"] != "prediction"]
    bits = []
    if len(pred):
        per = pred["verdict"].value_counts()
        counts = ", ".join(f"{int(per[v])} {v}" for v in VERDICTS if v in per)
        noun = "prediction" if len(pred) == 1 else "predictions"
        bits.append(f"{len(pred)} {noun}: {counts}")
    if len(rest):
        per = rest["basis"].value_counts()
        counts = ", ".join(f"{int(n)} {_basis_label(b)}" for b, n in per.items())
        noun = "other claim" if len(rest) == 1 else "other claims"
        bits.append(f"{len(rest)} {noun}, not results ({counts})")
    if not bits:
        bits.append("no claim of this run's headline (none matched)")
    parts.append(f"**Claims:** bears on {'; '.join(bits)} ({pats}).")
    missed = pred[pred["verdict"] != "held"]
    if len(missed):
        named = ", ".join(f"``{c}`` ({v})" for c, v in
                          zip(missed["claim"][:MAX_NAMED], missed["verdict"][:MAX_NAMED],
                              strict=True))  # fmt: skip
        more = f" and {len(missed) - MAX_NAMED} more" if len(missed) > MAX_NAMED else ""
        parts += ["", f"Predictions not held: {named}{more}."]
    parts += ["", f"Every claim's row is in the study's claims table (``{study}`` / claims)."]
    return "\n".join(parts) + "\n"


def captions_template(headlines: dict[str, str | Path]) -> str:
    """The caption of every study figure as one Jinja template for Snakemake's report: it
    renders the caption of the figure named by ``snakemake.wildcards.study`` and
    ``snakemake.wildcards.name`` (the report's wildcards of a figure of rule
    ``study_notebook``; ``traces_notebook``'s has no ``study``), the generic caption for a
    figure without its own. ``headlines``: study -> its ``headline.csv``."""
    # the traces study's notebook rule has no study wildcard (its figures are the traces
    # study's)
    lines = [
        '{%- set study = snakemake.wildcards.study | default("traces") -%}',
        '{%- set key = study ~ "/" ~ snakemake.wildcards.name -%}',
    ]
    first = True
    for study, path in headlines.items():
        captions = getattr(study_module(study).figures, "CAPTIONS", {})
        head = pd.read_csv(path, keep_default_na=False)
        for name, caption in captions.items():
            key = f"{study}/{name}"
            if '"' in key:
                raise ValueError(f"a figure name with a quote: {key!r}")
            lines.append(f'{{%- {"if" if first else "elif"} key == "{key}" %}}{{% raw %}}')
            lines.append(caption_rst(study, caption, head) + "{% endraw %}")
            first = False
    if first:  # no captions at all
        return GENERIC_CAPTION + "\n"
    lines += ["{%- else %}", GENERIC_CAPTION, "{% endif %}", ""]
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("report-page", help="a page of the workflow's report")
    sub = p.add_subparsers(dest="page", required=True)
    land = sub.add_parser("landing", help="the landing page (RST): the verdicts")
    land.add_argument("--scorecard", required=True, help="results/scorecard.csv")
    land.add_argument("--figure", required=True, help="figures/scorecard.png")
    land.add_argument("--robustness", help="results/robustness.csv, when it exists")
    land.add_argument("--spread", help="results/spread.csv, when it exists")
    land.add_argument("--out", required=True)
    claims = sub.add_parser("claims", help="a study's claims as an HTML table")
    claims.add_argument("study")
    claims.add_argument("headline", help="results/<study>/headline.csv")
    claims.add_argument("--out", required=True)
    caps = sub.add_parser("captions", help="every study figure's caption (a Jinja template)")
    caps.add_argument("studies", nargs="+", help="study ids")
    caps.add_argument("--results", required=True, help="the results folder (results/)")
    caps.add_argument("--out", required=True)
    p.set_defaults(func=_cmd_page)


def _cmd_page(args: argparse.Namespace) -> int:
    if args.page == "landing":
        write_text(landing_rst(args.scorecard, args.figure, args.robustness, args.spread), args.out)
    elif args.page == "captions":
        heads = {s: Path(args.results) / s / "headline.csv" for s in args.studies}
        write_text(captions_template(heads), args.out)
    else:
        write_text(claims_html(args.study, args.headline), args.out)
    return 0
