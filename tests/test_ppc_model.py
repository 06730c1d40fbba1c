"""Grandparent templates: keys of gold parts are indexed, scores sum their weights, the offline bounds hold."""

from __future__ import annotations

import numpy as np
import pytest

from decoders.parsing.trees import tree_error
from decoders.ppc.lp import brute_force, parse_price_cut
from decoders.ppc.model import (
    _BITS,
    TEMPLATES,
    GrandparentBounds,
    GrandparentIndex,
    GrandparentModel,
    Lexicon,
    gold_parts,
    part_keys,
)

WORDS = ["the", "dog", "saw", "a", "cat", "in", "the", "park", "today", "and", "ran"]
TAGS = ["DT", "NN", "VBD", "DT", "NN", "IN", "DT", "NN", "NN", "CC", "VBD"]
FEATS = ["Def=Def", "Number=Sing", "Tense=Past|Mood=Ind", "Def=Ind", "Number=Sing", "_", "Def=Def",
         "Number=Sing|Case=Nom", "_", "_", "Tense=Past"]  # fmt: skip


def _sentences(rng, count):
    out = []
    for _ in range(count):
        n = int(rng.integers(3, 9))
        pick = rng.integers(0, len(WORDS), n)
        heads = [0] + [
            int(rng.integers(1, m + 1)) for m in range(1, n)
        ]  # word i's head: an earlier word, 0 root
        order = rng.permutation(n)  # shuffled positions: non-projective trees
        inverse = np.argsort(order)
        moved = [0] * n
        for new_i, old_i in enumerate(order):
            old_head = heads[old_i]
            moved[new_i] = 0 if old_head == 0 else int(inverse[old_head - 1]) + 1
        out.append(
            {
                "words": [WORDS[k] for k in pick[order]],
                "tags": [TAGS[k] for k in pick[order]],
                "coarse_tags": [TAGS[k][0] for k in pick[order]],
                "lemmas": [WORDS[k].rstrip("s") for k in pick[order]],
                "feats": [FEATS[k] for k in pick[order]],
                "heads": np.array([-1, *moved]),
            }
        )
    for sentence in out:
        assert tree_error(sentence["heads"]) is None
    return out


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(0)
    train = _sentences(rng, 40)
    lexicon = Lexicon.build(train)
    index = GrandparentIndex.build((lexicon.encode(s), s["heads"]) for s in train)
    weights = rng.normal(size=len(index))
    return rng, train, lexicon, index, weights, GrandparentBounds.build(index, weights)


def test_gold_parts_fire_indexed_keys(trained):
    _, train, lexicon, index, _, bounds = trained
    ones = np.ones(len(index))
    for sentence in train[:10]:
        tokens = lexicon.encode(sentence)
        g, p, c = gold_parts(sentence["heads"])
        keys, owners = part_keys(tokens, g, p, c)
        assert (index.lookup(keys) >= 0).all()
        model = GrandparentModel(tokens, index, ones, GrandparentBounds.build(index, ones))
        per_part = np.bincount(owners, minlength=len(g))
        assert model.score(g, p, c).tolist() == per_part.tolist()
        assert model.scored == len(g)


@pytest.mark.parametrize("trial", range(3))
def test_compiled_scores_are_the_sums_of_the_keys_weights(trained, trial):
    """GrandparentModel.score (a compiled loop with its own binary search) against part_keys, the index's lookup
    and a bincount, on every part of new sentences (unseen keys weigh 0): the same sums, to the bit."""
    _, _, lexicon, index, weights, bounds = trained
    sentence = _sentences(np.random.default_rng(200 + trial), 1)[0]
    tokens = lexicon.encode(sentence)
    side = len(sentence["words"]) + 1
    g, p, c = (x.ravel() for x in np.meshgrid(*(np.arange(side),) * 3, indexing="ij"))
    keep = (p > 0) & (c > 0) & (g != p) & (p != c) & (g != c)
    g, p, c = g[keep], p[keep], c[keep]
    keys, owners = part_keys(tokens, g, p, c)
    found = index.lookup(keys)
    expected = np.bincount(
        owners, weights=np.where(found >= 0, weights[np.maximum(found, 0)], 0.0), minlength=len(g)
    )
    model = GrandparentModel(tokens, index, weights, bounds)
    assert np.array_equal(model.score(g, p, c), expected)
    assert model.scored == len(g) and (found < 0).any()  # some keys unseen
    assert model.score(g[:0], p[:0], c[:0]).shape == (0,)


def test_features_tell_relative_positions_apart(trained):
    _, train, lexicon, index, _, _ = trained
    tokens = lexicon.encode(train[0])
    a = part_keys(tokens, np.array([1]), np.array([2]), np.array([3]))[0]
    b = part_keys(tokens, np.array([3]), np.array([2]), np.array([1]))[0]
    assert len(a) >= len(TEMPLATES) - 2 and not set(a.tolist()) & set(b.tolist())


@pytest.mark.parametrize("trial", range(4))
def test_bounds_hold_for_every_part(trained, trial):
    rng, _, lexicon, index, weights, bounds = trained
    sentence = _sentences(np.random.default_rng(100 + trial), 1)[0]
    model = GrandparentModel(lexicon.encode(sentence), index, weights, bounds)
    n = len(sentence["words"])
    side = n + 1
    g, p, c = (x.ravel() for x in np.meshgrid(*(np.arange(side),) * 3, indexing="ij"))
    keep = (p > 0) & (c > 0) & (g != p) & (p != c) & (g != c)
    g, p, c = g[keep], p[keep], c[keep]
    scores = model.score(g, p, c)
    child, parent = model.child_bounds(), model.parent_bounds()  # per template
    assert child.shape == parent.shape == (len(TEMPLATES), side, side)
    assert (child.sum(axis=0)[p, c] >= scores - 1e-12).all()
    assert (parent.sum(axis=0)[g, p] >= scores - 1e-12).all()
    # each template's share of a part's score is below both of its bounds: pricing's sum of minima holds
    keys, owners = part_keys(model.tokens, g, p, c)
    found = index.lookup(keys)
    template = keys >> (3 + 3 * _BITS)
    share = np.zeros((len(TEMPLATES), len(g)))
    np.add.at(share, (template, owners), np.where(found >= 0, weights[np.maximum(found, 0)], 0.0))
    assert np.allclose(share.sum(axis=0), scores)
    assert (share <= child[:, p, c] + 1e-12).all() and (share <= parent[:, g, p] + 1e-12).all()
    assert (np.minimum(child[:, p, c], parent[:, g, p]).sum(axis=0) >= scores - 1e-12).all()


def test_ppc_with_the_factored_model_reaches_the_full_lp(trained):
    rng, _, lexicon, index, weights, bounds = trained
    for trial in range(5):
        sentence = _sentences(np.random.default_rng(200 + trial), 1)[0]
        tokens = lexicon.encode(sentence)
        n = len(sentence["words"])
        arc = rng.normal(size=(n + 1, n + 1))
        np.fill_diagonal(arc, -np.inf)
        arc[:, 0] = -np.inf
        full = brute_force(arc, GrandparentModel(tokens, index, weights, bounds))
        ppc = parse_price_cut(arc, GrandparentModel(tokens, index, weights, bounds))
        assert ppc.optimal and full.optimal
        assert ppc.objective == pytest.approx(full.objective, rel=1e-6, abs=1e-9)
        assert ppc.stats["parts_scored"] <= full.stats["parts_scored"]


def test_unseen_strings_and_missing_morphology():
    lexicon = Lexicon.build([{"words": ["A"], "tags": ["X"], "coarse_tags": ["X"]}])
    tokens = lexicon.encode({"words": ["b", "a"], "tags": ["Y", "X"], "coarse_tags": ["Y", "X"]})
    assert tokens.single[:, 0].tolist() == [2, 2, 2, 2]  # the root
    assert tokens.single[0, 1:].tolist() == [1, 3]  # unseen, then "a" (lower-cased)
    assert tokens.offsets.tolist() == [0, 0, 0, 0]


def test_feature_cells_drop_the_ddt_token_ids():
    row = {
        "words": ["to", "kendt"],
        "tags": ["A", "B"],
        "coarse_tags": ["A", "B"],
        "feats": ["case=u|id=43", "_"],
    }
    lexicon = Lexicon.build([row])
    assert set(lexicon.ids[4]) == {"case=u"}
    assert lexicon.encode(row).offsets.tolist() == [0, 0, 1, 1]
