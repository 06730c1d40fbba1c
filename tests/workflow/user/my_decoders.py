"""Chains decoders written as a new user would, in a module of their own (tests/test_user_decoder_workflow.py
copies it to a folder on PYTHONPATH): each fails in one way the harness must catch."""

import numpy as np

from decoders.chains.decoders import scores_of
from decoders.harness.protocol import Solution, register


def _greedy(theta, tau):
    """Left to right, each token's best label given the previous one: cheap, often not the optimum."""
    labels = [int(np.argmax(theta[0]))]
    for i in range(1, theta.shape[0]):
        labels.append(int(np.argmax(theta[i] + tau[labels[-1]])))
    labels = np.array(labels, dtype=np.int64)
    score = float(theta[np.arange(len(labels)), labels].sum() + tau[labels[:-1], labels[1:]].sum())
    return labels, score


@register("chains", "greedy-liar")
def greedy_liar(instance, *, deadline=None):
    """The greedy answer, claimed optimal with its own score as the bound."""
    labels, score = _greedy(*scores_of(instance))
    return Solution(labels, score, score, "optimal")


@register("chains", "short-answer")
def short_answer(instance, *, deadline=None):
    """A structure one label short, as feasible."""
    labels, score = _greedy(*scores_of(instance))
    return Solution(labels[:-1], score, None, "feasible")


@register("chains", "long-fails")
def long_fails(instance, *, deadline=None):
    """The greedy answer, but it raises on sentences over 20 tokens."""
    theta, tau = scores_of(instance)
    if theta.shape[0] > 20:
        raise RuntimeError(f"cannot decode {theta.shape[0]} tokens")
    labels, score = _greedy(theta, tau)
    return Solution(labels, score, None, "feasible")
