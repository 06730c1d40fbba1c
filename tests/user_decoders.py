"""Decoders of the project's experiments written outside the package, as a user would (tests/test_user_decoders.py):
cheap answers claimed ``optimal``, wrong structures, and modules that try to replace the experiment's checks."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from decoders.bnb.decoders import decode_eisner, tree_score
from decoders.chains.decoders import scores_of
from decoders.harness.protocol import Solution, register
from decoders.linking.decoders import decode_retrieval
from decoders.titles.decoders import decode_beam

MODULE = "user_decoders"


def greedy(theta: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, float]:
    """Left to right, each token's best label after the previous one."""
    labels = [int(np.argmax(theta[0]))]
    for i in range(1, theta.shape[0]):
        labels.append(int(np.argmax(theta[i] + tau[labels[-1]])))
    labels = np.array(labels, dtype=np.int64)
    return labels, float(theta[np.arange(len(labels)), labels].sum() + tau[labels[:-1], labels[1:]].sum())


@register("chains", "user-greedy-liar")
def chains_liar(instance, *, deadline=None):
    labels, score = greedy(*scores_of(instance))
    return Solution(labels, score, score, "optimal")


@register("chains", "user-short")
def chains_short(instance, *, deadline=None):
    labels, score = greedy(*scores_of(instance))
    return Solution(labels[:-1], score, None, "feasible")


@register("chains", "user-floats")
def chains_floats(instance, *, deadline=None):
    labels, score = greedy(*scores_of(instance))
    return Solution(labels.astype(float), score, None, "feasible")


@register("titles", "user-beam-liar")
def titles_liar(instance, *, deadline=None):
    found = decode_beam(instance, width=1)
    return Solution(found.structure, found.objective, found.objective, "optimal")


@register("linking", "user-retrieval-liar")
def linking_liar(instance, *, deadline=None):
    found = decode_retrieval(instance, connection="maximal")
    return Solution(found.structure, found.objective, found.objective, "optimal", dict(found.stats))


@register("linking", "user-out-of-range")
def linking_out_of_range(instance, *, deadline=None):
    return Solution(np.array([s.size for s in instance.sets]), 1.0, None, "feasible")


def verify(instance, solution) -> str | None:
    """A module's own check that accepts everything: it cannot replace the experiment's."""
    return None


@register("bnb", "user-eisner-liar")
def bnb_liar(instance, *, deadline=None):
    """The pruner's first-order tree (Eisner), scored under the instance's model and claimed optimal."""
    first = replace(instance, model=instance.pruner)
    heads = decode_eisner(first).structure
    score = tree_score(instance, np.array([-1, *heads]))
    return Solution(heads, score, score, "optimal")
