"""ppc's UDPipe 1 peer: its training job.

UDPipe's parser (Parsito) attaches words to the root with the label spelt ``root``. A model trained on trees
whose root modifiers carry another label (every DDT tree: ``ROOT``) crashes the process (SIGSEGV, no Python
error) the first time it parses, at its first heldout evaluation in training (measured on ddt with ufal.udpipe
1.4.0.1; szeged's and partut's UD trees spell it ``root``). So the job labels every root modifier ``root`` before
training; UAS ignores labels, and a treebank that already spells it so trains on the same trees.

This job replaces :func:`decoders.ppc.pipeline.udpipe_train_job`, which the workflow no longer runs: it stays in
place until ppc's code changes next, as any edit to that module reruns every ppc job.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from decoders.checks import checked
from decoders.io import write_json_atomic
from decoders.parsing.treebank import load_splits
from decoders.parsing.udpipe import ROOT_LABEL, train_udpipe

#: Labels that mark a word as unlabelled: UDPipe's training then labels the whole table uniformly.
UNLABELLED = ("", "_")


@checked(frame="frame")
def root_labelled(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The sentence table with every labelled root modifier (head 0) labelled ``root``, and how many words were
    relabelled. Unlabelled words keep their mark; the table given is not changed."""
    missing = sorted({"sent_id", "heads", "deprels"} - set(frame.columns))
    if missing:
        raise ValueError(f"frame must have the columns {', '.join(missing)}")
    labels, relabelled = [], 0
    for sent_id, heads, deprels in zip(frame["sent_id"], frame["heads"], frame["deprels"], strict=True):
        heads, deprels = np.asarray(heads), np.asarray(deprels, dtype=object)
        if heads.shape != deprels.shape:
            raise ValueError(f"sentence {sent_id}: {heads.size} heads but {deprels.size} labels")
        wrong = (heads == 0) & ~np.isin(deprels, (*UNLABELLED, ROOT_LABEL))
        relabelled += int(wrong.sum())
        labels.append(np.where(wrong, ROOT_LABEL, deprels).astype(object))
    out = frame.copy()
    out["deprels"] = labels
    return out, relabelled


@checked(splits="path_mapping", model_out="path", training_out="path", parser_options="text", seed="count")
def udpipe_train_job(
    splits: Mapping[str, str],
    model_out: str,
    training_out: str,
    *,
    dev_fraction: float,
    parser_options: str,
    seed: int,
) -> None:
    """The peer's training: UDPipe 1 on every training tree (a non-projective transition system; the
    treebank's own tags; root modifiers labelled ``root``), dev for its early stopping."""
    frames = load_splits(splits, dev_fraction=dev_fraction)
    train, train_relabelled = root_labelled(frames["train"])
    dev, dev_relabelled = root_labelled(frames["dev"])
    training = train_udpipe(train, model_out, heldout=dev, parser_options=parser_options, seed=seed)
    training["root_modifiers_relabelled"] = {"train": train_relabelled, "dev": dev_relabelled}
    write_json_atomic(training_out, training)
