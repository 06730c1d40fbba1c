"""The corpora table: counts of every prepared dataset and split, beside the papers' corpus sizes."""

from pathlib import Path

from decoders.tables.captions import caption
from decoders.tables.corpora import corpora_notes, corpora_table, load_stats
from decoders.tables.writers import write_table
from decoders.workflow import start_script

log = start_script(snakemake)
stats = load_stats(snakemake.input.stats)
table = corpora_table(stats, snakemake.params.experiments)
stem = Path(snakemake.output.csv).with_suffix("")
write_table(
    table,
    stem,
    title="Prepared corpora",
    caption=caption("shared", "corpora"),
    notes=corpora_notes(stats),
)
log.info("%d rows -> %s.{csv,md,tex}", len(table), stem)
