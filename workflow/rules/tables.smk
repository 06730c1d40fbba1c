# Tables: aggregate what the earlier stages measured into CSV / Markdown / LaTeX tables for the report.


rule corpora_table:
    input:
        stats=[prepared(dataset, "stats.json") for dataset in used_datasets()],
    output:
        csv=report(
            "results/tables/corpora.csv",
            caption=report_caption("shared", "corpora"),
            category="Corpora",
            labels={"table": "prepared datasets"},
        ),
        md="results/tables/corpora.md",
        tex="results/tables/corpora.tex",
    log:
        "results/logs/tables/corpora.log",
    benchmark:
        benchmark_file("corpora_table", "corpora")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("corpora_table"),
        runtime=job_runtime("corpora_table"),
    params:
        experiments=shown_settings("*", config["experiments"]),
        code=shown_code(code_hash("corpora_table")),
    script:
        "../scripts/corpora_table.py"


rule results_page:
    input:
        corpora="results/tables/corpora.md",
        sections=page_inputs,
        csvs=page_csvs,
    output:
        page="results/RESULTS.md",
        page_html=report(
            "results/RESULTS.html",
            caption=report_caption("shared", "results_page"),
            category="Results page",
        ),
        resources=report(
            "results/tables/resources.csv",
            caption=report_caption("shared", "resources"),
            category="Results page",
        ),
        resources_other=expand("results/tables/resources.{suffix}", suffix=["md", "tex"]),
        cost=report(
            "results/tables/cost.csv",
            caption=report_caption("shared", "cost"),
            category="Results page",
        ),
        cost_other=expand("results/tables/cost.{suffix}", suffix=["md", "tex"]),
        content=expand("results/content/{name}.json", name=BUILT_EXPERIMENTS),
    log:
        "results/logs/tables/results_page.log",
    benchmark:
        benchmark_file("results_page", "results_page")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("results_page"),
        runtime=job_runtime("results_page"),
    params:
        sections=lambda wildcards: labelled(
            page_sections(), "the sections of " + ", ".join(BUILT_EXPERIMENTS)
        ),
        code=shown_code(code_hash("results_page", *(f"decoders.tables.{name}" for name in BUILT_EXPERIMENTS))),
        claims=shown_code(claims_hash()),
    script:
        "../scripts/results_page.py"


rule explorer:
    input:
        page="results/RESULTS.md",
    output:
        site=directory("results/explorer"),
        # one file for the report: Snakemake's HTML report takes no directories
        single=report(
            "results/explorer.html",
            caption=report_caption("shared", "explorer"),
            category="Results page",
        ),
    log:
        "results/logs/tables/explorer.log",
    benchmark:
        benchmark_file("explorer", "explorer")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("explorer"),
        runtime=job_runtime("explorer"),
    params:
        code=shown_code(code_hash("explorer")),
    script:
        "../scripts/explorer.py"
