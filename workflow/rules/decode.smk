# Decoding, shared by every experiment. An experiment's own rules score its test set and write the instance set
# results/instances/<experiment>/<dataset>/{shard-<i>.pkl,index.tsv} (decoders.harness.instances); then one job
# per (variant, shard) decodes a shard with one thread under the hard time limit, and one job per variant
# gathers the shards, checking that every instance was decoded exactly once.


rule decode:
    input:
        unpack(decode_inputs),
    output:
        records=f"{RUNS}/shard-{{shard}}.parquet",
        provenance=f"{RUNS}/shard-{{shard}}.json",
    log:
        f"results/logs/decode/{{experiment}}/{{dataset}}/{{variant}}/shard-{{shard}}.log",
    conda:
        CONDA_ENV
    threads: config["harness"]["threads"]
    params:
        spec=variant_spec,
        harness=lambda wildcards: {
            **config["harness"],
            **config["experiments"][wildcards.experiment].get("harness", {}),
        },
        seed=config["seed"],
        code=lambda wildcards: code_hash("harness", wildcards.experiment),
    script:
        "../scripts/decode.py"


rule gather_runs:
    input:
        shards=shard_records,
        index=f"{INSTANCES}/index.tsv",
    output:
        f"{RUNS}.parquet",
    log:
        "results/logs/gather/{experiment}/{dataset}/{variant}.log",
    conda:
        CONDA_ENV
    params:
        code=code_hash("harness"),
    script:
        "../scripts/gather_runs.py"
