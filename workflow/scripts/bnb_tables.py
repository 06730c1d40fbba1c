"""The bnb tables (Tables 2 and 3, B&B statistics, the audit, tagging, training, hand-crafted factors, seed
variance) and figures (Figs. 4 and 5)."""

from pathlib import Path

from decoders.tables.bnb import write_bnb_outputs
from decoders.workflow import start_script

start_script(snakemake)
write_bnb_outputs(
    snakemake.input.runs,
    snakemake.params.settings,
    peers=snakemake.input.peers,
    errors=snakemake.input.errors,
    factor_counts=snakemake.input.factor_counts,
    tag_summaries=snakemake.input.tags,
    histories=snakemake.input.histories,
    seed_histories=snakemake.input.seed_histories,
    run_seed=snakemake.params.seed,
    noise_paths=snakemake.input.noise,
    oracles=snakemake.input.oracles,
    learning_curves=snakemake.input.learning_curves,
    breakdown=next((p for p in snakemake.input.breakdown if p.endswith(".parquet")), None),
    tables=Path(snakemake.output.table2).parent,
    figures=Path(snakemake.output.figure4).parent,
)
