"""The chains tables (1, 2A, 2B, CG statistics, speed by length, peer) and figures (Fig. 2, CG statistics, speed by
length) from the records."""

from pathlib import Path

from decoders.tables.chains import write_chains_outputs
from decoders.workflow import start_script

start_script(snakemake)
write_chains_outputs(
    snakemake.input.runs,
    snakemake.params.settings,
    tables=Path(snakemake.output.table1).parent,
    figures=Path(snakemake.output.figure2).parent,
    noise_paths=snakemake.input.noise,
    seed=snakemake.params.seed,
    seed_runs=snakemake.input.seed_runs,
    seed_histories=snakemake.input.seed_histories,
)
