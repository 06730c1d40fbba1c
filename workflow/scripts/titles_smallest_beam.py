"""Find the smallest beam width that reaches the certified optimum on every test title."""

from decoders.titles.jobs import smallest_beam
from decoders.workflow import start_script

start_script(snakemake)
smallest_beam(
    snakemake.input.shards,
    snakemake.input.exact,
    snakemake.output.params,
    snakemake.output.search,
    max_width=snakemake.params.max_width,
)
