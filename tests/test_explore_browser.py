"""The explore panel in a real browser: JupyterLab started headless on a free port over a
copy of notebooks/, a study notebook opened in headless Chromium, its cells run down to the
panel's, a slider moved with the keyboard, and the figure redrawn (its PNG data differs).
The edit-to-figure time (key press to the new image in the page, on the browser's clock) is
measured and printed, never asserted: speed targets live in benchmarks/.

Needs Chromium (``/usr/bin/chromium``, Debian's package ``chromium``, or ``SKFTL_CHROMIUM``)
and the Python package ``playwright`` (its browser download is not needed); skipped with the
reason where either is absent. ``SKFTL_EXPLORE_NOTEBOOKS`` picks the notebooks (comma
separated, or ``all``; default ``02_lpmt.ipynb``); ``SKFTL_EXPLORE_TIMINGS`` names a JSON
file the measured times are written to.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from skftl.explore import EXPLORE_STUDIES, PANEL_CLASS
from skftl.studies.registry import STUDIES

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
# as root in a container Chromium needs --no-sandbox; the rest keep it off a closed network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]  # fmt: skip
MOVES = 3  # slider moves measured per notebook
FIRST_DRAW_S = 900  # the first draw may compile the study's kernels cold
NB = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook on show
NO_PLAYWRIGHT = "the Python package playwright is not installed (pip install playwright)"

pytestmark = pytest.mark.slow


def _chromium() -> str:
    for path in (os.environ.get("SKFTL_CHROMIUM"), *CHROMIUM_PATHS, shutil.which("chromium")):
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    pytest.skip(
        "Chromium not found (/usr/bin/chromium or SKFTL_CHROMIUM): install Debian's "
        "`chromium` package to run the browser test of the explore panels"
    )


def _notebooks() -> list[str]:
    wanted = os.environ.get("SKFTL_EXPLORE_NOTEBOOKS", "02_lpmt.ipynb")
    if wanted == "all":
        return [STUDIES[s] for s in EXPLORE_STUDIES]
    return [n.strip() for n in wanted.split(",") if n.strip()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab on a free port (token-less, --allow-root, --no-browser), root folder a copy
    of notebooks/ beside a link to config/ (the notebooks read ../config/config.yaml); the
    `skftl` kernel runs this checkout; Lab's own folders are temporary (no saved workspace,
    no news pop-up). Yields the server's URL."""
    _chromium()  # skip before starting anything where the browser test cannot run
    pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
    base = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", base / "notebooks")
    (base / "config").symlink_to(ROOT / "config", target_is_directory=True)
    kernel = base / "share" / "kernels" / "skftl"
    kernel.mkdir(parents=True)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python (skftl)", "language": "python",
            "env": {"PYTHONPATH": path}}  # fmt: skip
    (kernel / "kernel.json").write_text(json.dumps(spec))
    settings = base / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    env = {
        **os.environ,
        "JUPYTER_PATH": str(base / "share"),  # searched first: this `skftl` kernel wins
        "JUPYTER_CONFIG_DIR": str(base / "config_jupyter"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
    }
    port = _free_port()
    log = (base / "lab.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
         "--ip=127.0.0.1", f"--port={port}", "--ServerApp.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={base / 'notebooks'}"],
        cwd=base, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start: {(base / 'lab.log').read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _run_down_to_panel(page, panel_index: int) -> float:  # noqa: ANN001 - a Playwright Page
    """Run every cell from the first to the panel's (markdown cells just render) with
    Shift+Enter in command mode; once more if a press was lost: the notebook may not hold the
    focus yet just after opening, and a pass counts only when the panel's cell and every code
    cell above it queued or ran in it. Returns when the presses that ran were sent
    (``time.monotonic``)."""
    cells = page.locator(f"{NB} .jp-Notebook .jp-Cell")
    panel_cell = cells.nth(panel_index)
    prompt = "(cell) => cell.querySelector('.jp-InputPrompt').innerText.trim()"
    for _ in range(3):
        before = panel_cell.evaluate(prompt)
        cells.nth(0).click()
        page.keyboard.press("Escape")
        sent = time.monotonic()
        for _ in range(panel_index + 1):
            page.keyboard.press("Shift+Enter")
        try:  # the panel cell queued or ran in this pass: its prompt shows [*] or a new [n]
            page.wait_for_function(
                "([cell, before]) => { const t = cell.querySelector('.jp-InputPrompt')"
                ".innerText.trim(); return /\\[[*0-9]+\\]/.test(t) && (t !== before || "
                "t === '[*]'); }",
                arg=[panel_cell.element_handle(), before],
                timeout=10_000,
            )
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: press again
            continue
        above = [cells.nth(i) for i in range(panel_index)]
        code_above = [c for c in above if "jp-CodeCell" in (c.get_attribute("class") or "")]
        if all(re.fullmatch(r"\[[*0-9]+\]:?", c.evaluate(prompt)) for c in code_above):
            return sent
    pytest.fail("the notebook did not run its cells down to the explore panel")


WATCH = """() => {
  const box = document.querySelector('%s .%s');
  window.__old = box.querySelector('img').src; window.__t1 = null;
  new MutationObserver((_, obs) => {
    const img = box.querySelector('img');
    if (img && img.src !== window.__old) { window.__t1 = performance.now(); obs.disconnect(); }
  }).observe(box, {subtree: true, childList: true, attributes: true});
  window.__t0 = performance.now();
}""" % (NB, PANEL_CLASS)  # noqa: UP031 - a JavaScript template full of braces


# the panel cell drew its figure, or finished without one (a traceback): no need to wait on
FIRST_DRAW = (
    f"(cell) => cell.querySelector('.{PANEL_CLASS} img') !== null || "
    "/\\[[0-9]+\\]/.test(cell.querySelector('.jp-InputPrompt').innerText)"
)


@pytest.mark.parametrize("notebook", _notebooks())
def test_moving_a_slider_redraws_the_figure(
    lab: str, notebook: str, record_property: pytest.RecordProperty, tmp_path: Path
) -> None:
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
    nb = nbformat.read(ROOT / "notebooks" / notebook, as_version=4)
    panel_index = next(i for i, c in enumerate(nb.cells) if "study_panel(" in c.source)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(f"{lab}/lab/tree/{notebook}?reset")  # this notebook alone, no old tabs
            idle = f'{NB} .jp-Notebook-ExecutionIndicator[data-status="idle"]'
            page.wait_for_selector(idle, timeout=120_000)  # the kernel is up
            page.wait_for_function(
                f"() => document.querySelectorAll('{NB} .jp-Notebook .jp-Cell').length"
                f" > {panel_index}"
            )
            start = _run_down_to_panel(page, panel_index)
            cell = page.locator(f"{NB} .jp-Notebook .jp-Cell").nth(panel_index)
            page.wait_for_function(
                FIRST_DRAW, arg=cell.element_handle(), timeout=FIRST_DRAW_S * 1000
            )
            img = page.locator(f"{NB} .{PANEL_CLASS} img").first
            try:  # the widget's view renders just after its cell finished
                img.wait_for(timeout=30_000)
            except Exception:  # noqa: BLE001 - Playwright's TimeoutError
                pytest.fail(f"the panel's cell drew no figure: {cell.inner_text()[-3000:]}")
            first_draw = time.monotonic() - start
            status = page.locator(f"{NB} .{PANEL_CLASS} .widget-html").first
            seen = [img.get_attribute("src")]
            assert seen[0].startswith("data:image/png;base64,")
            times = []
            for k in range(MOVES):
                page.evaluate(WATCH)
                page.locator(f"{NB} .{PANEL_CLASS} .noUi-handle").first.focus()
                page.keyboard.press("ArrowRight" if k % 2 == 0 else "ArrowLeft")
                page.wait_for_function("() => window.__t1 !== null", timeout=120_000)
                times.append(page.evaluate("() => (window.__t1 - window.__t0) / 1000"))
                src = img.get_attribute("src")
                assert src.startswith("data:image/png;base64,") and src != seen[-1]
                seen.append(src)
                page.wait_for_function(
                    f"() => document.querySelector('{NB} .{PANEL_CLASS} .widget-html')"
                    f".innerText.includes('redraw {k + 2}')",
                    timeout=30_000,
                )
            assert seen[1] != seen[0] and seen[2] != seen[1]  # each move drew anew
            text = status.inner_text()
        except Exception:
            shot = tmp_path / f"{notebook}.png"
            page.screenshot(path=str(shot))
            print(f"{notebook}: the page at the failure: {shot}")
            raise
        finally:
            browser.close()
    load = os.getloadavg()
    line = (
        f"{notebook}: first draw {first_draw:.2f} s; edit-to-figure "
        f"{', '.join(f'{t:.2f}' for t in times)} s (load {load[0]:.2f}); last: {text}"
    )
    print(line)
    record_property("edit_to_figure_s", times)
    out = os.environ.get("SKFTL_EXPLORE_TIMINGS")
    if out:
        rows = json.loads(Path(out).read_text()) if Path(out).is_file() else []
        rows.append({"notebook": notebook, "first_draw_s": first_draw, "edit_to_figure_s": times,
                     "load_1min": load[0], "date": time.strftime("%Y-%m-%d %H:%M"),
                     "status": text})  # fmt: skip
        Path(out).write_text(json.dumps(rows, indent=1))
