"""The sixth experiment's decoders: the exact argmax (certified) and a first-item baseline."""

from __future__ import annotations

import numpy as np

from decoders.harness.protocol import Solution, register


@register("sixth", "argmax")
def argmax(scores: np.ndarray, *, deadline: float | None = None) -> Solution:
    best = int(np.argmax(scores))
    return Solution(np.array([best]), float(scores[best]), bound=float(scores.max()), status="optimal")


@register("sixth", "first")
def first(scores: np.ndarray, *, deadline: float | None = None) -> Solution:
    return Solution(np.array([0]), float(scores[0]))


def check_structure(scores: np.ndarray, structure) -> str | None:
    chosen = np.asarray(structure)
    if chosen.shape != (1,) or chosen.dtype.kind not in "iu" or not 0 <= int(chosen[0]) < len(scores):
        return f"structure must be one index into the {len(scores)} scores"
    return None


def evaluate(scores: np.ndarray, solution: Solution) -> dict[str, int]:
    return {"correct": int(int(solution.structure[0]) == int(np.argmax(scores)))}


def verify(scores: np.ndarray, solution: Solution) -> str | None:
    chosen = int(solution.structure[0])
    if float(scores[chosen]) != solution.objective or solution.bound != float(scores.max()):
        return "the certificate does not hold"
    return None
