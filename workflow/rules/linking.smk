# linking: entity linking by graph-distance minimisation (Blanco, Boldi and Marino).
# Wikispeedia graph + articles -> NEL instance sets (hyperlinks, ELEVANT) and a synthetic Wikipedia-size graph
# with planted instances -> decode every variant (decode.smk) -> Table 1, Jaccard, scaling table, and the
# candidate-count sweep's table and figure.

from decoders.linking.sweep import sweep_runs, sweep_variants

# The sweep's variants (<algorithm>-top<c>-<connection>) are generated from experiments.linking.sweep and added
# to the configuration's variants, so that the shared decode and gather rules run them like any other variant.
LINKING_SWEEP = sweep_variants(LINKING)
if _clash := sorted(set(LINKING_SWEEP) & set(LINKING.get("variants", {}))):
    raise ConfigError(
        f"experiments.linking.variants: {_clash} clash with the sweep's generated variant names"
    )
if LINKING_SWEEP:
    LINKING["variants"].update(LINKING_SWEEP)

LINKING_SWEEP_RUNS = sweep_runs(LINKING)


LINKING_SWEEP_OUTPUTS = (
    {
        "sweep": report(
            "results/tables/linking/sweep.csv",
            caption=report_caption("linking", "sweep"),
            category="linking",
        ),
        "sweep_other": expand("results/tables/linking/sweep.{suffix}", suffix=["md", "tex"]),
        "sweep_figure": report(
            "results/figures/linking/sweep.png",
            caption=report_caption("linking", "sweep"),
            category="linking",
        ),
    }
    if LINKING_SWEEP_RUNS
    else {}
)


rule linking_instances_wikispeedia:
    input:
        articles=prepared("wikispeedia", "articles.parquet"),
        graph=LINKING_GRAPH,
        links=raw(DATASETS["wikispeedia"]["files"]["links"]),
    output:
        shards=linking_shards("wikispeedia"),
        index="results/instances/linking/wikispeedia/index.tsv",
        stats="results/instances/linking/wikispeedia/stats.json",
    log:
        "results/logs/linking/instances/wikispeedia.log",
    benchmark:
        benchmark_file("linking_instances_wikispeedia", "wikispeedia")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("linking_instances_wikispeedia"),
        runtime=job_runtime("linking_instances_wikispeedia"),
    params:
        options=LINKING.get("instances", {}),
        seed=config["seed"],
        code=code_hash("linking_instances"),
    script:
        "../scripts/linking_instances.py"


# A set of benchmark documents (ELEVANT's, or an entity-fishing set's such as IITB): the documents with two
# mentions mapped into the graph, candidates retrieved by BM25 from the Wikispeedia articles.
rule linking_instances_documents:
    input:
        documents=prepared("{set}", "documents.parquet"),
        mentions=prepared("{set}", "mentions.parquet"),
        articles=prepared("wikispeedia", "articles.parquet"),
        graph=LINKING_GRAPH,
    output:
        shards=expand("results/instances/linking/{{set}}/shard-{shard}.pkl", shard=shard_range("linking")),
        index="results/instances/linking/{set}/index.tsv",
        stats="results/instances/linking/{set}/stats.json",
    log:
        "results/logs/linking/instances/{set}.log",
    benchmark:
        benchmark_file("linking_instances_documents", "{set}")
    wildcard_constraints:
        set=wildcard_choice(DOCUMENT_SETS),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("linking_instances_documents"),
        runtime=job_runtime("linking_instances_documents"),
    params:
        options=LINKING.get("instances", {}),
        seed=config["seed"],
        code=code_hash("linking_instances"),
    script:
        "../scripts/linking_instances.py"


rule linking_synthetic_graph:
    input:
        degrees=LINKING_GRAPH,
    output:
        graph=SYNTHETIC_GRAPH,
        stats="results/graphs/linking/synthetic.json",
    log:
        "results/logs/linking/synthetic_graph.log",
    benchmark:
        benchmark_file("linking_synthetic_graph", "synthetic")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("linking_synthetic_graph"),
        runtime=job_runtime("linking_synthetic_graph"),
    params:
        options=LINKING.get("synthetic", {}),
        seed=config["seed"],
        code=code_hash("linking_synthetic_graph"),
    script:
        "../scripts/linking_synthetic_graph.py"


rule linking_instances_synthetic:
    input:
        graph=SYNTHETIC_GRAPH,
    output:
        shards=linking_shards("synthetic"),
        index="results/instances/linking/synthetic/index.tsv",
        stats="results/instances/linking/synthetic/stats.json",
    log:
        "results/logs/linking/instances/synthetic.log",
    benchmark:
        benchmark_file("linking_instances_synthetic", "synthetic")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("linking_instances_synthetic"),
        runtime=job_runtime("linking_instances_synthetic"),
    params:
        options=LINKING.get("synthetic", {}),
        seed=config["seed"],
        code=code_hash("linking_instances"),
    script:
        "../scripts/linking_instances.py"


rule linking_scaling:
    input:
        graph=SYNTHETIC_GRAPH,
        graph_stats="results/graphs/linking/synthetic.json",
        shards=linking_shards("synthetic"),
        degrees=LINKING_GRAPH,
    output:
        measurements="results/runs/linking/scaling.parquet",
        provenance="results/runs/linking/scaling.json",
    log:
        "results/logs/linking/scaling.log",
    benchmark:
        benchmark_file("linking_scaling", "scaling")
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=job_mem_mb("linking_scaling"),
        runtime=job_runtime("linking_scaling"),
    params:
        options=LINKING.get("scaling", {}),
        seed=config["seed"],
        code=code_hash("linking_scaling"),
    script:
        "../scripts/linking_scaling.py"


# The scaling table's comparison with networkx timed again in scaling.processes jobs of their own (the largest graph
# networkx holds, rebuilt from the seed): the run-to-run noise of its ratios' intervals.
rule linking_scaling_noise:
    input:
        degrees=LINKING_GRAPH,
    output:
        measurements="results/noise/linking-scaling/process-{process}.parquet",
        provenance="results/noise/linking-scaling/process-{process}.json",
    log:
        "results/logs/noise/linking-scaling/process-{process}.log",
    benchmark:
        benchmark_file("linking_scaling_noise", "scaling/process-{process}")
    wildcard_constraints:
        process=r"\d+",
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=job_mem_mb("linking_scaling_noise"),
        runtime=job_runtime("linking_scaling_noise"),
    params:
        options=LINKING.get("scaling", {}),
        seed=config["seed"],
        code=code_hash("linking_scaling_noise"),
    script:
        "../scripts/linking_scaling_noise.py"


rule linking_tables:
    input:
        **{f"shards_{s}": linking_shards(s) for s in NEL_SETS},
        # the shards name the graph their instances are on; the gold links' distance cost is computed on it
        runs=linking_runs(),
        instances=expand(
            "results/instances/linking/{set}/stats.json",
            set=[*NEL_SETS, "synthetic"],
        ),
        graph=LINKING_GRAPH,
        scaling="results/runs/linking/scaling.parquet",
        scaling_noise=expand(
            "results/noise/linking-scaling/process-{process}.parquet",
            process=range(1, LINKING.get("scaling", {}).get("processes", 0) + 1),
        ),
        graph_stats="results/graphs/linking/synthetic.json",
        sweep=LINKING_SWEEP_RUNS,
    output:
        **LINKING_SWEEP_OUTPUTS,
        table1=report(
            "results/tables/linking/table1.csv",
            caption=report_caption("linking", "table1"),
            category="linking",
        ),
        scaling=report(
            "results/tables/linking/scaling.csv",
            caption=report_caption("linking", "scaling"),
            category="linking",
        ),
        exact=report(
            "results/tables/linking/exact.csv",
            caption=report_caption("linking", "exact"),
            category="linking",
        ),
        other=expand(
            "results/tables/linking/{table}.{suffix}",
            table=LINKING_TABLES,
            suffix=["md", "tex"],
        ),
        instances=report(
            "results/tables/linking/instances.csv",
            caption=report_caption("linking", "instances"),
            category="linking",
        ),
        jaccard=report(
            "results/tables/linking/jaccard.csv",
            caption=report_caption("linking", "jaccard"),
            category="linking",
        ),
    log:
        "results/logs/linking/tables.log",
    benchmark:
        benchmark_file("linking_tables", "tables")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("linking_tables"),
        runtime=job_runtime("linking_tables"),
    params:
        settings=shown_settings("linking", LINKING),
        sets=NEL_SETS,
        seed=config["seed"],
        code=shown_code(code_hash("linking_tables")),
    script:
        "../scripts/linking_tables.py"


# The run's default target and this experiment's results-page section (common.smk).
register_experiment(
    "linking",
    targets=["results/tables/linking/table1.csv"],
    tables=expand("results/tables/linking/{table}.md", table=LINKING_TABLES)
    + (["results/tables/linking/sweep.md"] if LINKING_SWEEP_RUNS else []),
    provenance=lambda: [
        *run_provenance(linking_runs()),
        *run_provenance(LINKING_SWEEP_RUNS),
        "results/runs/linking/scaling.json",
    ],
)
