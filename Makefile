# Two commands: `make` (set up, then run the whole pipeline on the default config) and
# `make test` (set up, then ruff + pytest). Setup is skipped while .venv is up to date.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.skftl-setup
CONFIG ?= config/config.yaml
PROFILE ?= workflow/profiles/default
SNAKEMAKE_ARGS ?=
# Each config's run keeps its own results: the default config writes results/ and figures/
# here, any other config runs/<its name>/results and runs/<its name>/figures (e.g. runs/paper/
# for config/paper.yaml), so runs at two scales are compared side by side, never overwritten.
RUN_DIR ?= $(if $(filter $(abspath config/config.yaml),$(abspath $(CONFIG))),.,runs/$(basename $(notdir $(CONFIG))))
WORKFLOW = $(BIN)/snakemake --snakefile $(abspath workflow/Snakefile) --configfile $(abspath $(CONFIG)) --profile $(abspath $(PROFILE)) --directory $(RUN_DIR)

.PHONY: all setup pipeline robustness spread report test lint lab bench clean-results dry-run unlock

all: pipeline

# Keys JupyterLab, papermill and editors add to a notebook when it is saved after a run: the
# nbstripout filter strips them beside the outputs, so a notebook run in Lab stays git-clean.
NB_STRIP_KEYS := metadata.language_info metadata.papermill cell.metadata.papermill cell.metadata.trusted metadata.vscode metadata.toc

$(STAMP): pyproject.toml Makefile envs/jupyterlab-overrides.json
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "skftl needs Python >= 3.11, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name skftl --display-name "Python (skftl)" >/dev/null
	# JupyterLab's defaults for this environment: no news or update pop-up over the notebooks
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp envs/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	if git rev-parse --git-dir >/dev/null 2>&1; then \
	  $(BIN)/nbstripout --install --attributes .gitattributes && \
	  git config filter.nbstripout.extrakeys "$(NB_STRIP_KEYS)"; fi
	touch $@

setup: $(STAMP)

# A killed run leaves Snakemake's lock behind: say what to do instead of Snakemake's error.
pipeline: $(STAMP)
	@if [ -n "$$(ls -A $(RUN_DIR)/.snakemake/locks 2>/dev/null)" ]; then \
	  echo "make: the workflow is locked ($(RUN_DIR)/.snakemake/locks): another 'make' is running, or the last one was interrupted."; \
	  echo "make: if none is running, run 'make unlock' and then 'make' again (interrupted jobs are redone)."; \
	  exit 1; fi
	$(WORKFLOW) $(SNAKEMAKE_ARGS)

# Each study's unstated assumptions varied one at a time, every claim rescored:
# results/robustness.csv, results/<study>/robustness.csv and figures/robustness.png.
robustness: pipeline
	$(WORKFLOW) $(SNAKEMAKE_ARGS) robustness

# Each study rerun on every excerpt window of the real traces and on more seeds of the
# stand-ins (config `spread:`), every claim rescored: results/spread.csv (a prediction is
# stable or varies), figures/spread.png and results/<study>/spread.csv.
spread: pipeline
	$(WORKFLOW) $(SNAKEMAKE_ARGS) spread

# Snakemake's report of the whole pipeline (scorecard first, then each study's claims and
# figures); runs the pipeline first where anything is missing or out of date.
report: pipeline
	$(WORKFLOW) --report results/report.zip

unlock: $(STAMP)
	$(WORKFLOW) --unlock

dry-run: $(STAMP)
	$(WORKFLOW) --dry-run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# JupyterLab on the notebooks (kernel `skftl`); interactive runs write figures to
# figures/interactive/<study>. Jupyter refuses root without --allow-root (containers run as root).
# root (a container) needs --allow-root whatever else LAB_ARGS holds
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB_ARGS ?=
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ $(LAB_ROOT) $(LAB_ARGS)

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean-results:
	rm -rf results figures/*/ runs
