"""Score a test split with a trained model and write its instance set (shards + index)."""

from decoders.chains.pipeline import build_instances
from decoders.workflow import start_script

start_script(snakemake)
build_instances(
    snakemake.input.test,
    snakemake.input.model,
    snakemake.output.shards,
    snakemake.output.index,
    crfsuite_path=snakemake.input.get("crfsuite"),
    features=snakemake.wildcards.set.endswith("~features"),
)
