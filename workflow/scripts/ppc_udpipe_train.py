"""The UDPipe 1 peer's training on a ppc dataset's training split (one thread, not timed)."""

from decoders.threads import pin_one_thread

pin_one_thread()

from decoders.parsing.treebank import split_inputs  # noqa: E402
from decoders.ppc.udpipe_peer import udpipe_train_job  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

start_script(snakemake)
udpipe_train_job(
    split_inputs(snakemake.input),
    snakemake.output.model,
    snakemake.output.training,
    **snakemake.params.options,
)
