"""Build the Wikipedia-size synthetic graph (degrees resampled from Wikispeedia's)."""

from decoders.linking.jobs import build_synthetic_graph
from decoders.workflow import start_script

start_script(snakemake)
build_synthetic_graph(
    snakemake.input.degrees,
    snakemake.output.graph,
    snakemake.output.stats,
    options=snakemake.params.options,
    seed=snakemake.params.seed,
)
