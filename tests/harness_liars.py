"""Toy decoders for the harness's certificate check, registered under experiment "liars" with a ``verify``.

``honest`` returns the argmax of the scores with a certificate that holds; ``liar`` claims ``optimal`` for the
first entry whatever the scores; ``sloppy`` has the right structure but states an objective off by ``error``.
"""

from __future__ import annotations

import numpy as np

from decoders.harness.protocol import Solution, register

MODULE = "harness_liars"


@register("liars", "honest")
def honest(instance: np.ndarray, *, deadline: float | None = None) -> Solution:
    best = int(np.argmax(instance))
    return Solution(np.array([best]), float(instance[best]), float(instance[best]), "optimal")


@register("liars", "liar")
def liar(instance: np.ndarray, *, deadline: float | None = None) -> Solution:
    return Solution(np.array([0]), float(instance[0]), float(instance[0]), "optimal")


@register("liars", "sloppy")
def sloppy(instance: np.ndarray, *, deadline: float | None = None, error: float = 0.0) -> Solution:
    best = int(np.argmax(instance))
    value = float(instance[best]) + error
    return Solution(np.array([best]), value, value, "optimal")


@register("liars", "heuristic")
def heuristic(instance: np.ndarray, *, deadline: float | None = None) -> Solution:
    """Never claims optimality: the verifier must leave it alone."""
    return Solution(np.array([0]), float(instance[0]), None, "feasible")


def verify(instance: np.ndarray, solution: Solution) -> str | None:
    chosen = int(solution.structure[0])
    if not np.isclose(solution.objective, instance[chosen], rtol=1e-12, atol=0.0):
        return f"objective {solution.objective} but entry {chosen} is {instance[chosen]}"
    if instance.max() > instance[chosen]:
        return f"entry {int(np.argmax(instance))} is larger than the chosen {chosen}"
    return None
