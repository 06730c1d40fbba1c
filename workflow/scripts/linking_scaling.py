"""Time graph building, BFS, hitting distance and PageRank at scale, with networkx as the peer."""

from decoders.threads import pin_one_thread

pin_one_thread()  # before numpy and numba load: the job may reserve every core, it measures one thread

from decoders.linking.jobs import scaling  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

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
