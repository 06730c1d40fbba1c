"""A decoder plugged into the `chains` experiment from outside the package, as a user adding their own would.

The decode workflow test names this module in a variant's `module:`; it reuses the toy argmax decoder.
"""

from __future__ import annotations

from harness_toys import ToyInstance, argmax

from decoders.harness.protocol import Solution, register

register("chains", "toy-argmax")(argmax)


def evaluate(instance: ToyInstance, solution: Solution) -> dict[str, int]:
    """Evaluation columns: whether the chosen index is the instance's first maximum (as a gold answer)."""
    return {"correct": int(int(solution.structure[0]) == int(instance.scores.argmax())), "total": 1}
