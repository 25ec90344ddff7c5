"""The report's figure captions: every figure a study's notebook saves has one in its
``figures.CAPTIONS``, every claim pattern of a caption names claims of the study's registry,
and the template ``skftl report-page captions`` writes renders, with each figure's wildcards,
to valid RST. (The end-to-end report test in tests/test_workflow.py checks that each figure
of a tiny run carries its own caption in the built report.)"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest
from docutils.core import publish_parts

from skftl.cli import main
from skftl.studies.captions import Caption, bears_on, matches
from skftl.studies.claims import BASES, VERDICTS
from skftl.studies.registry import STUDIES, study_module
from skftl.studies.report_pages import GENERIC_CAPTION, caption_rst, captions_template

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

# how the notebooks name the figures they save: save_figure(fig, <dir> / "name"),
# save_figure(fig, f"{figures_dir}/name") and ppb's show(fig, "name")
_SAVED = re.compile(
    r"""(?:\b(?:fig_dir|figs)\s*/\s*f?"([^"]+)")"""
    r"""|(?:f"\{figures_dir\}/([^"]+)")"""
    r"""|(?:\bshow\((?:[^()]|\([^()]*(?:\([^()]*\))?[^()]*\))*?,\s*f?"([^"]+)"\))""",
    re.DOTALL,
)


def _saved_names(study: str) -> set[str]:
    """The names of the figures the study's notebook saves, as written in its code cells: a
    literal name, or an f-string's (``fig{num:02d}_{op}_latency_{setup}``)."""
    nb = json.loads((NOTEBOOKS / STUDIES[study]).read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    names = {next(g for g in m.groups() if g) for m in _SAVED.finditer(code)}
    return {n for n in names if n != "{name}"}  # ppb's show() saves what its callers name


def _regex(name: str) -> re.Pattern:
    """A saved name as a pattern: each f-string field matches any stem part."""
    parts = re.split(r"\{[^}]*\}", name)
    return re.compile("[^/]+".join(map(re.escape, parts)) + r"\Z")


@pytest.mark.parametrize("study", list(STUDIES))
def test_every_figure_the_notebook_saves_has_a_caption(study: str) -> None:
    captions = study_module(study).figures.CAPTIONS
    saved = _saved_names(study)
    assert saved, f"no save_figure call found in {STUDIES[study]}"
    for name in saved:
        if "{" in name:  # a family: some caption of it (the tiny run checks every member)
            assert any(_regex(name).match(k) for k in captions), f"{study}: {name}"
        else:
            assert name in captions, f"{study}: figure {name!r} has no caption"
    # and no caption of a figure the notebook no longer saves
    for key in captions:
        assert any(_regex(n).match(key) for n in saved), f"{study}: stale caption {key!r}"


def test_the_notebook_scan_finds_the_figure_families() -> None:
    assert "fig{num:02d}_{op}_latency_{setup}" in _saved_names("skrm")
    assert "fig{num}_{trace}_{direction}_latency" in _saved_names("ppb")
    assert {"fig18_erased_blocks", "fig_beyond_ppb_sk"} <= _saved_names("ppb")
    assert "table4_occupancy" in _saved_names("lpmt")


@pytest.mark.parametrize("study", list(STUDIES))
def test_caption_claim_patterns_name_claims_of_the_registry(study: str) -> None:
    mod = study_module(study)
    ids = [c.id for c in mod.CLAIMS]
    for key, caption in mod.figures.CAPTIONS.items():
        assert isinstance(caption, Caption), key
        assert caption.shows.strip().endswith("."), key
        for pattern in caption.claims:
            assert any(matches(pattern.removeprefix("!"), c) for c in ids), (key, pattern)
        if caption.claims:
            assert bears_on(caption, ids), f"{study}/{key}: its patterns select no claim"


def test_patterns_are_ids_prefixes_globs_and_exclusions() -> None:
    ids = ["fig9.a", "fig9.a.warm", "fig9.b", "fig90.c", "fig14.nand_read.x"]
    assert bears_on(Caption("x.", ("fig9",)), ids) == ["fig9.a", "fig9.a.warm", "fig9.b"]
    assert bears_on(Caption("x.", ("fig9", "!*.warm")), ids) == ["fig9.a", "fig9.b"]
    assert bears_on(Caption("x.", ("fig9.*.warm",)), ids) == ["fig9.a.warm"]
    assert bears_on(Caption("x.", ("fig14.nand*",)), ids) == ["fig14.nand_read.x"]
    assert bears_on(Caption("x."), ids) == []
    with pytest.raises(TypeError):
        Caption("x.", "fig9")


def _headline(study: str) -> pd.DataFrame:
    """A headline of every claim of the study's registry, bases and verdicts cycled."""
    ids = [c.id for c in study_module(study).CLAIMS]
    return pd.DataFrame(
        {
            "claim": ids,
            "basis": list(itertools.islice(itertools.cycle(["prediction", *BASES]), len(ids))),
            "verdict": list(itertools.islice(itertools.cycle(VERDICTS), len(ids))),
        }
    )


def test_caption_counts_the_verdicts_of_its_claims() -> None:
    head = pd.DataFrame(
        {
            "claim": ["t.a", "t.b", "t.c", "t.d", "u.a"],
            "basis": ["prediction", "prediction", "prediction", "input", "prediction"],
            "verdict": ["held", "missed", "held", "held", "missed"],
        }
    )
    text = caption_rst("s", Caption("What it shows.", ("t",)), head)
    assert text.startswith("What it shows.\n")
    assert "bears on 3 predictions: 2 held, 1 missed; 1 other claim, not results (1 input)" in text
    assert "Predictions not held: ``t.b`` (missed)." in text
    assert "``u.a``" not in text
    none = caption_rst("s", Caption("Beyond the paper."), head)
    assert "none of the study's scored claims" in none


def _render(template: str, study: str | None, name: str) -> str:
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)  # as Snakemake's report
    wildcards = SimpleNamespace(name=name, **({"study": study} if study else {}))
    return env.from_string(template).render(snakemake=SimpleNamespace(wildcards=wildcards))


def _valid_rst(text: str) -> str:
    # halt_level 2: a docutils warning (bad markup) raises instead of rendering a message
    overrides = {"halt_level": 2, "report_level": 2}
    return publish_parts(text, writer="html", settings_overrides=overrides)["body"]


def test_captions_template_renders_each_figure_to_valid_rst(tmp_path: Path) -> None:
    for study in STUDIES:
        (tmp_path / study).mkdir()
        _headline(study).to_csv(tmp_path / study / "headline.csv", index=False)
    out = tmp_path / "report" / "figure_captions.rst"
    assert main(["report-page", "captions", *STUDIES, "--results", str(tmp_path),
                 "--out", str(out)]) == 0  # fmt: skip
    template = out.read_text()
    for study in STUDIES:
        for name, caption in study_module(study).figures.CAPTIONS.items():
            # the traces notebook's rule has no study wildcard
            text = _render(template, None if study == "traces" else study, name)
            assert text.strip().startswith(caption.shows.strip()[:40]), (study, name)
            assert "no caption of its own" not in text
            assert "**Claims:**" in text
            html = _valid_rst(text)
            assert "system-message" not in html, (study, name)
    generic = _render(template, "lpmt", "a_figure_without_a_caption")
    assert generic.strip() == GENERIC_CAPTION.strip()
    _valid_rst(generic)


def test_captions_template_without_captions_is_the_generic_caption(tmp_path: Path) -> None:
    assert captions_template({}) == GENERIC_CAPTION + "\n"
