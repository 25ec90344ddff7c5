# The tutorial notebook: a policy of your own (notebooks/hot_cold_policy.py) replayed beside
# the built-in ones on a real trace -> results/notebooks/20_your_own_policy.ipynb and
# figures/tutorial/. It reads the trace set's config scope; an edit of the notebook's cells or
# of its policy file reruns it.


rule tutorial_notebook:
    input:
        manifests=expand("results/traces/manifest/{trace}.json", trace=REAL_TRACES),
        config=scope_file(TRACE_SET),
        policy=str(NOTEBOOKS / "hot_cold_policy.py"),
    output:
        nb="results/notebooks/20_your_own_policy.ipynb",
        figs=report(
            directory("figures/tutorial"),
            patterns=["{name}.png"],
            caption="../report/tutorial.rst",
            category="3. Your own policy",
            labels={"figure": "{name}"},
        ),
    conda:
        "../../envs/notebook.yaml"
    log:
        "results/logs/notebook_tutorial.log",
    params:
        notebook=lambda wildcards: notebook_params("20_your_own_policy.ipynb"),
        partial=lambda wildcards, output: str(Path(output.nb).with_suffix(".partial.ipynb")),
    shell:
        "rm -f {params.partial} && "
        "{PAPERMILL} {params.notebook[path]} {params.partial} -k {KERNEL} --cwd {NOTEBOOKS} --log-output --no-progress-bar "
        "-p config_path $PWD/{input.config} -p figures_dir $PWD/{output.figs} "
        "> {log} 2>&1 && mv {params.partial} {output.nb}"


ALL_TARGETS += ["results/notebooks/20_your_own_policy.ipynb", "figures/tutorial"]
