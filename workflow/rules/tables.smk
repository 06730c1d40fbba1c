# Tables: aggregate what the earlier stages measured into CSV / Markdown / LaTeX tables for the report.


rule corpora_table:
    input:
        stats=[prepared(dataset, "stats.json") for dataset in DATASETS],
    output:
        csv=report(
            "results/tables/corpora.csv",
            caption="../report/corpora.rst",
            category="Corpora",
            labels={"table": "prepared datasets"},
        ),
        md="results/tables/corpora.md",
        tex="results/tables/corpora.tex",
    log:
        "results/logs/tables/corpora.log",
    conda:
        CONDA_ENV
    params:
        experiments=config["experiments"],
        code=code_hash("tables"),
    script:
        "../scripts/corpora_table.py"
