"""Every public function and class of the ppc package refuses a wrong shape, NaN and an out-of-range id with an
error that names the argument: never a crash, a raw numpy error or a silent answer. The table must name every
public callable the package defines (a new one without an entry fails), with its bad calls or the reason a class
of bad input does not apply."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np
import pytest
from public_inputs import public_callables

from decoders.errors import DecodersError
from decoders.ppc import lp, model, training
from decoders.ppc.instance import PPCInstance

MODULES = ("lp", "model", "training", "instance", "decoders", "pipeline", "udpipe_peer")
N = 3


def _attributes(n: int = N) -> model.SentenceAttributes:
    single = np.full((4, n + 1), 3, dtype=np.int64)
    offsets = np.zeros(n + 2, dtype=np.int64)
    return model.SentenceAttributes(single, offsets, np.zeros(0, dtype=np.int64))


def _index() -> model.GrandparentIndex:
    tokens = _attributes()
    heads = np.array([-1, 0, 1, 2])
    return model.GrandparentIndex.build([(tokens, heads)])


def _grandparent_model() -> model.GrandparentModel:
    index = _index()
    weights = np.linspace(-1.0, 1.0, len(index))
    return model.GrandparentModel(
        _attributes(), index, weights, model.GrandparentBounds.build(index, weights)
    )


def _arc(n: int = N) -> np.ndarray:
    arc = np.zeros((n + 1, n + 1))
    np.fill_diagonal(arc, -np.inf)
    arc[:, 0] = -np.inf
    return arc


def _with(array: np.ndarray, index: tuple, value) -> np.ndarray:
    out = np.array(array, dtype=float)
    out[index] = value
    return out


def _dense(n: int = N) -> lp.DenseGrandparents:
    return lp.DenseGrandparents(np.zeros((n + 1,) * 3))


def _nan_scores():
    class NaNScores(lp.DenseGrandparents):
        def score(self, g, p, c):
            return np.full(len(g), np.nan)

    return NaNScores(np.zeros((N + 1,) * 3))


def _short_scores():
    class ShortScores(lp.DenseGrandparents):
        def score(self, g, p, c):
            return np.zeros(max(len(g) - 1, 0))

    return ShortScores(np.zeros((N + 1,) * 3))


#: name -> bad calls (a zero-argument callable and the message it must raise), or a string: why none applies
BAD: dict[str, list[tuple[Callable[[], object], str]] | str] = {
    "lp.DenseGrandparents": [
        (lambda: _dense().score([0], [1], [N + 1]), r"part ids c\[0\] is 4"),
        (lambda: lp.DenseGrandparents(np.zeros((3, 3))), "must be an \\(n \\+ 1\\)\\^3 array"),
        (lambda: lp.DenseGrandparents(_with(np.zeros((3, 3, 3)), (0, 1, 2), np.nan)), r"\[0, 1, 2\] is nan"),
    ],
    "lp.GrandparentScores": "a Protocol (the interface the LPs call); its results are checked by checked_scores",
    "lp.LPResult": "a record the LPs return; audit checks the one it is given",
    "lp.checked_scores": [
        (
            lambda: lp.checked_scores(_nan_scores(), np.array([[0, 1, 2]])),
            r"gave part \(0, 1, 2\) the score nan",
        ),
        (lambda: lp.checked_scores(_short_scores(), np.array([[0, 1, 2]])), "returned shape"),
    ],
    "lp.all_parts": [
        (lambda: lp.all_parts(np.zeros((3, 4), dtype=np.int64)), "arc_id must be a square integer"),
        (lambda: lp.all_parts(np.zeros((3, 3))), "arc_id must be a square integer"),
    ],
    "lp.brute_force": [
        (lambda: lp.brute_force(np.zeros((4, 3)), _dense()), "square"),
        (lambda: lp.brute_force(_with(_arc(), (0, 1), np.nan), _dense()), r"\[0, 1\] is nan"),
        (lambda: lp.brute_force(_arc(), _nan_scores()), "the score nan"),
        (lambda: lp.brute_force(_arc(), _dense(), polytope="martins"), "unknown polytope"),
        (lambda: lp.brute_force(_arc(), _dense(), cycle_cuts=1), "cycle_cuts must be true or false"),
        (lambda: lp.brute_force(_arc(), _dense(2)), r"part ids g\[\d+\] is 3, outside 0..2"),
        (lambda: lp.brute_force(_arc(), _dense(), deadline=float("nan")), "deadline is NaN"),
        (lambda: lp.brute_force(_arc(), _dense(), deadline="5"), "deadline must be None or a time"),
        (lambda: lp.brute_force(_arc(), _dense(), deadline=True), "deadline must be None or a time"),
        (lambda: lp.brute_force(_arc(), "scores"), "scores must be GrandparentScores"),
        (lambda: lp.brute_force(_arc(1), _dense(1), polytope=["all"]), "unknown polytope"),
        (lambda: lp.brute_force(_arc(), _dense(), rows=np.zeros(2)), "rows must be one of"),
    ],
    "lp.violated_cycles": [
        (lambda: lp.violated_cycles(np.zeros((3, 4))), "finite square"),
        (lambda: lp.violated_cycles(_with(np.zeros((3, 3)), (0, 1), np.nan)), "finite square"),
        (lambda: lp.violated_cycles(np.zeros((3, 3)), tolerance=float("nan")), "tolerance must be finite"),
        (lambda: lp.violated_cycles(np.zeros((3, 3)), tolerance="0"), "tolerance must be a number"),
    ],
    "lp.parse_price_cut": [
        (lambda: lp.parse_price_cut(np.zeros((4, 3)), _dense()), "square"),
        (lambda: lp.parse_price_cut(_with(_arc(), (0, 1), np.nan), _dense()), r"\[0, 1\] is nan"),
        (lambda: lp.parse_price_cut(_arc(), _nan_scores()), "the score nan"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), columns_per_word=0), "columns_per_word"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), start="leaf"), "start must be one of"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), deadline=float("nan")), "deadline is NaN"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), deadline="5"), "deadline must be None or a time"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), tighten=1), "tighten must be true or false"),
        (lambda: lp.parse_price_cut(_arc(), _dense(), primal="no"), "primal must be true or false"),
        (lambda: lp.parse_price_cut(_arc(), _grandparent_model().index), "scores must be GrandparentScores"),
    ],
    "lp.integer_program": [
        (lambda: lp.integer_program(np.zeros((4, 3)), _dense()), "square"),
        (lambda: lp.integer_program(_with(_arc(), (0, 1), np.nan), _dense()), r"\[0, 1\] is nan"),
        (lambda: lp.integer_program(_arc(), _nan_scores()), "the score nan"),
        (lambda: lp.integer_program(_arc(), _dense(), deadline=float("nan")), "deadline is NaN"),
        (lambda: lp.integer_program(_arc(), _dense(), deadline="5"), "deadline must be None or a time"),
        (lambda: lp.integer_program(_arc(), None), "scores must be GrandparentScores"),
    ],
    "lp.audit": [
        (lambda: lp.audit(np.zeros((4, 3)), _dense(), lp.brute_force(_arc(), _dense())), "square"),
        (lambda: lp.audit(_arc(), _dense(), "result"), "result must be an LPResult"),
        (lambda: lp.audit(_arc(4), _dense(4), lp.brute_force(_arc(), _dense())), "result is of a sentence"),
        (lambda: lp.audit(_arc(), _nan_scores(), lp.brute_force(_arc(), _dense())), "the score nan"),
        (
            lambda: lp.audit(_arc(), object(), lp.brute_force(_arc(), _dense())),
            "scores must be GrandparentScores",
        ),
    ],
    "model.Lexicon": [
        (lambda: model.Lexicon(5), "ids must be 5 dicts"),
        (lambda: model.Lexicon([{}]), "ids must be 5 dicts"),
        (lambda: model.Lexicon("abcde"), "ids must be 5 dicts"),
    ],
    "model.SentenceAttributes": [
        (
            lambda: model.SentenceAttributes(
                np.ones((3, 4), dtype=np.int64), np.zeros(5, np.int64), np.zeros(0, np.int64)
            ),
            r"single must have shape \(4, n \+ 1\)",
        ),  # fmt: skip
        (
            lambda: model.SentenceAttributes(np.ones((4, 4)), np.zeros(5, np.int64), np.zeros(0, np.int64)),
            "single must be a 2-d integer",
        ),  # fmt: skip
        (
            lambda: model.SentenceAttributes(
                np.ones((4, 4), np.int64), np.zeros(4, np.int64), np.zeros(0, np.int64)
            ),
            "offsets must be 5",
        ),  # fmt: skip
        (
            lambda: model.SentenceAttributes(
                np.ones((4, 4), np.int64), np.zeros(5, np.int64), np.ones(1, np.int64)
            ),
            "offsets end at 0",
        ),  # fmt: skip
        (
            lambda: model.SentenceAttributes(
                np.zeros((4, 4), np.int64), np.zeros(5, np.int64), np.zeros(0, np.int64)
            ),
            "single holds an id outside",
        ),  # fmt: skip
        (
            lambda: model.SentenceAttributes(
                np.full((4, 4), model.MAX_ID), np.zeros(5, np.int64), np.zeros(0, np.int64)
            ),
            "single holds an id outside",
        ),  # fmt: skip
    ],
    "model.part_keys": [
        (lambda: model.part_keys(_attributes(), [0], [1], [4]), r"part ids c\[0\] is 4, outside 0..3"),
        (lambda: model.part_keys(_attributes(), [-1], [1], [2]), r"part ids g\[0\] is -1"),
        (lambda: model.part_keys(_attributes(), [[0]], [1], [2]), "part ids g must be 1-dimensional"),
        (lambda: model.part_keys(_attributes(), [0.5], [1], [2]), "part ids g must be an integer array"),
        (lambda: model.part_keys(_attributes(), [0, 1], [1], [2]), "one length"),
        (
            lambda: model.part_keys(np.zeros(3), [0], [1], [2]),
            "tokens must be SentenceAttributes; got ndarray",
        ),
        (lambda: model.part_keys(None, [0], [1], [2]), "tokens must be SentenceAttributes; got NoneType"),
    ],
    "model.part_ids": [
        (lambda: model.part_ids(N, [0], [9], [2]), r"part ids p\[0\] is 9"),
        (lambda: model.part_ids(N, [0], [np.nan], [2]), "part ids p must be an integer array"),
        (lambda: model.part_ids("2", [0], [1], [2]), "n must be an integer, got '2'"),
        (lambda: model.part_ids(float("nan"), [0], [1], [2]), "n must be an integer, got nan"),
        (lambda: model.part_ids(True, [0], [1], [0]), "n must be an integer, got True"),
        (lambda: model.part_ids(-1, [0], [1], [2]), "n must be an integer >= 0"),
    ],
    "model.GrandparentIndex": [
        (lambda: model.GrandparentIndex(np.array([3, 1], dtype=np.int64)), "strictly increasing"),
        (lambda: model.GrandparentIndex(np.array([[1]], dtype=np.int64)), "one-dimensional int64"),
        (lambda: model.GrandparentIndex(np.array([1.0, 2.0])), "one-dimensional int64"),
        (lambda: _index().lookup(np.array([0.5])), "keys must be a one-dimensional integer"),
        (lambda: _index().lookup(np.zeros((2, 2), dtype=np.int64)), "keys must be a one-dimensional integer"),
    ],
    "model.gold_parts": [
        (lambda: model.gold_parts(np.array([-1, 0, 5])), r"heads\[2\] is 5, outside 0..2"),
        (lambda: model.gold_parts(np.array([[-1, 0]])), "heads must be 1-dimensional"),
        (lambda: model.gold_parts(np.array([-1.0, np.nan])), "heads must be an integer array"),
    ],
    "model.GrandparentBounds": "built from a checked index and weights (GrandparentBounds.build) or a model file "
    "(GrandparentParser.load checks it)",
    "model.GrandparentModel": [
        (
            lambda: model.GrandparentModel(_attributes(), _index(), np.zeros(len(_index()) + 1)),
            "one number per index key",
        ),  # fmt: skip
        (
            lambda: model.GrandparentModel("tokens", _index(), np.zeros(len(_index()))),
            "needs SentenceAttributes",
        ),
        (lambda: _grandparent_model().score([0], [1], [N + 1]), r"part ids c\[0\] is 4"),
        (lambda: _grandparent_model().score([0], [1], [[2]]), "part ids c must be 1-dimensional"),
    ],
    "model.GrandparentParser": [
        (lambda: model.GrandparentParser(np.zeros(8), 1, None, None, _index(), 40), "bits must lie in 1..30"),
        (
            lambda: model.GrandparentParser(np.full(64, np.nan), 1, None, None, _index(), 2),
            "weights must be finite",
        ),
        (lambda: model.GrandparentParser.load("/nonexistent/grandparent.npz"), "no grandparent parser"),
        (lambda: model.GrandparentParser.load(np.zeros(3)), "path must be a path"),
        (
            lambda: model.GrandparentParser(np.zeros(64), 1, None, model.Lexicon(), _index(), 2),
            "vocabulary must be",
        ),
        (
            lambda: model.GrandparentParser(np.zeros(64), 1, _vocabulary(), "lex", _index(), 2),
            "lexicon must be",
        ),
        (
            lambda: model.GrandparentParser(np.zeros(64), 0, _vocabulary(), model.Lexicon(), _index(), 2),
            "denominator",
        ),
        (
            lambda: model.GrandparentParser(np.zeros(64), 1, _vocabulary(), model.Lexicon(), "index", 2),
            "index must",
        ),
        (
            lambda: model.GrandparentParser([0.0] * 64, 1, _vocabulary(), model.Lexicon(), _index(), 2),
            "numerator",
        ),
        (
            lambda: model.GrandparentParser(np.zeros(64), 1, _vocabulary(), model.Lexicon(), _index(), "2"),
            "bits",
        ),
    ],
    "training.Encoded": "a pair of encoded arrays; the LPs and the instance check them where they are used",
    "training.every_arc": [
        (lambda: training.every_arc(-1), "n must be a number of words"),
        (lambda: training.every_arc(2.5), "n must be a number of words"),
    ],
    "training.GrandparentLP": "trained on sentences the pipeline encodes; its LPs check arcs and parts as above",
    "instance.PPCInstance": [
        (
            lambda: PPCInstance(
                np.ones((2, 3)), _attributes(2), np.array([-1, 0, 1]), np.ones(2, bool), "m", "f"
            ),
            "arc_tokens must be a 2-d int64",
        ),  # fmt: skip
        (
            lambda: PPCInstance(
                np.ones((_n_attributes(), 4), np.int64),
                _attributes(2),
                np.array([-1, 0, 1]),
                np.ones(2, bool),
                "m",
                "f",
            ),
            "attributes must be SentenceAttributes over the same 3",
        ),  # fmt: skip
        (
            lambda: PPCInstance(
                np.ones((_n_attributes(), 3), np.int64),
                _attributes(2),
                np.array([-1, 0, 5]),
                np.ones(2, bool),
                "m",
                "f",
            ),
            "gold: word 2 has head 5",
        ),  # fmt: skip
    ],
    "decoders.load_parser": [
        (lambda: _decoders().load_parser("/nonexistent/gp.npz"), "no grandparent parser"),
        (lambda: _decoders().load_parser(np.zeros(3)), "path must be a path"),
        (lambda: _decoders().load_parser(None), "path must be a path"),
    ],
    "decoders.load_first_order": [
        (lambda: _decoders().load_first_order("/nonexistent/mst.npz"), "no parser model"),
        (lambda: _decoders().load_first_order(np.zeros(3)), "path must be a path"),
        (lambda: _decoders().load_first_order(7), "path must be a path"),
    ],
    "decoders.decode_mst": "takes a PPCInstance, checked at construction",
    "decoders.decode_full_lp": [  # found here: an array polytope or rows gave numpy's "truth value ... ambiguous"
        (lambda: _decoders().decode_full_lp(_instance(), polytope=np.zeros(2)), "polytope must be one of"),
        (lambda: _decoders().decode_full_lp(_instance(), rows=np.zeros(2)), "rows must be one of"),
        (lambda: _decoders().decode_full_lp(_instance(), polytopes="all"), "has no parameter 'polytopes'"),
    ],
    "decoders.decode_ppc": [
        (lambda: _decoders().decode_ppc(_instance(), start=np.zeros(2)), "start must be one of"),
        (lambda: _decoders().decode_ppc(_instance(), rows=np.array(["paper"])), "rows must be one of"),
        (lambda: _decoders().decode_ppc(_instance(), columns_per_word=np.nan), "columns_per_word"),
    ],
    "decoders.decode_ilp": [
        (lambda: _decoders().decode_ilp(_instance(), start=np.zeros(2)), "start must be one of"),
        (lambda: _decoders().decode_ilp(_instance(), 5), "only positional argument"),
    ],
    "decoders.decode_ppc_audit": "takes a PPCInstance, checked at construction",
    "decoders.decode_ad3_lp": [  # the options are checked before AD3 is imported
        (
            lambda: _decoders().decode_ad3_lp(_instance(), max_iterations=0),
            "max_iterations must be a positive",
        ),
        (
            lambda: _decoders().decode_ad3_lp(_instance(), max_iterations=True),
            "max_iterations must be a positive",
        ),
        (
            lambda: _decoders().decode_ad3_lp(_instance(), tolerance=np.nan),
            "tolerance must be a positive number",
        ),
        (lambda: _decoders().decode_ad3_lp(_instance(), eta=-1.0), "eta must be a positive number"),
        (lambda: _decoders().decode_ad3_lp(_instance(), normalize="yes"), "normalize must be true or false"),
    ],
    "decoders.decode_ad3_exact": [
        (
            lambda: _decoders().decode_ad3_exact(_instance(), max_iterations=2.5),
            "max_iterations must be a positive",
        ),
        (
            lambda: _decoders().decode_ad3_exact(_instance(), tolerance="0"),
            "tolerance must be a positive number",
        ),
        (lambda: _decoders().decode_ad3_exact(_instance(), child=1), "child must be true or false"),
    ],
    "decoders.tree_score": [
        (lambda: _decoders().tree_score("instance", [-1, 0]), "instance must be a PPCInstance")
    ],
    "decoders.evaluate": [
        (lambda: _decoders().evaluate(None, _solution([0, 1])), "instance must be a PPCInstance"),
        (lambda: _decoders().evaluate(_instance(), "solution"), "solution must be a Solution"),
        (lambda: _decoders().evaluate(_instance(), _solution([0])), "solution.structure must hold 2 heads"),
    ],
    "decoders.check_structure": [
        (lambda: _decoders().check_structure(np.zeros(3), [0, 1]), "instance must be a PPCInstance"),
    ],
    "decoders.verify": [
        (lambda: _decoders().verify(np.zeros(3), _solution([0, 1])), "instance must be a PPCInstance"),
        (lambda: _decoders().verify(_instance(), {"structure": [0, 1]}), "solution must be a Solution"),
    ],
    "pipeline.encode": [
        (lambda: _pipeline().encode({"words": []}, _vocabulary(), None), "frame must be a pandas DataFrame"),
    ],
    "pipeline.uas_of": [
        (lambda: _pipeline().uas_of([np.zeros(2)], []), "predicted has 1 head arrays, data 0"),
        (lambda: _pipeline().uas_of(5, []), "predicted must be a sequence"),
        (
            lambda: _pipeline().uas_of([np.zeros(2)], [(None, np.zeros(3), np.ones(3, bool))]),
            r"predicted\[0\]",
        ),
    ],
    "pipeline.prune": [
        (lambda: _pipeline().prune(np.zeros((3, 3)), np.zeros(8), 2), "tokens must be a Encoded"),
        (
            lambda: _pipeline().prune(training.Encoded(None, None), np.zeros(8), 0),
            "k must be an integer >= 1",
        ),
    ],
    "pipeline.train_parsers": [  # bad settings name the config key (test_ppc_pipeline); bad frames here
        (
            lambda: _pipeline().train_parsers(None, bits=8, epochs=1, train_k=None, seed=0, first_order={}),
            "frames must be a mapping",
        ),
        (
            lambda: _pipeline().train_parsers(
                {"train": None}, bits=8, epochs=1, train_k=None, seed=0, first_order={}
            ),
            r"frames\['train'\] must be a pandas DataFrame",
        ),
    ],
    "pipeline.choose_epoch": [
        (lambda: _pipeline().choose_epoch([{"dev_uas": 1.0}], -1), "epoch_tolerance"),
        (lambda: _pipeline().choose_epoch([], 0.5), "epochs must hold at least one"),
        (lambda: _pipeline().choose_epoch([{"dev_uas": 1.0}], 0.5), r"epochs\[0\] must be a mapping"),
        (lambda: _pipeline().choose_epoch(3, 0.5), "epochs must be a sequence"),
    ],
    "pipeline.train_job": [
        (
            lambda: _pipeline().train_job(["t.parquet"], "f", "m", "h", dev_fraction=0.1),
            "splits must be a mapping",
        ),
        (
            lambda: _pipeline().train_job({"train": None}, "f", "m", "h", dev_fraction=0.1),
            r"splits\['train'\]",
        ),
        (
            lambda: _pipeline().train_job({}, np.zeros(2), "m", "h", dev_fraction=0.1),
            "first_out must be a path",
        ),
    ],
    "pipeline.instances_job": [
        (
            lambda: _pipeline().instances_job({}, "f", "m", "shard.pkl", "i", dev_fraction=0.1),
            "shard_paths must",
        ),
        (
            lambda: _pipeline().instances_job({}, "f", "m", ["s"], None, dev_fraction=0.1),
            "index_path must be",
        ),
    ],
    "pipeline.udpipe_train_job": [
        (
            lambda: _pipeline().udpipe_train_job({}, "m", "t", dev_fraction=0.1, parser_options=1, seed=0),
            "parser_options must be a string",
        ),
    ],
    "udpipe_peer.udpipe_train_job": [
        (
            lambda: _udpipe_peer().udpipe_train_job({}, "m", "t", dev_fraction=0.1, parser_options=1, seed=0),
            "parser_options must be a string",
        ),
        (
            lambda: _udpipe_peer().udpipe_train_job(
                {}, "m", "t", dev_fraction=0.1, parser_options="", seed=-1
            ),
            "seed",
        ),
    ],
    "udpipe_peer.root_labelled": [
        (lambda: _udpipe_peer().root_labelled([[0, 1]]), "frame must be"),
        (lambda: _udpipe_peer().root_labelled(_frame(heads=[[0]])), "frame must have the columns deprels"),
        (
            lambda: _udpipe_peer().root_labelled(_frame(heads=[[0, 1]], deprels=[["ROOT"]])),
            "sentence s0: 2 heads but 1 labels",
        ),
    ],
    "pipeline.udpipe_job": [
        (
            lambda: _pipeline().udpipe_job({}, "m", "t", "r", True, dev_fraction=0.1),
            "summary_out must be a path",
        ),
    ],
}


def _vocabulary():
    from decoders.parsing.features import Vocabulary

    return Vocabulary()


def _instance() -> PPCInstance:
    tokens = np.ones((_n_attributes(), 3), np.int64)
    return PPCInstance(tokens, _attributes(2), np.array([-1, 0, 1]), np.ones(2, bool), "m", "f")


def _solution(structure):
    from decoders.harness.protocol import Solution

    return Solution(structure, 0.0, 0.0, "optimal", {})


def _n_attributes() -> int:
    from decoders.parsing.features import N_ATTRIBUTES

    return N_ATTRIBUTES


def _decoders():
    return importlib.import_module("decoders.ppc.decoders")


def _udpipe_peer():
    return importlib.import_module("decoders.ppc.udpipe_peer")


def _frame(**columns):
    import pandas as pd

    rows = len(next(iter(columns.values())))
    return pd.DataFrame({"sent_id": [f"s{i}" for i in range(rows)], **columns})


def _pipeline():
    return importlib.import_module("decoders.ppc.pipeline")


def _public() -> set[str]:
    modules = [f"decoders.ppc.{name}" for name in MODULES]
    return {name.removeprefix("decoders.ppc.") for name in public_callables(modules)}


def test_every_public_callable_has_an_entry():
    assert _public() == set(BAD), (sorted(_public() - set(BAD)), sorted(set(BAD) - _public()))


@pytest.mark.parametrize("name", sorted(k for k, v in BAD.items() if not isinstance(v, str)))
def test_bad_input_is_refused_naming_the_argument(name):
    for call, message in BAD[name]:
        with pytest.raises((ValueError, DecodersError)) as caught:
            call()
        assert caught.match(message), (name, str(caught.value))


def test_tree_score_refuses_bad_heads(monkeypatch):
    decoders = _decoders()
    monkeypatch.setattr(decoders, "_grandparent_problem", lambda instance: pytest.fail("models read first"))
    instance = PPCInstance(
        np.ones((_n_attributes(), 3), np.int64),
        _attributes(2),
        np.array([-1, 0, 1]),
        np.ones(2, bool),
        "m",
        "f",
    )
    for heads, message in (
        (np.array([-1, 0]), "length 3"),
        (np.array([-1, 0, 7]), "outside 0..2"),
        (np.array([-1, 2, 1]), "cycle"),
        (np.array([-1.0, 0.0, 1.0]), "integer head array"),
    ):
        with pytest.raises(ValueError, match=message):
            decoders.tree_score(instance, heads)
