"""Toy decoders for the harness tests, registered under experiment "toy".

The isolated runner tests pass ``decoder_module="harness_toys"``: the worker process receives the parent's
``sys.path`` (which holds tests/ under pytest) and imports this module to find the decoders by name, exactly as
real experiments are found through ``decoders.<experiment>.decoders``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass

import numba
import numpy as np

from decoders.harness.protocol import Solution, register

MODULE = "harness_toys"


@dataclass
class ToyInstance:
    """Scores to pick the best of, and ways to misbehave.

    ``sleep``: seconds of non-cooperative work; ``fail``: raise; ``die``: exit the process; ``sigkill``: be killed
    by SIGKILL as the out-of-memory killer would; ``child_pid_file``: first start a child process (``sleep 60``)
    and write its pid there, to check that killing reaches children.
    """

    scores: np.ndarray
    sleep: float = 0.0
    fail: bool = False
    die: bool = False
    sigkill: bool = False
    child_pid_file: str | None = None


@numba.njit(cache=False)
def _best(scores: np.ndarray) -> int:
    best = 0
    for index in range(1, scores.shape[0]):
        if scores[index] > scores[best]:
            best = index
    return best


@register("toy", "argmax")
def argmax(instance: ToyInstance, *, deadline: float | None = None, offset: float = 0.0) -> Solution:
    """Exact argmax via a numba kernel (its first call compiles); honours each way to misbehave."""
    if instance.die:
        os._exit(3)
    if instance.sigkill:
        os.kill(os.getpid(), signal.SIGKILL)
    if instance.fail:
        raise ValueError(f"toy failure on {len(instance.scores)} scores")
    if instance.child_pid_file is not None:
        child = subprocess.Popen(["sleep", "60"])
        with open(instance.child_pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(child.pid))
    if instance.sleep:
        time.sleep(instance.sleep)
    best = _best(instance.scores)
    value = float(instance.scores[best]) + offset
    return Solution(
        structure=np.array([best]), objective=value, bound=value, status="optimal", stats={"calls": 1}
    )


@register("toy", "anytime")
def anytime(instance: ToyInstance, *, deadline: float | None = None) -> Solution:
    """Scans the scores one per millisecond and stops cooperatively at the deadline with its best so far."""
    best = 0
    for index in range(len(instance.scores)):
        if deadline is not None and time.perf_counter() >= deadline:
            return Solution(
                structure=[best],
                objective=float(instance.scores[best]),
                bound=float(instance.scores.max()),
                status="timeout",
                stats={"scanned": index},
            )
        if instance.scores[index] > instance.scores[best]:
            best = index
        time.sleep(0.001)
    return Solution([best], float(instance.scores[best]), float(instance.scores[best]), "optimal", {})


_SEEN_TOKENS: set[str] = set()


@register("toy", "slow_first")
def slow_first(instance: ToyInstance, *, deadline: float | None = None, token: str = "") -> Solution:
    """Slow (1 s) on its first call with a given ``token`` in this process, instant afterwards: like a JIT."""
    if token not in _SEEN_TOKENS:
        _SEEN_TOKENS.add(token)
        time.sleep(1.0)
    return Solution([0], float(instance.scores[0]), None, "feasible", {})


_RARE_KERNELS: dict[str, numba.core.registry.CPUDispatcher] = {}


@register("toy", "rare_path")
def rare_path(instance: ToyInstance, *, deadline: float | None = None, token: str = "") -> Solution:
    """Argmax; instances of more than 5 scores take a kernel of their own (one per ``token``, compiled on its
    first call), which a warm-up on a small instance never compiles: like a decoder's rarely taken branch."""
    if instance.scores.shape[0] <= 5:
        best = _best(instance.scores)
    else:
        if token not in _RARE_KERNELS:
            _RARE_KERNELS[token] = numba.njit(cache=False)(lambda scores: _best(scores[::-1]))
        best = instance.scores.shape[0] - 1 - _RARE_KERNELS[token](instance.scores)
    value = float(instance.scores[best])
    return Solution(structure=np.array([best]), objective=value, bound=value, status="optimal", stats={})


@register("toy", "not_a_solution")
def not_a_solution(instance: ToyInstance, *, deadline: float | None = None) -> Solution:
    """Returns the wrong type, which the runner records as an error."""
    return instance.scores  # type: ignore[return-value]


def _best_score_loop(
    instance: ToyInstance, repeats: int, *, offset: float = 0.0, wrong: bool = False, token: str = ""
) -> float:
    """A timing loop: what :func:`looped` computes, ``repeats`` times (plus 1 per call when ``wrong``); its
    first call of more than one decode with a given non-empty ``token`` stalls for 0.3 s, like an operating-system
    hiccup (calls of one decode, the warm-up's and those that set the decodes per call, do not)."""
    if token and repeats > 1 and token not in _SEEN_TOKENS:
        _SEEN_TOKENS.add(token)
        time.sleep(0.3)
    total = 0.0
    for _ in range(repeats):
        total += float(instance.scores[_best(instance.scores)]) + offset + wrong
    return total


@register("toy", "looped", timing_loop=_best_score_loop)
def looped(
    instance: ToyInstance,
    *,
    deadline: float | None = None,
    offset: float = 0.0,
    wrong: bool = False,
    token: str = "",
) -> Solution:
    """:func:`argmax` behind a slow "Python wrapper" (``sleep`` seconds per call) that its timing loop skips."""
    time.sleep(instance.sleep)
    value = float(instance.scores[_best(instance.scores)]) + offset
    return Solution(
        structure=np.array([_best(instance.scores)]), objective=value, bound=value, status="optimal"
    )
