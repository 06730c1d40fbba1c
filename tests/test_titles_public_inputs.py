"""Every public function and class of the titles package checks its inputs (issue robust-scale, titles part).

The table :data:`ENTRIES` has one entry per public callable, found by importing the modules: a new public
function without an entry fails :func:`test_every_public_callable_has_an_entry`. An entry gives valid arguments
(the call must succeed) and, per class of bad input (a wrong shape or type, a NaN where numbers are taken, an id
out of range or a limit below its minimum), the argument to replace, its bad value and the name the error must
give; or the reason that class does not apply. Bad input must raise ValueError (or the package's DecodersError),
never crash the compiled kernels or return a silent result. The tests after the table check the statuses'
promises: a passed deadline, empty instances, limits of 0, paths with ids out of range or repeated.
"""

from __future__ import annotations

import math
import re
import time
from functools import cache

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

from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, get_decoder
from decoders.titles import ilp
from decoders.titles.decoders import title_text, verify
from decoders.titles.instance import TitleInstance, path_problem, path_score, realise
from decoders.titles.language_model import simple_good_turing
from decoders.titles.selection import Stemmer, body_tokens

MODULES = tuple(
    f"decoders.titles.{name}"
    for name in (
        "beam",
        "certified",
        "colour_coding",
        "decoders",
        "exhaustive",
        "graph",
        "ilp",
        "instance",
        "jobs",
        "language_model",
        "pipeline",
        "selection",
    )
)
DECODERS = {
    "colour-coding": ("colour-coding", {"seed": 1}),
    "colour-coding-certified": ("colour-coding-certified", {}),
    "ilp-cp-sat": ("ilp", {"solver": "cp-sat"}),
    "ilp-scip": ("ilp", {"solver": "scip"}),
    "ilp-highs": ("ilp", {"solver": "highs"}),
    "beam": ("beam", {"width": 3}),
    "exhaustive": ("exhaustive", {}),
}


def fields(n: int = 3, **changes) -> dict:
    out = {
        "words": tuple(f"w{v}" for v in range(n)),
        "klass": np.arange(n),
        "start": np.zeros(n),
        "edge": np.zeros((n, n)),
        "end": np.zeros(n),
        "k": min(2, max(n, 1)),
        "start_aux": np.full(n, -1),
        "edge_aux": np.full((n, n), -1),
        "end_aux": np.full(n, -1),
        "aux_words": ("of",),
        "reference": "w0 w1",
    }
    out.update(changes)
    return out


def random_instance(seed: int, n: int = 8, k: int = 3, missing: float = 0.2, klass=None) -> TitleInstance:
    rng = np.random.default_rng(seed)
    edge = np.log(rng.random((n, n)))
    edge[rng.random((n, n)) < missing] = -np.inf
    np.fill_diagonal(edge, -np.inf)
    klass = rng.integers(0, n - 1, n) if klass is None else klass
    return TitleInstance(
        **fields(n, klass=klass, start=np.log(rng.random(n)), edge=edge, end=np.log(rng.random(n)), k=k)
    )


def nan_at(array, index) -> np.ndarray:
    out = np.array(array, dtype=float)
    out[index] = np.nan
    return out


INSTANCE = TitleInstance(**fields())
PATH = np.array([0, 1])
SOLUTION = Solution(PATH, 0.0, 0.0, "optimal")
WORDS = [
    "tree", "trees", "sort", "sorting", "sorted", "graph", "graphs", "heap", "path", "paths", "search",
    "searching", "node", "nodes", "edge", "edges", "array", "arrays", "list", "lists", "queue", "stack", "hash",
    "table", "key", "keys", "value", "values", "root", "leaf",
]  # fmt: skip
BODY = "Trees of the forest grow. Sorting a heap is fast. The search of paths in a graph."
TOKENS, N_SENTENCES = body_tokens([BODY], Stemmer())
DF = {stem: 1 for stem in TOKENS["stem"]}
COUNTS = np.repeat([1, 2, 3, 4, 5, 6, 8, 10], [120, 40, 20, 12, 8, 5, 3, 2])


def units(count: int = 30, seed: int = 0) -> pd.DataFrame:
    """Sections of Zipf-distributed content words, often with a preposition or article between two."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(WORDS) + 1)
    weights /= weights.sum()
    rows = []
    for unit in range(count):
        body = []
        for _ in range(12):
            chosen = rng.choice(WORDS, size=rng.integers(3, 7), p=weights)
            out = [chosen[0]]
            for word in chosen[1:]:
                if rng.random() < 0.6:
                    out.append(["of", "the", "in", "for"][rng.integers(4)])
                out.append(word)
            body.append(" ".join(out).capitalize() + ".")
        first, second = rng.choice(WORDS, size=2, replace=False)
        rows.append((f"s/{unit}", f"{first.capitalize()} of {second}", " ".join(body)))
    return pd.DataFrame(rows, columns=["section_id", "title", "body"])


UNITS = units()


@cache
def model():
    from decoders.titles.pipeline import train

    return train(UNITS.iloc[:24], UNITS, {"aux_words": 3})


class Lazy:
    """An argument computed when the test runs (the trained scorers), not when the table is built."""

    def __init__(self, make):
        self.make = make

    def __call__(self):
        return self.make()


def _path_model_fields(**changes) -> dict:
    built = ilp.build_model(INSTANCE)
    out = {
        key: getattr(built, key) for key in ("n", "k", "tail", "head", "weight", "matrix", "lower", "upper")
    }
    return {**out, **changes}


def _good_turing_fields(**changes) -> dict:
    return {**vars(simple_good_turing(COUNTS)), **changes}


def _lm_fields(**changes) -> dict:
    lm = model().lm
    keys = ("vocabulary", "log_unigram", "log_alpha", "keys", "log_seen", "unigram_sgt", "bigram_sgt")
    return {**{key: getattr(lm, key) for key in keys}, **changes}


def _unit() -> dict:
    return {"body": UNITS["body"].iloc[25], "title": UNITS["title"].iloc[25]}


def _nan_selection_scores() -> dict:
    scored = model().selection.log_probabilities([_unit()["body"]])
    return dict.fromkeys(scored["stem"], math.nan)


def _build_args() -> dict:
    return {"unit": _unit(), "selection_model": model().selection, "lm": model().lm,
            "aux_words": model().aux_words, "k": 2}  # fmt: skip


def _far_path_model():
    tail = _path_model_fields()["tail"].copy()
    tail[0] = INSTANCE.n + 2
    return tail


NA_RECORD = "n/a: a record of results this package computes, not an input API"
NO_IDS = "n/a: takes no ids"
NOT_AN_INSTANCE = np.zeros((3, 3))  # an array where a TitleInstance is expected
NA_INSTANCE = "n/a: the instance checked its arrays at construction (TitleInstance's entry)"
NA_VERIFY = "n/a: a bad structure is a reason it returns (tested below)"

#: name -> (valid kwargs, {class: (argument, bad value, name in the message) or reason}); ``valid`` None: the
#: valid call needs files, and is not made (:func:`_defaults` gives the arguments the bad calls start from).
ENTRIES: dict[str, tuple[dict | None, dict]] = {
    # beam
    "decoders.titles.beam.beam_search": (
        {"instance": INSTANCE, "width": 2},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("width", 0, "width")},
    ),
    "decoders.titles.beam.reaches": (
        {"score": 1.0, "optimum": 1.0},
        {"shape": ("score", np.zeros(2), "score"), "nan": ("optimum", math.nan, "optimum"), "id": NO_IDS},
    ),
    "decoders.titles.beam.smallest_optimal_width": (
        {"instance": INSTANCE, "optimum": 0.0, "max_width": 4},
        {"shape": ("instance", [INSTANCE], "instance"), "nan": ("optimum", math.nan, "optimum"),
         "id": ("max_width", 0, "max_width")},
    ),
    # certified
    "decoders.titles.certified.inflation": (
        {"k": 2},
        {"shape": "n/a: takes one count", "nan": ("k", math.nan, "k"), "id": ("k", 0, "k")},
    ),
    "decoders.titles.certified.CertifiedResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.titles.certified.certified_colour_coding": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"),
         "nan": ("failure_probability", math.nan, "failure_probability"), "id": ("max_labels", 0, "max_labels")},
    ),
    # colour_coding
    "decoders.titles.colour_coding.colourful_probability": (
        {"k": 2, "r": 3},
        {"shape": "n/a: takes two counts", "nan": ("r", math.nan, "r"), "id": ("k", 0, "k")},
    ),
    "decoders.titles.colour_coding.iterations_for": (
        {"k": 2, "r": 3, "failure_probability": 0.1},
        {"shape": "n/a: takes numbers", "nan": ("failure_probability", math.nan, "failure_probability"),
         "id": ("r", -1, "r")},
    ),
    "decoders.titles.colour_coding.choose_colours": (
        {"k": 2},
        {"shape": "n/a: takes one count", "nan": ("k", math.nan, "k"), "id": ("k", 63, "k")},
    ),
    "decoders.titles.colour_coding.ColourCodingResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.titles.colour_coding.colour_coding": (
        {"instance": INSTANCE, "iterations": 2},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("iterations", 0, "iterations")},
    ),
    # decoders
    "decoders.titles.decoders.decode_colour_coding": (
        {"instance": INSTANCE, "iterations": 2},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"),
         "nan": ("failure_probability", math.nan, "failure_probability"), "id": ("iterations", 0, "iterations")},
    ),
    "decoders.titles.decoders.decode_colour_coding_certified": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("max_labels", 0, "max_labels")},
    ),
    "decoders.titles.decoders.decode_ilp": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("hint_width", -1, "hint_width")},
    ),
    "decoders.titles.decoders.decode_beam": (
        {"instance": INSTANCE, "width": 2},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("width", 0, "width")},
    ),
    "decoders.titles.decoders.decode_exhaustive": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("max_paths", 0, "max_paths")},
    ),
    "decoders.titles.decoders.title_text": (
        {"instance": INSTANCE, "structure": PATH},
        {"shape": ("structure", [[0, 1]], "structure"), "nan": ("structure", [0.0, math.nan], "structure"),
         "id": ("structure", [0, 5], "structure[1]")},
    ),
    "decoders.titles.decoders.evaluate": (
        {"instance": INSTANCE, "solution": SOLUTION},
        {"shape": ("solution", Solution(PATH[None, :], 0.0), "solution.structure"),
         "nan": ("solution", Solution([0.0, math.nan], 0.0), "solution.structure"),
         "id": ("solution", Solution([0, 5], 0.0), "solution.structure[1]")},
    ),
    "decoders.titles.decoders.check_structure": (
        {"instance": INSTANCE, "structure": PATH},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": NA_VERIFY, "id": NA_VERIFY},
    ),
    "decoders.titles.decoders.exact_check": (
        {"instance": INSTANCE, "solution": SOLUTION, "time_limit": 5.0},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": NA_VERIFY, "id": NA_VERIFY},
    ),
    "decoders.titles.decoders.verify": (
        {"instance": INSTANCE, "solution": SOLUTION},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": NA_VERIFY, "id": NA_VERIFY},
    ),
    # exhaustive
    "decoders.titles.exhaustive.exhaustive": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("max_paths", math.nan, "max_paths"),
         "id": ("max_paths", 0, "max_paths")},
    ),
    # graph
    "decoders.titles.graph.auxiliary_words": (
        {"titles": ["Trees of the Forest"], "bodies": ["with the"], "count": 2},
        {"shape": ("titles", "Trees of the Forest", "titles"), "nan": ("count", math.nan, "count"),
         "id": ("count", -1, "count")},
    ),
    "decoders.titles.graph.title_length": (
        {"title": "Trees of the Forest"},
        {"shape": ("title", ["Trees"], "title"), "nan": ("title", math.nan, "title"), "id": NO_IDS},
    ),
    "decoders.titles.graph.build_instance": (
        Lazy(_build_args),
        {"shape": ("aux_words", "of", "aux_words"), "nan": ("selection_scores", Lazy(_nan_selection_scores),
         "selection_scores"), "id": ("k", 0, "k")},
    ),
    # ilp
    "decoders.titles.ilp.PathModel": (
        Lazy(_path_model_fields),
        {"shape": ("weight", np.zeros(2), "PathModel.weight"),
         "nan": ("lower", Lazy(lambda: nan_at(_path_model_fields()["lower"], 0)), "PathModel.lower[0]"),
         "id": ("tail", Lazy(_far_path_model), "PathModel.tail[0]")},
    ),
    "decoders.titles.ilp.build_model": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": NA_INSTANCE, "id": NA_INSTANCE},
    ),
    "decoders.titles.ilp.ILPResult": (None, dict.fromkeys(CLASSES, NA_RECORD)),
    "decoders.titles.ilp.cp_sat_scale": (
        {"weight": np.ones(3), "k": 2},
        {"shape": ("weight", np.ones((2, 2)), "weight"), "nan": ("weight", nan_at(np.ones(3), 1), "weight[1]"),
         "id": ("k", 0, "k")},
    ),
    "decoders.titles.ilp.raised_weights": (
        {"weight": np.ones(3), "k": 2, "known": 1.0},
        {"shape": ("weight", np.ones((2, 2)), "weight"), "nan": ("known", math.nan, "known"),
         "id": ("k", 0, "k")},
    ),
    "decoders.titles.ilp.solve": (
        {"instance": INSTANCE},
        {"shape": ("instance", NOT_AN_INSTANCE, "instance"), "nan": ("deadline", math.nan, "deadline"),
         "id": ("hint_width", -1, "hint_width")},
    ),
    # instance
    "decoders.titles.instance.TitleInstance": (
        fields(),
        {"shape": ("edge", np.zeros((3, 2)), "TitleInstance.edge"),
         "nan": ("start", nan_at(np.zeros(3), 1), "TitleInstance.start[1]"),
         "id": ("klass", np.array([0, -1, 2]), "TitleInstance.klass[1]")},
    ),
    "decoders.titles.instance.check_instance": (
        {"value": INSTANCE},
        {"shape": ("value", NOT_AN_INSTANCE, "instance"), "nan": "n/a: takes an instance", "id": NO_IDS},
    ),
    "decoders.titles.instance.weight_limit": (
        {"n": 3},
        {"shape": "n/a: takes one count", "nan": ("n", math.nan, "n"), "id": ("n", -1, "n")},
    ),
    "decoders.titles.instance.path_problem": (
        {"instance": INSTANCE, "path": PATH},
        {"shape": ("path", [[0, 1]], "path"), "nan": ("path", [0.0, math.nan], "path"),
         "id": "n/a: an id out of range is a reason it returns (tested below)"},
    ),
    "decoders.titles.instance.path_score": (
        {"instance": INSTANCE, "path": PATH},
        {"shape": ("path", [[0, 1]], "path"), "nan": ("path", [0.0, math.nan], "path"),
         "id": ("path", [0, 5], "path[1]")},
    ),
    "decoders.titles.instance.path_magnitude": (
        {"instance": INSTANCE, "path": PATH},
        {"shape": ("path", [0, 1, 2], "path"), "nan": ("path", [math.nan, 0.0], "path"),
         "id": ("path", [-1, 0], "path[0]")},
    ),
    "decoders.titles.instance.realise": (
        {"instance": INSTANCE, "path": PATH},
        {"shape": ("path", [0], "path"), "nan": ("path", [0.0, math.nan], "path"),
         "id": ("path", [3, 0], "path[0]")},
    ),
    # jobs
    "decoders.titles.jobs.train_scorer": (
        None,
        {"shape": ("options", [1, 2], "options"), "nan": ("seed", math.nan, "seed"), "id": ("seed", -1, "seed")},
    ),
    "decoders.titles.jobs.build_instance_set": (
        None,
        {"shape": ("shard_paths", "a.pkl", "shard_paths"), "nan": ("index", math.nan, "index"),
         "id": ("shard_paths", [], "shard_paths")},
    ),
    "decoders.titles.jobs.smallest_beam": (
        None,
        {"shape": ("shard_paths", "a.pkl", "shard_paths"), "nan": ("max_width", math.nan, "max_width"),
         "id": ("max_width", 0, "max_width")},
    ),
    # language_model
    "decoders.titles.language_model.sentences": (
        {"text": "A b. C d."},
        {"shape": ("text", ["A b."], "text"), "nan": ("text", math.nan, "text"), "id": NO_IDS},
    ),
    "decoders.titles.language_model.lm_tokens": (
        {"text": "A b's c."},
        {"shape": ("text", ["A b."], "text"), "nan": ("text", math.nan, "text"), "id": NO_IDS},
    ),
    "decoders.titles.language_model.GoodTuring": (
        Lazy(_good_turing_fields),
        {"shape": ("p", np.full(2, 0.1), "GoodTuring.p"),
         "nan": ("r_star", Lazy(lambda: nan_at(_good_turing_fields()["r_star"], 0)), "GoodTuring.r_star[0]"),
         "id": ("r", Lazy(lambda: np.arange(8)), "GoodTuring.r")},
    ),
    "decoders.titles.language_model.simple_good_turing": (
        {"counts": COUNTS},
        {"shape": ("counts", COUNTS.reshape(2, -1), "counts"), "nan": ("counts", nan_at(COUNTS, 3), "counts"),
         "id": ("counts", np.array([3, 0, 1, 2]), "counts[1]")},
    ),
    "decoders.titles.language_model.BigramLM": (
        Lazy(_lm_fields),
        {"shape": ("log_alpha", np.zeros(2), "BigramLM.log_alpha"),
         "nan": ("log_unigram", Lazy(lambda: nan_at(_lm_fields()["log_unigram"], 3)), "BigramLM.log_unigram[3]"),
         "id": ("keys", Lazy(lambda: _lm_fields()["keys"] + len(_lm_fields()["vocabulary"]) ** 2),
                "BigramLM.keys[0]")},
    ),
    "decoders.titles.language_model.estimate_bigram_lm": (
        {"token_sentences": [["a", "b", "a", "c"], ["a", "b"], ["d", "a", "e", "f", "g"]]},
        {"shape": ("token_sentences", ["a b"], "token_sentences[0]"),
         "nan": ("token_sentences", [["a", math.nan]], "token_sentences[0][1]"), "id": NO_IDS},
    ),
    # pipeline
    "decoders.titles.pipeline.TitleModel": (
        Lazy(lambda: {"selection": model().selection, "lm": model().lm, "aux_words": model().aux_words}),
        {"shape": ("aux_words", "of", "TitleModel.aux_words"),
         "nan": ("train_seconds", math.nan, "TitleModel.train_seconds"),
         "id": ("lm", "lm.pkl", "TitleModel.lm")},
    ),
    "decoders.titles.pipeline.train": (
        {"train_units": UNITS.iloc[:24], "all_units": UNITS, "options": {"aux_words": 3}},
        {"shape": ("train_units", UNITS.drop(columns="title"), "train_units"),
         "nan": ("options", {"C": math.nan}, "C"), "id": ("options", {"aux_words": -1}, "aux_words")},
    ),
    "decoders.titles.pipeline.build_instances": (
        Lazy(lambda: {"model": model(), "units": UNITS.iloc[24:26]}),
        {"shape": ("units", UNITS.drop(columns="body"), "units"),
         "nan": ("units", UNITS.assign(body=math.nan), "units.body"), "id": ("model", "model.pkl", "model")},
    ),
    "decoders.titles.pipeline.unit_statistics": (
        {"units": UNITS},
        {"shape": ("units", UNITS.drop(columns="title"), "units"),
         "nan": ("units", UNITS.assign(title=math.nan), "units.title"), "id": NO_IDS},
    ),
    "decoders.titles.pipeline.selection_accuracy": (
        Lazy(lambda: {"model": model(), "units": UNITS.iloc[24:]}),
        {"shape": ("units", UNITS.drop(columns="title"), "units"),
         "nan": ("units", UNITS.assign(body=math.nan), "units.body"), "id": ("model", "model.pkl", "model")},
    ),
    "decoders.titles.pipeline.rouge_l": (
        {"reference": "Trees of the Forest", "words": ["trees", "forest"]},
        {"shape": ("words", "trees forest", "words"), "nan": ("words", ["trees", math.nan], "words[1]"),
         "id": NO_IDS},
    ),
    # selection
    "decoders.titles.selection.Stemmer": (
        {},
        {"shape": ("mode", ["x"], "Stemmer.mode"), "nan": ("mode", math.nan, "Stemmer.mode"),
         "id": ("mode", "nope", "Stemmer.mode")},
    ),
    "decoders.titles.selection.body_tokens": (
        {"bodies": [BODY], "stemmer": Stemmer()},
        {"shape": ("bodies", BODY, "bodies"), "nan": ("bodies", [math.nan], "bodies[0]"),
         "id": ("stemmer", "porter", "stemmer")},
    ),
    "decoders.titles.selection.document_frequencies": (
        {"bodies": [BODY], "stemmer": Stemmer()},
        {"shape": ("bodies", BODY, "bodies"), "nan": ("bodies", [BODY, math.nan], "bodies[1]"),
         "id": ("stemmer", None, "stemmer")},
    ),
    "decoders.titles.selection.stem_features": (
        {"tokens": TOKENS, "n_sentences": N_SENTENCES, "df": DF, "n_documents": 1},
        {"shape": ("tokens", TOKENS.drop(columns="sentence"), "tokens"),
         "nan": ("n_sentences", nan_at(N_SENTENCES, 0), "n_sentences"),
         "id": ("tokens", TOKENS.assign(unit=np.where(np.arange(len(TOKENS)) == 2, 5, 0)), "tokens.unit[2]")},
    ),
    "decoders.titles.selection.title_stems": (
        {"titles": ["Trees of the Forest"], "stemmer": Stemmer()},
        {"shape": ("titles", "Trees", "titles"), "nan": ("titles", [math.nan], "titles[0]"),
         "id": ("stemmer", "porter", "stemmer")},
    ),
    "decoders.titles.selection.SelectionModel": (
        Lazy(lambda: {key: getattr(model().selection, key) for key in ("classifier", "stemmer", "df", "n_documents")}),
        {"shape": ("df", [1, 2], "SelectionModel.df"), "nan": ("n_documents", math.nan, "SelectionModel.n_documents"),
         "id": ("n_documents", 0, "SelectionModel.n_documents")},
    ),
    "decoders.titles.selection.train_selection": (
        {"bodies": UNITS["body"].tolist()[:24], "titles": UNITS["title"].tolist()[:24],
         "idf_bodies": UNITS["body"].tolist()},
        {"shape": ("titles", "Trees", "titles"), "nan": ("C", math.nan, "C"), "id": ("seed", -1, "seed")},
    ),
}  # fmt: skip


def _value(value):
    return value() if isinstance(value, Lazy) else value


def _defaults(qualified: str) -> dict:
    """Arguments for the entries whose valid call is not made (it needs files)."""
    name = qualified.rsplit(".", 1)[1]
    if name == "train_scorer":
        return {"train": "missing.parquet", "test": "missing.parquet", "model_out": "m.pkl",
                "stats_out": "s.json", "options": {}, "seed": 0}  # fmt: skip
    if name == "build_instance_set":
        return {"test": "missing.parquet", "model_path": "missing.pkl", "shard_paths": ["a.pkl"],
                "index": "i.tsv", "stats_out": "s.json"}  # fmt: skip
    if name == "smallest_beam":
        return {"shard_paths": ["a.pkl"], "exact_records": "missing.parquet", "params_out": "p.json",
                "search_out": "s.json", "max_width": 4}  # fmt: skip
    raise AssertionError(qualified)


def test_every_public_callable_has_an_entry():
    assert_every_public_callable_has_an_entry(MODULES, ENTRIES)


def test_no_public_compiled_kernel_is_left():
    assert_no_public_compiled_kernel(MODULES)


@pytest.mark.parametrize("qualified", valid_calls(ENTRIES))
def test_valid_arguments_are_accepted(qualified):
    resolve(qualified)(**_value(ENTRIES[qualified][0]))


@pytest.mark.parametrize(("qualified", "kind"), bad_calls(ENTRIES))
def test_bad_arguments_are_refused_by_name(qualified, kind):
    valid, cases = ENTRIES[qualified]
    assert_refused_by_name(
        qualified, _value(valid) if valid is not None else _defaults(qualified), cases[kind], _value
    )


# --------------------------------------------------------------------------- statuses keep their promise


def assert_promise(instance: TitleInstance, solution: Solution, name: str) -> None:
    """``feasible`` and ``optimal`` with a title that scores what they say; no title only with ``timeout``,
    ``error`` or a certified ``optimal`` (objective and bound -inf, accepted by the verifier)."""
    if solution.structure is None:
        if solution.status == "optimal":
            assert solution.objective == solution.bound == -math.inf, name
            assert verify(instance, solution) is None, name
        else:
            assert solution.status in ("timeout", "error") and math.isnan(solution.objective), name
        return
    assert solution.status in ("optimal", "feasible", "timeout"), name
    assert path_problem(instance, solution.structure) is None, name
    assert solution.objective == pytest.approx(path_score(instance, solution.structure), rel=1e-12), name
    if solution.status == "optimal":
        assert verify(instance, solution) is None, name


@pytest.mark.parametrize("passed", [1.0, math.inf])
@pytest.mark.parametrize("name", sorted(DECODERS))
def test_a_deadline_already_passed_gives_a_title_or_a_timeout(name, passed):
    decoder, params = DECODERS[name]
    for seed in range(3):
        instance = random_instance(seed)
        solution = get_decoder("titles", decoder)(instance, deadline=time.perf_counter() - passed, **params)
        assert_promise(instance, solution, name)
        if name != "exhaustive":  # the oracle runs to the end: its answer is certified all the same
            assert solution.status in ("timeout", "optimal"), (name, solution.status)


@pytest.mark.parametrize("name", sorted(DECODERS))
@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty_instances_and_k_beyond_the_words_are_answered_at_once(name, n):
    decoder, params = DECODERS[name]
    instance = TitleInstance(**fields(n, k=n + 1))
    assert "exceeds" in instance.infeasible
    solution = get_decoder("titles", decoder)(instance, **params)
    assert solution.status == "optimal" and solution.structure is None, name
    assert solution.objective == solution.bound == -math.inf and verify(instance, solution) is None


@pytest.mark.parametrize(
    ("decoder", "params", "key"),
    [
        ("beam", {"width": 0}, "width"),
        ("exhaustive", {"max_paths": 0}, "max_paths"),
        ("colour-coding", {"iterations": 0}, "iterations"),
        ("colour-coding", {"colours": 0}, "colours"),
        ("colour-coding", {"failure_probability": 1.0}, "failure_probability"),
        ("colour-coding", {"failure_probability": -0.5}, "failure_probability"),
        ("colour-coding", {"failure_probability": math.inf}, "failure_probability"),
        ("colour-coding-certified", {"max_labels": 0}, "max_labels"),
        ("colour-coding-certified", {"iterations": 0}, "iterations"),
        ("colour-coding-certified", {"failure_probability": 0.0}, "failure_probability"),
        ("colour-coding-certified", {"relaxation": 1}, "relaxation"),
        ("ilp", {"hint_width": -1}, "hint_width"),
        ("ilp", {"hint_width": math.nan}, "hint_width"),
        ("ilp", {"deadline": "soon"}, "deadline"),
        ("beam", {"deadline": math.nan}, "deadline"),
    ],
)
def test_limits_below_their_minimum_are_refused(decoder, params, key):
    with pytest.raises((ConfigError, ValueError), match=key):
        get_decoder("titles", decoder)(INSTANCE, **params)


def test_k_of_zero_and_weights_that_are_nan_inf_or_too_large_are_refused():
    for k in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="TitleInstance.k"):
            TitleInstance(**fields(k=k))
    for bad in (math.nan, math.inf, 1e308):
        for key, shape, where in (("start", 3, "[1]"), ("end", 3, "[1]"), ("edge", (3, 3), "[1, 1]")):
            array = np.zeros(shape)
            array[(1,) * array.ndim] = bad
            with pytest.raises(ValueError, match=re.escape(f"TitleInstance.{key}{where}")):
                TitleInstance(**fields(**{key: array}))
    TitleInstance(**fields(edge=np.full((3, 3), -np.inf)))  # -inf: a missing edge


def test_weights_near_the_limit_keep_every_status_honest():
    """Found here: finite weights of 1e308 made every title score +inf - a NaN or inf sum, and exhaustive search
    answered ``optimal`` with no title. Weights up to the limit must give finite, verified answers."""
    from decoders.titles.instance import weight_limit

    big = weight_limit(2)
    instance = TitleInstance(
        **fields(2, start=np.full(2, big), edge=np.full((2, 2), big), end=np.full(2, -big))
    )
    for name, (decoder, params) in DECODERS.items():
        solution = get_decoder("titles", decoder)(instance, **params)
        assert_promise(instance, solution, name)
        assert solution.structure is not None and math.isfinite(solution.objective), name


def test_large_class_ids_keep_their_values_and_make_no_large_tables():
    dense = random_instance(4, n=6, k=3, klass=np.array([0, 1, 2, 0, 1, 3]))
    sparse_fields = {key: value for key, value in vars(dense).items() if key != "infeasible"}
    sparse = TitleInstance(**{**sparse_fields, "klass": np.array([0, 2**30, 2**31 - 1, 0, 2**30, 2**31 - 2])})
    assert sparse.klass.tolist()[1] == 2**30 and sparse.class_index.tolist() == [0, 1, 3, 0, 1, 2]
    for name, (decoder, params) in DECODERS.items():
        one = get_decoder("titles", decoder)(dense, **params)
        other = get_decoder("titles", decoder)(sparse, **params)
        assert_promise(sparse, other, name)
        if one.status == "optimal":
            assert other.status == "optimal" and other.objective == one.objective, name


def test_paths_out_of_range_or_repeating_a_word_are_refused_or_reported():
    instance = TitleInstance(**fields(4, klass=np.array([0, 1, 1, 2]), k=2))
    for path, named in (
        ([0, 4], "path[1]"),
        ([-1, 0], "path[0]"),
        ([1, 1], "repeats word 1"),
        ([0], "k = 2"),
    ):
        for function in (path_score, realise):
            with pytest.raises(ValueError, match=re.escape(named)):
                function(instance, path)
        with pytest.raises(ValueError, match=re.escape(named.replace("path", "structure"))):
            title_text(instance, np.array(path))
    assert "out of range" in path_problem(instance, [0, 4])
    assert "out of range" in path_problem(instance, [-1, 0])
    assert "repeated equivalence class" in path_problem(instance, [1, 1])
    assert "repeated equivalence class" in path_problem(instance, [1, 2])  # two words of class 1
    assert "k = 2" in path_problem(instance, [0, 1, 3])
    assert path_problem(instance, [0, 1]) is None
    for structure, reason in (
        ([0, 4], "out of range"),
        ([-1, 0], "out of range"),
        ([1, 1], "repeated equivalence class"),
        ([0.0, 1.0], "integer word ids"),
        ([0.0, math.nan], "integer word ids"),
        ([[0, 1]], "1-d"),
        ("01", "integer word ids"),
    ):
        assert reason in verify(instance, Solution(structure, 0.0, 0.0, "optimal")), structure
    with pytest.raises(ValueError, match="solution"):
        verify(instance, {"structure": [0, 1]})


def test_heuristics_that_find_no_title_say_error_not_feasible():
    """Found here: beam search and colour-coding answered ``feasible`` with no title when they found none."""
    edge = np.full((5, 5), -np.inf)
    edge[0, 1] = edge[1, 2] = edge[2, 3] = 0.0
    start = np.array([0.0, -np.inf, -np.inf, -np.inf, -np.inf])
    end = np.array([-np.inf, -np.inf, -np.inf, 0.0, -np.inf])
    instance = TitleInstance(
        **fields(5, klass=np.array([0, 1, 2, 0, 3]), start=start, edge=edge, end=end, k=4)
    )
    assert instance.infeasible is None  # a walk exists; every title would repeat class 0
    for name in ("beam", "colour-coding"):
        solution = get_decoder("titles", name)(instance)
        assert solution.status == "error" and solution.structure is None and math.isnan(solution.objective)
        assert "no title" in solution.stats["error"]
    # beam width 1 follows the best first word into a dead end (end = -inf), though a title exists
    blocked = TitleInstance(
        **fields(3, k=1, end=np.array([-np.inf, 0.0, 0.0]), start=np.array([1.0, 0.0, 0.0]))
    )
    assert get_decoder("titles", "beam")(blocked, width=1).status == "error"
    assert_promise(blocked, get_decoder("titles", "beam")(blocked, width=2), "beam-2")


def test_an_ilp_model_of_another_instance_is_refused():
    other = TitleInstance(**fields())
    with pytest.raises(ValueError, match="model"):
        ilp.solve(INSTANCE, model=ilp.build_model(other))
    assert ilp.solve(INSTANCE, model=ilp.build_model(INSTANCE)).status == "optimal"


def test_wrong_types_where_an_instance_or_a_solution_is_expected():
    for bad in (None, "instance", vars(INSTANCE), [INSTANCE]):
        for decoder, params in DECODERS.values():
            with pytest.raises(ValueError, match="instance must be a TitleInstance"):
                get_decoder("titles", decoder)(bad, **params)
        with pytest.raises(ValueError, match="instance"):
            path_score(bad, PATH)
    with pytest.raises(ValueError, match="TitleInstance.words"):
        TitleInstance(**fields(words="abc"))
    with pytest.raises(ValueError, match="TitleInstance.reference"):
        TitleInstance(**fields(reference=None))


@pytest.mark.parametrize("key", ["p0", "intercept", "slope"])
@pytest.mark.parametrize("bad", ["0.5", None, True, np.zeros(2), math.nan, math.inf])
def test_good_turing_refuses_scalars_that_are_not_finite_numbers(key, bad):
    """Found here: a string or None p0, intercept or slope gave a raw TypeError, an array numpy's "truth value
    of an array is ambiguous", and True passed as 1."""
    from decoders.titles.language_model import GoodTuring

    with pytest.raises(ValueError, match=f"GoodTuring.{key} must be"):
        GoodTuring(**_good_turing_fields(**{key: bad}))
