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

from decoders.checks import check_float, check_int
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
    """Train CRFsuite's default first-order CRF (L-BFGS, L1 ``c1`` / L2 ``c2``) and save it atomically.

    ``features[s][t]`` lists the feature strings of token t of sentence s, ``tags[s]`` its label strings (one per
    token); ``c1`` and ``c2`` are finite numbers >= 0, ``max_iterations`` an integer >= 1.
    """
    c1 = check_float(c1, "c1", minimum=0.0)
    c2 = check_float(c2, "c2", minimum=0.0)
    max_iterations = check_int(max_iterations, "max_iterations", minimum=1)
    if not isinstance(model_path, str | Path):
        raise ValueError(f"model_path must be a path; got {model_path!r}")
    for name, value in (("features", features), ("tags", tags)):
        if isinstance(value, str) or not isinstance(value, Sequence):
            raise ValueError(f"{name} must be a list with one entry per sentence; got {type(value).__name__}")
    if len(features) != len(tags):
        raise ValueError(f"features has {len(features)} sentences but tags has {len(tags)}")
    trainer = pycrfsuite.Trainer(verbose=False)
    for s, (xseq, yseq) in enumerate(zip(features, tags, strict=True)):
        if isinstance(xseq, str) or isinstance(yseq, str) or not hasattr(xseq, "__len__"):
            raise ValueError(f"features[{s}] and tags[{s}] must be lists (one entry per token)")
        if len(xseq) != len(yseq):
            raise ValueError(f"features[{s}] has {len(xseq)} tokens but tags[{s}] has {len(yseq)} labels")
        try:
            trainer.append(xseq, list(yseq))
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"features[{s}] or tags[{s}]: {exc} (feature and label names are strings)"
            ) from None
    trainer.set_params(
        {"c1": c1, "c2": c2, "max_iterations": max_iterations, "feature.possible_transitions": True}
    )
    with atomic_path(model_path) as tmp:
        trainer.train(str(tmp))
    log.info("CRFsuite: %d sentences, %s", len(tags), trainer.logparser.last_iteration)


def tagger(model_path: str) -> pycrfsuite.Tagger:
    """The tagger of a model file, opened once per process (the decoding worker opens it during warm-up)."""
    if not isinstance(model_path, str):
        raise ValueError(f"model_path must be a path (str); got {model_path!r}")
    return _tagger(model_path)


@cache
def _tagger(model_path: str) -> pycrfsuite.Tagger:
    if not Path(model_path).is_file():
        raise ValueError(f"model_path {model_path!r} is not a CRFsuite model file")
    opened = pycrfsuite.Tagger()
    opened.open(model_path)
    return opened
