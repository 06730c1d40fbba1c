"""Decode one shard of an instance set with one decoder variant: result records plus provenance."""

from decoders.threads import pin_one_thread

pin_one_thread()  # before numpy and numba load: the job may reserve every core, it measures one thread

import sys  # noqa: E402

from decoders.harness.jobs import decode_shard, failure_lines  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

log = start_script(snakemake)
frame = decode_shard(
    experiment=snakemake.wildcards.experiment,
    dataset=snakemake.wildcards.dataset,
    variant=snakemake.wildcards.variant,
    spec=snakemake.params.spec,
    instances=snakemake.input.instances,
    records=snakemake.output.records,
    provenance=snakemake.output.provenance,
    harness=snakemake.params.harness,
    seed=snakemake.params.seed,
    config=snakemake.config,
    params_file=snakemake.input.get("params_file"),
    index=snakemake.input.get("index"),
)
for line in failure_lines(frame):  # in the job's log and where Snakemake's output goes
    log.warning(line)
    print(f"decode shard {snakemake.wildcards.shard}: {line}", file=sys.__stderr__, flush=True)
