"""A parser model's dev UAS trained on shares of a dataset's training documents."""

from decoders.bnb.pipeline import learning_curve_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
learning_curve_job(
    split_inputs(snakemake.input),
    snakemake.input.tags,
    snakemake.output.curve,
    pruner=snakemake.input.pruner,
    **snakemake.params.options,
)
