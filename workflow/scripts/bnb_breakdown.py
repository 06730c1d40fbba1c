"""Where the B&B's time goes on one instance set (timed: the job may reserve every core; it measures one thread)."""

from decoders.threads import pin_one_thread

pin_one_thread()  # before numpy and numba load

from decoders.bnb.breakdown import breakdown_job  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

start_script(snakemake)
breakdown_job(
    snakemake.input.index,
    snakemake.input.shards,
    snakemake.input.model,
    snakemake.input.get("pruner"),
    snakemake.output.records,
    snakemake.output.summary,
    **snakemake.params.options,
)
