"""The chains experiment's workflow steps: train a scorer, train the CRFsuite peer, build the instance sets.

Each function reads the prepared sentence tables (data/prepared/<dataset>/) and writes its outputs atomically;
workflow/scripts/chains_*.py call them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from decoders.chains import crfsuite
from decoders.chains.checks import check_flag
from decoders.chains.features import token_features
from decoders.chains.instance import FeatureInstance
from decoders.chains.model import ChainModel, sentence_labels
from decoders.chains.train import train_chain_model
from decoders.checks import check_int, checked
from decoders.corpora.sentences import read_sentences
from decoders.harness.instances import write_instance_shards
from decoders.io import write_json_atomic

log = logging.getLogger(__name__)


@checked(train="path", model_out="path", history_out="path")
def train_model(
    train: str | Path, spec: Mapping[str, Any], *, min_count: int, seed: int, model_out, history_out
) -> ChainModel:
    """Train the scorer ``spec`` (config/chains.yaml: chains.models.<name>) on a train split."""
    if not isinstance(spec, Mapping) or "method" not in spec:
        raise ValueError(f"spec must be a mapping with a 'method' (and the trainer's options); got {spec!r}")
    min_count = check_int(min_count, "min_count", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    frame = read_sentences(train)
    options = {key: value for key, value in spec.items() if key != "method"}
    model, history = train_chain_model(
        frame, method=spec["method"], min_count=min_count, seed=seed, **options
    )
    model.save(model_out)
    write_json_atomic(history_out, {"spec": dict(spec), "meta": model.meta, "epochs": history})
    log.info("%s: %d features, %d labels, %d epochs", train, model.n_features, model.n_labels, len(history))
    return model


@checked(train="path", model_out="path")
def train_crfsuite_model(train: str | Path, model_out: str | Path, options: Mapping[str, Any]) -> None:
    """CRFsuite on the same feature strings and labels as our scorer (``options``: c1, c2, max_iterations)."""
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a mapping of CRFsuite options; got {options!r}")
    frame = read_sentences(train)
    features = [token_features(words) for words in frame["words"]]
    crfsuite.train_crfsuite(features, sentence_labels(frame), model_out, **options)


@checked(test="path", model_path="path", shard_paths="paths", index_path="path")
def build_instances(
    test: str | Path,
    model_path: str | Path,
    shard_paths: Sequence[str | Path],
    index_path: str | Path,
    *,
    crfsuite_path: str | Path | None = None,
    features: bool = False,
) -> int:
    """Score the test split with the model and write the instance set (or, with ``features``, the sentences
    as feature ids and strings for the variants that score while they are timed, and for CRFsuite)."""
    if isinstance(shard_paths, str | Path) or not isinstance(shard_paths, Sequence) or len(shard_paths) < 1:
        raise ValueError(f"shard_paths must be a non-empty list of paths; got {shard_paths!r}")
    features = check_flag(features, "features")
    if features and crfsuite_path is not None and not isinstance(crfsuite_path, str | Path):
        raise ValueError(f"crfsuite_path must be a path or None; got {crfsuite_path!r}")
    frame = read_sentences(test)
    model = ChainModel.load(model_path)
    matrix = model.featurize(frame["words"])
    # A gold label the model never saw in training cannot be predicted: it is kept as -1 (always an error).
    index = model.label_index
    gold = np.asarray(
        [index.get(label, -1) for tags in sentence_labels(frame) for label in tags], dtype=np.int64
    )
    if (gold < 0).any():
        log.warning("%s: %d test tokens have labels unseen in training", test, int((gold < 0).sum()))
    ids = frame["sent_id"].tolist()
    if features:
        items = []
        for s, words in enumerate(frame["words"]):
            tokens = matrix.sentence_slice(s)
            offsets = matrix.token_offsets[tokens.start : tokens.stop + 1]
            instance = FeatureInstance(
                ids=matrix.ids[offsets[0] : offsets[-1]].copy(),
                token_offsets=(offsets - offsets[0]).astype(np.int64),
                strings=token_features(words),
                model=str(Path(model_path).resolve()),
                crfsuite=str(Path(crfsuite_path).resolve()) if crfsuite_path else None,
                gold=gold[tokens],
            )
            items.append((ids[s], len(words), instance))
    else:
        instances = model.instances(matrix, gold)
        items = [(ids[s], inst.n_tokens, inst) for s, inst in enumerate(instances)]
    write_instance_shards(items, shard_paths, index_path)
    log.info("%s: %d instances in %d shards", test, len(items), len(shard_paths))
    return len(items)
