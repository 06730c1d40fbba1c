"""Toy parser models for the bnb tests: a few tagged sentences, averaged perceptrons trained on them and saved."""

from __future__ import annotations

from pathlib import Path

from decoders.parsing.features import Vocabulary
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import train
from decoders.parsing.trees import as_heads


def train_toy_models(folder: Path, sentences, structures, epochs: int) -> tuple[Vocabulary, dict[str, str]]:
    """Train one model per ``(name, structure, description)`` on ``sentences`` (words, tags, 1-based heads) and
    save it as ``folder/<name>.npz``; return the vocabulary and the model paths by name."""
    vocab = Vocabulary.build([(w, t, t) for w, t, _ in sentences])
    data = [(vocab.encode(w, t, t), as_heads(h)) for w, t, h in sentences]
    paths = {}
    for name, structure, description in structures:
        averaged, _ = train(data, structure, epochs=epochs, size=1 << 12, seed=0, progress=False)
        paths[name] = str(Path(folder) / f"{name}.npz")
        ParserModel(averaged.numerator, averaged.denominator, vocab, description).save(paths[name])
    return vocab, paths
