"""The explore panel (skftl/explore.py) without a browser: its controls, the redraw a knob's
change causes (debounced under an event loop), errors in the status line, the panel off
under the workflow, and the notebooks' panel cells."""

from __future__ import annotations

import asyncio
import re
import types
from pathlib import Path

import nbformat
import pytest

from skftl import explore
from skftl.errors import ConfigError
from skftl.explore import Knob, Memo, Panel, PanelOff, make_control, study_panel
from skftl.notebooks import papermill_flags, parameter_names
from skftl.studies.registry import STUDIES

ROOT = Path(__file__).resolve().parent.parent


def test_memo_keeps_the_most_recently_used() -> None:
    memo = Memo(maxsize=2)
    made: list[str] = []

    def make(k: str):  # noqa: ANN202
        return lambda: made.append(k) or k.upper()

    assert memo.get("a", make("a")) == "A" and memo.get("b", make("b")) == "B"
    assert memo.get("a", make("a")) == "A"  # kept, and now the most recent
    memo.get("c", make("c"))  # evicts b, the least recently used
    assert len(memo) == 2 and made == ["a", "b", "c"]
    memo.get("b", make("b"))
    assert made == ["a", "b", "c", "b"]


def test_controls_of_each_kind() -> None:
    import ipywidgets as w

    c = make_control(Knob("n", "banks", (1, 2, 4, 8), slider=True), 4)
    assert isinstance(c, w.SelectionSlider) and c.value == 4 and not c.continuous_update
    c = make_control(Knob("n", "banks", (1, 2, 4, 8), slider=True), 3)  # off the list: added
    assert [v for _, v in c.options] == [1, 2, 3, 4, 8] and c.value == 3
    c = make_control(Knob("p", "placement", ("single", "interleaved")), "interleaved")
    assert isinstance(c, w.Dropdown) and c.value == "interleaved"
    c = make_control(Knob("r", "ratio", low=1.0, high=8.0, step=0.5), 5.0)
    assert isinstance(c, w.FloatSlider) and (c.min, c.max, c.step, c.value) == (1, 8, 0.5, 5)
    assert isinstance(make_control(Knob("k", "k", low=1, high=8, step=1), 2), w.IntSlider)
    with pytest.raises(ValueError, match="give choices"):
        Knob("x", "x")


def _fake(calls: list[dict]) -> types.ModuleType:
    """A study's explore in miniature: the figure's title is the knobs' values."""
    mod = types.ModuleType("fake_explore")
    mod.knobs = lambda cfg: [Knob("a", "a", (1, 2, 3), slider=True), Knob("b", "b", ("x", "y"))]
    mod.defaults = lambda cfg: {"a": 1, "b": "x"}

    def compute(cfg, a, b):  # noqa: ANN001, ANN202
        calls.append({"a": a, "b": b})
        if b == "y" and a == 3:
            raise ConfigError("a = 3 with b = y: refused")
        return (a, b)

    def figure(result):  # noqa: ANN001, ANN202
        fig = explore.new_figure(2.0, 1.0)
        fig.suptitle(str(result))
        return fig

    mod.compute, mod.figure = compute, figure
    return mod


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    calls: list[dict] = []
    module = _fake(calls)
    monkeypatch.setattr(explore, "explore_module", lambda study: module)
    return calls


def test_a_knob_change_redraws_the_figure(fake: list[dict]) -> None:
    panel = Panel("fake", {})
    first = panel.redraw()
    assert first.startswith(b"\x89PNG") and fake == [{"a": 1, "b": "x"}]
    assert panel.output.outputs[0]["data"]["image/png"]  # what Lab shows as <img>
    panel.controls["a"].value = 2  # no event loop here: redrawn at once
    assert fake[-1] == {"a": 2, "b": "x"} and panel.png != first
    assert len(panel.timings) == 2 and "redraw 2" in panel.status.value


def test_a_refused_combination_shows_in_the_status_and_keeps_the_figure(fake: list[dict]) -> None:
    panel = Panel("fake", {}, {"b": "y"})
    good = panel.redraw()
    panel.controls["a"].value = 3
    assert panel.png == good and isinstance(panel.error, ConfigError)
    assert "ConfigError: a = 3 with b = y: refused" in panel.status.value
    with pytest.raises(ConfigError):
        panel.redraw(raise_errors=True)
    panel.controls["b"].value = "x"
    assert panel.error is None and panel.png != good


def test_knob_changes_in_a_burst_cost_one_redraw(fake: list[dict]) -> None:
    async def burst() -> None:
        panel = Panel("fake", {}, debounce_s=0.05)
        panel.redraw()
        for a in (2, 3, 1, 2):
            panel.controls["a"].value = a
        panel.controls["b"].value = "y"
        await asyncio.sleep(0.3)

    asyncio.run(burst())
    assert fake == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


def test_an_unknown_knob_is_refused(fake: list[dict]) -> None:
    with pytest.raises(ConfigError, match="no knob n_banks; knobs: a, b"):
        Panel("fake", {}, {"n_banks": 4})


def test_the_panel_off_reads_no_config_and_simulates_nothing(tmp_path: Path) -> None:
    off = study_panel("lpmt", tmp_path / "does-not-exist.yaml", enabled=False)
    assert isinstance(off, PanelOff) and "explore = False" in off._repr_markdown_()
    with pytest.raises(ConfigError, match="no explore panel; studies with one: lpmt"):
        explore.explore_module("traces")


@pytest.mark.parametrize("study", explore.EXPLORE_STUDIES)
def test_each_study_notebook_shows_its_panel_after_the_parameters(study: str) -> None:
    """The panel's cell follows the parameters cell (after one markdown cell), is switched
    by the `explore` parameter, and passes only knobs of the study, each with a value its
    control takes."""
    path = ROOT / "notebooks" / STUDIES[study]
    nb = nbformat.read(path, as_version=4)
    i = next(k for k, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    assert nb.cells[i + 1].cell_type == "markdown"
    cell = nb.cells[i + 2]
    assert cell.cell_type == "code" and f'study_panel("{study}"' in cell.source
    assert "enabled=explore" in cell.source
    params: dict = {}
    exec(nb.cells[i].source, params)  # the parameters cell is plain assignments
    assert params["explore"] is True
    seen: dict = {}

    def capture(name, config=None, enabled=True, **values):  # noqa: ANN001, ANN202
        seen.update(name=name, config=config, enabled=enabled, values=values)

    exec(cell.source.replace("from skftl.explore import study_panel", ""),
         {**params, "study_panel": capture})  # fmt: skip
    assert seen["name"] == study and seen["config"] == params["config_path"]
    from skftl.config import load_config

    cfg = load_config()
    knobs = {k.name: k for k in explore.explore_module(study).knobs(cfg)}
    assert set(seen["values"]) <= set(knobs)
    for name, value in seen["values"].items():
        make_control(knobs[name], value)  # a value its control takes
    assert "explore" in parameter_names(path)
    assert papermill_flags(path) == "-p explore False"


def test_the_workflow_switches_the_panels_off() -> None:
    """The study notebooks' papermill command carries the notebook's flags; a notebook
    without a panel gets none (papermill would warn of an unknown parameter)."""
    rules = (ROOT / "workflow" / "rules" / "studies.smk").read_text()
    assert "{params.notebook[flags]}" in rules
    assert '"flags": papermill_flags(path)' in (ROOT / "workflow" / "Snakefile").read_text()
    for study, name in STUDIES.items():
        if study not in explore.EXPLORE_STUDIES:
            assert papermill_flags(ROOT / "notebooks" / name) == ""


def test_a_figure_without_widgets() -> None:
    """explore_figure: one configuration drawn from a script, the defaults with values set."""
    from matplotlib.figure import Figure

    from skftl.config import REPO_ROOT, load_config

    cfg = load_config(REPO_ROOT / "config" / "tiny.yaml")
    fig = explore.explore_figure("bnvm", cfg, n_chips=8)
    assert isinstance(fig, Figure) and "8 chips" in fig._suptitle.get_text()


@pytest.mark.parametrize("study", explore.EXPLORE_STUDIES)
def test_knobs_that_are_config_keys_are_checked_as_the_study_checks_them(study: str) -> None:
    """A notebook parameter of the wrong type stops the panel's cell with the schema's
    message (the study's own cell would stop with it too)."""
    from skftl.config import load_config

    cfg = load_config()
    keys = explore.explore_module(study).KEYS
    explore.check_values(study, cfg, explore.explore_module(study).defaults(cfg))
    name, key = next(iter(keys.items()))
    shown = key.removesuffix("[]") + ("[0]" if key.endswith("[]") else "")
    with pytest.raises(ConfigError, match=re.escape(f"{shown}: 'four' is not of type")):
        explore.check_values(study, cfg, {name: "four"})
