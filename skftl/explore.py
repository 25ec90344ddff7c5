"""Explore one configuration of a study in seconds: an ipywidgets panel of the knobs a
researcher turns most, redrawing the study's explore figure as a knob moves.

A study that offers one has ``skftl/studies/<id>/explore.py`` with

* ``knobs(cfg) -> list[Knob]``: the controls (choices may depend on the config);
* ``defaults(cfg) -> dict``: their values under the config;
* ``compute(cfg, **values) -> result``: ONE configuration (one trace or workload, one
  placement or scheme, one reading) from a small input kept in memory, so that a knob's
  change costs a simulation of about a second or less once the kernels are compiled;
* ``figure(result) -> matplotlib.figure.Figure``: a pure function of the result;
* ``KEYS``: knob name -> the config key it sets (dotted; ``[]`` at the end: an item of a
  list), for the knobs that are one: their starting values (a notebook's parameters) are
  checked against the config's schema as the study checks them, so a bad one stops the
  panel's cell with the same message.

:func:`study_panel` builds the panel a notebook shows after its parameters cell. Figures are
``matplotlib.figure.Figure`` objects, never pyplot's: a figure made by pyplot inside a
widget callback would stay registered and be shown again under the next cell that runs.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import io
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure

from skftl.errors import ConfigError
from skftl.plot import STYLE

#: studies with an explore entry point (``skftl.studies.<id>.explore``)
EXPLORE_STUDIES = ("lpmt", "mtpm", "ppb", "bnvm")
#: seconds a knob must rest before the panel recomputes: a burst of changes (keys held on a
#: slider, several drop-downs in a row) costs one simulation, not one per step
DEBOUNCE_S = 0.15
#: CSS class of every panel's outermost widget (what the browser test looks for)
PANEL_CLASS = "skftl-explore"
PNG_DPI = 90


@dataclass(frozen=True)
class Knob:
    """One control of a panel: a drop-down over ``choices``, or a slider over numeric
    ``choices`` (``slider=True``) or over ``low``..``high`` in steps of ``step``."""

    name: str
    label: str
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    step: float | None = None
    slider: bool = False
    help: str = ""

    def __post_init__(self) -> None:
        if not self.choices and None in (self.low, self.high, self.step):
            raise ValueError(f"knob {self.name}: give choices or low, high and step")


class Memo:
    """A small least-recently-used store of inputs a study's explore reuses across knob
    changes (traces, preconditioned drive states): bounded, since each may hold megabytes.
    A key is what the input depends on, config sections included: it is compared as its
    canonical JSON (dicts by sorted keys; anything else JSON cannot hold by ``str``)."""

    def __init__(self, maxsize: int = 8) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[str, Any] = OrderedDict()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        key = json.dumps(key, sort_keys=True, default=str)
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


def explore_module(study: str) -> ModuleType:
    """``skftl.studies.<study>.explore``; a ConfigError names the studies that have one."""
    if study not in EXPLORE_STUDIES:
        raise ConfigError(
            f"study {study!r} has no explore panel; studies with one: {', '.join(EXPLORE_STUDIES)}"
        )
    return importlib.import_module(f"skftl.studies.{study}.explore")


def new_figure(width: float = 10.0, height: float = 3.6) -> Figure:
    """A figure in the project's style, outside pyplot (see the module docstring)."""
    with mpl.rc_context(STYLE):
        return Figure(figsize=(width, height), layout="constrained")


def styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """Draw under the project's style (rcParams are read as artists are made)."""

    def wrapper(*args: Any, **kwargs: Any) -> Figure:
        with mpl.rc_context(STYLE):
            return draw(*args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = draw.__name__, draw.__doc__
    wrapper.__wrapped__ = draw  # type: ignore[attr-defined]
    return wrapper


def png_bytes(fig: Figure, dpi: int = PNG_DPI) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def check_values(study: str, cfg: Mapping[str, Any], values: Mapping[str, Any]) -> None:
    """ConfigError, as the study would raise it, for a value of a knob that is a config key
    (the study's ``KEYS``) that the config's schema refuses."""
    from skftl.config import validate_sections

    keys: Mapping[str, str] = getattr(explore_module(study), "KEYS", {})
    scoped: dict[str, Any] = {}
    for name, key in keys.items():
        if name in values:
            *parents, last = key.split(".")
            node = scoped
            for part in parents:
                node = node.setdefault(part, {})
            # a key ending in [] is a list (a sweep): the value is checked as its one item
            value = [values[name]] if last.endswith("[]") else values[name]
            node[last.removesuffix("[]")] = value
    if scoped:
        validate_sections(scoped, f"the {study} explore panel")


def explore_figure(study: str, cfg: Mapping[str, Any], **values: Any) -> Figure:
    """One configuration of ``study`` computed and drawn, without widgets: the study's
    defaults under ``cfg`` with ``values`` set."""
    mod = explore_module(study)
    check_values(study, cfg, values)
    return mod.figure(mod.compute(cfg, **{**mod.defaults(cfg), **values}))


def _with_value(choices: Sequence[Any], value: Any) -> list[Any]:
    """``choices`` with ``value`` added where it is missing (a notebook parameter off the
    knob's list), numeric lists kept sorted."""
    out = list(choices)
    if value not in out:
        out.append(value)
        if all(isinstance(c, int | float) and not isinstance(c, bool) for c in out):
            out.sort()
    return out


def make_control(knob: Knob, value: Any):  # noqa: ANN201 - an ipywidgets widget
    """The ipywidgets control of ``knob`` set to ``value``. Sliders report a value when
    released (``continuous_update=False``): a drag costs one simulation."""
    import ipywidgets as w

    common = {
        "description": knob.label,
        "tooltip": knob.help or None,
        "style": {"description_width": "initial"},
    }
    # a slider sized by its content would leave its track a few pixels wide
    slider = {**common, "continuous_update": False, "layout": w.Layout(width="22em")}
    if knob.choices:
        choices = _with_value(knob.choices, value)
        options = [(str(c), c) for c in choices]
        if knob.slider:
            return w.SelectionSlider(options=options, value=value, **slider)
        return w.Dropdown(options=options, value=value, layout=w.Layout(width="auto"), **common)
    ints = all(float(x).is_integer() for x in (knob.low, knob.high, knob.step))
    cls = w.IntSlider if ints and isinstance(value, int) else w.FloatSlider
    cast = int if cls is w.IntSlider else float
    return cls(
        value=cast(value),
        min=cast(min(knob.low, value)),
        max=cast(max(knob.high, value)),
        step=cast(knob.step),
        **slider,
    )


class Panel:
    """The knobs of one study's explore, its figure and a status line. ``redraw()``
    recomputes and redraws at once; a knob's change schedules it after ``debounce_s``
    (immediately where no event loop runs, as in a plain Python session)."""

    def __init__(
        self,
        study: str,
        cfg: Mapping[str, Any],
        values: Mapping[str, Any] | None = None,
        debounce_s: float = DEBOUNCE_S,
    ) -> None:
        import ipywidgets as w

        self.study = study
        self.cfg = cfg
        self.module = explore_module(study)
        self.debounce_s = debounce_s
        knobs = self.module.knobs(cfg)
        start = {**self.module.defaults(cfg), **(values or {})}
        unknown = set(start) - {k.name for k in knobs}
        if unknown:
            raise ConfigError(
                f"{study} explore: no knob {', '.join(sorted(map(str, unknown)))}; knobs: "
                f"{', '.join(k.name for k in knobs)}"
            )
        check_values(study, cfg, values or {})
        self.controls = {k.name: make_control(k, start[k.name]) for k in knobs}
        self.status = w.HTML()
        self.output = w.Output()
        self.timings: list[dict[str, float]] = []
        self.png = b""
        self.error: Exception | None = None
        self._pending: asyncio.TimerHandle | None = None
        for c in self.controls.values():
            c.observe(self._changed, names="value")
        self.widget = w.VBox(
            [
                w.HBox(list(self.controls.values()), layout=w.Layout(flex_flow="row wrap")),
                self.status,
                self.output,
            ]
        )
        self.widget.add_class(PANEL_CLASS)
        self.widget.add_class(f"{PANEL_CLASS}-{study}")

    @property
    def values(self) -> dict[str, Any]:
        return {name: c.value for name, c in self.controls.items()}

    def _changed(self, change: Mapping[str, Any]) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.redraw()
            return
        self._pending = loop.call_later(self.debounce_s, self.redraw)

    def redraw(self, raise_errors: bool = False) -> bytes:
        """Compute the configuration the knobs show, draw it and show it; returns the PNG.
        An error (a combination the model refuses) shows in the status line and leaves the
        last figure in place (``raise_errors``: raised as well, as a cell's first draw does:
        a knob's callback has no cell to show a traceback in)."""
        self._pending = None
        values = self.values
        self.status.value = "<i>computing ...</i>"
        t0 = time.perf_counter()
        try:
            result = self.module.compute(self.cfg, **values)
            t1 = time.perf_counter()
            fig = self.module.figure(result)
            png = png_bytes(fig)
        except Exception as exc:
            self.error = exc
            self.status.value = (
                f"<span style='color:#b00'>{type(exc).__name__}: {_escape(str(exc))}</span>"
            )
            if raise_errors:
                raise
            return self.png
        self.error = None
        t2 = time.perf_counter()
        self.png = png
        self.timings.append({"compute_s": t1 - t0, "draw_s": t2 - t1})
        self.output.outputs = (
            {
                "output_type": "display_data",
                "data": {
                    "image/png": base64.b64encode(png).decode("ascii"),
                    "text/plain": f"<{self.study} explore figure>",
                },
                "metadata": {},
            },
        )
        self.status.value = (
            f"<small>{self.study}: computed in {t1 - t0:.2f} s, drawn in {t2 - t1:.2f} s "
            f"(redraw {len(self.timings)})</small>"
        )
        return png

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class PanelOff:
    """What a notebook shows where the panel is switched off (papermill, the workflow):
    one line, no config read, no simulation."""

    def __init__(self, study: str) -> None:
        self.study = study

    def _repr_markdown_(self) -> str:
        return (
            f"*Explore panel off (`explore = False`): run this notebook in JupyterLab with "
            f"`explore = True` to turn the {self.study} knobs.*"
        )


def study_panel(
    study: str,
    config: str | Path | Mapping[str, Any] | None = None,
    enabled: bool = True,
    **values: Any,
) -> Panel | PanelOff:
    """The explore panel of ``study`` under ``config`` (a config file, stacked on
    ``config/config.yaml``, or a loaded config), its knobs starting at the config's values
    with ``values`` (a notebook's parameters) set, drawn once. ``enabled=False`` (the
    workflow's papermill runs) returns a one-line note and does nothing else."""
    if not enabled:
        return PanelOff(study)
    from skftl.config import load_config

    cfg = config if isinstance(config, Mapping) else load_config(config)
    panel = Panel(study, cfg, values)
    panel.redraw(raise_errors=True)
    return panel


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
