"""Training ppc's grandparent parser with the shared averaged perceptron (:mod:`decoders.parsing.perceptron`).

:class:`GrandparentLP`: hashed first-order arc features (:mod:`decoders.parsing.features`) plus the indexed
grandparent templates of :mod:`decoders.ppc.model`. Its arc weights are the first-order model's (the per-word
log-linear head classifier of :mod:`decoders.parsing.pruning`, scaled: :func:`decoders.ppc.pipeline.train_parsers`),
kept as they are; its grandparent weights are learnt with the grandparent LP (polytope ``all``) as the training
decoder, over each sentence's top-k first-order heads (gold arcs kept), updated on the LP's own solution (relaxed
updates, Martins et al. 2009: each grandparent part's features weighted by its value, a mistake unless the solution
is integral and gold). Riedel et al. (2012) trained with SGD on a likelihood approximated by belief propagation; an
exact LP decoder inside a perceptron is our choice, pruned so that a training pass costs minutes.

Why a head classifier's arcs, not a first-order perceptron's: a perceptron that decodes whole trees by
Chu-Liu-Edmonds is never corrected for the cycles that its per-word best heads form (Chu-Liu-Edmonds breaks them at
no cost), and the single-commodity flow relaxation turns those cycles into fractional LP solutions. Measured on
szeged dev (sentences up to 40 words, first-order LP): with the perceptron's arcs the per-word best heads are the
best tree in 0% of sentences and the LP is integral on 78%; with the classifier's on 89.3% and 97.3%, for a higher
Chu-Liu-Edmonds UAS (81.00 against 80.64). The scale matters once grandparent weights are added: the perceptron's
unit steps swamp log-probabilities (szeged dev, grandparent LP over every arc: scale 1, 72.1 UAS; 10, 79.0 UAS
and 92.3% integral; 100, 78.1 and 95.2%; the classifier's own trees 78.0).

Why the arc weights are frozen: a perceptron whose decoder is pruned never penalises an arc outside the top k, so
arc features learnt jointly under pruning drift upwards on exactly the arcs that unpruned decoding then picks
(szeged: 79.2 dev UAS decoding at k = 5, 48.1 unpruned).

One weight vector: ``[0, 2^bits)`` holds the hashed arc features, ``[2^bits, 2^bits + len(index))`` the
grandparent features; its size is the next power of two (what the perceptron asks for).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.parsing.features import arc_scores, arcs_features, tree_features
from decoders.parsing.perceptron import RelaxedSolution
from decoders.ppc.lp import LPResult, brute_force, parse_price_cut
from decoders.ppc.model import (
    GrandparentBounds,
    GrandparentIndex,
    GrandparentModel,
    SentenceAttributes,
    gold_parts,
    part_keys,
)

#: parse, price and cut as the ``ppc`` variant decodes (config/ppc.yaml)
FAST_PRICING = {"start": "tree", "columns_per_word": 4, "rows": "lean", "no_gp": False, "primal": True}


@dataclass(frozen=True)
class Encoded:
    """A sentence as both feature sets read it: ``arc_tokens`` (:meth:`decoders.parsing.features.Vocabulary.
    encode`) and ``attributes`` (:meth:`decoders.ppc.model.Lexicon.encode`)."""

    arc_tokens: np.ndarray
    attributes: SentenceAttributes


def every_arc(n: int) -> np.ndarray:
    """Every candidate arc of an n-word sentence as an (n + 1, n + 1) mask: no arc into the root, no self-loop."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ValueError(f"n must be a number of words (an integer >= 0); got {n!r}")
    mask = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(mask, False)
    mask[:, 0] = False
    return mask


def _mask(n: int, allowed: np.ndarray | None) -> np.ndarray:
    return every_arc(n) if allowed is None else allowed


def _solution_values(values: np.ndarray, integral: bool) -> np.ndarray:
    """LP values as update weights: within [0, 1], and exactly 0 or 1 when the solution is integral."""
    values = np.clip(values, 0.0, 1.0)
    return np.round(values) if integral else values


@dataclass(frozen=True)
class GrandparentLP:
    """Arc plus grandparent features; decoded by the full LP over the allowed arcs, read as a tree. The arc
    weights stay as given unless ``train_arcs`` (then meant for training over every arc: module notes)."""

    index: GrandparentIndex
    bits: int
    train_arcs: bool = False

    @property
    def size(self) -> int:
        """The weight vector's size: room for both feature sets, a power of two."""
        need = (1 << self.bits) + len(self.index)
        return 1 << max(need - 1, 1).bit_length()

    def split(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        arc_size = 1 << self.bits
        return weights[:arc_size], weights[arc_size : arc_size + len(self.index)]

    def solve(self, tokens: Encoded, weights: np.ndarray, allowed: np.ndarray | None = None) -> LPResult:
        """The full LP over ``allowed`` (every arc, by parse, price and cut, when None)."""
        arc_weights, gp_weights = self.split(weights)
        n = tokens.arc_tokens.shape[1] - 1
        arc = arc_scores(tokens.arc_tokens, arc_weights, _mask(n, allowed))
        if allowed is not None:
            return brute_force(arc, GrandparentModel(tokens.attributes, self.index, gp_weights))
        bounds = GrandparentBounds.build(self.index, gp_weights)  # the weights change after every update
        model = GrandparentModel(tokens.attributes, self.index, gp_weights, bounds)
        return parse_price_cut(arc, model, **FAST_PRICING)

    def decode(self, tokens: Encoded, weights: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
        return self.solve(tokens, weights, allowed).heads

    def decode_relaxed(
        self, tokens: Encoded, weights: np.ndarray, allowed: np.ndarray | None = None
    ) -> RelaxedSolution:
        """The LP's solution for relaxed updates: its grandparent parts' features, each with its part's value
        (and, with ``train_arcs``, its arcs' features with each arc's value), and the LP objective."""
        result = self.solve(tokens, weights, allowed)
        if result.parts is None or not np.isfinite(result.objective):
            raise ValueError(f"no LP solution to train on (status {result.status!r})")
        values = _solution_values(result.part_values, result.integral)
        keys, owner = part_keys(tokens.attributes, *result.parts.T)
        found = self.index.lookup(keys)
        values = values[owner]
        keep = (found >= 0) & (values > 0.0)
        indices, values = (1 << self.bits) + found[keep], values[keep]
        if self.train_arcs:
            z = _solution_values(result.arc_values, result.integral)
            heads, mods = np.nonzero(z > 0.0)
            arcs, owner = arcs_features(tokens.arc_tokens, heads, mods, 1 << self.bits)
            indices = np.concatenate([arcs, indices])
            values = np.concatenate([z[heads, mods][owner], values])
        return RelaxedSolution(result.heads, result.integral, result.objective, indices, values)

    def initial(self, arc_weights: np.ndarray) -> np.ndarray:
        """The weight vector training starts from: ``arc_weights`` (the MST parser's, ``2^bits`` of them) and
        zero grandparent weights."""
        if arc_weights.shape != (1 << self.bits,):
            raise ValueError(f"arc weights must have shape ({1 << self.bits},), got {arc_weights.shape}")
        weights = np.zeros(self.size)
        weights[: 1 << self.bits] = arc_weights
        return weights

    @property
    def fixed_weights(self) -> int:
        """The arc weights (the first ``2^bits``) are the MST parser's and are not updated (module notes),
        unless ``train_arcs``."""
        return 0 if self.train_arcs else 1 << self.bits

    def features(self, tokens: Encoded, heads: np.ndarray, size: int) -> np.ndarray:
        arc_size = 1 << self.bits
        arcs = tree_features(tokens.arc_tokens, heads, arc_size, False)
        keys, _ = part_keys(tokens.attributes, *gold_parts(heads))
        found = self.index.lookup(keys)
        return np.concatenate([arcs, arc_size + found[found >= 0]])
