# `make spread`: each study's headline over excerpt windows of the real traces and over more
# seeds of the synthetic stand-ins, one job per (study, variant) rerunning the study with
# `traces.excerpt` or `seed` changed, then a table per study (claim x variant -> verdict, ours)
# and a summary of every prediction: stable or varies (skftl.studies.spread). Config
# `spread:` selects.


@functools.cache
def _spread_points():
    # computed only when a spread job is planned
    return spread_points(config)


def _spread_point(wildcards):
    return _spread_points()[wildcards.study][int(wildcards.point)]


rule spread_point:
    # every study, the traces study included (the global constraint leaves it out)
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file("{study}"),
    output:
        "results/{study}/spread/point_{point}.csv",
    params:
        key=lambda wildcards: _spread_point(wildcards)[0],
        value=lambda wildcards: _spread_point(wildcards)[1],
        # the variant's own scope: a change to the study's config or to the variant reruns it
        scope=lambda wildcards: spread_scope_text(config, wildcards.study, *_spread_point(wildcards)),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/spread/{study}_{point}.log",
    threads: _study_threads
    resources:
        mem_mb=_study_resources("mem_mb", 8000),
        runtime=_study_resources("runtime", 120),
    shell:
        "{SKFTL} --config {input.config} spread point {wildcards.study} --key {params.key} "
        "--value {params.value:q} --out {output} > {log} 2>&1"


rule spread_table:
    wildcard_constraints:
        study="|".join(STUDIES),
    input:
        dataset=lambda wildcards: str(dataset_file("results", wildcards.study)),
        points=lambda wildcards: [
            f"results/{wildcards.study}/spread/point_{i}.csv"
            for i in range(len(_spread_points()[wildcards.study]))
        ],
    output:
        "results/{study}/spread.csv",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/spread/{study}_table.log",
    shell:
        "{SKFTL} spread table {wildcards.study} --dataset {input.dataset} --out {output} "
        "--points {input.points} > {log} 2>&1"


rule spread:
    input:
        lambda wildcards: [f"results/{study}/spread.csv" for study in _spread_points()],
    output:
        report(
            "results/spread.csv",
            caption="../report/spread_table.rst",
            category="2. Robustness",
            labels={"what": "every prediction over excerpt windows and seeds: stable or varies"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/spread/summary.log",
    shell:
        "{SKFTL} spread summary {input} --out {output} > {log} 2>&1"
