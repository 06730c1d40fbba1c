"""A UD treebank (CoNLL-U) with its own train/dev/test files -> sentence tables."""

from decoders.corpora.prepare import prepare_conllu
from decoders.workflow import start_script

start_script(snakemake)
prepare_conllu(
    snakemake.wildcards.dataset,
    dict(snakemake.input.items()),
    dict(snakemake.output.items()),
    limit=snakemake.params.limit,
    tags=snakemake.params.tags,
)
