"""Write a test split as bnb instance shards for one model and pruning k, with the projective oracles."""

from decoders.bnb.pipeline import instances_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
instances_job(
    split_inputs(snakemake.input),
    snakemake.input.tags,
    snakemake.output.oracle,
    model_path=snakemake.input.model,
    pruner_path=snakemake.input.pruner,
    shard_paths=snakemake.output.shards,
    index_path=snakemake.output.index,
    **snakemake.params.options,
)
