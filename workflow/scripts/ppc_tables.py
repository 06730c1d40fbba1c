"""The ppc tables (Tables 1 and 2, PPC statistics, the audit, training, seed variance, the AD3 peer) and figures
(time vs length, BF's growth)."""

from pathlib import Path

from decoders.tables.ppc import write_ppc_outputs
from decoders.workflow import start_script

start_script(snakemake)
write_ppc_outputs(
    snakemake.input.runs,
    snakemake.params.settings,
    peers=snakemake.input.peers,
    histories=snakemake.input.histories,
    seed_runs=snakemake.input.seed_runs,
    seed_histories=snakemake.input.seed_histories,
    run_seed=snakemake.params.seed,
    noise_paths=snakemake.input.noise,
    seed=snakemake.params.seed,
    tables=Path(snakemake.output.table1).parent,
    figures=Path(snakemake.output.time_vs_length).parent,
)
