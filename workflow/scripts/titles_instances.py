"""Score a dataset's test sections into word graphs and write the instance set."""

from decoders.titles.jobs import build_instance_set
from decoders.workflow import start_script

start_script(snakemake)
build_instance_set(
    snakemake.input.test,
    snakemake.input.model,
    snakemake.output.shards,
    snakemake.output.index,
    snakemake.output.stats,
)
