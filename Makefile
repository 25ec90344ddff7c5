# Two commands: `make` (set up, then run the whole pipeline on the default config) and
# `make test` (set up, then ruff + pytest). Setup is skipped while .venv is up to date.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.skftl-setup
CONFIG ?= config/config.yaml
PROFILE ?= workflow/profiles/default
SNAKEMAKE_ARGS ?=

.PHONY: all setup pipeline robustness report test lint lab bench clean-results dry-run unlock

all: pipeline

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "skftl needs Python >= 3.11, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name skftl --display-name "Python (skftl)" >/dev/null
	if git rev-parse --git-dir >/dev/null 2>&1; then $(BIN)/nbstripout --install --attributes .gitattributes; fi
	touch $@

setup: $(STAMP)

# A killed run leaves Snakemake's lock behind: say what to do instead of Snakemake's error.
pipeline: $(STAMP)
	@if [ -n "$$(ls -A .snakemake/locks 2>/dev/null)" ]; then \
	  echo "make: the workflow is locked (.snakemake/locks): another 'make' is running, or the last one was interrupted."; \
	  echo "make: if none is running, run 'make unlock' and then 'make' again (interrupted jobs are redone)."; \
	  exit 1; fi
	$(BIN)/snakemake --snakefile workflow/Snakefile --configfile $(CONFIG) --profile $(PROFILE) $(SNAKEMAKE_ARGS)

# Each study's unstated assumptions varied one at a time, every claim rescored:
# results/robustness.csv, results/<study>/robustness.csv and figures/robustness.png.
robustness: pipeline
	$(BIN)/snakemake --snakefile workflow/Snakefile --configfile $(CONFIG) --profile $(PROFILE) $(SNAKEMAKE_ARGS) robustness

# Snakemake's report of the whole pipeline (scorecard first, then each study's claims and
# figures); runs the pipeline first where anything is missing or out of date.
report: pipeline
	$(BIN)/snakemake --snakefile workflow/Snakefile --configfile $(CONFIG) --profile $(PROFILE) --report results/report.zip

unlock: $(STAMP)
	$(BIN)/snakemake --snakefile workflow/Snakefile --configfile $(CONFIG) --profile $(PROFILE) --unlock

dry-run: $(STAMP)
	$(BIN)/snakemake --snakefile workflow/Snakefile --configfile $(CONFIG) --profile $(PROFILE) --dry-run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# JupyterLab on the notebooks (kernel `skftl`); interactive runs write figures to
# figures/interactive/<study>. Jupyter refuses root without --allow-root (containers run as root).
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root)
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ $(LAB_ARGS)

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean-results:
	rm -rf results figures/*/
