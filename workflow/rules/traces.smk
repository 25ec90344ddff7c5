# Traces: locate-or-fetch + convert into the columnar cache (one job per real trace), then
# characterise every trace (one job each, so a cluster fans out) and merge.

wildcard_constraints:
    trace=r"[A-Za-z0-9_.+\-]+",


rule trace_prepare:
    output:
        "results/traces/manifest/{trace}.json",
    params:
        fetch="--fetch" if config["traces"].get("fetch", False) else "",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/trace_prepare/{trace}.log",
    resources:
        mem_mb=config.get("resources", {}).get("trace_prepare_mem_mb", 4000),
    shell:
        "{SKFTL} prepare-trace {wildcards.trace} --manifest {output} {params.fetch} > {log} 2>&1"


def _trace_inputs(wildcards):
    # synthetic traces need no preparation; real ones need their manifest
    if wildcards.trace.startswith("syn-"):
        return []
    return [f"results/traces/manifest/{wildcards.trace}.json"]


rule trace_characterise:
    input:
        _trace_inputs,
    output:
        "results/traces/per_trace/{trace}.nc",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/trace_characterise/{trace}.log",
    shell:
        "{SKFTL} characterise {wildcards.trace} -o {output} > {log} 2>&1"


rule traces_merge:
    input:
        expand("results/traces/per_trace/{trace}.nc", trace=SYNTHETIC_TRACES + REAL_TRACES),
    output:
        nc="results/traces/characteristics.nc",
        headline="results/traces/headline.csv",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/traces_merge.log",
    shell:
        "{SKFTL} characterise --merge {input} -o {output.nc} --headline {output.headline} > {log} 2>&1"


rule traces_notebook:
    input:
        nc="results/traces/characteristics.nc",
        nb=NOTEBOOKS / "00_traces.ipynb",
    output:
        nb="results/notebooks/traces.ipynb",
        figs=directory("figures/traces"),
    conda:
        "../../envs/notebook.yaml"
    log:
        "results/logs/notebook_traces.log",
    shell:
        "{PAPERMILL} {input.nb} {output.nb} -k {KERNEL} --cwd {NOTEBOOKS} --log-output "
        "-p config_path {CONFIG_FILE} -p results_path $PWD/{input.nc} -p figures_dir $PWD/{output.figs} "
        "> {log} 2>&1"


ALL_TARGETS += [
    "results/traces/characteristics.nc",
    "results/traces/headline.csv",
    "results/notebooks/traces.ipynb",
    "figures/traces",
]
