"""Join the shards of one decoder variant: every instance of the set exactly once, in the set's order."""

from decoders.harness.jobs import gather_runs
from decoders.workflow import start_script

log = start_script(snakemake)
frame = gather_runs(
    snakemake.input.shards,
    snakemake.input.index,
    snakemake.output[0],
    sample=snakemake.params.sample,
    seed=snakemake.params.seed,
)
log.info("%d records -> %s", len(frame), snakemake.output[0])
