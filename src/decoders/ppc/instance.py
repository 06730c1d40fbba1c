"""One test sentence for the ppc decoders: what both feature sets read, the gold tree, the words UAS scores,
and the trained models every decoder scores with (loaded once per worker, by path)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.parsing.features import N_ATTRIBUTES
from decoders.parsing.trees import tree_error
from decoders.ppc.model import SentenceAttributes


@dataclass(frozen=True, eq=False)
class PPCInstance:
    """``arc_tokens`` (N_ATTRIBUTES, n + 1) ids >= 1 (:class:`decoders.parsing.features.Vocabulary`);
    ``attributes`` the grandparent templates' token attributes; ``gold`` an arborescence rooted at 0 (several
    root modifiers allowed); ``scored`` (n,) bool; ``model`` the grandparent parser file, ``first_order`` the
    first-order (MST) parser file. Every arc is a candidate: ppc decodes without pruning."""

    arc_tokens: np.ndarray
    attributes: SentenceAttributes
    gold: np.ndarray
    scored: np.ndarray
    model: str
    first_order: str

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(f"PPCInstance: {problem}")

    @property
    def n(self) -> int:
        return self.arc_tokens.shape[1] - 1

    def _problem(self) -> str | None:
        tokens = self.arc_tokens
        if not isinstance(tokens, np.ndarray) or tokens.dtype != np.int64 or tokens.ndim != 2:
            return "arc_tokens must be a 2-d int64 array"
        if tokens.shape[0] != N_ATTRIBUTES or tokens.shape[1] < 2:
            return f"arc_tokens must have shape ({N_ATTRIBUTES}, n + 1) with n >= 1 words, got {tokens.shape}"
        if tokens.min() < 1:
            return f"arc_tokens holds id {int(tokens.min())}; ids start at 1"
        n = tokens.shape[1] - 1
        a = self.attributes
        if not isinstance(a, SentenceAttributes) or a.single.shape != (4, n + 1):
            return f"attributes must be SentenceAttributes over the same {n} words"
        gold = self.gold
        if not isinstance(gold, np.ndarray) or gold.dtype != np.int64 or gold.shape != (n + 1,):
            return f"gold must be an int64 head array of length {n + 1}"
        problem = tree_error(gold, single_root=False)
        if problem is not None:
            return f"gold: {problem}"
        if (
            not isinstance(self.scored, np.ndarray)
            or self.scored.dtype != np.bool_
            or self.scored.shape != (n,)
        ):
            return f"scored must be a bool array of length {n}"
        for name in ("model", "first_order"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                return f"{name} must name a parser model file"
        return None
