"""The titles tables (Table 1, units, Fig. 2 points, examples) and figures (Fig. 2, time vs k)."""

from pathlib import Path

from decoders.tables.titles import write_titles_outputs
from decoders.workflow import start_script

start_script(snakemake)
write_titles_outputs(
    snakemake.input.runs,
    snakemake.params.settings,
    noise_paths=snakemake.input.noise,
    seed=snakemake.params.seed,
    scorer_stats=snakemake.input.scorers,
    instance_stats=snakemake.input.instances,
    beam_searches=snakemake.input.beams,
    shards=snakemake.input.shards,
    tables=Path(snakemake.output.table1).parent,
    figures=Path(snakemake.output.figure2).parent,
)
