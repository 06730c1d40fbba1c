"""UniversalNER joined with UD XPOS on sentence id -> joint (POS, NER) sentence tables."""

from decoders.corpora.prepare import prepare_uner
from decoders.workflow import start_script

start_script(snakemake)
prepare_uner(
    snakemake.wildcards.dataset,
    dict(snakemake.input.items()),
    dict(snakemake.output.items()),
    limit=snakemake.params.limit,
)
