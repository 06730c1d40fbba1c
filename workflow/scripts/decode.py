"""Decode one shard of an instance set with one decoder variant: result records plus provenance."""

from decoders.harness.jobs import decode_shard
from decoders.workflow import start_script

start_script(snakemake)
decode_shard(
    experiment=snakemake.wildcards.experiment,
    dataset=snakemake.wildcards.dataset,
    variant=snakemake.wildcards.variant,
    spec=snakemake.params.spec,
    instances=snakemake.input.instances,
    records=snakemake.output.records,
    provenance=snakemake.output.provenance,
    harness=snakemake.params.harness,
    seed=snakemake.params.seed,
    config=snakemake.config,
    params_file=snakemake.input.get("params_file"),
)
