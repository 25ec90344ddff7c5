# Every other study: `skftl run STUDY` -> results/STUDY/STUDY.nc + headline.csv, then its
# notebook via papermill -> results/notebooks/ and figures/STUDY/. Studies read real traces
# from the cache that rule trace_prepare fills.

wildcard_constraints:
    study="|".join(s for s in STUDIES if s != "traces") or "none",


def _study_resources(key, default):
    # measured per study: <study>.resources in the config (mem_mb, runtime in minutes;
    # Snakemake's standard names); config/paper.yaml holds the paper-scale values
    return lambda wildcards: config[wildcards.study].get("resources", {}).get(key, default)


def _study_threads(wildcards):
    # a study whose section sets `workers` runs its parts in that many processes (0: all cores)
    w = config.get(wildcards.study, {}).get("workers")
    return 1 if w is None else (int(w) or workflow.cores)


rule study_run:
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file("{study}"),
    output:
        nc="results/{study}/{study}.nc",
        headline="results/{study}/headline.csv",  # shown by claims_page
        readings=report(
            "results/{study}/readings.csv",
            caption="../report/readings.rst",
            category="{study}",
            subcategory="claims",
            labels={"study": "{study}", "table": "claims under every reading"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/{study}_run.log",
    threads: _study_threads
    resources:
        mem_mb=_study_resources("mem_mb", 8000),
        runtime=_study_resources("runtime", 120),
    shell:
        "{SKFTL} --config {input.config} run {wildcards.study} --out results/{wildcards.study} --no-progress > {log} 2>&1"


rule study_notebook:
    input:
        nc="results/{study}/{study}.nc",
        config=scope_file("{study}"),
    output:
        nb="results/notebooks/{study}.ipynb",
        figs=report(
            directory("figures/{study}"),
            patterns=["{name}.png"],
            caption=FIGURE_CAPTION,
            category="{study}",
            subcategory="figures",
            labels={"study": "{study}", "figure": "{name}"},
        ),
    conda:
        "../../envs/notebook.yaml"
    log:
        "results/logs/notebook_{study}.log",
    params:
        notebook=lambda wildcards: notebook_params(STUDIES[wildcards.study]),
        # papermill writes the notebook as it runs: write a temporary, rename when complete
        partial=lambda wildcards, output: str(Path(output.nb).with_suffix(".partial.ipynb")),
    shell:
        "rm -f {params.partial} && "
        "{PAPERMILL} {params.notebook[path]} {params.partial} -k {KERNEL} --cwd {NOTEBOOKS} --log-output --no-progress-bar "
        "-p config_path $PWD/{input.config} -p results_path $PWD/{input.nc} -p figures_dir $PWD/{output.figs} "
        "{params.notebook[flags]} > {log} 2>&1 && mv {params.partial} {output.nb}"


ALL_TARGETS += [
    t
    for s in RUN_STUDIES
    for t in (f"results/{s}/{s}.nc", f"results/{s}/headline.csv", f"results/notebooks/{s}.ipynb", f"figures/{s}")
]


rule scorecard:
    # every study's scored claims in one table and one figure, the report's first page
    input:
        headlines=expand("results/{study}/headline.csv", study=["traces", *RUN_STUDIES]),
        # the scorecard refuses datasets computed under different shared settings
        datasets=[dataset_file("results", s) for s in ["traces", *RUN_STUDIES]],
    output:
        csv=report(
            "results/scorecard.csv",
            caption="../report/scorecard_table.rst",
            category="1. Scorecard",
            labels={"what": "every claim, scored"},
        ),
        png=report(
            "figures/scorecard.png",
            caption="../report/scorecard_figure.rst",
            category="1. Scorecard",
            labels={"what": "claims per verdict"},
        ),
        pdf="figures/scorecard.pdf",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/scorecard.log",
    params:
        studies=" ".join(["traces", *RUN_STUDIES]),
    shell:
        "{SKFTL} scorecard --results results {params.studies} --by-kind --csv {output.csv} "
        "--figure {output.png} > {log} 2>&1"


ALL_TARGETS += ["results/scorecard.csv", "figures/scorecard.png"]


rule claims_page:
    # a study's scored claims as a table the report shows in place (it offers CSVs for
    # download only)
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        "results/{study}/headline.csv",
    output:
        report(
            "results/{study}/claims.html",
            caption="../report/headline.rst",
            category="{study}",
            subcategory="claims",
            labels={"study": "{study}", "table": "claims scored"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/claims_page_{study}.log",
    shell:
        "{SKFTL} report-page claims {wildcards.study} {input} --out {output} > {log} 2>&1"


def _caption_sources():
    # the text of every caption: each study's figures module (CAPTIONS) and the code that
    # writes them; a param (params are rerun triggers), so an edit reruns this rule alone
    files = [REPO / "skftl/studies" / s / "figures.py" for s in ["traces", *RUN_STUDIES]]
    files += [REPO / "skftl/studies/captions.py", REPO / "skftl/studies/report_pages.py"]
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


rule figure_captions:
    # every study figure's caption in the report, one Jinja template the report renders
    # with each figure's wildcards (study_notebook's caption once it exists)
    input:
        expand("results/{study}/headline.csv", study=["traces", *RUN_STUDIES]),
    output:
        FIGURE_CAPTIONS,
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/figure_captions.log",
    params:
        studies=" ".join(["traces", *RUN_STUDIES]),
        sources=_caption_sources(),
    shell:
        "{SKFTL} report-page captions {params.studies} --results results --out {output} > {log} 2>&1"


ALL_TARGETS += [FIGURE_CAPTIONS]


def _summary(name):
    # a summary (robustness or spread) joins the landing page once `make robustness` / `make
    # spread` made it; not an input (a plain `make` would then rerun every point): its option
    # for the page and its time, which as a param reruns the page when a new one is made
    path = Path(f"results/{name}.csv")
    return (f"--{name} {path}", path.stat().st_mtime_ns) if path.is_file() else ("", 0)


rule report_landing:
    # the report's first page: the verdicts (the Snakefile's `report:` points here once it
    # exists)
    input:
        scorecard="results/scorecard.csv",
        figure="figures/scorecard.png",
    output:
        LANDING,
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/report_landing.log",
    params:
        robustness=_summary("robustness")[0],
        # a new summary's time reruns the page (params are rerun triggers; the command
        # does not use it)
        robustness_made=_summary("robustness")[1],
        spread=_summary("spread")[0],
        spread_made=_summary("spread")[1],
    shell:
        "{SKFTL} report-page landing --scorecard {input.scorecard} --figure {input.figure} "
        "{params.robustness} {params.spread} --out {output} > {log} 2>&1"


ALL_TARGETS += [LANDING, *(f"results/{s}/claims.html" for s in ["traces", *RUN_STUDIES])]
