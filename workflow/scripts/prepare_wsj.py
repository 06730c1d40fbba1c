"""The NLTK WSJ sample -> words, PTB tags and heads, document-based train/test sentence tables."""

from decoders.corpora.prepare import prepare_wsj
from decoders.workflow import start_script

start_script(snakemake)
prepare_wsj(
    snakemake.wildcards.dataset,
    dict(snakemake.input.items()),
    dict(snakemake.output.items()),
    limit=snakemake.params.limit,
)
