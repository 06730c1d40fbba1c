"""Every public function and class of the parsing and bnb packages checks its inputs (issue robust-scale).

The table :data:`ENTRIES` has one entry per public callable, found by importing the modules: a new public
function without an entry fails :func:`test_every_public_callable_has_an_entry`. An entry gives valid arguments
(the call must succeed) and, per class of bad input (a wrong shape, a NaN where floats are taken, an id out of
range where ids are taken), the argument to replace, its bad value and the name the error must give; or the
reason that class does not apply. Bad input must raise ValueError (or the package's DecodersError), never crash
the compiled kernels or return a silent result.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from public_inputs import (
    CLASSES,
    assert_every_public_callable_has_an_entry,
    assert_no_public_compiled_kernel,
    assert_refused_by_name,
    bad_calls,
    resolve,
    valid_calls,
)

from decoders.bnb.factors import lexicon_ids
from decoders.bnb.model import NonLocalStructure, check_exact_range, max_tree_features
from decoders.bnb.search import Backbone, Factors, branch_and_bound
from decoders.errors import DecodersError
from decoders.parsing.features import Vocabulary
from decoders.parsing.trees import is_projective, tree_error

MODULES = (
    "decoders.parsing.eisner",
    "decoders.parsing.mst",
    "decoders.parsing.second_order",
    "decoders.parsing.third_order",
    "decoders.parsing.features",
    "decoders.parsing.trees",
    "decoders.parsing.pruning",
    "decoders.parsing.model",
    "decoders.parsing.perceptron",
    "decoders.parsing.treebank",
    "decoders.bnb.search",
    "decoders.bnb.model",
    "decoders.bnb.factors",
    "decoders.bnb.instance",
    "decoders.bnb.audit",
)

N = 3
VOCAB = Vocabulary.build([(["a", "b", "c"], ["D", "N", "V"], ["D", "N", "V"])])
TOKENS = VOCAB.encode(["a", "b", "c"], ["D", "N", "V"], ["D", "N", "V"])
BAD_TOKENS = TOKENS.copy()
BAD_TOKENS[2, 1] = 0
SIZE = 1 << 8
WEIGHTS = np.arange(SIZE, dtype=float) % 7 - 3
NAN_WEIGHTS = np.full(SIZE, np.nan)
HEADS = np.array([-1, 2, 0, 2])
FAR_HEADS = np.array([-1, 2, 0, 9])
SCORES = np.arange(16, dtype=float).reshape(4, 4) % 5
CUBE = np.zeros((4, 4, 4))
ALLOWED = np.ones((4, 4), dtype=bool)
GROUP_WIDTH = 4
LEXICON_IDS = lexicon_ids(VOCAB.ids)
NAN_LEXICON = np.full(LEXICON_IDS.shape, np.nan)


def nan_at(array: np.ndarray, index: tuple[int, ...]) -> np.ndarray:
    out = np.array(array, dtype=float)
    out[index] = np.nan
    return out


def backbone() -> Backbone:
    return Backbone(SCORES, CUBE, CUBE, CUBE)


def factors(heads=((2, 2),), mods=((1, 3),), score=(2.0,)) -> Factors:
    heads, mods = np.array(heads, dtype=np.int64), np.array(mods, dtype=np.int64)
    return Factors(heads, mods, np.full(len(heads), heads.shape[1], dtype=np.int64), np.array(score))


def frame(heads=(2, 0, 2)) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sent_id": ["s1"],
            "words": [["a", "b", "c"]],
            "tags": [["D", "N", "V"]],
            "coarse_tags": [["D", "N", "V"]],
            "heads": [list(heads)],
        }
    )


def sentence(**changes):
    from decoders.parsing.treebank import ParseSentence

    args = {"sent_id": "s1", "tokens": TOKENS, "gold": HEADS, "scored": np.ones(N, dtype=bool), **changes}
    return ParseSentence(**args)


def model(**changes):
    from decoders.parsing.model import ParserModel

    args = {"numerator": WEIGHTS.copy(), "denominator": 1, "vocabulary": VOCAB, "structure": {"order": 1}}
    return ParserModel(**{**args, **changes})


NA_RECORD = "n/a: a record of results this package computes, not an input API"
NA_PROTOCOL = "n/a: a typing Protocol, never called"
NO_FLOATS = "n/a: takes no floats"
NO_IDS = "n/a: takes no ids"
NO_ARRAYS = "n/a: takes no arrays"

#: name -> (valid kwargs, {class: (argument, bad value, name in the message) or reason}); ``valid`` None: the
#: valid call needs files, and is not made.
ENTRIES: dict[str, tuple[dict | None, dict]] = {
    # parsing.eisner / mst
    "decoders.parsing.eisner.eisner": (
        {"scores": SCORES},
        {"shape": ("scores", np.zeros((3, 4)), "scores"), "nan": ("scores", nan_at(SCORES, (2, 3)), "scores[2, 3]"),
         "id": NO_IDS},
    ),
    "decoders.parsing.eisner.tree_score": (
        {"scores": SCORES, "heads": HEADS},
        {"shape": ("heads", HEADS[:3], "heads"), "nan": ("scores", nan_at(SCORES, (0, 2)), "scores[0, 2]"),
         "id": ("heads", FAR_HEADS, "heads[3]")},
    ),
    "decoders.parsing.mst.chu_liu_edmonds": (
        {"scores": SCORES},
        {"shape": ("scores", np.zeros((4,)), "scores"), "nan": ("scores", nan_at(SCORES, (1, 2)), "scores[1, 2]"),
         "id": NO_IDS},
    ),
    # parsing.second_order
    "decoders.parsing.second_order.second_order": (
        {"arc": SCORES, "sib": CUBE, "inner": CUBE, "outer": CUBE},
        {"shape": ("sib", np.zeros((3, 3, 3)), "sib"), "nan": ("inner", nan_at(CUBE, (0, 1, 1)), "inner[0, 1, 1]"),
         "id": NO_IDS},
    ),
    "decoders.parsing.second_order.second_order_parts": (
        {"heads": HEADS},
        {"shape": ("heads", HEADS.reshape(2, 2), "heads"), "nan": ("heads", nan_at(HEADS, (1,)), "heads"),
         "id": ("heads", FAR_HEADS, "heads[3]")},
    ),
    "decoders.parsing.second_order.second_order_score": (
        {"arc": SCORES, "sib": CUBE, "inner": CUBE, "outer": CUBE, "heads": HEADS},
        {"shape": ("outer", np.zeros((4, 4)), "outer"), "nan": ("arc", nan_at(SCORES, (2, 1)), "arc[2, 1]"),
         "id": ("heads", np.array([-1, 2, 0, -3]), "heads[3]")},
    ),
    "decoders.parsing.second_order.second_order_max_marginals": (
        {"arc": SCORES, "sib": CUBE, "inner": CUBE, "outer": CUBE},
        {"shape": ("arc", np.zeros((5, 5)), "sib"), "nan": ("outer", nan_at(CUBE, (2, 1, 3)), "outer[2, 1, 3]"),
         "id": NO_IDS},
    ),
    # parsing.third_order
    "decoders.parsing.third_order.third_order": (
        {"tokens": TOKENS, "weights": WEIGHTS, "allowed": ALLOWED},
        {"shape": ("allowed", ALLOWED[:3, :3], "allowed"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("tokens", BAD_TOKENS, "tokens[2, 1]")},
    ),
    "decoders.parsing.third_order.third_order_features": (
        {"tokens": TOKENS, "heads": HEADS, "size": SIZE},
        {"shape": ("heads", HEADS[:3], "heads"), "nan": ("size", math.nan, "size"),
         "id": ("heads", FAR_HEADS, "heads[3]")},
    ),
    # parsing.features
    "decoders.parsing.features.Vocabulary": (
        {"ids": {"w:a": 5}},
        {"shape": ("ids", {"w:a": [5, 6]}, "ids"), "nan": ("ids", {"w:a": math.nan}, "ids"),
         "id": ("ids", {"w:a": 0}, "ids")},
    ),
    "decoders.parsing.features.max_arc_features": (
        {"n": N},
        {"shape": "n/a: takes one count", "nan": ("n", math.nan, "n"), "id": ("n", -1, "n")},
    ),
    "decoders.parsing.features.arc_scores": (
        {"tokens": TOKENS, "weights": WEIGHTS, "allowed": ALLOWED},
        {"shape": ("weights", WEIGHTS[:100], "weights"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("tokens", BAD_TOKENS, "tokens[2, 1]")},
    ),
    "decoders.parsing.features.second_order_scores": (
        {"tokens": TOKENS, "weights": WEIGHTS, "arc": SCORES},
        {"shape": ("arc", SCORES[:3, :3], "arc"), "nan": ("arc", nan_at(SCORES, (3, 1)), "arc[3, 1]"),
         "id": ("tokens", BAD_TOKENS, "tokens[2, 1]")},
    ),
    "decoders.parsing.features.arcs_features": (
        {"tokens": TOKENS, "heads": np.array([0, 2]), "mods": np.array([2, 3]), "size": SIZE},
        {"shape": ("mods", np.array([2]), "mods"), "nan": ("heads", np.array([0.0, np.nan]), "heads"),
         "id": ("mods", np.array([2, 7]), "mods[1]")},
    ),
    "decoders.parsing.features.tree_features": (
        {"tokens": TOKENS, "heads": HEADS, "size": SIZE, "second_order": True},
        {"shape": ("tokens", TOKENS[:3], "tokens"), "nan": ("heads", nan_at(HEADS, (2,)), "heads"),
         "id": ("heads", FAR_HEADS, "heads[3]")},
    ),
    # parsing.trees
    "decoders.parsing.trees.as_heads": (
        {"heads": [2, 0, 2]},
        {"shape": ("heads", [[2, 0]], "heads"), "nan": ("heads", [2.0, math.nan], "heads"),
         "id": "n/a: converts; the range of heads is tree_error's to report"},
    ),
    "decoders.parsing.trees.tree_error": (
        {"heads": HEADS},
        {"shape": ("heads", HEADS.reshape(2, 2), "heads"), "nan": ("heads", nan_at(HEADS, (1,)), "heads"),
         "id": "n/a: an out-of-range head is a reason it returns (tested below)"},
    ),
    "decoders.parsing.trees.structure_error": (
        {"structure": HEADS[1:], "n": N},
        {"shape": "n/a: a wrong shape is the reason it returns (tests/test_user_decoders.py)",
         "nan": "n/a: a non-integer structure is the reason it returns (tests/test_user_decoders.py)",
         "id": "n/a: an out-of-range head is a reason it returns (tests/test_user_decoders.py)"},
    ),
    "decoders.parsing.trees.is_projective": (
        {"heads": HEADS},
        {"shape": ("heads", HEADS.reshape(2, 2), "heads"), "nan": ("heads", nan_at(HEADS, (1,)), "heads"),
         "id": ("heads", FAR_HEADS, "heads[3]")},
    ),
    "decoders.parsing.trees.punctuation_form_mask": (
        {"words": ["a", "."]},
        {"shape": ("words", "a.", "words"), "nan": ("words", ["a", math.nan], "words"), "id": NO_IDS},
    ),
    "decoders.parsing.trees.attachment_mask": (
        {"tags": ["D", "."], "punctuation": {"."}},
        {"shape": ("tags", "D.", "tags"), "nan": ("tags", ["D", math.nan], "tags"), "id": NO_IDS},
    ),
    "decoders.parsing.trees.attachment_counts": (
        {"predicted": [2, 0, 2], "gold": [2, 0, 2], "scored": np.ones(3, dtype=bool)},
        {"shape": ("scored", np.ones(2, dtype=bool), "scored"), "nan": ("predicted", [2, 0, math.nan], "predicted"),
         "id": "n/a: compares heads, never indexes with them"},
    ),
    "decoders.parsing.trees.all_trees": (
        {"n": 2},
        {"shape": "n/a: takes one count", "nan": ("n", math.nan, "n"), "id": ("n", -1, "n")},
    ),
    "decoders.parsing.trees.enumerate_trees": (
        {"n": N, "allowed": ALLOWED},
        {"shape": ("allowed", ALLOWED[:2], "allowed"), "nan": ("n", math.nan, "n"), "id": ("n", -2, "n")},
    ),
    # parsing.pruning
    "decoders.parsing.pruning.top_k_heads": (
        {"scores": SCORES, "k": 1, "tree": HEADS},
        {"shape": ("tree", HEADS[:2], "tree"), "nan": ("scores", nan_at(SCORES, (1, 3)), "scores[1, 3]"),
         "id": ("tree", FAR_HEADS, "tree[3]")},
    ),
    "decoders.parsing.pruning.head_log_loss": (
        {"tokens": TOKENS, "gold": HEADS, "weights": np.zeros(SIZE), "rate": 0.1},
        {"shape": ("gold", HEADS[:2], "gold"), "nan": ("rate", math.nan, "rate"), "id": ("gold", FAR_HEADS, "gold[3]")},
    ),
    "decoders.parsing.pruning.gold_head_ranks": (
        {"tokens": TOKENS, "gold": HEADS, "weights": WEIGHTS},
        {"shape": ("gold", HEADS[:2], "gold"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("gold", FAR_HEADS, "gold[3]")},
    ),
    "decoders.parsing.pruning.train_head_classifier": (
        {"sentences": [(TOKENS, HEADS)], "dev": [(TOKENS, HEADS)], "size": SIZE, "epochs": 1,
         "learning_rate": 0.1, "seed": 0, "progress": False},
        {"shape": ("sentences", [(TOKENS, HEADS[:3])], "gold of sentences[0]"),
         "nan": ("learning_rate", math.nan, "learning_rate"),
         "id": ("dev", [(TOKENS, FAR_HEADS)], "gold of dev[0]")},
    ),
    # parsing.model
    "decoders.parsing.model.fixed_point": (
        {"weights": WEIGHTS, "what": "the pruner"},
        {"shape": ("weights", WEIGHTS.reshape(16, 16), "weights"),
         "nan": ("weights", nan_at(WEIGHTS, (3,)), "weights[3]"), "id": NO_IDS},
    ),
    "decoders.parsing.model.ParserModel": (
        {"numerator": WEIGHTS, "denominator": 1, "vocabulary": VOCAB, "structure": {"order": 1}},
        {"shape": ("numerator", WEIGHTS[:3], "numerator"), "nan": ("numerator", nan_at(WEIGHTS, (5,)), "numerator[5]"),
         "id": ("denominator", 0, "denominator")},
    ),
    # parsing.perceptron
    "decoders.parsing.perceptron.Structure": (None, dict.fromkeys(CLASSES, NA_PROTOCOL)),
    "decoders.parsing.perceptron.IncumbentStructure": (None, dict.fromkeys(CLASSES, NA_PROTOCOL)),
    "decoders.parsing.perceptron.RelaxedStructure": (None, dict.fromkeys(CLASSES, NA_PROTOCOL)),
    "decoders.parsing.perceptron.RelaxedSolution": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.parsing.perceptron.AveragedWeights": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.parsing.perceptron.TrainingLog": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.parsing.perceptron.LocalStructure": (
        {"order": 2},
        {"shape": "n/a: takes one order", "nan": ("order", math.nan, "order"), "id": ("order", 4, "order")},
    ),
    "decoders.parsing.perceptron.train": (
        {"sentences": [(TOKENS, HEADS)], "structure": None, "epochs": 1, "size": SIZE, "seed": 0, "progress": False},
        {"shape": ("sentences", [(TOKENS, HEADS, ALLOWED[:2])], "allowed of sentences[0]"),
         "nan": ("initial", nan_at(np.zeros(SIZE), (7,)), "initial[7]"),
         "id": ("sentences", [(TOKENS, FAR_HEADS)], "gold of sentences[0]")},
    ),
    # parsing.treebank
    "decoders.parsing.treebank.load_splits": (
        None,
        {"shape": "n/a: takes file paths", "nan": ("dev_fraction", math.nan, "dev_fraction"),
         "id": ("dev_fraction", 1.5, "dev_fraction")},
    ),
    "decoders.parsing.treebank.split_inputs": (None, dict.fromkeys(CLASSES, "n/a: reads a job's named inputs")),
    "decoders.parsing.treebank.ParseSentence": (
        {"sent_id": "s1", "tokens": TOKENS, "gold": HEADS, "scored": np.ones(N, dtype=bool)},
        {"shape": ("scored", np.ones(2, dtype=bool), "scored"), "nan": ("gold", nan_at(HEADS, (1,)), "gold"),
         "id": ("gold", FAR_HEADS, "gold[3]")},
    ),
    "decoders.parsing.treebank.punctuation_tags": (
        {"language": "en"},
        {"shape": NO_ARRAYS, "nan": NO_FLOATS, "id": ("language", "xx", "language")},
    ),
    "decoders.parsing.treebank.gold_trees": (
        {"frame": frame()},
        {"shape": ("frame", frame((2, 0)), "sentence s1"), "nan": ("frame", frame((2, math.nan, 2)), "heads"),
         "id": ("frame", frame((2, 0, 9)), "sentence s1")},
    ),
    "decoders.parsing.treebank.projective_flags": (
        {"trees": [HEADS]},
        {"shape": ("trees", [HEADS.reshape(2, 2)], "heads"), "nan": ("trees", [nan_at(HEADS, (1,))], "heads"),
         "id": ("trees", [FAR_HEADS], "heads[3]")},
    ),
    "decoders.parsing.treebank.parse_sentences": (
        {"frame": frame(), "vocabulary": VOCAB, "language": "en"},
        {"shape": ("tags", [["D", "N"]], "tags"), "nan": ("frame", frame((2, math.nan, 2)), "heads"),
         "id": ("frame", frame((2, 0, 9)), "sentence s1")},
    ),
    "decoders.parsing.treebank.uas": (
        {"predicted": [HEADS], "sentences": [sentence()]},
        {"shape": ("predicted", [HEADS[:3]], "predicted[0]"), "nan": ("predicted", [nan_at(HEADS, (1,))], "predicted[0]"),
         "id": ("predicted", [FAR_HEADS], "predicted[0][3]")},
    ),
    # bnb.search
    "decoders.bnb.search.Backbone": (
        {"arc": SCORES, "sib": CUBE, "inner": CUBE, "outer": CUBE},
        {"shape": ("sib", np.zeros((4, 4, 3)), "backbone.sib"), "nan": ("arc", nan_at(SCORES, (1, 2)), "backbone.arc[1, 2]"),
         "id": NO_IDS},
    ),
    "decoders.bnb.search.Factors": (
        {"heads": np.array([[2, 2]]), "mods": np.array([[1, 3]]), "size": np.array([2]), "score": np.array([1.0])},
        {"shape": ("mods", np.array([[1, 3, 1]]), "factors.mods"), "nan": ("score", np.array([np.nan]), "factors.score[0]"),
         "id": ("size", np.array([3]), "factors.size[0]")},
    ),
    "decoders.bnb.search.Result": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.bnb.search.project_rows_to_simplex": (
        {"values": np.array([[0.2, 0.9], [1.0, 0.0]]), "size": np.array([2, 1])},
        {"shape": ("size", np.array([2]), "size"), "nan": ("values", np.array([[np.nan, 0.0], [0.0, 0.0]]), "values[0, 0]"),
         "id": ("size", np.array([2, 3]), "size[1]")},
    ),
    "decoders.bnb.search.branch_and_bound": (
        {"backbone": backbone(), "factors": factors(), "grid": 1.0},
        {"shape": ("incumbent", HEADS[:3], "incumbent"), "nan": ("epsilon", math.nan, "epsilon"),
         "id": ("factors", factors(mods=((1, 7),)), "factors.mods[0, 1]")},
    ),
    # bnb.model
    "decoders.bnb.model.NonLocalStructure": (
        {"groups": ("sibling",)},
        {"shape": ("groups", ["sibling"], "groups"), "nan": ("epsilon", math.nan, "epsilon"),
         "id": ("groups", ("nope",), "group")},
    ),
    "decoders.bnb.model.halves": (
        {"weights": WEIGHTS},
        {"shape": ("weights", WEIGHTS.reshape(16, 16), "weights"), "nan": "n/a: returns views, reads no weight",
         "id": NO_IDS},
    ),
    "decoders.bnb.model.prune_heads": (
        {"tokens": TOKENS, "weights": WEIGHTS, "k": 1},
        {"shape": ("weights", WEIGHTS[:3], "weights"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("tokens", BAD_TOKENS, "tokens[2, 1]")},
    ),
    "decoders.bnb.model.structure_of": (
        {"description": {"groups": ["sibling"]}, "vocabulary": VOCAB},
        {"shape": ("description", [1], "structure"), "nan": ("description", {"order": math.nan}, "order"),
         "id": ("description", {"groups": ["nope"]}, "group")},
    ),
    "decoders.bnb.model.max_tree_features": (
        {"n": N, "groups": ("sibling",)},
        {"shape": "n/a: takes one count", "nan": ("n", math.nan, "n"), "id": ("n", -1, "n")},
    ),
    "decoders.bnb.model.check_exact_range": (
        {"largest": 3.0, "n": N, "groups": ("sibling",), "order": 2, "what": "model.npz"},
        {"shape": "n/a: takes numbers", "nan": ("largest", math.nan, "largest"), "id": ("n", -1, "n")},
    ),
    # bnb.factors
    "decoders.bnb.factors.candidates": (
        {"tokens": TOKENS, "allowed": ALLOWED, "group": 2, "lexicon": LEXICON_IDS},
        {"shape": ("allowed", ALLOWED[:3], "allowed"), "nan": ("group", math.nan, "group"),
         "id": ("group", 9, "group")},
    ),
    "decoders.bnb.factors.score_candidates": (
        {"tokens": TOKENS, "weights": WEIGHTS, "group": 2, "heads": np.array([[2, 2, 0, 0]]),
         "mods": np.array([[1, 3, 0, 0]])},
        {"shape": ("heads", np.array([[2]]), "heads"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("mods", np.array([[1, 9, 0, 0]]), "mods[0, 1]")},
    ),
    "decoders.bnb.factors.sentence_factors": (
        {"tokens": TOKENS, "weights": WEIGHTS, "allowed": ALLOWED, "groups": ("sibling",), "lexicon": LEXICON_IDS},
        {"shape": ("allowed", ALLOWED[:, :2], "allowed"), "nan": ("weights", NAN_WEIGHTS, "weights"),
         "id": ("groups", ("nope",), "groups")},
    ),
    "decoders.bnb.factors.lexicon_ids": (
        {"ids": VOCAB.ids},
        dict.fromkeys(CLASSES, "n/a: looks keys up in a vocabulary's mapping"),
    ),
    "decoders.bnb.factors.check_lexicon": (
        {"lexicon": LEXICON_IDS},
        {"shape": ("lexicon", LEXICON_IDS[:3], "lexicon"), "nan": ("lexicon", NAN_LEXICON, "lexicon"),
         "id": ("lexicon", LEXICON_IDS - 5, "lexicon")},
    ),
    "decoders.bnb.factors.pattern_counts": (
        {"sentences": [(TOKENS, HEADS)], "lexicon": LEXICON_IDS},
        {"shape": ("sentences", [(TOKENS, HEADS[:2])], "tree"), "nan": ("lexicon", NAN_LEXICON, "lexicon"),
         "id": ("sentences", [(TOKENS, FAR_HEADS)], "tree")},
    ),
    "decoders.bnb.factors.fired_features": (
        {"tokens": TOKENS, "tree": HEADS, "size": SIZE, "groups": np.array([2]), "lexicon": LEXICON_IDS},
        {"shape": ("tree", HEADS[:2], "tree"), "nan": ("groups", np.array([np.nan]), "groups"),
         "id": ("groups", np.array([9]), "groups[0]")},
    ),
    # bnb.instance
    "decoders.bnb.instance.ParseInstance": (
        {"tokens": TOKENS, "gold": HEADS, "scored": np.ones(N, dtype=bool),
         "allowed": ALLOWED & ~np.eye(4, dtype=bool) & (np.arange(4) > 0)[None, :], "model": "m.npz"},
        {"shape": ("scored", np.ones(2, dtype=bool), "scored"), "nan": ("gold", nan_at(HEADS, (1,)), "gold"),
         "id": ("tokens", BAD_TOKENS, "tokens")},
    ),
    # bnb.audit
    "decoders.bnb.audit.AuditResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.bnb.audit.crossing_pairs": (
        {"arcs": np.array([[0, 2], [1, 3]])},
        {"shape": ("arcs", np.array([[0, 2, 1]]), "arcs"), "nan": ("arcs", np.array([[0.0, np.nan]]), "arcs"),
         "id": ("arcs", np.array([[0, -2]]), "arcs[0, 1]")},
    ),
    "decoders.bnb.audit.solve_exact": (
        {"backbone": backbone(), "factors": factors(), "time_limit": 10.0},
        {"shape": "n/a: Backbone and Factors check their shapes at construction (their own entries)",
         "nan": ("time_limit", math.nan, "time_limit"), "id": ("factors", factors(heads=((5, 2),)), "factors.heads[0, 0]")},
    ),
}  # fmt: skip


def _args(qualified: str, valid: dict) -> dict:
    args = dict(valid)
    if qualified.endswith("perceptron.train"):
        from decoders.parsing.perceptron import LocalStructure

        args["structure"] = LocalStructure(1)
    return args


def test_every_public_callable_has_an_entry():
    assert_every_public_callable_has_an_entry(MODULES, ENTRIES)


def test_no_public_compiled_kernel_is_left():
    assert_no_public_compiled_kernel(MODULES)


@pytest.mark.parametrize("qualified", valid_calls(ENTRIES))
def test_valid_arguments_are_accepted(qualified):
    resolve(qualified)(**_args(qualified, ENTRIES[qualified][0]))


@pytest.mark.parametrize(("qualified", "kind"), bad_calls(ENTRIES))
def test_bad_arguments_are_refused_by_name(qualified, kind):
    valid, cases = ENTRIES[qualified]
    assert_refused_by_name(qualified, _args(qualified, valid or _defaults(qualified)), cases[kind])


def _defaults(qualified: str) -> dict:
    """Arguments for the entries whose valid call is not made (it needs files)."""
    if qualified.endswith("load_splits"):
        return {"paths": {"train": "missing.parquet", "test": "missing.parquet"}, "dev_fraction": 0.1}
    raise AssertionError(qualified)


def test_tree_error_reports_out_of_range_heads():
    assert "outside 0..3" in tree_error(FAR_HEADS)


def test_iteration_limits_must_be_positive():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_iterations"):
            branch_and_bound(backbone(), factors(), max_iterations=bad)
        with pytest.raises(ValueError, match="max_iterations"):
            NonLocalStructure(("sibling",), max_iterations=bad)
    with pytest.raises(ValueError, match="max_nodes"):
        branch_and_bound(backbone(), factors(), max_nodes=0)
    with pytest.raises(ValueError, match="lower_bound_alternations"):
        branch_and_bound(backbone(), factors(), lower_bound_alternations=-1)


@pytest.mark.parametrize("with_factors", [False, True])
def test_a_deadline_already_passed_gives_a_tree_or_no_structure(with_factors):
    rng = np.random.default_rng(0)
    n = 6
    arc = rng.integers(-5, 6, size=(n + 1, n + 1)).astype(float)
    parts = [rng.integers(-3, 4, size=(n + 1,) * 3).astype(float) for _ in range(3)]
    found = factors(((2, 2),), ((1, 3),), (4.0,)) if with_factors else Factors.empty()
    result = branch_and_bound(Backbone(arc, *parts), found, grid=1.0, deadline=time.perf_counter() - 1.0)
    assert result.status in ("feasible", "optimal", "timeout")
    if result.status == "timeout":
        assert result.heads is None
    else:
        assert tree_error(result.heads) is None and is_projective(result.heads)
        assert result.objective > -math.inf


def test_the_bnb_decoder_past_its_deadline_returns_a_tree_or_nothing(tmp_path):
    from decoders.bnb import decoders as bnb_decoders
    from decoders.bnb.instance import ParseInstance

    path = tmp_path / "model.npz"
    model(numerator=np.rint(WEIGHTS * 3), structure={"groups": ["sibling"]}).save(path)
    bnb_decoders.load_model.cache_clear()
    allowed = np.ones((N + 1, N + 1), dtype=bool)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    instance = ParseInstance(TOKENS, HEADS, np.ones(N, dtype=bool), allowed, str(path))
    solution = bnb_decoders.decode_bnb(instance, deadline=time.perf_counter() - 1.0)
    if solution.status == "timeout":
        assert solution.structure is None
    else:
        assert tree_error(np.array([-1, *solution.structure])) is None
        if solution.status == "optimal":
            assert bnb_decoders.verify(instance, solution) is None


def test_scores_past_the_exact_range_are_refused():
    arc = np.zeros((4, 4))
    arc[0, 1:] = 2.0**52
    arc[1:, 1:] = 2.0**52
    with pytest.raises(ValueError, match="2\\^53"):
        branch_and_bound(Backbone(arc), Factors.empty(), grid=1.0)
    branch_and_bound(Backbone(arc / 4), Factors.empty(), grid=1.0)  # 3 * 2^50 < 2^53: exact
    with pytest.raises(ValueError, match="not a multiple of grid"):
        branch_and_bound(Backbone(np.full((4, 4), 0.5)), Factors.empty(), grid=1.0)
    assert branch_and_bound(Backbone(np.full((4, 4), 0.5)), Factors.empty(), grid=None).optimal


def test_model_weights_past_the_exact_range_are_refused(tmp_path):
    count = max_tree_features(N, ("sibling",))
    check_exact_range(2.0**53 / count / 2, N, ("sibling",), 2, "model.npz")
    with pytest.raises(ValueError, match="model.npz"):
        check_exact_range(2.0**53 / count, N, ("sibling",), 2, "model.npz")
    # a model file whose weights are integers below 2^52 (ParserModel accepts it) but can sum past 2^53
    from decoders.bnb import decoders as bnb_decoders
    from decoders.bnb.instance import ParseInstance

    path = tmp_path / "big.npz"
    model(numerator=np.full(SIZE, 2.0**51), structure={"groups": ["sibling"]}).save(path)
    bnb_decoders.load_model.cache_clear()
    bnb_decoders._largest_weight.cache_clear()
    allowed = np.ones((N + 1, N + 1), dtype=bool)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    instance = ParseInstance(TOKENS, HEADS, np.ones(N, dtype=bool), allowed, str(path))
    with pytest.raises(DecodersError, match="big.npz"):
        bnb_decoders.decode_bnb(instance)


# --------------------------------------------------------------------------- wrong types (audit findings)


def _bad_calls():
    from decoders.bnb.factors import pattern_counts, sentence_factors
    from decoders.parsing.model import ParserModel
    from decoders.parsing.perceptron import LocalStructure, train
    from decoders.parsing.pruning import train_head_classifier

    def trained(**changes):
        args = {"sentences": [(TOKENS, HEADS)], "structure": LocalStructure(1), "epochs": 1, "size": SIZE, "seed": 0,
                "progress": False, **changes}  # fmt: skip
        return train(**args)

    def head_classifier(**changes):
        args = {"sentences": [(TOKENS, HEADS)], "dev": [(TOKENS, HEADS)], "size": SIZE, "epochs": 1,
                "learning_rate": 0.1, "seed": 0, "progress": False, **changes}  # fmt: skip
        return train_head_classifier(**args)

    return {
        "max_tree_features groups": (lambda: max_tree_features(N, 5), "groups must be names"),
        "max_tree_features group": (lambda: max_tree_features(N, ("nope",)), "groups must be names"),
        "max_tree_features order": (lambda: max_tree_features(N, (), order=4), "order must be 1, 2 or 3"),
        "max_tree_features order bool": (
            lambda: max_tree_features(N, (), order=True),
            "order must be 1, 2 or 3",
        ),
        "max_tree_features order array": (
            lambda: max_tree_features(N, (), np.zeros(2)),
            "order must be 1, 2 or 3",
        ),
        "check_exact_range groups": (lambda: check_exact_range(1.0, N, None, 2, "m"), "groups must be names"),
        "check_exact_range order": (
            lambda: check_exact_range(1.0, N, (), "2", "m"),
            "order must be 1, 2 or 3",
        ),
        "lexicon_ids": (lambda: lexicon_ids(["w:a"]), "ids must be a vocabulary's mapping"),
        "pattern_counts sentences": (lambda: pattern_counts(5, LEXICON_IDS), "sentences must be a sequence"),
        "pattern_counts pair": (lambda: pattern_counts([TOKENS], LEXICON_IDS), r"sentences\[0\] must be a"),
        "sentence_factors groups": (
            lambda: sentence_factors(TOKENS, WEIGHTS, ALLOWED, None, LEXICON_IDS),
            "groups must be names",
        ),
        "sentence_factors group": (
            lambda: sentence_factors(TOKENS, WEIGHTS, ALLOWED, ([1],), LEXICON_IDS),
            "groups must be names",
        ),
        "NonLocalStructure group": (lambda: NonLocalStructure(([1],)), "unknown factor group"),
        "NonLocalStructure step_rule": (lambda: NonLocalStructure((), step_rule=np.zeros(2)), "step_rule"),
        "branch_and_bound step_rule": (
            lambda: branch_and_bound(backbone(), factors(), step_rule=["paper"]),
            "step_rule",
        ),
        "branch_and_bound incumbent floats": (
            lambda: branch_and_bound(backbone(), factors(), incumbent=HEADS + 0.5),
            "incumbent must be an integer",
        ),
        "branch_and_bound incumbent inf": (
            lambda: branch_and_bound(backbone(), factors(), incumbent=np.full(4, np.inf)),
            "incumbent must be",
        ),
        "branch_and_bound incumbent object": (
            lambda: branch_and_bound(backbone(), factors(), incumbent=object()),
            "incumbent must be",
        ),
        "Vocabulary": (lambda: Vocabulary(5), "ids must map strings"),
        "Vocabulary string": (lambda: Vocabulary("w:a"), "ids must map strings"),
        "ParserModel vocabulary": (lambda: model(vocabulary={"w:a": 5}), "vocabulary must be a Vocabulary"),
        "ParserModel structure": (lambda: model(structure="order 1"), "structure must be a dict"),
        "ParserModel meta": (lambda: model(meta=None), "meta must be a dict"),
        "ParserModel running": (lambda: model(running=1.0), "running weights"),
        "ParserModel.load array": (lambda: ParserModel.load(np.zeros(3)), "path must be a path"),
        "ParserModel.load None": (lambda: ParserModel.load(None), "path must be a path"),
        "LocalStructure bool": (lambda: LocalStructure(True), "order must be 1, 2 or 3"),
        "LocalStructure array": (lambda: LocalStructure(np.ones(2)), "order must be 1, 2 or 3"),
        "train structure": (lambda: trained(structure="eisner"), "structure must be a Structure"),
        "train seed": (lambda: trained(seed="0"), "seed must be an integer"),
        "train seed float": (lambda: trained(seed=1.5), "seed must be an integer"),
        "train sentences": (lambda: trained(sentences=5), "sentences must be a sequence"),
        "train step_below": (lambda: trained(step_below=2), "step_below must be a"),
        "train step_below boundary": (lambda: trained(step_below=(1.5, 2)), "step_below's boundary"),
        "train initial": (lambda: trained(initial=[object()] * SIZE), "initial must hold real numbers"),
        "train evaluate": (lambda: trained(evaluate=1.0), "evaluate must be a function"),
        "train average": (lambda: trained(initial=np.zeros(SIZE), average="avg"), "average must be"),
        "train_head_classifier seed": (lambda: head_classifier(seed=True), "seed must be an integer"),
        "train_head_classifier sentences": (
            lambda: head_classifier(sentences=None),
            "sentences must be a sequence",
        ),
        "train_head_classifier pair": (lambda: head_classifier(dev=[TOKENS]), r"dev\[0\] must be a"),
    }


@pytest.mark.parametrize("case", sorted(_bad_calls()))
def test_wrong_types_are_refused_naming_the_argument(case):
    call, message = _bad_calls()[case]
    with pytest.raises((ValueError, DecodersError), match=message):
        call()


@pytest.mark.parametrize("passed", [-math.inf, -1.0, math.inf])
def test_branch_and_bound_takes_any_deadline_check_deadline_takes(passed):
    """+inf is no deadline and -inf one already passed, as for every other decoder (check_deadline); NaN and
    non-numbers stay refused."""
    result = branch_and_bound(backbone(), factors(), grid=1.0, deadline=passed)
    assert result.status == "optimal" if passed == math.inf else result.status in ("feasible", "optimal")
    for bad, message in (
        (math.nan, "deadline is NaN"),
        ("1", "deadline must be None"),
        (True, "deadline must"),
    ):
        with pytest.raises(ValueError, match=message):
            branch_and_bound(backbone(), factors(), grid=1.0, deadline=bad)
