"""One test sentence for the bnb decoders: encoded tokens, the gold tree, the words UAS scores, the arcs the
pre-pruning kept, and the trained model every decoder scores with (loaded once per worker, by path)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.parsing.eisner import _eisner
from decoders.parsing.features import N_ATTRIBUTES
from decoders.parsing.trees import tree_error


@dataclass(frozen=True, eq=False)
class ParseInstance:
    """``tokens`` (N_ATTRIBUTES, n + 1) ids >= 1; ``gold`` full head array (may be non-projective); ``scored``
    (n,) bool; ``allowed`` (n + 1, n + 1) bool, ``allowed[h, m]`` = the arc may be used (never into the root
    or a loop; some projective tree must remain); ``model`` the parser model file; ``k`` the heads kept per
    word (None: no pruning)."""

    tokens: np.ndarray
    gold: np.ndarray
    scored: np.ndarray
    allowed: np.ndarray
    model: str
    k: int | None = None

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(f"ParseInstance: {problem}")

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
        if self.k is not None and (isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1):
            return f"k must be a positive integer or None, got {self.k!r}"
        if not isinstance(self.model, str) or not self.model:
            return "model must name the parser model file"
        return None
