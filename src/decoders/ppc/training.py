"""Training ppc's non-projective parsers with the shared averaged perceptron (:mod:`decoders.parsing.perceptron`).

Two structures: :class:`FirstOrderMST` (hashed first-order arc features of :mod:`decoders.parsing.features`,
decoded by Chu-Liu-Edmonds: the MST row, and the pruner of training) and :class:`GrandparentLP` (those arc
features plus the indexed grandparent templates of :mod:`decoders.ppc.model`). The grandparent parser keeps the
MST parser's arc weights (its training starts from them and updates only grandparent features) and learns its
grandparent weights with the full grandparent LP (polytope ``all``) as the training decoder, over each sentence's
top-k first-order heads (the pruner's, gold arcs kept), updated on the LP's own solution (relaxed updates,
Martins et al. 2009: each grandparent part's features weighted by its value, a mistake unless the solution is
integral and gold). Riedel et al. (2012) trained with SGD on a likelihood approximated by belief propagation; an
exact LP decoder inside a perceptron is our choice, pruned so that a training pass costs minutes. Updating on the
fractional solution rather than on the tree read from it (MST of the arc values) penalises fractional solutions as
such (measured on 200 szeged dev sentences, 3 epochs, an earlier feature set: 89.0% of them integral against 81.0%,
UAS 80.1 and 80.2; the workflow's szeged model, 5 epochs: 82.8% of all dev sentences integral, decoded by PPC).

Why the arc weights are frozen: decoding the test sets is never pruned, and a perceptron whose decoder is pruned
never penalises an arc outside the top k, so arc features learnt jointly under pruning drift upwards on exactly the
arcs that unpruned decoding then picks (szeged: 79.2 dev UAS decoding at k = 5, 48.1 unpruned). The MST parser's
arc weights were learnt over every arc; grandparent weights added on top stay small on parts never seen (szeged,
k = 5: 78.4 unpruned against the MST's 77.0). Training with parse, price and cut over every arc (``k`` None)
removes the mismatch too, at six times the cost (szeged, 3 epochs: 869 s against 145 s for 5 epochs at k = 5)
for the same dev UAS and % integral (78.9 and 82.3% against 78.7 and 82.8%).

One weight vector: ``[0, 2^bits)`` holds the hashed arc features, ``[2^bits, 2^bits + len(index))`` the
grandparent features; its size is the next power of two (what the perceptron asks for).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decoders.parsing.features import arc_scores, arcs_features, tree_features
from decoders.parsing.mst import chu_liu_edmonds
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


@dataclass(frozen=True)
class Encoded:
    """A sentence as both feature sets read it: ``arc_tokens`` (:meth:`decoders.parsing.features.Vocabulary.
    encode`) and ``attributes`` (:meth:`decoders.ppc.model.Lexicon.encode`)."""

    arc_tokens: np.ndarray
    attributes: SentenceAttributes


def _mask(n: int, allowed: np.ndarray | None) -> np.ndarray:
    if allowed is not None:
        return allowed
    mask = np.ones((n + 1, n + 1), dtype=bool)
    np.fill_diagonal(mask, False)
    mask[:, 0] = False
    return mask


@dataclass(frozen=True)
class FirstOrderMST:
    """First-order non-projective parsing: hashed arc features, Chu-Liu-Edmonds."""

    def decode(self, tokens: Encoded, weights: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
        n = tokens.arc_tokens.shape[1] - 1
        return chu_liu_edmonds(arc_scores(tokens.arc_tokens, weights, _mask(n, allowed)))[0]

    def features(self, tokens: Encoded, heads: np.ndarray, size: int) -> np.ndarray:
        return tree_features(tokens.arc_tokens, heads, size, False)


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
        return parse_price_cut(arc, model, start="tree", columns_per_word=4)

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
