# The sixth experiment: seeded score sets -> every variant decodes them (decode.smk) -> its table.


rule sixth_instances:
    output:
        shards=instance_shards("sixth"),
        index="results/instances/sixth/{set}/index.tsv",
    log:
        "results/logs/sixth/instances/{set}.log",
    benchmark:
        benchmark_file("sixth_instances", "{set}")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("sixth_instances"),
        runtime=job_runtime("sixth_instances"),
    params:
        sets=SIXTH.get("sets"),
        size=SIXTH.get("size"),
        seed=config["seed"],
        code=code_hash("sixth_instances"),
    script:
        "../scripts/sixth_instances.py"


rule sixth_tables:
    input:
        runs=SIXTH_RUNS,
    output:
        table1=report(
            "results/tables/sixth/table1.csv",
            caption=report_caption("sixth", "table1"),
            category="sixth",
        ),
        other=expand("results/tables/sixth/table1.{suffix}", suffix=["md", "tex"]),
    log:
        "results/logs/sixth/tables.log",
    benchmark:
        benchmark_file("sixth_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("sixth_tables"),
        runtime=job_runtime("sixth_tables"),
    params:
        code=code_hash("sixth_tables"),
    script:
        "../scripts/sixth_tables.py"


register_experiment(
    "sixth",
    targets=["results/tables/sixth/table1.csv"],
    tables=["results/tables/sixth/table1.md"],
    provenance=lambda: run_provenance(SIXTH_RUNS),
)
