"""Time a seeded sample of an instance set again with each compared variant, in a process of its own: the
run-to-run noise of the speed ratios' intervals."""

from decoders.threads import pin_one_thread

pin_one_thread()  # before numpy and numba load: the job may reserve every core, it measures one thread

from decoders.harness.jobs import retime_sample  # noqa: E402
from decoders.workflow import start_script  # noqa: E402

start_script(snakemake)
retime_sample(
    experiment=snakemake.wildcards.experiment,
    dataset=snakemake.wildcards.dataset,
    process=int(snakemake.wildcards.process),
    variants=snakemake.params.variants,
    shards=snakemake.input.shards,
    index=snakemake.input.index,
    records=snakemake.output.records,
    provenance=snakemake.output.provenance,
    harness=snakemake.params.harness,
    seed=snakemake.params.seed,
    config=snakemake.config,
    params_files=snakemake.params.params_files,
)
