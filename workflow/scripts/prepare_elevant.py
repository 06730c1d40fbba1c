"""ELEVANT entity-linking benchmarks: documents and gold mentions, names mapped to Wikispeedia articles."""

from decoders.corpora.prepare import prepare_elevant
from decoders.workflow import start_script

log = start_script(snakemake)
inputs = {role: path for role, path in snakemake.input.items() if role != "articles"}
stats = prepare_elevant(
    snakemake.wildcards.dataset,
    inputs,
    dict(snakemake.output.items()),
    articles=snakemake.input.articles,
    limit=snakemake.params.limit,
)
log.info("%s", stats["splits"])
