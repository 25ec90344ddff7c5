# `make robustness`: every study's unstated assumptions (skftl/studies/<id>/assumptions.py),
# one job per (study, assumption, value) rerunning the study with that one value changed, then
# a table per study (claim x assumption x value -> verdict) and a summary of every prediction:
# robust, reachable or unreachable (skftl.studies.robustness). Config `robustness:` selects.


@functools.cache
def _points():
    # computed only when a robustness job is planned (imports every selected study)
    return robustness_points(config)


wildcard_constraints:
    point=r"\d+",


def _point(wildcards):
    return _points()[wildcards.study][int(wildcards.point)]


rule robustness_point:
    # every study, the traces study included (the global constraint leaves it out)
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file("{study}"),
    output:
        "results/{study}/robustness/point_{point}.csv",
    params:
        key=lambda wildcards: _point(wildcards)[0],
        value=lambda wildcards: _point(wildcards)[1],
        # the point's own scope: a change to the study's config or to the value reruns it
        scope=lambda wildcards: point_scope_text(config, wildcards.study, *_point(wildcards)),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/robustness/{study}_{point}.log",
    threads: _study_threads
    resources:
        mem_mb=_study_resources("mem_mb", 8000),
        runtime=_study_resources("runtime", 120),
    shell:
        "{SKFTL} --config {input.config} robustness point {wildcards.study} --key {params.key} "
        "--value {params.value:q} --out {output} > {log} 2>&1"


rule robustness_table:
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        dataset=lambda wildcards: str(dataset_file("results", wildcards.study)),
        points=lambda wildcards: [
            f"results/{wildcards.study}/robustness/point_{i}.csv"
            for i in range(len(_points()[wildcards.study]))
        ],
    output:
        "results/{study}/robustness.csv",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/robustness/{study}_table.log",
    shell:
        "{SKFTL} robustness table {wildcards.study} --dataset {input.dataset} --out {output} "
        "--points {input.points} > {log} 2>&1"


rule robustness:
    input:
        lambda wildcards: [f"results/{study}/robustness.csv" for study in _points()],
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
