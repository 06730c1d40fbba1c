# titles: selection and ordering by colour-coding, ILP and beam search (Deshpande et al. 2007).
# train the selection classifier and the bigram model -> one word graph per test section -> decode every
# variant (decode.smk) -> the smallest optimal beam width -> tables, figures and example titles.


rule titles_train:
    input:
        train=prepared("{dataset}", "train.parquet"),
        test=prepared("{dataset}", "test.parquet"),
    output:
        model="results/models/titles/{dataset}/scorer.pkl",
        stats="results/models/titles/{dataset}/scorer.json",
    log:
        "results/logs/titles/train/{dataset}.log",
    benchmark:
        benchmark_file("titles_train", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(TITLES.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("titles_train"),
        runtime=job_runtime("titles_train"),
    params:
        options=TITLES.get("scorer", {}),
        seed=config["seed"],
        code=code_hash("titles_train"),
    script:
        "../scripts/titles_train.py"


rule titles_instances:
    input:
        test=prepared("{set}", "test.parquet"),
        model="results/models/titles/{set}/scorer.pkl",
    output:
        shards=instance_shards("titles"),
        index="results/instances/titles/{set}/index.tsv",
        stats="results/instances/titles/{set}/stats.json",
    log:
        "results/logs/titles/instances/{set}.log",
    benchmark:
        benchmark_file("titles_instances", "{set}")
    wildcard_constraints:
        set=wildcard_choice(TITLES.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("titles_instances"),
        runtime=job_runtime("titles_instances"),
    params:
        code=code_hash("titles_instances"),
    script:
        "../scripts/titles_instances.py"


rule titles_smallest_beam:
    input:
        shards=lambda wildcards: expand(
            "results/instances/titles/{dataset}/shard-{shard}.pkl",
            dataset=wildcards.dataset,
            shard=shard_range("titles"),
        ),
        exact=lambda wildcards: f"results/runs/titles/{wildcards.dataset}/{TITLES['exact']}.parquet",
    output:
        params="results/tables/titles/{dataset}/smallest_beam.json",
        search="results/tables/titles/{dataset}/smallest_beam_search.json",
    log:
        "results/logs/titles/smallest_beam/{dataset}.log",
    benchmark:
        benchmark_file("titles_smallest_beam", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(TITLES.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("titles_smallest_beam"),
        runtime=job_runtime("titles_smallest_beam"),
    params:
        max_width=TITLES.get("max_beam_width", 65536),
        code=code_hash("titles_smallest_beam"),
    script:
        "../scripts/titles_smallest_beam.py"


rule titles_tables:
    input:
        runs=titles_runs_all(),
        noise=noise_records("titles", TITLES.get("datasets", [])),
        instances=expand(
            "results/instances/titles/{dataset}/stats.json",
            dataset=TITLES.get("datasets", []),
        ),
        scorers=expand(
            "results/models/titles/{dataset}/scorer.json",
            dataset=TITLES.get("datasets", []),
        ),
        shards=expand(
            "results/instances/titles/{dataset}/shard-{shard}.pkl",
            dataset=TITLES.get("datasets", []),
            shard=shard_range("titles"),
        ),
        beams=expand(
            "results/tables/titles/{dataset}/smallest_beam_search.json",
            dataset=TITLES.get("datasets", []),
        ),
    output:
        table1=report(
            "results/tables/titles/table1.csv",
            caption=report_caption("titles", "table1"),
            category="titles",
        ),
        units=report(
            "results/tables/titles/units.csv",
            caption=report_caption("titles", "units"),
            category="titles",
        ),
        other=expand(
            "results/tables/titles/{table}.{suffix}",
            table=TITLES_TABLES,
            suffix=["md", "tex"],
        ),
        figure2_points="results/tables/titles/figure2.csv",
        figure2=report(
            "results/figures/titles/figure2.png",
            caption=report_caption("titles", "figure2"),
            category="titles",
        ),
        time_vs_k=report(
            "results/figures/titles/time_vs_k.png",
            caption=report_caption("titles", "time_vs_k"),
            category="titles",
        ),
        examples=report(
            "results/tables/titles/examples.csv",
            caption=report_caption("titles", "examples"),
            category="titles",
        ),
    log:
        "results/logs/titles/tables.log",
    benchmark:
        benchmark_file("titles_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("titles_tables"),
        runtime=job_runtime("titles_tables"),
    params:
        settings=shown_settings("titles", TITLES),
        seed=config["seed"],
        code=shown_code(code_hash("titles_tables")),
    script:
        "../scripts/titles_tables.py"


# The run's default target and this experiment's results-page section (common.smk).
register_experiment(
    "titles",
    targets=["results/tables/titles/table1.csv"],
    tables=expand("results/tables/titles/{table}.md", table=TITLES_TABLES),
    provenance=lambda: run_provenance(titles_runs_all()),
)
