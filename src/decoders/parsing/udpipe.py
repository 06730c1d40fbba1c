"""UDPipe 1 (``ufal.udpipe``, its Parsito transition-based neural parser) as the bnb experiment's peer.

Only the parser is trained and run: the tokenizer and the tagger are ``none``, so the sentences go in already
tokenized and tagged (gold or predicted tags, in the UPOS and XPOS columns) and UDPipe only predicts heads.

Three points a caller should know:

* Parsito's default embeddings use FORM, UPOS, FEATS and DEPREL, not XPOS (``embedding_xpostag=0``); set
  ``embedding_xpostag=...`` in ``parser_options`` when the fine tags should count.
* With the default ``single_root=1`` Parsito needs exactly one word per training sentence attached to the root,
  with deprel ``root``, and a deprel on every word. A table without labels (every deprel ``_``, as the WSJ
  dependency conversion) is written for training with ``root`` on the root's child and ``dep`` elsewhere.
* Parsito seeds its random generator with a constant (42), so training is deterministic and has no seed
  option; ``seed`` here shuffles the order of the training sentences handed to it, which is the only
  variation the library lets a caller choose.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import ufal.udpipe as udpipe

from decoders.errors import DecodersError
from decoders.io import write_bytes_atomic

__all__ = ["UDPipeError", "load_model", "parse_udpipe", "to_conllu", "train_udpipe"]

METHOD = "morphodita_parsito"
ROOT_LABEL = "root"
UNIFORM_LABEL = "dep"
_UNLABELED = frozenset({"", "_"})
_FORBIDDEN = ("\t", "\n", "\r")


class UDPipeError(DecodersError):
    """UDPipe refused the training data or options, or could not load or use a model."""


def _overrides(frame: pd.DataFrame, values: Sequence[Sequence[str]] | None, column: str, name: str) -> list:
    """The per-sentence lists of ``column``, or of ``values`` after checking they have one entry per word."""
    if values is None:
        return list(frame[column])
    values = list(values)
    if len(values) != len(frame):
        raise ValueError(f"{name} has {len(values)} sentences, the frame has {len(frame)}")
    for sent_id, words, given in zip(frame["sent_id"], frame["words"], values, strict=True):
        if len(given) != len(words):
            raise ValueError(f"sentence {sent_id!r}: {name} has {len(given)} entries for {len(words)} words")
    return values


def _field(value: Any, sent_id: str) -> str:
    text = str(value)
    if any(char in text for char in _FORBIDDEN):
        raise ValueError(
            f"sentence {sent_id!r}: {text!r} contains a tab or a line break, which CoNLL-U cannot hold"
        )
    return text or "_"


def to_conllu(
    frame: pd.DataFrame,
    tags: Sequence[Sequence[str]] | None = None,
    coarse_tags: Sequence[Sequence[str]] | None = None,
    *,
    deprels: Sequence[Sequence[str]] | None = None,
) -> str:
    """CoNLL-U text of the sentence table: a ``# sent_id`` comment, one line per word, a blank line after.

    UPOS comes from ``coarse_tags`` (else the column), XPOS from ``tags`` (else the column), DEPREL from
    ``deprels`` (else the column); LEMMA, FEATS, DEPS and MISC are ``_``. Overrides are lists of lists shaped
    like ``words``; a sentence whose override has another length raises ValueError naming its ``sent_id``.
    """
    fine = _overrides(frame, tags, "tags", "tags")
    coarse = _overrides(frame, coarse_tags, "coarse_tags", "coarse_tags")
    labels = _overrides(frame, deprels, "deprels", "deprels")
    lines: list[str] = []
    for row, sent_fine, sent_coarse, sent_labels in zip(
        frame.itertuples(index=False), fine, coarse, labels, strict=True
    ):
        sent_id = str(row.sent_id)
        lines.append(f"# sent_id = {_field(sent_id, sent_id)}")
        for index, (form, upos, xpos, head, label) in enumerate(
            zip(row.words, sent_coarse, sent_fine, row.heads, sent_labels, strict=True), start=1
        ):
            fields = (
                str(index),
                _field(form, sent_id),
                "_",
                _field(upos, sent_id),
                _field(xpos, sent_id),
                "_",
                str(int(head)),
                _field(label, sent_id),
                "_",
                "_",
            )
            lines.append("\t".join(fields))
        lines.append("")
    return "\n".join(lines) + "\n" if lines else ""


def _training_labels(frame: pd.DataFrame) -> tuple[list[list[str]] | None, str]:
    """Uniform deprels (``root`` for the root's word, ``dep`` elsewhere: UDPipe needs labels, UAS ignores them) for a table without labels, else None (use the column)."""
    if all(label in _UNLABELED for labels in frame["deprels"] for label in labels):
        uniform = [
            [ROOT_LABEL if int(head) == 0 else UNIFORM_LABEL for head in heads] for heads in frame["heads"]
        ]
        return uniform, "uniform root/dep (the table has no labels)"
    return None, "gold"


def _read_sentences(text: str, expected: int) -> list[udpipe.Sentence]:
    """UDPipe sentences read from CoNLL-U text by UDPipe's own reader; their number must be ``expected``."""
    reader = udpipe.InputFormat.newConlluInputFormat()
    reader.setText(text)
    error = udpipe.ProcessingError()
    sentences: list[udpipe.Sentence] = []
    sentence = udpipe.Sentence()
    while reader.nextSentence(sentence, error):
        sentences.append(sentence)
        sentence = udpipe.Sentence()
    if error.occurred():
        raise UDPipeError(f"UDPipe could not read the CoNLL-U it was given: {error.message}")
    if len(sentences) != expected:
        raise UDPipeError(f"UDPipe read {len(sentences)} sentences from CoNLL-U of {expected}")
    return sentences


def _as_vector(sentences: Sequence[udpipe.Sentence]) -> udpipe.Sentences:
    vector = udpipe.Sentences()
    for sentence in sentences:
        vector.append(sentence)
    return vector


def _version() -> str:
    current = udpipe.Version.current()
    return f"{current.major}.{current.minor}.{current.patch}"


def train_udpipe(
    frame: pd.DataFrame,
    model_path: str | Path,
    *,
    tags: Sequence[Sequence[str]] | None = None,
    coarse_tags: Sequence[Sequence[str]] | None = None,
    heldout: pd.DataFrame | None = None,
    parser_options: str,
    seed: int,
) -> dict[str, Any]:
    """Train a UDPipe 1 model with only a parser on the frame's gold heads and the given (or its) tags.

    ``parser_options`` are Parsito's ``name=value;...`` training options (``iterations``, ``hidden_layer``,
    ``embedding_form``, ``transition_system``, ...; an empty string means UDPipe's defaults). ``heldout``, a
    sentence table with its own tags, turns on UDPipe's early stopping (the iteration with the best heldout
    LAS). ``seed`` shuffles the training sentences (see the module docstring). The model is written
    atomically to ``model_path``; UDPipe's refusal raises :class:`UDPipeError` with its message and leaves no
    file. Returns what was done: options, version, sentences, words, seconds.
    """
    if parser_options.strip().lower() == udpipe.Trainer.NONE:
        raise ValueError("parser_options 'none' would train no parser")
    if frame.empty:
        raise ValueError("cannot train UDPipe on an empty sentence table")
    fine = _overrides(frame, tags, "tags", "tags")
    coarse = _overrides(frame, coarse_tags, "coarse_tags", "coarse_tags")
    labels, label_source = _training_labels(frame)
    order = np.random.default_rng(seed).permutation(len(frame))
    shuffled = frame.iloc[order].reset_index(drop=True)
    text = to_conllu(
        shuffled,
        [fine[i] for i in order],
        [coarse[i] for i in order],
        deprels=None if labels is None else [labels[i] for i in order],
    )
    training = _as_vector(_read_sentences(text, len(frame)))
    held = udpipe.Sentences()
    if heldout is not None and not heldout.empty:
        held_labels, _ = _training_labels(heldout)
        held = _as_vector(_read_sentences(to_conllu(heldout, deprels=held_labels), len(heldout)))

    error = udpipe.ProcessingError()
    start = time.perf_counter()
    model = udpipe.Trainer.train(
        METHOD, training, held, udpipe.Trainer.NONE, udpipe.Trainer.NONE, parser_options, error
    )
    seconds = time.perf_counter() - start
    if error.occurred() or not model:
        raise UDPipeError(f"UDPipe could not train a parser for {model_path}: {error.message or 'no model'}")
    write_bytes_atomic(model_path, bytes(model))
    return {
        "udpipe_version": _version(),
        "method": METHOD,
        "tokenizer": udpipe.Trainer.NONE,
        "tagger": udpipe.Trainer.NONE,
        "parser_options": parser_options,
        "seed": seed,
        "labels": label_source,
        "sentences": len(frame),
        "words": int(frame["words"].map(len).sum()),
        "heldout_sentences": 0 if heldout is None else len(heldout),
        "seconds": seconds,
        "model_bytes": len(model),
    }


def load_model(model_path: str | Path) -> udpipe.Model:
    """The UDPipe model in ``model_path``; a missing or unreadable file raises an error naming it."""
    path = Path(model_path)
    if not path.is_file():
        raise FileNotFoundError(f"UDPipe model {path} does not exist")
    model = udpipe.Model.load(str(path))
    if model is None:
        raise UDPipeError(f"UDPipe cannot load a model from {path}")
    return model


def parse_udpipe(
    model_path: str | Path,
    frame: pd.DataFrame,
    *,
    tags: Sequence[Sequence[str]] | None = None,
    coarse_tags: Sequence[Sequence[str]] | None = None,
) -> tuple[list[list[int]], float]:
    """Parse every sentence with the given (or the frame's) tags; (heads per sentence, parser seconds): the sum
    of :func:`parse_udpipe_each`'s per-sentence seconds."""
    heads, seconds = parse_udpipe_each(model_path, frame, tags=tags, coarse_tags=coarse_tags)
    return heads, float(sum(seconds))


def parse_udpipe_each(
    model_path: str | Path,
    frame: pd.DataFrame,
    *,
    tags: Sequence[Sequence[str]] | None = None,
    coarse_tags: Sequence[Sequence[str]] | None = None,
) -> tuple[list[list[int]], list[float]]:
    """Parse every sentence with the given (or the frame's) tags; (heads per sentence, parser seconds per
    sentence), so that a speed ratio against the peer can be resampled over sentences.

    Heads are 1-based with 0 for the root, as in the sentence table. The model is loaded once, the sentences
    are converted and the gold heads removed before the clock starts; each sentence's seconds cover only its
    ``Model.parse`` call (UDPipe 1 parses one sentence per call; its Pipeline would add CoNLL-U reading and
    writing).
    """
    model = load_model(model_path)
    text = to_conllu(frame, tags, coarse_tags)
    sentences = _read_sentences(text, len(frame))
    for sentence in sentences:
        sentence.unlinkAllNodes()  # no gold head or deprel reaches the parser
    error = udpipe.ProcessingError()
    options = udpipe.Model.DEFAULT
    seconds = []
    for index, sentence in enumerate(sentences):
        start = time.perf_counter()
        parsed = model.parse(sentence, options, error)
        seconds.append(time.perf_counter() - start)
        if not parsed:
            sent_id = frame["sent_id"].iloc[index]
            raise UDPipeError(
                f"UDPipe could not parse sentence {sent_id!r} with {model_path}: {error.message}"
            )
    heads = [[word.head for word in sentence.words][1:] for sentence in sentences]
    return heads, seconds
