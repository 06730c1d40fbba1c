"""bnb decoders through the harness: trained toy models on disk, certified results, verifier, bad input."""

from __future__ import annotations

import copy
import json
import math
import pickle
import time
from dataclasses import replace

import numpy as np
import pytest
from parsing_toys import train_toy_models

from decoders.bnb import decoders as bnb_decoders
from decoders.bnb.audit import solve_exact
from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, prune_heads
from decoders.errors import ConfigError, CorpusFormatError
from decoders.harness.instances import read_instance_shard, write_instance_shards
from decoders.harness.protocol import Solution, get_decoder, known_decoders
from decoders.harness.runner import run_instances, timed_call
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.trees import as_heads, enumerate_trees

TOY = [
    (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
    (["the", "cat", "sees", "the", "dog"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    (["cats", "see", "a", "bird"], ["NN", "VB", "DT", "NN"], [2, 0, 4, 2]),
    (["a", "dog", "sees", "cats", "rather", "than", "birds"], ["DT", "NN", "VB", "NN", "RB", "IN", "NN"],
     [2, 3, 0, 3, 6, 4, 6]),
]  # fmt: skip


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return train_toy_models(
        tmp_path_factory.mktemp("models"),
        TOY,
        [
            ("first", LocalStructure(1), {"order": 1}),
            ("second", LocalStructure(2), {"order": 2}),
            ("third", LocalStructure(3), {"order": 3}),
            (
                "bnb",
                NonLocalStructure(("grandchild", "sibling", "comb")),
                {"groups": ["grandchild", "sibling", "comb"]},
            ),
        ],
        epochs=3,
    )


def _instances(vocab, model, first_model, k=None):
    weights = ParserModel.load(first_model).numerator
    pruner = None if k is None else first_model
    items = []
    for i, (words, tags, heads) in enumerate(TOY):
        tokens = vocab.encode(words, tags, tags)
        gold = as_heads(heads)
        allowed = prune_heads(tokens, weights, k)
        scored = np.ones(len(words), bool)
        items.append((f"s{i}", len(words), ParseInstance(tokens, gold, scored, allowed, model, k, pruner)))
    return items


#: Every registered bnb decoder and the toy model it decodes with.
REGISTERED = [
    ("eisner", "first"),
    ("second-order", "second"),
    ("third-order", "third"),
    ("bnb", "bnb"),
    ("cp-sat", "bnb"),
]


@pytest.mark.parametrize(
    ("decoder", "model"),
    [
        ("eisner", "first"),
        ("second-order", "second"),
        ("third-order", "third"),
        ("bnb", "bnb"),
        ("bnb-paper", "bnb"),
        ("cp-sat", "bnb"),
    ],
)
def test_decoders_certify_verified_trees(models, decoder, model):
    vocab, paths = models
    name, params = decoder, {}
    if decoder == "bnb-paper":  # the paper's search settings
        name, params = "bnb", {"step_rule": "paper", "fixing": False, "max_iterations": 100}
    for k in (None, 2):
        frame = run_instances(
            "bnb", "toy", decoder, name, params, _instances(vocab, paths[model], paths["first"], k),
            time_limit=30, isolate=False, progress=False, evaluate=bnb_decoders.evaluate,
        )  # fmt: skip
        assert frame["status"].tolist() == ["optimal"] * len(TOY), frame["stats"].tolist()
        assert (frame["objective"] == frame["bound"]).all()
        assert frame["correct"].sum() / frame["total"].sum() > 0.8
        if name == "bnb":
            assert all(json.loads(s)["dp_calls"] >= 1 for s in frame["stats"])


def test_cp_sat_leaves_sentences_outside_min_and_max_words_unattempted(models):
    vocab, paths = models
    items = _instances(vocab, paths["bnb"], paths["first"])
    sizes = sorted(size for _, size, _ in items)
    assert sizes[0] < 4 < sizes[-1]  # both sides of the bounds below are exercised
    for bounds, inside in (({"max_words": 4}, lambda n: n <= 4), ({"min_words": 4}, lambda n: n >= 4)):
        for _, size, instance in items:
            solution = bnb_decoders.decode_cp_sat(instance, **bounds)
            if not inside(size):
                assert solution.status == "timeout" and solution.structure is None
                assert solution.stats == {"words": size, "not_attempted": True}
            else:
                assert solution.status == "optimal" and "not_attempted" not in solution.stats
    for key, bad in [(key, bad) for key in ("max_words", "min_words") for bad in (0, 2.5, True, "4")]:
        with pytest.raises(ConfigError, match=key):
            bnb_decoders.decode_cp_sat(items[0][2], **{key: bad})


def test_the_verifier_rejects_tampered_certificates(models):
    vocab, paths = models
    _, _, instance = _instances(vocab, paths["second"], paths["first"])[1]
    good = bnb_decoders.decode_second_order(instance)
    assert bnb_decoders.verify(instance, good) is None
    heads = list(good.structure)
    assert "scores" in bnb_decoders.verify(
        instance, Solution(heads, good.objective + 1, good.objective + 1, "optimal")
    )
    assert "bound" in bnb_decoders.verify(
        instance, Solution(heads, good.objective, good.objective + 5, "optimal")
    )
    crossing = [3, 4, 0, 3, 4]  # 1 <- 3 and 2 <- 4 cross
    assert "projective" in bnb_decoders.verify(instance, Solution(crossing, 0.0, 0.0, "optimal"))
    # the worst allowed tree claimed optimal with its own (true) score: enumeration finds a better one
    trees = enumerate_trees(instance.n, instance.allowed)
    values = [bnb_decoders.tree_score(instance, tree) for tree in trees]
    assert max(values) == good.objective and min(values) < good.objective
    worst = trees[int(np.argmin(values))]
    assert "scores" in bnb_decoders.verify(
        instance, Solution(worst[1:].tolist(), min(values), min(values), "optimal")
    )
    assert "tree" in bnb_decoders.verify(instance, Solution([0, 0, 0, 0, 0], 0.0, 0.0, "optimal"))
    with pytest.raises(ValueError, match="heads: "):
        bnb_decoders.tree_score(instance, np.array([-1, 0, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match="heads must be 6 integers"):
        bnb_decoders.tree_score(instance, worst[1:])
    with pytest.raises(ValueError, match="instance must be a ParseInstance"):
        bnb_decoders.tree_score(None, worst)


def test_bad_instances_and_models_are_named(models, tmp_path):
    vocab, paths = models
    tokens = vocab.encode(["the", "dog"], ["DT", "NN"], ["DT", "NN"])
    gold = as_heads([2, 0])
    allowed = np.ones((3, 3), dtype=bool)
    with pytest.raises(ValueError, match="into the root"):
        ParseInstance(tokens, gold, np.ones(2, bool), allowed, paths["first"])
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    with pytest.raises(ValueError, match="gold: 2 words attach"):
        ParseInstance(tokens, as_heads([0, 0]), np.ones(2, bool), allowed, paths["first"])
    no_root = allowed.copy()
    no_root[0, :] = False
    with pytest.raises(ValueError, match="no projective tree"):
        ParseInstance(tokens, gold, np.ones(2, bool), no_root, paths["first"])
    with pytest.raises(ValueError, match="ids start at 1"):
        ParseInstance(tokens * 0, gold, np.ones(2, bool), allowed, paths["first"])
    with pytest.raises(CorpusFormatError, match="no parser model"):
        ParserModel.load(tmp_path / "missing.npz")
    instance = ParseInstance(tokens, gold, np.ones(2, bool), allowed, paths["first"])
    with pytest.raises(Exception, match="second-order"):
        bnb_decoders.decode_second_order(instance)
    for bad, match in [
        ({"step_rule": "fast"}, "step_rule"),
        ({"fixing": "yes"}, "fixing"),
        ({"max_iterations": 0}, "max_iterations"),
        ({"max_open_mb": 0}, "max_open_mb"),
        ({"max_open_mb": 1.5}, "max_open_mb"),
        ({"max_open_mb": True}, "max_open_mb"),
    ]:
        with pytest.raises(ConfigError, match=match):
            bnb_decoders.decode_bnb(instance, **bad)


def test_every_registered_decoder_is_covered():
    """Every decoder of the experiment's own module (tests/user_decoders.py registers a user's beside them)."""
    ours = [
        name for name in known_decoders("bnb") if get_decoder("bnb", name).__module__ == bnb_decoders.__name__
    ]
    assert sorted(name for name, _ in REGISTERED) == sorted(ours)


@pytest.mark.parametrize(("decoder", "model"), REGISTERED)
def test_the_pruner_runs_inside_the_timed_call(models, monkeypatch, decoder, model):
    """Table 3's words/s include pruning: each decoder call runs the pruner (first-order scores of every arc, the
    k best heads per word) once, with the instance's pruner weights and k, and that call is inside the interval
    the harness times; an unpruned instance runs no pruner."""
    vocab, paths = models
    decode = get_decoder("bnb", decoder)
    pruner_weights = ParserModel.load(paths["first"]).numerator
    calls = []
    pause = 0.05

    def spy(tokens, weights, k):
        calls.append((tokens, weights, k))
        time.sleep(pause)
        return prune_heads(tokens, weights, k)

    monkeypatch.setattr(bnb_decoders, "prune_heads", spy)
    items = _instances(vocab, paths[model], paths["first"], k=2)
    for _, _, instance in items:
        decode(instance)  # warm-up: models, pruner and kernels loaded
    for _, _, instance in items:
        calls.clear()
        seconds, solution = timed_call(decode, instance, {}, time_limit=30.0)
        assert solution.status == "optimal", solution.stats
        assert len(calls) == 1
        tokens, weights, k = calls[0]
        assert tokens is instance.tokens and k == instance.k == 2
        assert np.array_equal(weights, pruner_weights)
        assert seconds >= pause  # the pruner's time is in the decode seconds
    calls.clear()
    for _, _, instance in _instances(vocab, paths[model], paths["first"], k=None):
        assert decode(instance).status == "optimal"
    assert calls == []  # unpruned: no pruning


@pytest.mark.parametrize(("decoder", "model"), REGISTERED)
def test_an_instance_another_pruner_made_is_refused(models, decoder, model):
    vocab, paths = models
    decode = get_decoder("bnb", decoder)
    _, _, instance = _instances(vocab, paths[model], paths["first"], k=1)[1]
    # arcs kept at k = 1 but recorded as k = 2; arcs another model's pruning keeps; an extra arc; an unpruned
    # instance missing arcs
    more = prune_heads(instance.tokens, ParserModel.load(paths["first"]).numerator, 2)
    assert not np.array_equal(more, instance.allowed)
    extra = instance.allowed.copy()
    extra[1, 2] = extra[2, 1] = True
    assert not np.array_equal(extra, instance.allowed)
    full = np.ones_like(instance.allowed)
    full[:, 0] = False
    np.fill_diagonal(full, False)
    for bad in (
        replace(instance, k=2),
        replace(instance, pruner=paths["second"]),
        replace(instance, allowed=extra),
        replace(instance, allowed=more, k=None, pruner=None),
    ):
        if bad.pruner == paths["second"]:
            other = prune_heads(instance.tokens, ParserModel.load(paths["second"]).numerator, 1)
            if np.array_equal(other, instance.allowed):
                continue  # that model happens to keep the same arcs on this sentence
        with pytest.raises(ConfigError, match="another pruner"):
            decode(bad)
    assert decode(replace(instance, allowed=full, k=None, pruner=None)).status == "optimal"


def test_the_pruner_and_k_are_recorded_together(models):
    vocab, paths = models
    _, _, instance = _instances(vocab, paths["second"], paths["first"], k=2)[0]
    for bad in ({"pruner": None}, {"pruner": ""}, {"pruner": 3}, {"k": None}):
        with pytest.raises(ValueError, match="pruner"):
            replace(instance, **bad)


def test_old_shards_without_the_pruner_are_named(models, tmp_path):
    vocab, paths = models
    items = _instances(vocab, paths["second"], paths["first"], k=2)
    shard = tmp_path / "shard-0.pkl"
    write_instance_shards(items, [shard], tmp_path / "index.tsv")
    assert all(a[2].pruner == b[2].pruner for a, b in zip(read_instance_shard(shard), items, strict=True))
    old = []
    for name, size, instance in items:  # as the code before the pruner field pickled them
        stale = copy.copy(instance)
        del stale.__dict__["pruner"]
        old.append((name, size, stale))
    with open(shard, "wb") as handle:
        pickle.dump(old, handle)
    with pytest.raises(CorpusFormatError, match="shard-0.pkl.*lacks pruner.*rebuild"):
        read_instance_shard(shard)


@pytest.mark.parametrize("load", [bnb_decoders.load_model, bnb_decoders.load_pruner])
@pytest.mark.parametrize("bad", [np.zeros(3), None, 5, ["model.npz"], b"model.npz"])
def test_model_loaders_refuse_what_is_not_a_path(load, bad):
    """Found here: an array gave the cache's ``TypeError: unhashable type``, None and numbers ``open``'s."""
    with pytest.raises(ValueError, match=r"path must be a path \(str or os.PathLike\)"):
        load(bad)


def test_model_loaders_share_one_entry_per_path(models):
    from pathlib import Path

    bnb_decoders.load_model.cache_clear()
    path = models[1]["first"]
    assert bnb_decoders.load_model(Path(path)) is bnb_decoders.load_model(str(path))
    assert bnb_decoders.load_model.cache_info().currsize == 1


def test_evaluate_and_verify_refuse_wrong_objects():
    from decoders.parsing.features import N_ATTRIBUTES

    tokens = np.ones((N_ATTRIBUTES, 3), dtype=np.int64)
    allowed = np.ones((3, 3), dtype=bool)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    instance = ParseInstance(tokens, np.array([-1, 0, 1]), np.ones(2, dtype=bool), allowed, "m.npz")
    solution = Solution([0, 1], 0.0, 0.0, "optimal", {})
    for check in (bnb_decoders.evaluate, bnb_decoders.verify):
        with pytest.raises(ValueError, match="instance must be a ParseInstance; got str"):
            check("instance", solution)
        with pytest.raises(ValueError, match="solution must be a Solution; got dict"):
            check(instance, {"structure": [0, 1]})
    with pytest.raises(ValueError, match="solution.structure must hold 2 heads"):
        bnb_decoders.evaluate(instance, Solution([0], 0.0, 0.0, "optimal", {}))


def test_cp_sat_past_its_deadline_claims_no_bound(models):
    """Found here: a deadline already passed (-inf, or any past time) still ran CP-SAT for a millisecond, which
    stopped during presolve and reported the response's default bound 0.0 as the upper bound of a timeout, under
    an optimum of thousands; a short time limit did the same."""
    vocab, paths = models
    _, _, instance = _instances(vocab, paths["bnb"], paths["first"])[3]
    best = bnb_decoders.decode_cp_sat(instance)
    assert best.status == "optimal" and best.objective > 0
    for deadline in (-math.inf, time.perf_counter() - 1.0):
        solution = bnb_decoders.decode_cp_sat(instance, deadline=deadline)
        assert solution.status == "timeout" and solution.structure is None and solution.bound is None
    model, structure = bnb_decoders.load_model(instance.model)
    backbone, factors = structure.parts(instance.tokens, model.numerator, bnb_decoders.pruned_arcs(instance))
    for limit in (1e-6, 1e-3):
        result = solve_exact(backbone, factors, time_limit=limit)
        if result.status != "optimal":
            assert math.isnan(result.bound) or result.bound >= best.objective, result
    for bad in (0, -1.0, -math.inf):
        with pytest.raises(ValueError, match="time_limit must be > 0"):
            solve_exact(backbone, factors, time_limit=bad)
    with pytest.raises(ValueError, match="backbone must be a Backbone; got ndarray"):
        solve_exact(np.zeros((3, 3)), factors, time_limit=1.0)
    with pytest.raises(ValueError, match="factors must be Factors; got list"):
        solve_exact(backbone, [], time_limit=1.0)


def test_bnb_parameters_of_the_wrong_type_are_named(models):
    """Found here: epsilon=True was taken as 1.0, and a step_rule that is an array gave numpy's "truth value of
    an array is ambiguous"."""
    vocab, paths = models
    _, _, instance = _instances(vocab, paths["bnb"], paths["first"])[0]
    for bad in ({"epsilon": True}, {"epsilon": math.nan}, {"epsilon": "0"}, {"step_rule": np.zeros(2)},
                {"step_rule": ["paper"]}):  # fmt: skip
        with pytest.raises(ConfigError, match=next(iter(bad))):
            bnb_decoders.decode_bnb(instance, **bad)
    with pytest.raises(ConfigError, match="has no parameter 'max_iteration'"):
        get_decoder("bnb", "bnb")(instance, max_iteration=5)
