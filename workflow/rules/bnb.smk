# bnb: branch-and-bound dependency parsing with non-local features (Qian and Liu 2013).
# tags (jackknifed chains tagger or gold) -> the pre-pruner (a head classifier) -> every other model,
# trained with its own decoder under the pruning -> instance sets "<dataset>~<model>~<k>" -> decode every
# variant (decode.smk) -> the UDPipe 1 peer -> tables and figures.
# The tags and the UDPipe peers' training (single jobs of 20-55 minutes) go before other ready jobs (priority 1),
# so that none of them can be left to run alone at the end (in r4, gsd's began 80 minutes into the run). In r5
# the three took both cores for the first 58 minutes, and the cores were busy for all but 2.6 of the run's
# 227 core-minutes (its log): the run's length is its work, not its schedule.


rule bnb_tags:
    input:
        unpack(treebank_splits),
    output:
        tags="results/models/bnb/{dataset}/tags.parquet",
        summary="results/models/bnb/{dataset}/tags.json",
    log:
        "results/logs/bnb/tags/{dataset}.log",
    benchmark:
        benchmark_file("bnb_tags", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("datasets", [])),
    priority: 1
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_tags"),
        runtime=job_runtime("bnb_tags"),
    params:
        options=lambda wildcards: bnb_tag_options(wildcards.dataset),
        code=code_hash("bnb_tags"),
    script:
        "../scripts/bnb_tags.py"


rule bnb_train:
    input:
        unpack(bnb_train_inputs),
    output:
        model="results/models/bnb/{dataset}/{model}.npz",
        history="results/models/bnb/{dataset}/{model}.history.json",
    log:
        "results/logs/bnb/train/{dataset}/{model}.log",
    benchmark:
        benchmark_file("bnb_train", "{dataset}/{model}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("datasets", [])),
        model=wildcard_choice(bnb_trained_models()),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_train"),
        runtime=job_runtime("bnb_train"),
    params:
        options=lambda wildcards: bnb_train_options(wildcards.dataset, wildcards.model),
        code=code_hash("bnb_train"),
    script:
        "../scripts/bnb_train.py"


rule bnb_instances:
    input:
        unpack(bnb_instance_inputs),
    output:
        shards=instance_shards("bnb"),
        index="results/instances/bnb/{set}/index.tsv",
        oracle="results/instances/bnb/{set}/oracle.parquet",
    log:
        "results/logs/bnb/instances/{set}.log",
    benchmark:
        benchmark_file("bnb_instances", "{set}")
    wildcard_constraints:
        set=bnb_set_pattern(),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_instances"),
        runtime=job_runtime("bnb_instances"),
    params:
        options=lambda wildcards: bnb_instance_options(wildcards.set),
        code=code_hash("bnb_instances"),
    script:
        "../scripts/bnb_instances.py"


rule bnb_udpipe_train:
    input:
        unpack(treebank_splits),
        tags="results/models/bnb/{dataset}/tags.parquet",
    output:
        model="results/models/bnb/{dataset}/udpipe.model",
        training="results/models/bnb/{dataset}/udpipe.json",
    log:
        "results/logs/bnb/udpipe_train/{dataset}.log",
    benchmark:
        benchmark_file("bnb_udpipe_train", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("datasets", [])),
    priority: 1
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_udpipe_train"),
        runtime=job_runtime("bnb_udpipe_train"),
    params:
        options=lambda wildcards: bnb_udpipe_train_options(wildcards.dataset),
        code=code_hash("bnb_udpipe_train"),
    script:
        "../scripts/bnb_udpipe_train.py"


rule bnb_udpipe:
    input:
        unpack(treebank_splits),
        tags="results/models/bnb/{dataset}/tags.parquet",
        model="results/models/bnb/{dataset}/udpipe.model",
        training="results/models/bnb/{dataset}/udpipe.json",
    output:
        records="results/peers/bnb/{dataset}/udpipe.parquet",
        summary="results/peers/bnb/{dataset}/udpipe.json",
    log:
        "results/logs/bnb/udpipe/{dataset}.log",
    benchmark:
        benchmark_file("bnb_udpipe", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=job_mem_mb("bnb_udpipe"),
        runtime=job_runtime("bnb_udpipe"),
    params:
        options=lambda wildcards: bnb_udpipe_options(wildcards.dataset),
        code=code_hash("bnb_udpipe"),
    script:
        "../scripts/bnb_udpipe.py"


rule bnb_errors:
    input:
        unpack(treebank_splits),
        tags="results/models/bnb/{dataset}/tags.parquet",
    output:
        errors="results/models/bnb/{dataset}/cv_errors.parquet",
    log:
        "results/logs/bnb/errors/{dataset}.log",
    benchmark:
        benchmark_file("bnb_errors", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_errors"),
        runtime=job_runtime("bnb_errors"),
    params:
        options=lambda wildcards: bnb_error_options(wildcards.dataset),
        code=code_hash("bnb_errors"),
    script:
        "../scripts/bnb_errors.py"


rule bnb_learning_curve:
    input:
        unpack(treebank_splits),
        tags="results/models/bnb/{dataset}/tags.parquet",
        pruner=lambda wildcards: bnb_model_file(wildcards.dataset, BNB["pruner"]),
    output:
        curve="results/models/bnb/{dataset}/learning_curve.parquet",
    log:
        "results/logs/bnb/learning_curve/{dataset}.log",
    benchmark:
        benchmark_file("bnb_learning_curve", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB.get("learning_curve", {}).get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_learning_curve"),
        runtime=job_runtime("bnb_learning_curve"),
    params:
        options=lambda wildcards: bnb_learning_curve_options(wildcards.dataset),
        code=code_hash("bnb_learning_curve"),
    script:
        "../scripts/bnb_learning_curve.py"


rule bnb_factor_counts:
    input:
        unpack(treebank_splits),
        tags="results/models/bnb/{dataset}/tags.parquet",
    output:
        counts="results/models/bnb/{dataset}/factor_counts.parquet",
    log:
        "results/logs/bnb/factor_counts/{dataset}.log",
    benchmark:
        benchmark_file("bnb_factor_counts", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(BNB_ENGLISH),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_factor_counts"),
        runtime=job_runtime("bnb_factor_counts"),
    params:
        options=lambda wildcards: bnb_factor_count_options(wildcards.dataset),
        code=code_hash("bnb_factor_counts"),
    script:
        "../scripts/bnb_factor_counts.py"


rule bnb_breakdown:
    input:
        unpack(bnb_breakdown_inputs),
    output:
        records="results/models/bnb/{dataset}/breakdown.parquet",
        summary="results/models/bnb/{dataset}/breakdown.json",
    log:
        "results/logs/bnb/breakdown/{dataset}.log",
    benchmark:
        benchmark_file("bnb_breakdown", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice([BNB["breakdown"]["dataset"]] if "breakdown" in BNB else []),
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=job_mem_mb("bnb_breakdown"),
        runtime=job_runtime("bnb_breakdown"),
    params:
        options=lambda wildcards: bnb_breakdown_options(),
        code=code_hash("bnb_breakdown"),
    script:
        "../scripts/bnb_breakdown.py"


rule bnb_tables:
    input:
        runs=bnb_runs(),
        peers=expand("results/peers/bnb/{dataset}/udpipe.parquet", dataset=BNB.get("datasets", [])),
        peer_summaries=expand("results/peers/bnb/{dataset}/udpipe.json", dataset=BNB.get("datasets", [])),
        tags=expand("results/models/bnb/{dataset}/tags.json", dataset=BNB.get("datasets", [])),
        histories=bnb_histories(),
        seed_histories=bnb_seed_histories(),
        errors=expand(
            "results/models/bnb/{dataset}/cv_errors.parquet",
            dataset=BNB.get("error_analysis", {}).get("datasets", []),
        ),
        factor_counts=expand("results/models/bnb/{dataset}/factor_counts.parquet", dataset=BNB_ENGLISH),
        oracles=bnb_oracles(),
        breakdown=bnb_breakdown_files(),
        learning_curves=expand(
            "results/models/bnb/{dataset}/learning_curve.parquet",
            dataset=BNB.get("learning_curve", {}).get("datasets", []),
        ),
        noise=noise_records("bnb", bnb_noise_sets()),
    output:
        table2=report(
            "results/tables/bnb/table2.csv",
            caption=report_caption("bnb", "table2"),
            category="bnb",
        ),
        table3=report(
            "results/tables/bnb/table3.csv",
            caption=report_caption("bnb", "table3"),
            category="bnb",
        ),
        statistics=report(
            "results/tables/bnb/statistics.csv",
            caption=report_caption("bnb", "statistics"),
            category="bnb",
        ),
        audit=report(
            "results/tables/bnb/audit.csv",
            caption=report_caption("bnb", "audit"),
            category="bnb",
        ),
        errors=report(
            "results/tables/bnb/errors.csv",
            caption=report_caption("bnb", "errors"),
            category="bnb",
        ),
        factors=report(
            "results/tables/bnb/factors.csv",
            caption=report_caption("bnb", "factors"),
            category="bnb",
        ),
        tagging=report(
            "results/tables/bnb/tagging.csv",
            caption=report_caption("bnb", "tagging"),
            category="bnb",
        ),
        training=report(
            "results/tables/bnb/training.csv",
            caption=report_caption("bnb", "training"),
            category="bnb",
        ),
        breakdown=report(
            "results/tables/bnb/breakdown.csv",
            caption=report_caption("bnb", "breakdown"),
            category="bnb",
        ),
        learning_curve=report(
            "results/tables/bnb/learning_curve.csv",
            caption=report_caption("bnb", "learning_curve"),
            category="bnb",
        ),
        seeds=report(
            "results/tables/bnb/seeds.csv",
            caption=report_caption("bnb", "seeds"),
            category="bnb",
        ),
        other=expand("results/tables/bnb/{table}.{suffix}", table=BNB_TABLES, suffix=["md", "tex"]),
        figure4=report(
            "results/figures/bnb/figure4.png",
            caption=report_caption("bnb", "figure4"),
            category="bnb",
        ),
        figure5=report(
            "results/figures/bnb/figure5.png",
            caption=report_caption("bnb", "figure5"),
            category="bnb",
        ),
        training_curves=report(
            "results/figures/bnb/training.png",
            caption=report_caption("bnb", "training_curves"),
            category="bnb",
        ),
    log:
        "results/logs/bnb/tables.log",
    benchmark:
        benchmark_file("bnb_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("bnb_tables"),
        runtime=job_runtime("bnb_tables"),
    params:
        settings=shown_settings("bnb", BNB),
        seed=config["seed"],
        code=shown_code(code_hash("bnb_tables")),
    script:
        "../scripts/bnb_tables.py"


# The run's default target and this experiment's results-page section (common.smk).
register_experiment(
    "bnb",
    targets=["results/tables/bnb/table2.csv"],
    tables=expand("results/tables/bnb/{table}.md", table=BNB_TABLES),
    provenance=lambda: run_provenance(bnb_runs()),
)
