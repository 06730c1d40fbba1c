"""Train one parser model of a dataset with the averaged perceptron (dev UAS picks the epoch)."""

from decoders.bnb.pipeline import train_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
train_job(
    split_inputs(snakemake.input),
    snakemake.input.tags,
    snakemake.output.model,
    snakemake.output.history,
    pruner=snakemake.input.get("pruner"),
    start=snakemake.input.get("start"),
    **snakemake.params.options,
)
