"""Train one chains scorer (config/chains.yaml: chains.models.<model>) on a dataset's train split."""

from decoders.chains.pipeline import train_model
from decoders.workflow import start_script

start_script(snakemake)
train_model(
    snakemake.input.train,
    snakemake.params.spec,
    min_count=snakemake.params.min_count,
    seed=snakemake.params.seed,
    model_out=snakemake.output.model,
    history_out=snakemake.output.history,
)
