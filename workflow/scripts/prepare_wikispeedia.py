"""Wikispeedia: articles with plaintext, and the symmetrised largest connected component as CSR arrays."""

from decoders.corpora.prepare import prepare_wikispeedia
from decoders.workflow import start_script

log = start_script(snakemake)
inputs = dict(snakemake.input.items())
stats = prepare_wikispeedia(snakemake.wildcards.dataset, inputs, dict(snakemake.output.items()))
log.info("%s", stats["splits"])
