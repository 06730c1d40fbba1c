"""The UDPipe 1 peer parsing a ppc dataset's test split (timed: the job may reserve every core)."""

from decoders.threads import pin_one_thread

pin_one_thread()  # the job may reserve every core; it measures one thread

from decoders.parsing.treebank import split_inputs  # noqa: E402
from decoders.ppc.pipeline import udpipe_job  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

start_script(snakemake)
udpipe_job(
    split_inputs(snakemake.input),
    snakemake.input.model,
    snakemake.input.training,
    snakemake.output.records,
    snakemake.output.summary,
    dev_fraction=snakemake.params.dev_fraction,
)
