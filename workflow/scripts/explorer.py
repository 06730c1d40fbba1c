"""The explorer beside the results page: a static site of the page's tables and the run's per-instance records, and
the same as one HTML file for the report."""

from pathlib import Path

from decoders.tables.explorer import build
from decoders.workflow import start_script

log = start_script(snakemake)
index = build(Path(snakemake.input.page).parent, snakemake.output.site, single=snakemake.output.single)
log.info("explorer -> %s", index)
