# The two sweeps over a study's reruns, one shape: a job per (study, point) rerunning the study
# with one config key changed (`sweep_point`), a table per study (`sweep_table`: claim x point
# -> verdict, ours), then each sweep's summary with its figure.
# - `make robustness`: every study's unstated assumptions (skftl/studies/<id>/assumptions.py),
#   one point per (assumption, alternative value); every prediction robust, reachable or
#   unreachable (skftl.studies.robustness). Config `robustness:` selects.
# - `make spread`: every excerpt window of the real traces (`traces.excerpt`) and more seeds of
#   the stand-ins, one point per (window or seed); every prediction stable or varies
#   (skftl.studies.spread). Config `spread:` selects.

SWEEPS = {
    "robustness": (robustness_points, point_scope_text),
    "spread": (spread_points, spread_scope_text),
}


@functools.cache
def _sweep_points(sweep):
    # computed only when a job of the sweep is planned (robustness imports every study selected)
    return SWEEPS[sweep][0](config)


def _point(wildcards):
    return _sweep_points(wildcards.sweep)[wildcards.study][int(wildcards.point)]


wildcard_constraints:
    point=r"\d+",
    sweep="|".join(SWEEPS),


rule sweep_point:
    # every study, the traces study included (the global constraint leaves it out)
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file("{study}"),
    output:
        "results/{study}/{sweep}/point_{point}.csv",
    params:
        key=lambda wildcards: _point(wildcards)[0],
        value=lambda wildcards: _point(wildcards)[1],
        # the point's own scope: a change to the study's config or to the point reruns it
        scope=lambda wildcards: SWEEPS[wildcards.sweep][1](
            config, wildcards.study, *_point(wildcards)
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/{sweep}/{study}_{point}.log",
    threads: _study_threads
    resources:
        mem_mb=_study_resources("mem_mb", 8000),
        runtime=_study_resources("runtime", 120),
    shell:
        "{SKFTL} --config {input.config} {wildcards.sweep} point {wildcards.study} "
        "--key {params.key} --value {params.value:q} --out {output} > {log} 2>&1"


rule sweep_table:
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        dataset=lambda wildcards: str(dataset_file("results", wildcards.study)),
        points=lambda wildcards: [
            f"results/{wildcards.study}/{wildcards.sweep}/point_{i}.csv"
            for i in range(len(_sweep_points(wildcards.sweep)[wildcards.study]))
        ],
    output:
        "results/{study}/{sweep}.csv",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/{sweep}/{study}_table.log",
    shell:
        "{SKFTL} {wildcards.sweep} table {wildcards.study} --dataset {input.dataset} "
        "--out {output} --points {input.points} > {log} 2>&1"


rule robustness:
    input:
        lambda wildcards: [f"results/{study}/robustness.csv" for study in _sweep_points("robustness")],
    output:
        csv=report(
            "results/robustness.csv",
            caption="../report/robustness_table.rst",
            category="2. Robustness",
            labels={"what": "every prediction: robust, reachable or unreachable"},
        ),
        png=report(
            "figures/robustness.png",
            caption="../report/robustness_figure.rst",
            category="2. Robustness",
            labels={"what": "which assumption flips which prediction"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/robustness/summary.log",
    shell:
        "{SKFTL} robustness summary {input} --out {output.csv} --figure {output.png} > {log} 2>&1"


rule spread:
    input:
        lambda wildcards: [f"results/{study}/spread.csv" for study in _sweep_points("spread")],
    output:
        csv=report(
            "results/spread.csv",
            caption="../report/spread_table.rst",
            category="2. Robustness",
            labels={"what": "every prediction over excerpt windows and seeds: stable or varies"},
        ),
        png=report(
            "figures/spread.png",
            caption="../report/spread_figure.rst",
            category="2. Robustness",
            labels={"what": "the predictions whose verdict depends on the window or seed"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/spread/summary.log",
    shell:
        "{SKFTL} spread summary {input} --out {output.csv} --figure {output.png} > {log} 2>&1"
