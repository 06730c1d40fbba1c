"""The B&B parser's model structure: the second-order backbone plus chosen non-local factor groups, decoded by
branch and bound (:mod:`decoders.bnb.search`) and trained with it inside the perceptron
(:func:`decoders.parsing.perceptron.train`), and the first-order pre-pruning of section 4.4."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.bnb.factors import GROUP_ID, fired_features, sentence_factors
from decoders.bnb.search import Backbone, Factors, Result, branch_and_bound
from decoders.errors import ConfigError
from decoders.parsing.eisner import eisner
from decoders.parsing.features import Vocabulary, arc_scores, second_order_scores, tree_features
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.pruning import top_k_heads


@dataclass(frozen=True)
class NonLocalStructure:
    """Second-order parts + the factor ``groups`` (names of :data:`decoders.bnb.factors.GROUPS`).

    Its weight vector is two hash spaces of equal size: the second-order parts' features in the first half, the
    factors' in the second, so that no factor feature shares a weight with a backbone feature (in one space of
    2^22, the baseline's weights fill 35-72% of it). A model continued from the baseline therefore starts with
    the baseline's scores and every factor weight at zero, where branch and bound is exact.

    ``rather``/``than``: the vocabulary's ids of the lower-cased words (for the ``rather_than`` group; -1 when
    the vocabulary lacks them). ``grid``: the spacing of tree scores (1 for the integer weights of training and
    of the averaged numerator; None when the weights are arbitrary floats, which then never certifies a tie
    within rounding). ``max_iterations``, ``epsilon``, ``max_nodes``, ``max_open_bytes``, ``step_rule``,
    ``fixing``: the search's settings (:func:`decoders.bnb.search.branch_and_bound`); no memory limit by
    default: training's search is bounded by ``max_nodes`` (its long sentences' levels can exceed 512 MiB, and
    a limit there would change what training learns), decoding sets the variant's ``max_open_mb``."""

    groups: tuple[str, ...]
    rather: int = -1
    than: int = -1
    grid: float | None = 1.0
    max_iterations: int = 100
    epsilon: float = 1e-8
    max_nodes: int = 100_000
    max_open_bytes: int | None = None
    step_rule: str = "normalized"
    fixing: bool = True

    def __post_init__(self) -> None:
        unknown = [name for name in self.groups if name not in GROUP_ID]
        if unknown:
            raise ValueError(f"unknown factor group(s) {unknown}; known: {sorted(GROUP_ID)}")

    @property
    def group_ids(self) -> np.ndarray:
        return np.array([GROUP_ID[name] for name in self.groups], dtype=np.int64)

    def parts(self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray) -> tuple[Backbone, Factors]:
        """The sentence's scored backbone and factors over the ``allowed`` arcs."""
        base, extra = halves(weights)
        arc = arc_scores(tokens, base, allowed)
        backbone = Backbone(arc, *second_order_scores(tokens, base, arc))
        factors, _ = sentence_factors(tokens, extra, allowed, self.groups, self.rather, self.than)
        return backbone, factors

    def solve(
        self,
        tokens: np.ndarray,
        weights: np.ndarray,
        allowed: np.ndarray | None = None,
        deadline: float | None = None,
        incumbent: np.ndarray | None = None,
    ) -> tuple[Result, int]:
        """B&B on one sentence (``incumbent``: a tree known beforehand,
        :func:`decoders.bnb.search.branch_and_bound`): the result and the number of factors scored."""
        n = tokens.shape[1] - 1
        mask = np.ones((n + 1, n + 1), dtype=bool) if allowed is None else allowed
        backbone, factors = self.parts(tokens, weights, mask)
        result = branch_and_bound(
            backbone,
            factors,
            grid=self.grid,
            deadline=deadline,
            max_iterations=self.max_iterations,
            epsilon=self.epsilon,
            max_nodes=self.max_nodes,
            max_open_bytes=self.max_open_bytes,
            step_rule=self.step_rule,
            fixing=self.fixing,
            incumbent=incumbent,
        )
        return result, len(factors)

    def decode(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None = None
    ) -> np.ndarray:
        return self.solve(tokens, weights, allowed)[0].heads

    def decode_against(
        self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray | None, gold: np.ndarray
    ) -> tuple[np.ndarray, bool]:
        """Training's search: B&B with the gold tree as the incumbent, so that it only looks for trees that score
        at least as much as gold (every node whose bound cannot is pruned at once). Returns the best tree found
        (gold itself when no other tree scoring as much was met) and whether the search finished (then that tree
        is a best one; a search stopped at ``max_nodes`` may miss a tree that beats gold, never returns one that
        scores less)."""
        result, _ = self.solve(tokens, weights, allowed, incumbent=gold)
        return result.heads, result.optimal

    def features(self, tokens: np.ndarray, heads: np.ndarray, size: int) -> np.ndarray:
        half = _half(size)
        local = tree_features(tokens, heads, half, True)
        if not self.groups:
            return local
        fired = fired_features(tokens, heads, half, self.group_ids, self.rather, self.than)
        return np.concatenate([local, fired + half])


def _half(size: int) -> int:
    if size < 2 or size & (size - 1):
        raise ValueError(
            f"a non-local model's weights must be a vector of power-of-two size >= 2, got {size}"
        )
    return size // 2


def halves(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A non-local model's weight vector as its backbone's and its factors' hash spaces (views)."""
    half = _half(weights.shape[0])
    return weights[:half], weights[half:]


def prune_heads(tokens: np.ndarray, weights: np.ndarray, k: int | None) -> np.ndarray:
    """Section 4.4's pre-pruning: per word, the ``k`` heads of highest first-order score (ties: smaller head),
    plus the arcs of the first-order best projective tree, so that a tree always remains; ``None`` keeps every
    arc."""
    n = tokens.shape[1] - 1
    if k is None or k >= n:
        return top_k_heads(np.zeros((n + 1, n + 1)), None, np.zeros(0, dtype=np.int64))
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    scores = arc_scores(tokens, weights, everything)
    return top_k_heads(scores, k, eisner(scores)[0])


def structure_of(description: dict, vocabulary: Vocabulary) -> LocalStructure | NonLocalStructure:
    """The Structure a model file's ``structure`` describes: ``{"order": 1 | 2}`` or ``{"groups": [...]}``."""
    if "classifier" in description:
        raise ConfigError(f"a head classifier ({description}) only prunes: it does not parse")
    if "groups" in description:
        return NonLocalStructure(
            tuple(description["groups"]),
            rather=vocabulary.ids.get("l:rather", -1),
            than=vocabulary.ids.get("l:than", -1),
        )
    return LocalStructure(int(description["order"]))
