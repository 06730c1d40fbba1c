"""Toy parser models for the bnb tests: a few tagged sentences, averaged perceptrons trained on them and saved."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, prune_heads
from decoders.parsing.features import Vocabulary
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import LocalStructure, train
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


GROUPS = ("grandchild", "sibling", "comb")
BNB_SENTENCES = [
    (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["a", "dog", "sees", "cats", "rather", "than", "birds"], ["DT", "NN", "VB", "NN", "RB", "IN", "NN"],
     [2, 3, 0, 3, 6, 4, 6]),
    (["the", "old", "dog", "sees", "the", "cat", "near", "a", "big", "tree"],
     ["DT", "JJ", "NN", "VB", "DT", "NN", "IN", "DT", "JJ", "NN"], [3, 3, 4, 0, 6, 4, 6, 10, 10, 7]),
    (["a", "cat", "near", "the", "tree", "sees", "the", "old", "dog", "and", "a", "bird"],
     ["DT", "NN", "IN", "DT", "NN", "VB", "DT", "JJ", "NN", "CC", "DT", "NN"],
     [2, 6, 2, 5, 3, 0, 9, 9, 6, 9, 12, 10]),
    (["birds", "see", "the", "big", "dog", "near", "the", "old", "tree", "and", "the", "cat"],
     ["NN", "VB", "DT", "JJ", "NN", "IN", "DT", "JJ", "NN", "CC", "DT", "NN"],
     [2, 0, 5, 5, 2, 5, 9, 9, 6, 5, 12, 10]),
]  # fmt: skip


def long_parse_instances(folder: Path, count: int) -> list[tuple[str, int, ParseInstance]]:
    """``count`` bnb instances of 10-12 words (longer than bnb's verify enumerates) under a non-local model
    trained on :data:`BNB_SENTENCES` (``folder/full.npz``), pruned to k = 3 by a first-order model
    (``folder/first.npz``, the instances' pruner): the long training sentences with their words shuffled, so
    that there are fresh trees to find; gold a chain (the evaluation needs some tree)."""
    vocab, paths = train_toy_models(
        folder,
        BNB_SENTENCES,
        [
            ("first", LocalStructure(1), {"order": 1}),
            ("full", NonLocalStructure(GROUPS), {"groups": list(GROUPS)}),
        ],
        epochs=2,
    )
    first = ParserModel.load(paths["first"]).numerator
    rng = np.random.default_rng(3)
    items = []
    for i in range(count):
        words, tags, _ = BNB_SENTENCES[3 + i % 3]
        order = rng.permutation(len(words))
        tokens = vocab.encode([words[j] for j in order], [tags[j] for j in order], [tags[j] for j in order])
        n = len(words)
        allowed = prune_heads(tokens, first, 3)  # k = 3: CP-SAT is quick
        instance = ParseInstance(
            tokens, as_heads(list(range(n))), np.ones(n, bool), allowed, paths["full"], 3, paths["first"]
        )
        items.append((f"s{i}", n, instance))
    return items
