"""Every public function and class of the chains package checks its inputs (issue robust-scale).

The table :data:`ENTRIES` has one entry per public callable, found by importing the modules: a new public
function without an entry fails :func:`test_every_public_callable_has_an_entry`. An entry gives valid arguments
(the call must succeed) and, per class of bad input (a wrong shape, a NaN or ``+inf`` where floats are taken, an
id out of range where ids are taken), the argument to replace, its bad value and the name the error must give; or
the reason that class does not apply. Bad input must raise ValueError (or the package's DecodersError), never
crash the compiled kernels or return a silent result. The numba kernels are private (the decoders call them on a
ChainInstance's arrays, checked once at construction); the public wrappers check raw arrays once per call.
Further tests: scores that could overflow, NaN and infinities, forbidden (``-inf``) transitions, empty sentences
and one-label inventories, label ids out of range, limits below 1.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
import re

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

from decoders.chains import decoders as chain_decoders
from decoders.chains import train as chain_train
from decoders.chains.beam import beam_search
from decoders.chains.colgen import cg_two_best, column_generation
from decoders.chains.crfsuite import train_crfsuite
from decoders.chains.features import FeatureMatrix, FeatureVocabulary
from decoders.chains.instance import ChainInstance, ChainScores, FeatureInstance, brute_force, sequence_score
from decoders.chains.model import MAX_WEIGHT, ChainModel
from decoders.chains.viterbi import _viterbi, viterbi, viterbi_2best
from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, get_decoder

MODULES = (
    "decoders.chains.beam",
    "decoders.chains.checks",
    "decoders.chains.colgen",
    "decoders.chains.crfsuite",
    "decoders.chains.decoders",
    "decoders.chains.features",
    "decoders.chains.instance",
    "decoders.chains.model",
    "decoders.chains.pipeline",
    "decoders.chains.train",
    "decoders.chains.viterbi",
)


THETA = np.arange(12, dtype=float).reshape(4, 3) % 5 - 2.0
TAU = np.array([[0.5, -1.0, 0.0], [1.0, 0.0, -0.5], [0.0, 2.0, -1.0]])
NAMES = ("A", "B", "C")
SCORES = ChainScores(TAU, NAMES)
INSTANCE = ChainInstance(THETA, SCORES, np.array([0, 2, 1, 0]))
LABELS = np.array([0, 2, 1, 0])
BAD_LABELS = np.array([0, 2, 3, 0])
VOCABULARY = FeatureVocabulary(["bias", "w=a", "w=b"])
MATRIX = FeatureMatrix(np.array([0, 1, 0, 2, 0, 1]), np.array([0, 2, 4, 6]), np.array([0, 2, 3]))
GOLD = np.array([0, 1, 2])
MODEL = ChainModel(np.zeros((3, 3)), np.zeros(3), np.zeros(3), np.zeros((3, 3)), NAMES, VOCABULARY)


def with_value(array: np.ndarray, index: tuple[int, ...], value: float = np.nan) -> np.ndarray:
    out = np.array(array, dtype=float)
    out[index] = value
    return out


def frame(words=(("a", "b"), ("b",)), tags=(("A", "B"), ("C",))) -> pd.DataFrame:
    return pd.DataFrame(
        {"words": [list(w) for w in words], "tags": [t if isinstance(t, str) else list(t) for t in tags]}
    )


def feature_instance(**changes) -> FeatureInstance:
    args = {
        "ids": np.array([0, 1, 2]),
        "token_offsets": np.array([0, 2, 3]),
        "strings": [["bias", "w=a"], ["bias"]],
        "model": "model.npz",
        "crfsuite": None,
        "gold": np.array([0, 1]),
        **changes,
    }
    return FeatureInstance(**args)


def solution(structure, objective: float = 0.0) -> Solution:
    return Solution(structure, objective)


NA_RECORD = "n/a: a record of results this package computes, not an input API"
NO_FLOATS = "n/a: takes no floats"
NO_IDS = "n/a: takes no ids"
NO_ARRAYS = "n/a: takes no arrays"
INSTANCE_ONLY = (
    "n/a: takes a ChainInstance, checked at construction (its own entry); no per-call check (timed)"
)
FEATURES_ONLY = "n/a: takes a FeatureInstance, checked at construction and against its model on first use"

#: name -> (valid kwargs, {class: (argument, bad value, name in the message) or reason}); ``valid`` None: the
#: valid call needs files, and is not made.
ENTRIES: dict[str, tuple[dict | None, dict]] = {
    # beam
    "decoders.chains.beam.beam_search": (
        {"theta": THETA, "tau": TAU, "width": 2},
        {"shape": ("theta", np.zeros((4, 2)), "theta"), "nan": ("theta", with_value(THETA, (1, 2)), "theta[1, 2]"),
         "id": NO_IDS},
    ),
    # checks
    "decoders.chains.checks.real_array": (
        {"values": [1.0, 2.0], "name": "x"},
        {"shape": ("values", ["a", "b"], "x"), "nan": "n/a: converts the dtype; the values are the callers' to check",
         "id": NO_IDS},
    ),
    "decoders.chains.checks.check_tau": (
        {"tau": TAU},
        {"shape": ("tau", np.zeros((2, 3)), "tau"), "nan": ("tau", with_value(TAU, (2, 1), np.inf), "tau[2, 1]"),
         "id": NO_IDS},
    ),
    "decoders.chains.checks.check_theta": (
        {"theta": THETA, "n_labels": 3},
        {"shape": ("theta", np.zeros((0, 3)), "theta"), "nan": ("theta", with_value(THETA, (3, 0)), "theta[3, 0]"),
         "id": NO_IDS},
    ),
    "decoders.chains.checks.check_chain": (
        {"theta": THETA, "tau": TAU},
        {"shape": ("tau", np.zeros((3,)), "tau"), "nan": ("tau", with_value(TAU, (0, 2)), "tau[0, 2]"), "id": NO_IDS},
    ),
    "decoders.chains.checks.check_labels": (
        {"labels": LABELS, "n": 4, "n_labels": 3},
        {"shape": ("labels", LABELS[:2], "labels"), "nan": ("labels", with_value(LABELS, (1,)), "labels"),
         "id": ("labels", BAD_LABELS, "labels[2]")},
    ),
    "decoders.chains.checks.check_label_names": (
        {"labels": NAMES, "name": "labels"},
        {"shape": ("labels", "ABC", "labels"), "nan": ("labels", ("A", math.nan), "labels[1]"), "id": NO_IDS},
    ),
    "decoders.chains.checks.check_width": (
        {"width": 3},
        {"shape": "n/a: takes one number", "nan": ("width", math.nan, "width"), "id": ("width", 0, "width")},
    ),
    "decoders.chains.checks.check_reduced_cost": (
        {"reduced_cost": 1},
        {"shape": "n/a: takes one number", "nan": ("reduced_cost", math.nan, "reduced_cost"),
         "id": ("reduced_cost", 3, "reduced_cost")},
    ),
    "decoders.chains.checks.check_gap": (
        {"gap": 0.01},
        {"shape": "n/a: takes one number", "nan": ("gap", math.nan, "gap"), "id": NO_IDS},
    ),
    "decoders.chains.checks.check_flag": (
        {"value": True, "name": "prune"},
        {"shape": "n/a: takes one flag", "nan": ("value", math.nan, "prune"), "id": NO_IDS},
    ),
    # colgen
    "decoders.chains.colgen.CGResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.chains.colgen.TwoBestResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.chains.colgen.column_generation": (
        {"theta": THETA, "tau": TAU},
        {"shape": ("tau", np.zeros((3, 4)), "tau"), "nan": ("tau", with_value(TAU, (0, 1)), "tau[0, 1]"),
         "id": ("reduced_cost", 3, "reduced_cost")},
    ),
    "decoders.chains.colgen.cg_two_best": (
        {"theta": THETA, "tau": TAU, "delta": 1.0},
        {"shape": ("theta", THETA[:, 0], "theta"), "nan": ("delta", math.nan, "delta"),
         "id": ("reduced_cost", -1, "reduced_cost")},
    ),
    # crfsuite
    "decoders.chains.crfsuite.train_crfsuite": (
        None,
        {"shape": ("tags", [["X", "Y"]], "features[0]"), "nan": ("c2", math.nan, "c2"),
         "id": ("tags", [[math.nan]], "tags[0]")},
    ),
    "decoders.chains.crfsuite.tagger": (
        None,
        {"shape": ("model_path", ["crf.model"], "model_path"), "nan": ("model_path", math.nan, "model_path"),
         "id": NO_IDS},
    ),
    # decoders
    "decoders.chains.decoders.decode_viterbi": ({"instance": INSTANCE}, dict.fromkeys(CLASSES, INSTANCE_ONLY)),
    "decoders.chains.decoders.decode_viterbi_pruned": ({"instance": INSTANCE}, dict.fromkeys(CLASSES, INSTANCE_ONLY)),
    "decoders.chains.decoders.decode_viterbi_2best": ({"instance": INSTANCE}, dict.fromkeys(CLASSES, INSTANCE_ONLY)),
    "decoders.chains.decoders.decode_viterbi_pruned_2best": (
        {"instance": INSTANCE}, dict.fromkeys(CLASSES, INSTANCE_ONLY),
    ),
    "decoders.chains.decoders.decode_cg": (
        {"instance": INSTANCE, "gap": 0.001},
        {"shape": INSTANCE_ONLY, "nan": ("gap", math.nan, "gap"), "id": ("reduced_cost", "eq13", "reduced_cost")},
    ),
    "decoders.chains.decoders.decode_cg_profile": (
        {"instance": INSTANCE, "decodes": 2},
        {"shape": INSTANCE_ONLY, "nan": ("decodes", math.nan, "decodes"), "id": ("reduced_cost", "eq13", "reduced_cost")},
    ),
    "decoders.chains.decoders.decode_viterbi_peak": (
        {"instance": INSTANCE, "measurements": 1, "min_seconds": 1e-5},
        {"shape": INSTANCE_ONLY, "nan": ("min_seconds", math.nan, "min_seconds"),
         "id": ("measurements", 0, "measurements")},
    ),
    "decoders.chains.decoders.decode_cg_two_best": (
        {"instance": INSTANCE, "delta": 0.5},
        {"shape": INSTANCE_ONLY, "nan": ("delta", math.nan, "delta"), "id": NO_IDS},
    ),
    "decoders.chains.decoders.decode_beam": (
        {"instance": INSTANCE, "width": 3},
        {"shape": INSTANCE_ONLY, "nan": ("width", math.nan, "width"), "id": ("width", 0, "width")},
    ),
    "decoders.chains.decoders.decode_cg_scoring": (None, dict.fromkeys(CLASSES, FEATURES_ONLY)),
    "decoders.chains.decoders.decode_viterbi_scoring": (None, dict.fromkeys(CLASSES, FEATURES_ONLY)),
    "decoders.chains.decoders.decode_crfsuite": (None, dict.fromkeys(CLASSES, FEATURES_ONLY)),
    "decoders.chains.decoders.evaluate": (
        {"instance": INSTANCE, "solution": solution(LABELS)},
        {"shape": ("solution", solution(LABELS[:3]), "solution.structure"),
         "nan": ("solution", solution(with_value(LABELS, (1,))), "solution.structure"),
         "id": ("solution", solution(np.array([0, -1, 0, 0])), "solution.structure[1]")},
    ),
    "decoders.chains.decoders.check_structure": (
        {"instance": INSTANCE, "structure": np.array([0, 2, 1, 0])},
        {"shape": ("instance", THETA, "instance"),
         "nan": "n/a: a bad structure is the reason it returns (tests/test_user_decoders.py)",
         "id": "n/a: a bad structure is the reason it returns (tests/test_user_decoders.py)"},
    ),
    "decoders.chains.decoders.scores_of": (
        {"instance": INSTANCE},
        {"shape": ("instance", THETA, "instance"), "nan": "n/a: takes an instance only",
         "id": "n/a: takes an instance only"},
    ),
    "decoders.chains.decoders.verify": (
        {"instance": INSTANCE, "solution": chain_decoders.decode_viterbi(INSTANCE)},
        {"shape": ("instance", THETA, "instance"),
         "nan": "n/a: a bad structure is the reason it returns (test_verify_returns_reasons_for_bad_structures)",
         "id": "n/a: a bad structure is the reason it returns (test_verify_returns_reasons_for_bad_structures)"},
    ),
    # features
    "decoders.chains.features.FeatureMatrix": (
        {"ids": [0, 1, 2], "token_offsets": [0, 2, 3], "sentence_offsets": [0, 2]},
        {"shape": ("ids", [[0, 1, 2]], "ids"), "nan": ("ids", [0.0, math.nan, 1.0], "ids"),
         "id": ("ids", [0, -1, 2], "ids[1]")},
    ),
    "decoders.chains.features.FeatureVocabulary": (
        {"names": ["a", "b"]},
        {"shape": ("names", "ab", "names"), "nan": ("names", ["a", math.nan], "names[1]"), "id": NO_IDS},
    ),
    "decoders.chains.features.fit_features": (
        {"sentences": [["a", "b"], ["b"]], "min_count": 1},
        {"shape": ("sentences", [["a"], []], "sentence 1"), "nan": ("sentences", [["a", math.nan]], "sentence 0"),
         "id": ("min_count", 0, "min_count")},
    ),
    "decoders.chains.features.token_features": (
        {"words": ["a", "B"]},
        {"shape": ("words", "aB", "words"), "nan": ("words", ["a", math.nan], "words[1]"), "id": NO_IDS},
    ),
    "decoders.chains.features.word_shape": (
        {"word": "Ab-1"},
        {"shape": ("word", ["Ab"], "word"), "nan": ("word", math.nan, "word"), "id": NO_IDS},
    ),
    # instance
    "decoders.chains.instance.ChainScores": (
        {"tau": TAU, "labels": NAMES},
        {"shape": ("labels", ("A", "B"), "ChainScores.tau"), "nan": ("tau", with_value(TAU, (1, 1)), "tau[1, 1]"),
         "id": NO_IDS},
    ),
    "decoders.chains.instance.ChainInstance": (
        {"theta": THETA, "scores": SCORES, "gold": LABELS},
        {"shape": ("gold", LABELS[:3], "ChainInstance.gold"),
         "nan": ("theta", with_value(THETA, (0, 0)), "ChainInstance.theta[0, 0]"),
         "id": ("gold", BAD_LABELS, "ChainInstance.gold[2]")},
    ),
    "decoders.chains.instance.FeatureInstance": (
        {"ids": np.array([0, 1, 2]), "token_offsets": np.array([0, 2, 3]), "strings": [["bias", "w=a"], ["bias"]],
         "model": "model.npz", "crfsuite": None, "gold": np.array([0, 1])},
        {"shape": ("token_offsets", np.array([0, 2]), "token_offsets"),
         "nan": ("gold", np.array([0.0, np.nan]), "FeatureInstance.gold"),
         "id": ("ids", np.array([0, -1, 2]), "FeatureInstance.ids[1]")},
    ),
    "decoders.chains.instance.sequence_score": (
        {"theta": THETA, "tau": TAU, "labels": LABELS},
        {"shape": ("labels", LABELS[:3], "labels"), "nan": ("theta", with_value(THETA, (3, 0), np.inf), "theta[3, 0]"),
         "id": ("labels", BAD_LABELS, "labels[2]")},
    ),
    "decoders.chains.instance.brute_force": (
        {"theta": THETA, "tau": TAU, "k": 2},
        {"shape": ("theta", THETA[:, :2], "theta"), "nan": ("tau", with_value(TAU, (2, 2)), "tau[2, 2]"),
         "id": NO_IDS},
    ),
    # model
    "decoders.chains.model.ChainModel": (
        {"weights": np.zeros((3, 3)), "start": np.zeros(3), "end": np.zeros(3), "tau": TAU, "labels": NAMES,
         "vocabulary": VOCABULARY},
        {"shape": ("start", np.zeros(2), "start"), "nan": ("weights", with_value(np.zeros((3, 3)), (1, 0)), "weights[1, 0]"),
         "id": NO_IDS},
    ),
    "decoders.chains.model.label_inventory": (
        {"frame": frame()},
        {"shape": ("frame", frame(tags=("AB", "C")), "frame['tags']"),
         "nan": ("frame", frame(tags=(("A", math.nan), ("C",))), "frame['tags']"), "id": NO_IDS},
    ),
    "decoders.chains.model.sentence_labels": (
        {"frame": frame()},
        {"shape": ("frame", frame(tags=("AB", "C")), "frame['tags']"),
         "nan": ("frame", frame(tags=(("A", math.nan), ("C",))), "frame['tags']"), "id": NO_IDS},
    ),
    # pipeline
    "decoders.chains.pipeline.train_model": (
        None,
        {"shape": ("spec", ["perceptron"], "spec"), "nan": ("min_count", math.nan, "min_count"),
         "id": "n/a: takes file paths"},
    ),
    "decoders.chains.pipeline.train_crfsuite_model": (
        None,
        {"shape": ("options", [20], "options"), "nan": "n/a: its options are train_crfsuite's (own entry)",
         "id": "n/a: takes file paths"},
    ),
    "decoders.chains.pipeline.build_instances": (
        None,
        {"shape": ("shard_paths", [], "shard_paths"), "nan": ("features", math.nan, "features"),
         "id": "n/a: takes file paths"},
    ),
    # train
    "decoders.chains.train.ssvm_objective": (
        {"model": MODEL, "matrix": MATRIX, "gold": GOLD, "lambda_e": 0.1, "lambda_t": 0.1},
        {"shape": ("gold", GOLD[:2], "gold"), "nan": ("lambda_e", math.nan, "lambda_e"),
         "id": ("gold", np.array([0, 1, 3]), "gold label ids")},
    ),
    "decoders.chains.train.train_ssvm": (
        {"matrix": MATRIX, "gold": GOLD, "labels": NAMES, "vocabulary": VOCABULARY, "epochs": 1, "progress": False},
        {"shape": ("gold", GOLD[:2], "gold"), "nan": ("learning_rate", math.nan, "learning_rate"),
         "id": ("gold", np.array([0, -1, 2]), "gold label ids")},
    ),
    "decoders.chains.train.train_perceptron": (
        {"matrix": MATRIX, "gold": GOLD, "labels": NAMES, "vocabulary": VOCABULARY, "epochs": 1, "progress": False},
        {"shape": ("matrix", THETA, "matrix"), "nan": ("gold", with_value(GOLD, (0,)), "gold"),
         "id": ("gold", np.array([0, 1, 7]), "gold label ids")},
    ),
    "decoders.chains.train.train_chain_model": (
        {"frame": frame(), "method": "perceptron", "epochs": 1, "progress": False},
        {"shape": ("frame", frame(tags=(("A",), ("C",))), "sentence 0"),
         "nan": ("frame", frame(words=(("a", math.nan), ("b",))), "sentence 0"),
         "id": ("min_count", 0, "min_count")},
    ),
    # viterbi
    "decoders.chains.viterbi.viterbi": (
        {"theta": THETA, "tau": TAU},
        {"shape": ("theta", np.zeros((0, 3)), "theta"), "nan": ("tau", with_value(TAU, (2, 0)), "tau[2, 0]"),
         "id": NO_IDS},
    ),
    "decoders.chains.viterbi.viterbi_2best": (
        {"theta": THETA, "tau": TAU},
        {"shape": ("tau", TAU[:2], "tau"), "nan": ("theta", with_value(THETA, (2, 2), -np.inf), "theta[2, 2]"),
         "id": NO_IDS},
    ),
}  # fmt: skip


def _defaults(qualified: str) -> dict:
    """Arguments for the entries whose valid call is not made (it needs files)."""
    name = qualified.rsplit(".", 1)[1]
    defaults = {
        "train_crfsuite": {"features": [[["bias"]]], "tags": [["X"]], "model_path": "unused.crfsuite"},
        "tagger": {"model_path": "missing.crfsuite"},
        "train_model": {"train": "missing.parquet", "spec": {"method": "perceptron"}, "min_count": 1, "seed": 0,
                        "model_out": "model.npz", "history_out": "history.json"},
        "train_crfsuite_model": {"train": "missing.parquet", "model_out": "crf.model", "options": {}},
        "build_instances": {"test": "missing.parquet", "model_path": "model.npz", "shard_paths": ["shard-0.pkl"],
                            "index_path": "index.tsv"},
    }  # fmt: skip
    return defaults[name]


def test_every_public_callable_has_an_entry():
    assert_every_public_callable_has_an_entry(MODULES, ENTRIES)


def test_no_public_compiled_kernel_is_left():
    assert_no_public_compiled_kernel(MODULES)


def test_the_timed_decoders_call_the_kernels_without_per_call_checks():
    """The decoders (timed) take a checked ChainInstance and call the private kernels: no checking wrapper is in
    their path, and the harness's compiled timing loops wrap the kernels too."""
    names = vars(chain_decoders)
    for wrapper in (
        "viterbi",
        "viterbi_2best",
        "beam_search",
        "column_generation",
        "cg_two_best",
        "check_chain",
    ):
        assert wrapper not in names, wrapper
    for kernel in ("_viterbi", "_viterbi_pruned", "_viterbi_2best", "_viterbi_pruned_2best", "_cg_packed",
                   "_two_best_kernel", "_beam_search"):  # fmt: skip
        assert hasattr(names[kernel], "py_func"), kernel


@pytest.mark.parametrize("qualified", valid_calls(ENTRIES))
def test_valid_arguments_are_accepted(qualified):
    resolve(qualified)(**ENTRIES[qualified][0])


@pytest.mark.parametrize(("qualified", "kind"), bad_calls(ENTRIES))
def test_bad_arguments_are_refused_by_name(qualified, kind):
    valid, cases = ENTRIES[qualified]
    assert_refused_by_name(qualified, valid or _defaults(qualified), cases[kind])


# --------------------------------------------------------------------------- scores


def _entries_taking_scores():
    """Every public entry that takes raw theta and tau, as ``call(theta, tau)``."""
    return {
        "viterbi": viterbi,
        "viterbi_2best": viterbi_2best,
        "beam_search": lambda theta, tau: beam_search(theta, tau, 2),
        "column_generation": column_generation,
        "cg_two_best": lambda theta, tau: cg_two_best(theta, tau, 1.0),
        "sequence_score": lambda theta, tau: sequence_score(theta, tau, np.zeros(len(theta), dtype=np.int64)),
        "brute_force": brute_force,
        "ChainInstance": lambda theta, tau: ChainInstance(theta, ChainScores(tau, NAMES[: len(tau)])),
    }


@pytest.mark.parametrize("name", sorted(_entries_taking_scores()))
@pytest.mark.parametrize("big", [1e308, 1e301, 2.0**1000])
def test_scores_that_could_overflow_are_refused(name, big):
    call = _entries_taking_scores()[name]
    with pytest.raises(ValueError, match="could overflow"):
        call(np.full((4, 3), big), TAU)
    with pytest.raises(ValueError, match="could overflow"):
        call(THETA, with_value(TAU, (1, 2), big))
    with pytest.raises(ValueError, match="could overflow"):
        call(THETA, with_value(TAU, (1, 2), -big))


@pytest.mark.parametrize("name", sorted(_entries_taking_scores()))
def test_scores_near_the_limit_are_accepted_and_stay_finite(name):
    """n x (max |theta| + 2 max |tau|) below 2^1000 (here 6 x 2^996): accepted, every score and bound finite."""
    theta = np.full((4, 3), 2.0**996)
    theta[:, 1] = -(2.0**996)
    tau = np.full((3, 3), 2.0**994)
    tau[0, 2] = -np.inf
    result = _entries_taking_scores()[name](theta, tau)
    if name == "ChainInstance":
        values = []
        for decoder in ("viterbi", "viterbi+p", "cg", "cg-2best", "viterbi-2best", "viterbi+p-2best", "beam"):
            found = get_decoder("chains", decoder)(result)
            values += [found.objective] + ([found.bound] if found.status == "optimal" else [])
            assert found.status != "optimal" or chain_decoders.verify(result, found) is None, decoder
    elif name == "brute_force":
        values = [result[0][0]]
    elif name == "column_generation":
        values = [result.score, result.bound]
    elif name == "cg_two_best":
        values = [result.best_score, result.cg.bound]
    elif name == "sequence_score":
        values = [result]
    else:
        values = [value for value in result if isinstance(value, float)]
    assert values and all(math.isfinite(v) for v in values), (name, values)


@pytest.mark.parametrize("name", sorted(_entries_taking_scores()))
@pytest.mark.parametrize(("where", "value"), [("theta", np.nan), ("theta", np.inf), ("theta", -np.inf),
                                              ("tau", np.nan), ("tau", np.inf)])  # fmt: skip
def test_nan_and_infinite_scores_are_refused_at_their_position(name, where, value):
    call = _entries_taking_scores()[name]
    theta, tau = (
        (with_value(THETA, (2, 1), value), TAU)
        if where == "theta"
        else (THETA, with_value(TAU, (2, 1), value))
    )
    with pytest.raises(ValueError, match=re.escape(f"{where}[2, 1]")):
        call(theta, tau)


def test_forbidden_transitions_are_allowed_where_chain_instances_allow_them():
    """-inf in tau forbids a transition (as ChainScores accepts it); -inf in theta is refused (theta is finite)."""
    tau = with_value(TAU, (0, 2), -np.inf)
    tau[2, 0] = -np.inf
    for call in (viterbi, viterbi_2best, column_generation, brute_force):
        labels = call(THETA, tau)
        labels = labels[0][1] if call is brute_force else labels[0]
        assert not any((a, b) in ((0, 2), (2, 0)) for a, b in zip(labels[:-1], labels[1:], strict=True))
    labels, score = beam_search(THETA, tau, 27)  # L^(n-1): exact
    assert score == viterbi(THETA, tau)[1]
    assert cg_two_best(THETA, tau, 1.0).best_score == pytest.approx(score)
    assert sequence_score(THETA, tau, [0, 2, 1, 0]) == -np.inf  # a sequence using a forbidden transition
    assert brute_force(THETA, tau, 81)[-1][0] == -np.inf
    ChainInstance(THETA, ChainScores(tau, NAMES))
    # no sequence of 3 tokens avoids them: the decoders refuse (as ChainInstance), scoring still works
    dead = np.array([[-np.inf, 0.0], [-np.inf, -np.inf]])
    for call in (viterbi, viterbi_2best, column_generation, lambda t, u: beam_search(t, u, 2)):
        with pytest.raises(ValueError, match="no label sequence longer than 2"):
            call(np.zeros((3, 2)), dead)
    assert sequence_score(np.zeros((3, 2)), dead, [0, 1, 1]) == -np.inf
    assert brute_force(np.zeros((3, 2)), dead, 1)[0][0] == -np.inf


# --------------------------------------------------------------------------- sizes, ids, limits


@pytest.mark.parametrize("name", sorted(_entries_taking_scores()))
def test_empty_sentences_are_refused(name):
    with pytest.raises(ValueError, match="n >= 1 tokens"):
        _entries_taking_scores()[name](np.zeros((0, 3)), TAU)
    with pytest.raises(ValueError, match="at least one label"):
        _entries_taking_scores()[name](np.zeros((2, 0)), np.zeros((0, 0)))


def test_one_label_inventories():
    theta, tau = np.array([[0.5], [-1.0], [2.0]]), np.array([[0.25]])
    assert viterbi(theta, tau)[0].tolist() == [0, 0, 0] and viterbi(theta, tau)[1] == 2.0
    labels1, score1, labels2, score2 = viterbi_2best(theta, tau)
    assert labels1.tolist() == [0, 0, 0] and labels2.shape == (0,) and score2 == -np.inf
    assert beam_search(theta, tau, 1)[1] == 2.0 and column_generation(theta, tau).score == 2.0
    result = cg_two_best(theta, tau, 10.0)
    assert result.best_score == 2.0 and result.second is None
    assert len(brute_force(theta, tau, 5)) == 1 and sequence_score(theta, tau, [0, 0, 0]) == 2.0
    instance = ChainInstance(theta, ChainScores(tau, ("only",)), [0, 0, -1])
    for name in ("viterbi", "viterbi+p", "cg", "cg-2best", "viterbi-2best", "viterbi+p-2best"):
        found = get_decoder("chains", name)(instance)
        assert found.status == "optimal" and chain_decoders.verify(instance, found) is None, name
    assert chain_decoders.evaluate(instance, found) == {"correct": 2, "total": 3}


@pytest.mark.parametrize("labels", [[0, 2, 1, 3], [0, -1, 1, 0], [0, 2, 1, 10**12]])
def test_label_ids_out_of_range_are_refused(labels):
    with pytest.raises(ValueError, match=r"labels\[\d\] is -?\d+, outside 0\.\.2"):
        sequence_score(THETA, TAU, labels)
    with pytest.raises(ValueError, match="solution.structure"):
        chain_decoders.evaluate(INSTANCE, Solution(np.array(labels[:3] + [-5]), 0.0))


def test_verify_returns_reasons_for_bad_structures():
    good = chain_decoders.decode_viterbi(INSTANCE)
    cases = [
        (np.array([0, 2, 1, 3]), "outside 0..2"),
        (np.array([0, -1, 1, 0]), "outside 0..2"),
        (np.array([0.0, np.nan, 1.0, 0.0]), "integer label ids"),
        (np.array([0, 2, 1]), "must be 4 integer label ids"),
        (None, "must be 4 integer label ids"),
    ]
    for structure, reason in cases:
        assert reason in chain_decoders.verify(
            INSTANCE, Solution(structure, good.objective, good.bound, "optimal")
        )
    tampered = chain_decoders.decode_viterbi_2best(INSTANCE)
    tampered.stats["second"] = np.array([0, 2, 1, 5])
    assert "outside 0..2" in chain_decoders.verify(INSTANCE, tampered)
    tampered.stats["second"], tampered.stats["second_score"] = (tampered.structure + 1) % 3, "high"
    assert "second_score" in chain_decoders.verify(INSTANCE, tampered)
    with pytest.raises(ValueError, match="solution must be a Solution"):
        chain_decoders.verify(INSTANCE, (LABELS, 0.0))


@pytest.mark.parametrize("width", [0, -1, 1.5, True, math.nan, None, 2**63])
def test_beam_widths_below_one_or_not_integers_are_refused(width):
    with pytest.raises(ValueError, match="width"):
        beam_search(THETA, TAU, width)
    with pytest.raises(ConfigError, match="width"):
        chain_decoders.decode_beam(INSTANCE, width=width)


@pytest.mark.parametrize("k", [0, -3, 1.0, True, None])
def test_brute_force_k_below_one_or_not_an_integer_is_refused(k):
    with pytest.raises(ValueError, match="k must be an integer"):
        brute_force(THETA, TAU, k)


def test_brute_force_refuses_enumerations_too_large():
    with pytest.raises(ValueError, match="theta: brute force would enumerate 3\\^25"):
        brute_force(np.zeros((25, 3)), TAU)


def test_other_limits_are_checked():
    for gap in (-0.1, 1.0, math.nan, math.inf, "0.1"):
        with pytest.raises(ValueError, match="gap"):
            column_generation(THETA, TAU, gap=gap)
    for delta in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="delta"):
            cg_two_best(THETA, TAU, delta)
    for reduced_cost in (3, -1, True, 1.0, "eq12"):
        with pytest.raises(ValueError, match="reduced_cost"):
            column_generation(THETA, TAU, reduced_cost=reduced_cost)
    with pytest.raises(ValueError, match="prune"):
        column_generation(THETA, TAU, prune="yes")
    for iterations in (0, -1, 2.5):
        with pytest.raises(ValueError, match="max_iterations"):
            train_crfsuite([[["bias"]]], [["X"]], "unused.crfsuite", max_iterations=iterations)
    for epochs in (0, -1, 1.5):
        with pytest.raises(ConfigError, match="epochs"):
            chain_train.train_perceptron(MATRIX, GOLD, NAMES, VOCABULARY, epochs=epochs, progress=False)
    for rate in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ConfigError, match="learning_rate"):
            chain_train.train_ssvm(MATRIX, GOLD, NAMES, VOCABULARY, learning_rate=rate, progress=False)
    for value in (-1.0, math.nan, math.inf):
        with pytest.raises(ConfigError, match="lambda_e"):
            chain_train.train_ssvm(MATRIX, GOLD, NAMES, VOCABULARY, lambda_e=value, progress=False)


# --------------------------------------------------------------------------- models and feature instances


def test_model_weights_past_the_safe_range_are_refused():
    args = {"start": np.zeros(3), "end": np.zeros(3), "tau": TAU, "labels": NAMES, "vocabulary": VOCABULARY}
    ChainModel(np.full((3, 3), MAX_WEIGHT), **args)
    for bad in (1e308, -np.inf, np.nan):
        with pytest.raises(ValueError, match=r"weights\[0, 0\]"):
            ChainModel(np.full((3, 3), bad), **args)
    with pytest.raises(ValueError, match=r"tau\[0, 0\]"):
        ChainModel(np.zeros((3, 3)), **{**args, "tau": with_value(TAU, (0, 0), 1e300)})
    forbidding = ChainModel(np.zeros((3, 3)), **{**args, "tau": with_value(TAU, (0, 0), -np.inf)})
    assert forbidding.scores.tau[0, 0] == -np.inf
    with pytest.raises(ValueError, match="ids"):
        MODEL.decode_labels(np.array([0, 3]))
    with pytest.raises(ValueError, match="sentence_index"):
        MODEL.emissions(MATRIX, -1)
    with pytest.raises(ValueError, match="matrix must be a FeatureMatrix"):
        MODEL.predict(THETA)


def test_feature_instances_are_checked_against_their_model_once(tmp_path):
    path = tmp_path / "model.npz"
    MODEL.save(path)
    chain_decoders._model.cache_clear()
    instance = feature_instance(model=str(path))
    found = chain_decoders.decode_viterbi_scoring(instance)
    assert found.status == "optimal" and chain_decoders.verify(instance, found) is None
    assert instance._checked_model is chain_decoders._model(str(path))  # checked once, not per call
    assert pickle.loads(pickle.dumps(instance))._checked_model is None
    for bad, named in (
        (feature_instance(model=str(path), ids=np.array([0, 1, 3])), "FeatureInstance.ids[2]"),
        (feature_instance(model=str(path), gold=np.array([0, 3])), "FeatureInstance.gold[1]"),
    ):
        for decode in (chain_decoders.decode_cg_scoring, chain_decoders.decode_viterbi_scoring):
            with pytest.raises(ValueError, match=re.escape(named)):
                decode(bad)
        with pytest.raises(ValueError, match=re.escape(named)):
            chain_decoders.verify(bad, found)


def test_instances_cannot_be_changed_after_their_checks():
    with pytest.raises(dataclasses.FrozenInstanceError):
        INSTANCE.theta = np.full((4, 3), np.nan)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        feature_instance().ids = np.array([99])  # type: ignore[misc]
    # the decoders' kernel, on the instance's checked arrays, answers as the checked public function
    labels, score = _viterbi(INSTANCE.theta, INSTANCE.scores.tau)
    expected_labels, expected_score = viterbi(THETA, TAU)
    assert labels.tolist() == expected_labels.tolist() and score == expected_score


@pytest.mark.parametrize(("n", "n_labels", "named"), [(2, "3", "n_labels"), (2, None, "n_labels"),
                                                      (2, math.nan, "n_labels"), ("2", 3, "n"), (2.0, 3, "n")])  # fmt: skip
def test_check_labels_refuses_counts_that_are_not_integers(n, n_labels, named):
    """Found here: a string or None n_labels gave ``TypeError: unsupported operand type(s) for -``, NaN passed."""
    from decoders.chains.checks import check_labels

    with pytest.raises(ValueError, match=f"^{named} must be an integer"):
        check_labels(np.array([0, 1]), n, n_labels)


def test_pipeline_steps_name_a_path_that_is_not_one():
    """Found here: an array or None where a step takes a path gave pathlib's TypeError from deep inside."""
    from decoders.chains import pipeline

    spec = {"method": "perceptron"}
    calls = [
        (
            lambda: pipeline.train_model(
                np.zeros(2), spec, min_count=1, seed=0, model_out="m", history_out="h"
            ),
            "train must be a path",
        ),  # fmt: skip
        (
            lambda: pipeline.train_model("t", spec, min_count=1, seed=0, model_out=None, history_out="h"),
            "model_out must be a path",
        ),  # fmt: skip
        (lambda: pipeline.train_crfsuite_model(5, "m", {}), "train must be a path"),
        (lambda: pipeline.build_instances(None, "m", ["s"], "i"), "test must be a path"),
        (lambda: pipeline.build_instances("t", "m", ["s"], True), "index_path must be a path"),
        (lambda: pipeline.build_instances("t", "m", [np.zeros(2)], "i"), r"shard_paths\[0\]"),
    ]
    for call, words in calls:
        with pytest.raises(ValueError, match=words):
            call()
