"""What the titles experiment's workflow jobs do (workflow/rules/titles.smk calls these through thin scripts).

train the scorers on a dataset's train split -> build one word graph per test section (an instance set) ->
after the exact reference has decoded every title, find the smallest beam width that is optimal on all of them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import check_int
from decoders.harness.instances import read_instance_shard, write_instance_shards
from decoders.harness.records import read_records
from decoders.io import read_parquet, write_json_atomic
from decoders.papers import paper_value
from decoders.titles import pipeline
from decoders.titles.beam import beam_search, reaches, smallest_optimal_width
from decoders.titles.checks import check_mapping

log = logging.getLogger(__name__)


def train_scorer(
    train: str | Path, test: str | Path, model_out, stats_out, *, options: Mapping[str, Any], seed: int
) -> None:
    """Train the selection classifier on the train split, and the bigram model and IDF table on the bodies of
    every kept section (train and test, as the paper's language model of section bodies)."""
    _paths(train=train, test=test, model_out=model_out, stats_out=stats_out)
    check_mapping(options, "options")
    seed = check_int(seed, "seed", minimum=0)
    train_units = read_parquet(train)
    test_units = read_parquet(test)
    all_units = pd.concat([train_units, test_units], ignore_index=True)
    model = pipeline.train(train_units, all_units, {**options, "seed": seed})
    model.save(model_out)
    stats = {
        "train_seconds": model.train_seconds,
        "options": dict(options),
        "train_units": pipeline.unit_statistics(train_units),
        "all_units": pipeline.unit_statistics(all_units),
        "selection_on_test": pipeline.selection_accuracy(model, test_units),
        "aux_words": list(model.aux_words),
        "paper": paper_value("titles.corpus"),
    }
    write_json_atomic(stats_out, stats)
    log.info("trained on %d units in %.1f s; selection on test %s", len(train_units), model.train_seconds,
             stats["selection_on_test"])  # fmt: skip


def build_instance_set(
    test: str | Path, model_path: str | Path, shard_paths: Sequence[str], index, stats_out
):
    """Score every test section into a word graph and write the instance set with its statistics."""
    _paths(test=test, model_path=model_path, index=index, stats_out=stats_out)
    _path_list(shard_paths, "shard_paths")
    model = pipeline.TitleModel.load(model_path)
    units = read_parquet(test)
    instances = pipeline.build_instances(model, units)
    write_instance_shards(instances, shard_paths, index)
    sizes = pd.DataFrame(
        [{"n": inst.n, "classes": inst.n_classes, "k": inst.k} for _, _, inst in instances], dtype=float
    )
    write_json_atomic(
        stats_out,
        {
            "instances": len(instances),
            "units": pipeline.unit_statistics(units),
            "mean": sizes.mean().to_dict(),
            "max": sizes.max().to_dict(),
            "k_counts": {str(int(k)): int(c) for k, c in sizes["k"].value_counts().sort_index().items()},
        },
    )
    log.info("%d instances: mean n %.1f, mean k %.2f", len(instances), sizes["n"].mean(), sizes["k"].mean())


def _reaches(instance, optimum: float, width: int) -> bool:
    return reaches(beam_search(instance, width)[1], optimum)


def smallest_beam(
    shard_paths: Sequence[str], exact_records: str | Path, params_out, search_out, *, max_width: int
) -> int | None:
    """The smallest beam width that reaches the certified optimum on every title that has one.

    Per title, the smallest width reaching its optimum is searched (doubling, then bisection); beam search is
    not monotone in the width, so the largest of these is then checked on every title, and doubled until it is
    optimal everywhere (or reaches ``max_width``). Titles without a certified optimum (the exact decoder
    timed out) are left out and listed. ``params_out`` gets ``{"width": W}`` (the beam-smallest variant's
    params_file), ``search_out`` the search's details. ``max_width`` is an integer >= 1.
    """
    max_width = check_int(max_width, "max_width", minimum=1)
    _paths(exact_records=exact_records, params_out=params_out, search_out=search_out)
    _path_list(shard_paths, "shard_paths")
    records = read_records(exact_records)
    optimal = records[records["status"] == "optimal"].set_index("instance_id")["objective"]
    instances = [(i, inst) for path in shard_paths for i, _, inst in read_instance_shard(path)]
    certified = [(i, inst, float(optimal[i])) for i, inst in instances if i in optimal.index]
    per_title = {i: smallest_optimal_width(inst, opt, max_width) for i, inst, opt in certified}
    unreached = sorted(i for i, w in per_title.items() if w is None)
    reached = [w for w in per_title.values() if w is not None]
    width = max(reached) if reached else None
    chosen = None
    while width is not None:
        if all(_reaches(inst, opt, width) for i, inst, opt in certified if i not in unreached):
            chosen = width
            break
        if width >= max_width:
            break
        width = min(2 * width, max_width)
    result = {
        "width": chosen if chosen is not None else max_width,
        "optimal_on_all": chosen is not None and not unreached,
        "titles": len(instances),
        "titles_with_certified_optimum": len(certified),
        "titles_without_certified_optimum": sorted(i for i, _ in instances if i not in optimal.index),
        "titles_not_optimal_up_to_max_width": unreached,
        "max_width": max_width,
        "per_title_smallest_width": dict(sorted(per_title.items())),
        "per_title_width_quantiles": (
            {str(q): float(np.quantile(reached, q)) for q in (0.5, 0.9, 1.0)} if reached else {}
        ),
    }
    write_json_atomic(search_out, result)
    write_json_atomic(params_out, {"width": result["width"]})
    log.info("smallest optimal beam width: %s (%d titles certified)", result["width"], len(certified))
    return chosen


def _paths(**paths: Any) -> None:
    for name, path in paths.items():
        if not isinstance(path, str | os.PathLike):
            raise ValueError(f"{name} must be a file path; got {path!r}")


def _path_list(paths: Any, name: str) -> None:
    if isinstance(paths, str | bytes | os.PathLike) or not isinstance(paths, Sequence) or not paths:
        raise ValueError(f"{name} must be a non-empty list of file paths; got {paths!r}")
    for i, path in enumerate(paths):
        _paths(**{f"{name}[{i}]": path})
