"""The CoNLL-X Danish treebank -> document-based train/test sentence tables."""

from decoders.corpora.prepare import prepare_conllx
from decoders.workflow import start_script

start_script(snakemake)
prepare_conllx(
    snakemake.wildcards.dataset,
    dict(snakemake.input.items()),
    dict(snakemake.output.items()),
    documents=snakemake.input.documents,
    limit=snakemake.params.limit,
)
