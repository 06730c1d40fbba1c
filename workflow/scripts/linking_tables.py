"""The linking tables (Table 1, instance statistics, Jaccard, scaling, sweep) from the records and measurements."""

from pathlib import Path

from decoders.tables.linking import write_linking_outputs
from decoders.workflow import start_script

start_script(snakemake)
write_linking_outputs(
    snakemake.input.runs,
    snakemake.params.settings,
    instance_stats=snakemake.input.instances,
    shards={name: snakemake.input[f"shards_{name}"] for name in snakemake.params.sets},
    scaling=snakemake.input.scaling,
    graph_stats=snakemake.input.graph_stats,
    tables=Path(snakemake.output.table1).parent,
    sweep_paths=snakemake.input.sweep,
    figures=Path(snakemake.output.sweep_figure).parent if snakemake.input.sweep else None,
    scaling_noise=snakemake.input.scaling_noise,
    seed=snakemake.params.seed,
)
