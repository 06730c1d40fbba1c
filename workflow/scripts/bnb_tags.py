"""Tag every split of a parsing dataset (gold, or the jackknifed chains tagger) and record the accuracy."""

from decoders.bnb.pipeline import tags_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
tags_job(
    split_inputs(snakemake.input), snakemake.output.tags, snakemake.output.summary, **snakemake.params.options
)
