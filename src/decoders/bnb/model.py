"""The B&B parser's model structure: the second-order backbone plus chosen non-local factor groups, decoded by
branch and bound (:mod:`decoders.bnb.search`) and trained with it inside the perceptron
(:func:`decoders.parsing.perceptron.train`), and the first-order pre-pruning of section 4.4."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.bnb.factors import (
    FACTOR_FEATURES,
    GROUP_ID,
    LEXICON,
    PATTERNS,
    _check_groups,
    check_lexicon,
    fired_features,
    lexicon_ids,
    sentence_factors,
)
from decoders.bnb.search import STEP_RULES, Backbone, Factors, Result, branch_and_bound
from decoders.checks import check_float, check_int
from decoders.errors import ConfigError
from decoders.parsing.checks import check_tokens, check_weights
from decoders.parsing.eisner import _eisner
from decoders.parsing.features import (
    N_ATTRIBUTES,
    N_PART_TEMPLATES,
    Vocabulary,
    _max_arc_features,
    arc_scores,
    second_order_scores,
    tree_features,
)
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.pruning import top_k_heads


@dataclass(frozen=True)
class NonLocalStructure:
    """Second-order parts + the factor ``groups`` (names of :data:`decoders.bnb.factors.GROUPS`).

    Its weight vector is two hash spaces of equal size: the second-order parts' features in the first half, the
    factors' in the second, so that no factor feature shares a weight with a backbone feature (in one space of
    2^22, the baseline's weights fill 35-72% of it). A model continued from the baseline therefore starts with
    the baseline's scores and every factor weight at zero, where branch and bound is exact.

    ``lexicon``: the vocabulary's ids of :data:`decoders.bnb.factors.LEXICON` (read by the ``hand_crafted``
    triggers; -1 for an entry the vocabulary lacks; empty: all -1). ``grid``: the spacing of tree scores (1 for the integer weights of training and
    of the averaged numerator; None when the weights are arbitrary floats, which then never certifies a tie
    within rounding). ``max_iterations``, ``epsilon``, ``max_nodes``, ``max_open_bytes``, ``step_rule``,
    ``fixing``: the search's settings (:func:`decoders.bnb.search.branch_and_bound`); no memory limit by
    default: training's search is bounded by ``max_nodes`` (its long sentences' levels can exceed 512 MiB, and
    a limit there would change what training learns), decoding sets the variant's ``max_open_mb``."""

    groups: tuple[str, ...]
    lexicon: tuple[int, ...] = ()
    grid: float | None = 1.0
    max_iterations: int = 100
    epsilon: float = 1e-8
    max_nodes: int = 100_000
    max_open_bytes: int | None = None
    step_rule: str = "normalized"
    fixing: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.groups, tuple):
            raise ValueError(f"groups must be a tuple of factor group names, got {self.groups!r}")
        unknown = [name for name in self.groups if not isinstance(name, str) or name not in GROUP_ID]
        if unknown:
            raise ValueError(f"unknown factor group(s) {unknown}; known: {sorted(GROUP_ID)}")
        if not isinstance(self.lexicon, tuple) or len(self.lexicon) not in (0, len(LEXICON)):
            raise ValueError(
                f"lexicon must be a tuple of {len(LEXICON)} vocabulary ids or (), got {self.lexicon!r}"
            )
        if self.lexicon:
            check_lexicon(np.array(self.lexicon))
        if self.grid is not None:
            check_float(self.grid, "grid", positive=True)
        check_int(self.max_iterations, "max_iterations", minimum=1)
        check_float(self.epsilon, "epsilon", minimum=0.0)
        check_int(self.max_nodes, "max_nodes", minimum=1)
        if self.max_open_bytes is not None:
            check_int(self.max_open_bytes, "max_open_bytes", minimum=1)
        if not isinstance(self.step_rule, str) or self.step_rule not in STEP_RULES:
            raise ValueError(f"unknown step_rule {self.step_rule!r}; known: {list(STEP_RULES)}")
        if not isinstance(self.fixing, bool):
            raise ValueError(f"fixing must be True or False, got {self.fixing!r}")

    @property
    def lexicon_array(self) -> np.ndarray:
        if not self.lexicon:
            return np.full(len(LEXICON), -1, dtype=np.int64)
        return np.array(self.lexicon, dtype=np.int64)

    @property
    def group_ids(self) -> np.ndarray:
        return np.array([GROUP_ID[name] for name in self.groups], dtype=np.int64)

    def parts(self, tokens: np.ndarray, weights: np.ndarray, allowed: np.ndarray) -> tuple[Backbone, Factors]:
        """The sentence's scored backbone and factors over the ``allowed`` arcs."""
        base, extra = halves(weights)
        arc = arc_scores(tokens, base, allowed)
        backbone = Backbone(arc, *second_order_scores(tokens, base, arc))
        factors, _ = sentence_factors(tokens, extra, allowed, self.groups, self.lexicon_array)
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
        :func:`decoders.bnb.search.branch_and_bound`): the result and the number of factors scored. Scoring
        (:meth:`parts`) then the search (:meth:`search`)."""
        n = check_tokens(tokens, N_ATTRIBUTES).shape[1] - 1
        mask = np.ones((n + 1, n + 1), dtype=bool) if allowed is None else allowed
        backbone, factors = self.parts(tokens, weights, mask)
        return self.search(backbone, factors, deadline, incumbent), len(factors)

    def search(
        self,
        backbone: Backbone,
        factors: Factors,
        deadline: float | None = None,
        incumbent: np.ndarray | None = None,
    ) -> Result:
        """:meth:`solve`'s second half: branch and bound with this structure's search settings on a sentence
        :meth:`parts` scored (:mod:`decoders.bnb.breakdown` times the two halves apart)."""
        return branch_and_bound(
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
        fired = fired_features(tokens, heads, half, self.group_ids, self.lexicon_array)
        return np.concatenate([local, fired + half])


def _half(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 2 or size & (size - 1):
        raise ValueError(
            f"a non-local model's weights must be a vector of power-of-two size >= 2, got {size}"
        )
    return size // 2


def halves(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A non-local model's weight vector as its backbone's and its factors' hash spaces (views)."""
    weights = check_weights(weights, finite=False)
    half = _half(weights.shape[0])
    return weights[:half], weights[half:]


def prune_heads(tokens: np.ndarray, weights: np.ndarray, k: int | None) -> np.ndarray:
    """Section 4.4's pre-pruning: per word, the ``k`` heads of highest first-order score (ties: smaller head),
    plus the arcs of the first-order best projective tree, so that a tree always remains; ``None`` keeps every
    arc."""
    n = check_tokens(tokens, N_ATTRIBUTES).shape[1] - 1
    weights = check_weights(weights, finite=False)
    if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1):
        raise ValueError(f"k must be a positive number of heads per word or None, got {k!r}")
    if k is None or k >= n:
        return top_k_heads(np.zeros((n + 1, n + 1)), None, np.zeros(0, dtype=np.int64))
    everything = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(everything, False)
    everything[:, 0] = False
    scores = arc_scores(tokens, weights, everything)
    return top_k_heads(scores, k, _eisner(scores)[0])


def structure_of(description: dict, vocabulary: Vocabulary) -> LocalStructure | NonLocalStructure:
    """The Structure a model file's ``structure`` describes: ``{"order": 1 | 2}`` or ``{"groups": [...]}``."""
    if not isinstance(description, dict):
        raise ConfigError(f"a model's structure must be a mapping, got {description!r}")
    if not isinstance(vocabulary, Vocabulary):
        raise ConfigError(f"vocabulary must be a Vocabulary, got {type(vocabulary).__name__}")
    if "classifier" in description:
        raise ConfigError(f"a head classifier ({description}) only prunes: it does not parse")
    if "groups" in description:
        if isinstance(description["groups"], str) or not isinstance(description["groups"], list | tuple):
            raise ConfigError(
                f"a model's factor groups must be a list of names, got {description['groups']!r}"
            )
        return NonLocalStructure(
            tuple(description["groups"]), lexicon=tuple(lexicon_ids(vocabulary.ids).tolist())
        )
    order = description.get("order")
    if isinstance(order, bool) or order not in (1, 2, 3):
        raise ConfigError(f"a model's structure needs order 1, 2 or 3 or factor groups, got {description!r}")
    return LocalStructure(int(order))


#: Upper bounds on how many factors of each group one tree of ``n`` words fires: a chain per word (its head
#: and grandparent are fixed), a pair or triple of one head's modifiers, a comb per window of four words (one
#: head heads them all) and, per hand-crafted pattern, one per word (every trigger is anchored at one word, and the
#: arcs of its candidates differ only in the head of a word: ``than``'s, or the quote mark's).
_FIRED = {
    "grandchild": lambda n: n,
    "great_grandchild": lambda n: n,
    "sibling": lambda n: n * (n - 1) // 2,
    "tri_sibling": lambda n: n * (n - 1) * (n - 2) // 6,
    "comb": lambda n: n,
    "hand_crafted": lambda n: len(PATTERNS) * n,
}

#: Per word, the features a third-order (Koo and Collins Model 1) tree adds beyond its arcs: the sibling part's
#: and the grandchild and grand-sibling templates (:mod:`decoders.parsing.third_order`), each emitted twice.
_THIRD_ORDER_PER_WORD = 2 * N_PART_TEMPLATES + 2 * (6 + 4)


def max_tree_features(n: int, groups: tuple[str, ...] = (), order: int = 2) -> int:
    """An upper bound on the feature occurrences one tree of ``n`` words fires: per word its arc's (the fixed
    templates plus two per word in between) and, with ``order`` 2, its sibling, inner and outer grandchild
    parts' (or with 3, Model 1's parts), plus every factor of ``groups`` the tree can fire times its group's
    features per factor (:data:`decoders.bnb.factors.FACTOR_FEATURES`). A tree's score is a sum of that many
    weights, so ``max |w|`` times it bounds every partial sum."""
    n = check_int(n, "n", minimum=0)
    groups = _check_groups(groups)
    if isinstance(order, bool) or not isinstance(order, int | np.integer) or order not in (1, 2, 3):
        raise ValueError(f"order must be 1, 2 or 3, got {order!r}")
    per_word = _max_arc_features(n) + {1: 0, 2: 3 * 2 * N_PART_TEMPLATES, 3: _THIRD_ORDER_PER_WORD}[order]
    return n * per_word + sum(FACTOR_FEATURES[name] * _FIRED[name](n) for name in groups)


def check_exact_range(largest: float, n: int, groups: tuple[str, ...], order: int, what: str) -> None:
    """ValueError naming ``what`` (a model file) unless a tree of ``n`` words scores exactly under weights of
    magnitude at most ``largest``: ``largest * max_tree_features(n, groups, order) < 2^53``, below which every
    partial sum of integer weights is an integer a double holds exactly (so branch and bound's grid certificate,
    and the exact objectives the decoders report, hold)."""
    largest = check_float(largest, "largest", minimum=0.0)
    count = max_tree_features(n, groups, order)
    if largest * count >= 2.0**53:
        raise ValueError(
            f"{what}: weights up to {largest:.6g} in magnitude over the {count} features a tree of {n} words can "
            "fire can sum past 2^53, where scores are no longer exact integers; this model cannot be decoded "
            "exactly"
        )
