"""The sixth experiment's table."""

from decoders.tables.sixth import write_sixth_tables
from decoders.workflow import start_script

start_script(snakemake)
write_sixth_tables(snakemake.input.runs, snakemake.output.table1)
