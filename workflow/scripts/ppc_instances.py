"""A dataset's test sentences as ppc instance shards (every arc; the models by path)."""

from decoders.parsing.treebank import split_inputs
from decoders.ppc.pipeline import instances_job
from decoders.workflow import start_script

start_script(snakemake)
instances_job(
    split_inputs(snakemake.input),
    snakemake.input.first,
    snakemake.input.model,
    snakemake.output.shards,
    snakemake.output.index,
    dev_fraction=snakemake.params.dev_fraction,
)
