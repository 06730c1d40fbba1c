"""The hand-crafted factors' candidates and gold firings per split of an English bnb dataset."""

from decoders.bnb.pipeline import factor_counts_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
factor_counts_job(
    split_inputs(snakemake.input), snakemake.input.tags, snakemake.output.counts, **snakemake.params.options
)
