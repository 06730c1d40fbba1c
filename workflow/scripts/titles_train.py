"""Train the titles scorers (selection classifier, bigram model) of one dataset."""

from decoders.titles.jobs import train_scorer
from decoders.workflow import start_script

start_script(snakemake)
train_scorer(
    snakemake.input.train,
    snakemake.input.test,
    snakemake.output.model,
    snakemake.output.stats,
    options=snakemake.params.options,
    seed=snakemake.params.seed,
)
