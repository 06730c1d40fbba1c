# chains: MAP inference in linear chains by column generation (Belanger et al. 2012).
# train scorers -> scored instance sets -> decode every variant (decode.smk) -> tables and figures.


rule chains_train:
    input:
        train=prepared("{dataset}", "train.parquet"),
    output:
        model="results/models/chains/{dataset}/{model}.npz",
        history="results/models/chains/{dataset}/{model}.history.json",
    log:
        "results/logs/chains/train/{dataset}/{model}.log",
    benchmark:
        benchmark_file("chains_train", "{dataset}/{model}")
    wildcard_constraints:
        dataset=wildcard_choice(CHAINS.get("datasets", [])),
        model=wildcard_choice([*CHAINS.get("models", {}), *CHAINS_SEEDS]),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("chains_train"),
        runtime=job_runtime("chains_train"),
    params:
        spec=lambda wildcards: chains_train_options(wildcards.model)[0],
        min_count=CHAINS.get("min_count", 1),
        seed=lambda wildcards: chains_train_options(wildcards.model)[1],
        code=code_hash("chains_train"),
    script:
        "../scripts/chains_train.py"


rule chains_crfsuite:
    input:
        train=prepared("{dataset}", "train.parquet"),
    output:
        "results/models/chains/{dataset}/crfsuite.model",
    log:
        "results/logs/chains/crfsuite/{dataset}.log",
    benchmark:
        benchmark_file("chains_crfsuite", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(CHAINS.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("chains_crfsuite"),
        runtime=job_runtime("chains_crfsuite"),
    params:
        options=CHAINS.get("crfsuite", {}),
        code=code_hash("chains_crfsuite"),
    script:
        "../scripts/chains_crfsuite.py"


rule chains_instances:
    input:
        unpack(chains_instance_inputs),
    output:
        shards=instance_shards("chains"),
        index=f"results/instances/chains/{{set}}/index.tsv",
    log:
        "results/logs/chains/instances/{set}.log",
    benchmark:
        benchmark_file("chains_instances", "{set}")
    wildcard_constraints:
        set=chains_set_pattern(),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("chains_instances"),
        runtime=job_runtime("chains_instances"),
    params:
        code=code_hash("chains_instances"),
    script:
        "../scripts/chains_instances.py"


rule chains_tables:
    input:
        runs=chains_runs(),
        noise=chains_noise(),
        seed_runs=chains_seed_runs(),
        seed_histories=chains_seed_histories(),
    output:
        table1=report(
            "results/tables/chains/table1.csv",
            caption=report_caption("chains", "table1"),
            category="chains",
        ),
        table2a=report(
            "results/tables/chains/table2a.csv",
            caption=report_caption("chains", "table2"),
            category="chains",
        ),
        table2b=report(
            "results/tables/chains/table2b.csv",
            caption=report_caption("chains", "table2b"),
            category="chains",
        ),
        cg_stats=report(
            "results/tables/chains/cg_statistics.csv",
            caption=report_caption("chains", "cg_statistics"),
            category="chains",
        ),
        by_length=report(
            "results/tables/chains/speed_by_length.csv",
            caption=report_caption("chains", "speed_by_length"),
            category="chains",
        ),
        phases=report(
            "results/tables/chains/cg_phases.csv",
            caption=report_caption("chains", "cg_phases"),
            category="chains",
        ),
        viterbi_peak=report(
            "results/tables/chains/viterbi_peak.csv",
            caption=report_caption("chains", "viterbi_peak"),
            category="chains",
        ),
        peer=report(
            "results/tables/chains/peer.csv",
            caption=report_caption("chains", "peer"),
            category="chains",
        ),
        other=expand(
            "results/tables/chains/{table}.{suffix}",
            table=CHAINS_TABLES,
            suffix=["md", "tex"],
        ),
        seeds=report(
            "results/tables/chains/seeds.csv",
            caption=report_caption("chains", "seeds"),
            category="chains",
        ),
        figure2_points=report(
            "results/tables/chains/figure2.csv",
            caption=report_caption("chains", "figure2_points"),
            category="chains",
        ),
        figure2=report(
            "results/figures/chains/figure2.png",
            caption=report_caption("chains", "figure2"),
            category="chains",
        ),
        cg_stats_figure=report(
            "results/figures/chains/cg_statistics.png",
            caption=report_caption("chains", "cg_statistics"),
            category="chains",
        ),
        by_length_figure=report(
            "results/figures/chains/speed_by_length.png",
            caption=report_caption("chains", "speed_by_length"),
            category="chains",
        ),
        phases_figure=report(
            "results/figures/chains/cg_phases.png",
            caption=report_caption("chains", "cg_phases"),
            category="chains",
        ),
    log:
        "results/logs/chains/tables.log",
    benchmark:
        benchmark_file("chains_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("chains_tables"),
        runtime=job_runtime("chains_tables"),
    params:
        settings=shown_settings("chains", CHAINS),
        seed=config["seed"],
        code=shown_code(code_hash("chains_tables")),
    script:
        "../scripts/chains_tables.py"


# The run's default target and this experiment's results-page section (common.smk).
register_experiment(
    "chains",
    targets=["results/tables/chains/table1.csv"],
    tables=expand("results/tables/chains/{table}.md", table=CHAINS_TABLES),
    provenance=chains_provenance,
)
