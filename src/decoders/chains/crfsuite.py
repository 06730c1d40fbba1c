"""CRFsuite (python-crfsuite) as a peer: a linear-chain CRF trained on the same feature strings, tagging the
same test sentences.

It is the tagger a practitioner would otherwise pick. Its ``Tagger.tag`` maps attribute strings to ids, scores
and runs Viterbi in C; our counterpart is scoring pre-extracted feature ids plus column generation (the decoder
variant ``cg+scoring``), both timed by the same harness.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pycrfsuite

from decoders.io import atomic_path

log = logging.getLogger(__name__)


def train_crfsuite(
    features: Sequence[Sequence[Sequence[str]]],
    tags: Sequence[Sequence[str]],
    model_path: str | Path,
    *,
    c1: float = 0.0,
    c2: float = 1.0,
    max_iterations: int = 100,
) -> None:
    """Train CRFsuite's default first-order CRF (L-BFGS, L1 ``c1`` / L2 ``c2``) and save it atomically."""
    trainer = pycrfsuite.Trainer(verbose=False)
    for xseq, yseq in zip(features, tags, strict=True):
        trainer.append(xseq, list(yseq))
    trainer.set_params(
        {"c1": c1, "c2": c2, "max_iterations": max_iterations, "feature.possible_transitions": True}
    )
    with atomic_path(model_path) as tmp:
        trainer.train(str(tmp))
    log.info("CRFsuite: %d sentences, %s", len(tags), trainer.logparser.last_iteration)


@cache
def tagger(model_path: str) -> pycrfsuite.Tagger:
    """The tagger of a model file, opened once per process (the decoding worker opens it during warm-up)."""
    opened = pycrfsuite.Tagger()
    opened.open(model_path)
    return opened
