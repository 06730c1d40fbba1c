"""Time the scaling table's comparison with networkx again, in a process of its own: the run-to-run noise of its
ratios' intervals."""

from decoders.threads import pin_one_thread

pin_one_thread()  # before numpy and numba load: the job may reserve every core, it measures one thread

from decoders.linking.jobs import scaling_noise  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

start_script(snakemake)
scaling_noise(
    snakemake.input.degrees,
    snakemake.output.measurements,
    snakemake.output.provenance,
    options=snakemake.params.options,
    process=int(snakemake.wildcards.process),
    seed=snakemake.params.seed,
    config=snakemake.config,
)
