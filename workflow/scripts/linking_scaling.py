"""Time graph building, BFS, hitting distance and PageRank at scale, with networkx as the peer."""

from decoders.linking.jobs import scaling
from decoders.workflow import start_script

start_script(snakemake)
scaling(
    snakemake.input.graph,
    snakemake.input.graph_stats,
    snakemake.input.shards,
    snakemake.input.degrees,
    snakemake.output.measurements,
    snakemake.output.provenance,
    options=snakemake.params.options,
    seed=snakemake.params.seed,
    config=snakemake.config,
)
