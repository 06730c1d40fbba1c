"""The sixth experiment's instance set."""

from decoders.harness.instances import write_instance_shards
from decoders.sixth.data import score_sets
from decoders.workflow import start_script

start_script(snakemake)
sets = score_sets(snakemake.params.sets, snakemake.params.size, snakemake.params.seed)
write_instance_shards(sets, snakemake.output.shards, snakemake.output.index)
