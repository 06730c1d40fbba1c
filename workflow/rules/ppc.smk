# ppc: parse, price and cut for grandparent parsing LPs (Riedel et al. 2012).
# prepared treebank (with lemmas and features) -> the first-order MST parser and the grandparent parser ->
# instance set "<dataset>" (the test sentences, every arc) -> decode every variant (decode.smk).


rule ppc_train:
    input:
        unpack(treebank_splits),
    output:
        first="results/models/ppc/{dataset}/first-order.npz",
        model="results/models/ppc/{dataset}/grandparent.npz",
        history="results/models/ppc/{dataset}/history.json",
    log:
        "results/logs/ppc/train/{dataset}.log",
    benchmark:
        benchmark_file("ppc_train", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(PPC.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_train"),
        runtime=job_runtime("ppc_train"),
    params:
        options=lambda wildcards: ppc_train_options(wildcards.dataset),
        code=code_hash(*PPC_MODEL_CODE),
    script:
        "../scripts/ppc_train.py"


rule ppc_instances:
    input:
        unpack(treebank_splits),
        first="results/models/ppc/{dataset}/first-order.npz",
        model="results/models/ppc/{dataset}/grandparent.npz",
    output:
        shards=expand(
            "results/instances/ppc/{{dataset}}/shard-{shard}.pkl", shard=range(config["harness"]["shards"])
        ),
        index="results/instances/ppc/{dataset}/index.tsv",
    log:
        "results/logs/ppc/instances/{dataset}.log",
    benchmark:
        benchmark_file("ppc_instances", "{dataset}")
    wildcard_constraints:
        dataset=wildcard_choice(PPC.get("datasets", [])),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("ppc_instances"),
        runtime=job_runtime("ppc_instances"),
    params:
        dev_fraction=PPC.get("dev_fraction", 0.1),
        code=code_hash(*PPC_MODEL_CODE, "ppc/instance.py", "harness/instances.py", "harness/sharding.py"),
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
        code=code_hash("ppc/pipeline.py", "parsing"),
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
        code=code_hash("ppc/pipeline.py", "parsing"),
    script:
        "../scripts/ppc_udpipe.py"
