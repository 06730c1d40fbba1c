"""Scored instance sets on disk: an experiment writes them in shards, each decode job reads one shard.

``results/instances/<experiment>/<dataset>/shard-<i>.pkl`` holds a list of ``(instance_id, size, instance)``
(pickled: the files are made and read by this workflow only), after a header with the pickle's sha256, so that a
shard truncated or changed after it was written is refused by name (a pickle has no checksum of its own, and a
changed byte inside an array would be read as another score); ``index.tsv`` beside them lists every instance
id, size and shard in the set's order, so that the gather step knows what to expect without loading instances.
Shards are balanced by instance size (:func:`decoders.harness.sharding.split_into_shards`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from decoders.checks import check_int, check_path, check_sequence
from decoders.errors import CorpusFormatError
from decoders.harness.sharding import split_into_shards
from decoders.io import atomic_path, write_text_atomic

Instance = tuple[str, int, Any]

SHARD_MAGIC = b"decoders instance shard 1\n"
"""A shard file's first bytes; the sha256 of the pickle that follows comes next."""


def write_instance_shards(
    instances: Sequence[Instance], shard_paths: Sequence[str | Path], index_path
) -> None:
    """Deal ``instances`` into ``len(shard_paths)`` size-balanced shards; write them and the index. ``instances``
    is a sequence of ``(instance_id, size, instance)`` (size an integer >= 0), ``shard_paths`` a sequence of
    paths (a single path is not one: it would be dealt letter by letter); each a ValueError naming it."""
    items = []
    for number, item in enumerate(check_sequence(instances, "instances")):
        if not isinstance(item, tuple | list) or len(item) != 3:
            raise ValueError(
                f"instances[{number}] must be an (instance_id, size, instance) triple; got {type(item).__name__}"
            )
        instance_id, size, instance = item
        items.append((str(instance_id), check_int(size, f"instances[{number}] size", minimum=0), instance))
    shard_paths = [
        check_path(path, f"shard_paths[{number}]")
        for number, path in enumerate(check_sequence(shard_paths, "shard_paths"))
    ]
    index_path = check_path(index_path, "index_path")
    ids = [item[0] for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("instance ids must be unique within an instance set")
    shards = split_into_shards(items, len(shard_paths), size=lambda item: item[1])
    shard_of = {}
    for number, (shard, path) in enumerate(zip(shards, shard_paths, strict=True)):
        payload = pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)
        with atomic_path(path) as tmp, open(tmp, "wb") as handle:
            handle.write(SHARD_MAGIC + hashlib.sha256(payload).digest())
            handle.write(payload)
        shard_of.update({item[0]: number for item in shard})
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(["instance_id", "size", "shard"])
    writer.writerows((i, size, shard_of[i]) for i, size, _ in items)
    write_text_atomic(index_path, buffer.getvalue())


def read_instance_shard(path: str | Path) -> list[Instance]:
    """The ``(instance_id, size, instance)`` list of one shard file; CorpusFormatError names a bad file.

    A shard written before shards had a header (a bare pickle) is read unchecked.
    """
    data = Path(check_path(path)).read_bytes()
    payload = data
    if data.startswith(SHARD_MAGIC):
        header = len(SHARD_MAGIC) + hashlib.sha256().digest_size
        payload = data[header:]
        if len(data) < header or hashlib.sha256(payload).digest() != data[len(SHARD_MAGIC) : header]:
            raise CorpusFormatError(
                path,
                None,
                "not a readable instance shard (truncated or garbled?): its sha256 is not its header's",
            )
    elif not data.startswith(pickle.PROTO):
        raise CorpusFormatError(
            path, None, "not an instance shard: it starts with neither a header nor a pickle"
        )
    try:
        items = pickle.loads(payload)
    except CorpusFormatError:
        raise
    except (
        Exception
    ) as exc:  # a garbled pickle fails in any of a dozen ways (UnpicklingError, ValueError, ...)
        raise CorpusFormatError(
            path, None, f"not a readable instance shard (truncated or garbled?): {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(items, list) or not all(isinstance(item, tuple) and len(item) == 3 for item in items):
        raise CorpusFormatError(path, None, "not an instance shard: expected a list of (id, size, instance)")
    return items


def sample_ids(ids: Sequence[str], sample: int | None, seed: int) -> list[str]:
    """A fixed, seeded sample of at most ``sample`` of an instance set's ``ids``, in the set's order (all of them
    when ``sample`` is None or at least their number): the same whatever the shards, so that decode and gather
    jobs agree on it. ``sample`` None or an integer >= 0 and ``seed`` an integer >= 0 (ValueError naming it)."""
    ids = check_sequence(ids, "ids")
    sample = None if sample is None else check_int(sample, "sample", minimum=0)
    seed = check_int(seed, "seed", minimum=0)
    if sample is None or sample >= len(ids):
        return list(ids)
    chosen = np.random.default_rng(seed).choice(len(ids), size=sample, replace=False)
    return [ids[i] for i in sorted(chosen.tolist())]


def read_instance_index(path: str | Path) -> list[str]:
    """Instance ids of a set, in order, from its ``index.tsv``."""
    with open(check_path(path), newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if rows and "instance_id" not in rows[0]:
        raise CorpusFormatError(path, 1, "expected a header with an 'instance_id' column")
    return [row["instance_id"] for row in rows]
