# Decoding, shared by every experiment. An experiment's own rules score its test set and write the instance set
# results/instances/<experiment>/<dataset>/{shard-<i>.pkl,index.tsv} (decoders.harness.instances); then one job
# per (variant, shard) decodes a shard with one thread under the hard time limit, and one job per variant
# gathers the shards, checking that every instance was decoded exactly once. A decode job reserves every core
# of a local run (harness.exclusive, see timed_threads), so no other job disturbs its timings.
# On a cluster the decode jobs of a variant and their gather form one group (`group: "decode"`), and
# profiles/slurm merges several such groups (group-components) into one SLURM job, so that thousands of short
# decodes do not flood the scheduler. Local runs ignore groups: each job runs as before.


rule decode:
    input:
        unpack(decode_inputs),
    output:
        records=f"{RUNS}/shard-{{shard}}.parquet",
        provenance=f"{RUNS}/shard-{{shard}}.json",
    log:
        f"results/logs/decode/{{experiment}}/{{dataset}}/{{variant}}/shard-{{shard}}.log",
    benchmark:
        benchmark_file("decode", "{experiment}/{dataset}/{variant}/shard-{shard}")
    group:
        "decode"
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=decode_mem_mb,
        runtime=decode_runtime,
    params:
        spec=variant_params,
        harness=lambda wildcards: harness_settings(wildcards.experiment),
        seed=config["seed"],
        code=lambda wildcards: code_hash("decode", *decoder_modules(wildcards)),
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
    benchmark:
        benchmark_file("gather_runs", "{experiment}/{dataset}/{variant}")
    group:
        "decode"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("gather_runs"),
        runtime=job_runtime("gather_runs"),
    params:
        sample=lambda wildcards: variant_spec(wildcards).get("sample"),
        seed=config["seed"],
        code=code_hash("gather_runs"),
    script:
        "../scripts/gather_runs.py"


# Run-to-run noise: a seeded sample of each instance set timed again by every variant whose speed the tables
# compare (paired with harness.reference, as in the decode jobs), once per job for each of harness.noise.processes
# jobs: each a process of its own, so that the spread of a ratio between them is the noise its interval must cover
# (decoders.tables.intervals). Exclusive like a decode job (timed_threads) and under the same timing rules.
rule noise:
    input:
        unpack(noise_inputs),
    output:
        records=f"{NOISE}/process-{{process}}.parquet",
        provenance=f"{NOISE}/process-{{process}}.json",
    log:
        "results/logs/noise/{experiment}/{dataset}/process-{process}.log",
    benchmark:
        benchmark_file("noise", "{experiment}/{dataset}/process-{process}")
    wildcard_constraints:
        process=r"\d+",
    conda:
        CONDA_ENV
    threads: timed_threads
    resources:
        mem_mb=noise_mem_mb,
        runtime=noise_runtime,
    params:
        variants=noise_variants,
        params_files=noise_params_files,
        harness=lambda wildcards: harness_settings(wildcards.experiment),
        seed=config["seed"],
        code=lambda wildcards: code_hash("noise", *noise_modules(wildcards)),
    script:
        "../scripts/noise.py"
