"""Train the CRFsuite peer on a dataset's train split, with the scorer's feature strings."""

from decoders.chains.pipeline import train_crfsuite_model
from decoders.workflow import start_script

start_script(snakemake)
train_crfsuite_model(snakemake.input.train, snakemake.output[0], snakemake.params.options)
