"""Write one linking instance set: Wikispeedia hyperlinks, a benchmark's documents (ELEVANT, IITB, ...), or planted
synthetic instances."""

from decoders.linking import jobs
from decoders.workflow import start_script

start_script(snakemake)
outputs = (snakemake.output.shards, snakemake.output.index, snakemake.output.stats)
if snakemake.rule.endswith("wikispeedia"):
    jobs.build_wikispeedia_set(
        snakemake.input.articles,
        snakemake.input.graph,
        snakemake.input.links,
        *outputs,
        options=snakemake.params.options,
        seed=snakemake.params.seed,
    )
elif snakemake.rule.endswith("documents"):
    jobs.build_document_set(
        snakemake.input.documents,
        snakemake.input.mentions,
        snakemake.input.articles,
        snakemake.input.graph,
        *outputs,
        options=snakemake.params.options,
    )
else:
    jobs.build_synthetic_set(
        snakemake.input.graph, *outputs, options=snakemake.params.options, seed=snakemake.params.seed
    )
