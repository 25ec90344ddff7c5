# Traces: locate-or-fetch + convert into the columnar cache (one job per real trace), then
# characterise every trace, then the notebook.

wildcard_constraints:
    trace=r"[A-Za-z0-9_.+\-]+",


rule trace_prepare:
    input:
        config=scope_file(TRACE_SET),
    output:
        "results/traces/manifest/{trace}.json",
    params:
        fetch="--fetch" if config["traces"].get("fetch", False) else "",
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/trace_prepare/{trace}.log",
    shell:
        "{SKFTL} --config {input.config} prepare-trace {wildcards.trace} --manifest {output} {params.fetch} > {log} 2>&1"


rule traces_characterise:
    # one job for every trace: characterising a cached trace takes well under a second, less
    # than starting a job for it
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file("traces"),
    output:
        nc="results/traces/characteristics.nc",
        headline="results/traces/headline.csv",  # shown by claims_page
        readings=report(
            "results/traces/readings.csv",
            caption="../report/readings.rst",
            category="traces",
            subcategory="claims",
            labels={"study": "traces", "table": "claims under every reading"},
        ),
    conda:
        "../../envs/simulate.yaml"
    log:
        "results/logs/traces_characterise.log",
    resources:
        mem_mb=config["traces"].get("resources", {}).get("mem_mb", 4000),
        runtime=config["traces"].get("resources", {}).get("runtime", 30),
    shell:
        "{SKFTL} --config {input.config} characterise -o {output.nc} --scored results/traces > {log} 2>&1"


rule traces_notebook:
    input:
        nc="results/traces/characteristics.nc",
        config=scope_file("traces"),
    output:
        nb="results/notebooks/traces.ipynb",
        figs=report(
            directory("figures/traces"),
            patterns=["{name}.png"],
            caption=FIGURE_CAPTION,
            category="traces",
            subcategory="figures",
            labels={"study": "traces", "figure": "{name}"},
        ),
    conda:
        "../../envs/notebook.yaml"
    log:
        "results/logs/notebook_traces.log",
    params:
        notebook=notebook_params(STUDIES["traces"]),
        # papermill writes the notebook as it runs: write a temporary, rename when complete
        partial="results/notebooks/traces.partial.ipynb",
    shell:
        "rm -f {params.partial} && "
        "{PAPERMILL} {params.notebook[path]} {params.partial} -k {KERNEL} --cwd {NOTEBOOKS} --log-output --no-progress-bar "
        "-p config_path $PWD/{input.config} -p results_path $PWD/{input.nc} -p figures_dir $PWD/{output.figs} "
        "> {log} 2>&1 && mv {params.partial} {output.nb}"


ALL_TARGETS += [
    "results/traces/characteristics.nc",
    "results/traces/headline.csv",
    "results/notebooks/traces.ipynb",
    "figures/traces",
]
