# ppc: parse, price and cut for grandparent parsing LPs (Riedel et al. 2012).
# prepared treebank (with lemmas and features) -> the first-order MST parser and the grandparent parser ->
# instance set "<dataset>" (the test sentences, every arc) -> decode every variant (decode.smk).


rule ppc_train:
    input:
        unpack(ppc_splits),
    output:
        first="results/models/ppc/{dataset}/first-order.npz",
        model="results/models/ppc/{dataset}/grandparent.npz",
        history="results/models/ppc/{dataset}/history.json",
    log:
        "results/logs/ppc/train/{dataset}.log",
    benchmark:
        benchmark_file("ppc_train", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(ppc_sets()),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_train"),
        runtime=job_runtime("ppc_train"),
    params:
        options=lambda wildcards: ppc_train_options(wildcards.dataset),
        code=code_hash("ppc_train"),
    script:
        "../scripts/ppc_train.py"


rule ppc_instances:
    input:
        unpack(ppc_splits),
        first="results/models/ppc/{dataset}/first-order.npz",
        model="results/models/ppc/{dataset}/grandparent.npz",
    output:
        shards=expand("results/instances/ppc/{{dataset}}/shard-{shard}.pkl", shard=shard_range("ppc")),
        index="results/instances/ppc/{dataset}/index.tsv",
    log:
        "results/logs/ppc/instances/{dataset}.log",
    benchmark:
        benchmark_file("ppc_instances", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(ppc_sets()),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_instances"),
        runtime=job_runtime("ppc_instances"),
    params:
        dev_fraction=PPC.get("dev_fraction", 0.1),
        code=code_hash("ppc_instances"),
    script:
        "../scripts/ppc_instances.py"


rule ppc_udpipe_train:
    input:
        unpack(treebank_splits),
    output:
        model="results/models/ppc/{dataset}/udpipe.model",
        training="results/models/ppc/{dataset}/udpipe.json",
    log:
        "results/logs/ppc/udpipe_train/{dataset}.log",
    benchmark:
        benchmark_file("ppc_udpipe_train", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(PPC.get("datasets", [])),
    priority: 1
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_udpipe_train"),
        runtime=job_runtime("ppc_udpipe_train"),
    params:
        options=lambda wildcards: {
            **PPC["udpipe"],
            "seed": config["seed"],
            "dev_fraction": PPC.get("dev_fraction", 0.1),
        },
        code=code_hash("ppc_udpipe_train"),
    script:
        "../scripts/ppc_udpipe_train.py"


rule ppc_udpipe:
    input:
        unpack(treebank_splits),
        model="results/models/ppc/{dataset}/udpipe.model",
        training="results/models/ppc/{dataset}/udpipe.json",
    output:
        records="results/peers/ppc/{dataset}/udpipe.parquet",
        summary="results/peers/ppc/{dataset}/udpipe.json",
    log:
        "results/logs/ppc/udpipe/{dataset}.log",
    benchmark:
        benchmark_file("ppc_udpipe", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(PPC.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=job_mem_mb("ppc_udpipe"),
        runtime=job_runtime("ppc_udpipe"),
    params:
        dev_fraction=PPC.get("dev_fraction", 0.1),
        code=code_hash("ppc_udpipe"),
    script:
        "../scripts/ppc_udpipe.py"


# The tables read every configured variant on every dataset (the ILP only when configured); constants, not
# functions (snakemake --lint wants helper functions in common.smk). The results page can take the decode jobs'
# provenance as run_provenance(PPC_RUNS).
PPC_TABLES = ["table1", "table2", "statistics", "audit", "training", "seeds", "ad3", "ad3_lps"]
PPC_RUNS = [
    f"results/runs/ppc/{d}/{v}.parquet" for d in PPC.get("datasets", []) for v in PPC.get("variants", {})
]
# The seed study's runs: its sets decoded by its variants (the run's own seed is among PPC_RUNS).
PPC_SEED_RUNS = [f"results/runs/ppc/{s}/{v}.parquet" for s in PPC_SEEDS for v in PPC_SEED_VARIANTS]


rule ppc_tables:
    input:
        runs=PPC_RUNS,
        seed_runs=PPC_SEED_RUNS,
        seed_histories=ppc_seed_histories(),
        peers=expand("results/peers/ppc/{dataset}/udpipe.parquet", dataset=PPC.get("datasets", [])),
        peer_summaries=expand("results/peers/ppc/{dataset}/udpipe.json", dataset=PPC.get("datasets", [])),
        histories=expand("results/models/ppc/{dataset}/history.json", dataset=PPC.get("datasets", [])),
        noise=noise_records("ppc", PPC.get("datasets", [])),
    output:
        table1=report(
            "results/tables/ppc/table1.csv",
            caption=report_caption("ppc", "table1"),
            category="ppc",
        ),
        table2=report(
            "results/tables/ppc/table2.csv",
            caption=report_caption("ppc", "table2"),
            category="ppc",
        ),
        statistics=report(
            "results/tables/ppc/statistics.csv",
            caption=report_caption("ppc", "statistics"),
            category="ppc",
        ),
        audit=report(
            "results/tables/ppc/audit.csv",
            caption=report_caption("ppc", "audit"),
            category="ppc",
        ),
        training=report(
            "results/tables/ppc/training.csv",
            caption=report_caption("ppc", "training"),
            category="ppc",
        ),
        seeds=report(
            "results/tables/ppc/seeds.csv",
            caption=report_caption("ppc", "seeds"),
            category="ppc",
        ),
        ad3=report(
            "results/tables/ppc/ad3.csv",
            caption=report_caption("ppc", "ad3"),
            category="ppc",
        ),
        ad3_lps=report(
            "results/tables/ppc/ad3_lps.csv",
            caption=report_caption("ppc", "ad3_lps"),
            category="ppc",
        ),
        other=expand("results/tables/ppc/{table}.{suffix}", table=PPC_TABLES, suffix=["md", "tex"]),
        time_vs_length=report(
            "results/figures/ppc/time_vs_length.png",
            caption=report_caption("ppc", "time_vs_length"),
            category="ppc",
        ),
        bf_growth=report(
            "results/figures/ppc/bf_growth.png",
            caption=report_caption("ppc", "bf_growth"),
            category="ppc",
        ),
    log:
        "results/logs/ppc/tables.log",
    benchmark:
        benchmark_file("ppc_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_tables"),
        runtime=job_runtime("ppc_tables"),
    params:
        settings=shown_settings("ppc", {**PPC, "harness": harness_settings("ppc")} if PPC else {}),
        seed=config["seed"],
        code=shown_code(code_hash("ppc_tables")),
    script:
        "../scripts/ppc_tables.py"


# The run's default target and this experiment's results-page section (common.smk).
register_experiment(
    "ppc",
    targets=["results/tables/ppc/table1.csv"],
    tables=expand("results/tables/ppc/{table}.md", table=PPC_TABLES),
    provenance=lambda: run_provenance(PPC_RUNS + PPC_SEED_RUNS),
)
