"""Train a dataset's first-order MST parser and grandparent parser (epochs chosen on dev)."""

from decoders.parsing.treebank import split_inputs
from decoders.ppc.pipeline import train_job
from decoders.workflow import start_script

start_script(snakemake)
options = dict(snakemake.params.options)
train_job(
    split_inputs(snakemake.input),
    snakemake.output.first,
    snakemake.output.model,
    snakemake.output.history,
    dev_fraction=options.pop("dev_fraction"),
    **options,
)
