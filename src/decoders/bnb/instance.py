"""One test sentence for the bnb decoders: encoded tokens, the gold tree, the words UAS scores, the arcs the
pre-pruning kept, the trained model every decoder scores with, and the pruner and k that made those arcs (models
loaded once per worker, by path). Every decoder runs the pruner again inside its timed call (section 4.4's test
time includes it) and refuses an instance whose ``allowed`` that pruner does not reproduce."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from decoders.parsing.eisner import _eisner
from decoders.parsing.features import N_ATTRIBUTES
from decoders.parsing.trees import tree_error


@dataclass(frozen=True, eq=False)
class ParseInstance:
    """``tokens`` (N_ATTRIBUTES, n + 1) ids >= 1; ``gold`` full head array (may be non-projective); ``scored``
    (n,) bool; ``allowed`` (n + 1, n + 1) bool, ``allowed[h, m]`` = the arc may be used (never into the root
    or a loop; some projective tree must remain); ``model`` the parser model file; ``k`` the heads kept per
    word and ``pruner`` the pruner's model file (the head classifier) that made ``allowed``
    (:func:`decoders.bnb.model.prune_heads`); both None when unpruned (the decoders then expect ``allowed`` to be
    every arc but those into the root and the loops).

    Unpickling an instance written before a field existed (an old shard) raises :class:`pickle.UnpicklingError`
    naming the missing fields, which :func:`decoders.harness.instances.read_instance_shard` reports with the
    file's name."""

    tokens: np.ndarray
    gold: np.ndarray
    scored: np.ndarray
    allowed: np.ndarray
    model: str
    k: int | None = None
    pruner: str | None = None

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(f"ParseInstance: {problem}")

    def __setstate__(self, state: Any) -> None:
        expected = [field.name for field in fields(self)]
        if not isinstance(state, dict):
            raise pickle.UnpicklingError(
                f"a ParseInstance's pickled state must be a dict, got {type(state).__name__}"
            )
        missing = [name for name in expected if name not in state]
        if missing:
            raise pickle.UnpicklingError(
                f"a ParseInstance written by older code: it lacks {', '.join(missing)} (the pruner and k that made "
                "its allowed arcs, which every decoder now recomputes inside its timed call); rebuild the instance "
                "set (rule bnb_instances)"
            )
        self.__dict__.update(state)
        problem = self._provenance_problem()
        if problem is not None:
            raise pickle.UnpicklingError(f"ParseInstance: {problem}")

    @property
    def n(self) -> int:
        return self.tokens.shape[1] - 1

    def _problem(self) -> str | None:
        tokens, gold, scored, allowed = self.tokens, self.gold, self.scored, self.allowed
        if not isinstance(tokens, np.ndarray) or tokens.dtype != np.int64 or tokens.ndim != 2:
            return "tokens must be a 2-d int64 array"
        if tokens.shape[0] != N_ATTRIBUTES or tokens.shape[1] < 2:
            return f"tokens must have shape ({N_ATTRIBUTES}, n + 1) with n >= 1 words, got {tokens.shape}"
        if tokens.min() < 1:
            return f"tokens holds id {int(tokens.min())}; ids start at 1"
        n = tokens.shape[1] - 1
        if not isinstance(gold, np.ndarray) or gold.dtype != np.int64 or gold.shape != (n + 1,):
            return f"gold must be an int64 head array of length {n + 1}"
        gold_problem = tree_error(gold)
        if gold_problem is not None:
            return f"gold: {gold_problem}"
        if not isinstance(scored, np.ndarray) or scored.dtype != np.bool_ or scored.shape != (n,):
            return f"scored must be a bool array of length {n}"
        if (
            not isinstance(allowed, np.ndarray)
            or allowed.dtype != np.bool_
            or allowed.shape != (n + 1, n + 1)
        ):
            return f"allowed must be a bool array of shape ({n + 1}, {n + 1})"
        if allowed[:, 0].any() or np.diag(allowed).any():
            return "allowed has an arc into the root or from a word to itself"
        if _eisner(np.where(allowed, 0.0, -np.inf))[1] == -np.inf:
            return "allowed leaves no projective tree"
        return self._provenance_problem()

    def _provenance_problem(self) -> str | None:
        """The model, k and pruner fields (cheap: also checked when an instance is unpickled)."""
        k, pruner = self.k, self.pruner
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            return f"k must be a positive integer or None, got {k!r}"
        if not isinstance(self.model, str) or not self.model:
            return "model must name the parser model file"
        if k is None and pruner is not None:
            return f"pruner must be None when unpruned (k None), got {pruner!r}"
        if k is not None and (not isinstance(pruner, str) or not pruner):
            return (
                f"pruner must name the pruner's model file that kept k = {k} heads per word, got {pruner!r}"
            )
        return None
