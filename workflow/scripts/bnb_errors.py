"""The second-order baseline's errors in cross-validation on a dataset's training split."""

from decoders.bnb.errors import errors_job
from decoders.parsing.treebank import split_inputs
from decoders.workflow import start_script

start_script(snakemake)
errors_job(
    split_inputs(snakemake.input), snakemake.input.tags, snakemake.output.errors, **snakemake.params.options
)
