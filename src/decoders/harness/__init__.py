"""The benchmark harness: decoder protocol and registry, runner with hard time limits, records, provenance, shards.

An experiment plugs in by registering decoders in ``decoders.<experiment>.decoders`` with
``@register(experiment, name)`` (and defining there ``check_structure(instance, structure)``,
``verify(instance, solution)`` and ``evaluate(instance, solution)``, which every decoder of the experiment gets,
whatever module it lives in), writing its scored
instance set with :func:`decoders.harness.instances.write_instance_shards` and naming its variants in
config/<experiment>.yaml; workflow/rules/decode.smk then runs :func:`decoders.harness.jobs.decode_shard` per (variant, shard)
and :func:`decoders.harness.jobs.gather_runs` per variant. :func:`decoders.harness.library.decode_batch` runs
a registered decoder over instances outside the workflow (the library's batch helper).
"""

from decoders.harness.library import decode_batch
from decoders.harness.protocol import (
    STATUSES,
    Decoder,
    Solution,
    checks_of,
    decoder_problems,
    get_decoder,
    known_decoders,
    register,
)
from decoders.harness.provenance import collect_provenance, config_hash, thread_settings, write_provenance
from decoders.harness.records import (
    RECORD_COLUMNS,
    RecordError,
    make_record,
    mark_exact,
    read_records,
    records_frame,
    validate_records,
    write_records,
)
from decoders.harness.runner import WorkerError, run_instances
from decoders.harness.sharding import gather_shards, shard_of, split_into_shards

__all__ = [
    "RECORD_COLUMNS",
    "STATUSES",
    "Decoder",
    "RecordError",
    "Solution",
    "WorkerError",
    "checks_of",
    "collect_provenance",
    "config_hash",
    "decode_batch",
    "decoder_problems",
    "gather_shards",
    "get_decoder",
    "known_decoders",
    "make_record",
    "mark_exact",
    "read_records",
    "records_frame",
    "register",
    "run_instances",
    "shard_of",
    "split_into_shards",
    "thread_settings",
    "validate_records",
    "write_provenance",
    "write_records",
]
