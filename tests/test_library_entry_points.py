"""The library's entry points on raw scores against the registered decoders on the same scores (same structure,
objective and status), against independent brute force where the method is exact, and on bad arguments."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from parsing_toys import train_toy_models
from scipy.sparse.csgraph import shortest_path

from decoders.bnb import decoders as bnb_decoders
from decoders.bnb.instance import ParseInstance
from decoders.chains import api as chains_api
from decoders.chains.instance import ChainInstance, ChainScores, brute_force
from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, get_decoder, known_decoders
from decoders.linking import api as linking_api
from decoders.linking.decomposable import NotDecomposableError
from decoders.linking.instance import LinkingInstance
from decoders.parsing.features import arc_scores
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.trees import as_heads, enumerate_trees
from decoders.ppc import api as ppc_api
from decoders.ppc import decoders as ppc_decoders
from decoders.ppc.instance import PPCInstance
from decoders.ppc.lp import DenseGrandparents
from decoders.ppc.model import SentenceAttributes, gold_parts
from decoders.titles import api as titles_api
from decoders.titles.instance import TitleInstance


def same(library: Solution, registered: Solution, rel: float = 0.0) -> None:
    """Same status, structure and objective (exactly, or within ``rel`` for LPs)."""
    assert library.status == registered.status
    left, right = library.structure, registered.structure
    assert (left is None) == (right is None)
    if left is not None:
        assert np.asarray(left).tolist() == np.asarray(right).tolist()
    if rel:
        assert library.objective == pytest.approx(registered.objective, rel=rel)
    else:
        assert library.objective == registered.objective or (
            math.isnan(library.objective) and math.isnan(registered.objective)
        )


# --- chains ---------------------------------------------------------------------------------------------------


def chain_scores(rng: np.random.Generator, n: int, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Small integer scores (ties are common) with some forbidden transitions, feasible for ``n`` tokens."""
    theta = rng.integers(-2, 3, size=(n, n_labels)).astype(float)
    tau = rng.integers(-2, 3, size=(n_labels, n_labels)).astype(float)
    tau[rng.random((n_labels, n_labels)) < 0.2] = -np.inf
    np.fill_diagonal(tau, 0.0)  # a label may repeat: every length is feasible
    return theta, tau


def own_decoders(experiment: str) -> set[str]:
    """The decoders the experiment's own module registers (other tests may register toys beside them)."""
    module = f"decoders.{experiment}.decoders"
    return {name for name in known_decoders(experiment) if get_decoder(experiment, name).__module__ == module}


def test_every_registered_chains_decoder_is_a_method_or_said_not_to_take_scores():
    registered = {decoder for decoder, _ in chains_api.METHODS.values()} | set(chains_api.NOT_ON_SCORES)
    assert registered == own_decoders("chains")


@pytest.mark.parametrize("method", sorted(chains_api.METHODS))
def test_chains_decode_is_the_registered_decoder_on_the_same_scores(method):
    rng = np.random.default_rng(0)
    decoder, defaults = chains_api.METHODS[method]
    for trial in range(30):
        n, n_labels = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        theta, tau = chain_scores(rng, n, n_labels)
        library = chains_api.decode(theta, tau, method=method)
        instance = ChainInstance(theta, ChainScores(tau, tuple(f"L{i}" for i in range(n_labels))))
        same(library, get_decoder("chains", decoder)(instance, **defaults))
        if library.status == "optimal":  # exact methods against enumeration, independent of the decoders
            assert library.objective == brute_force(theta, tau, 1)[0][0], (trial, method)
            assert library.bound == library.objective


def test_chains_labels_are_optional_and_name_the_decoded_labels():
    theta = np.array([[0.0, 1.0]])
    assert ChainScores(np.zeros((2, 2))).labels == ("0", "1")
    assert "label_names" not in chains_api.decode(theta, np.zeros((2, 2))).stats
    solution = chains_api.decode(theta, np.zeros((2, 2)), labels=["NN", "VB"])
    assert solution.stats["label_names"] == ["VB"]
    shared = ChainScores(np.zeros((2, 2)), ("x", "y"))
    assert chains_api.chain_instance(theta, shared).scores is shared


def test_chains_one_token_one_label_and_ties():
    solution = chains_api.decode(np.array([[3.0]]), np.array([[-np.inf]]), method="cg")
    assert (solution.structure.tolist(), solution.objective, solution.status) == ([0], 3.0, "optimal")
    tied = {m: chains_api.decode(np.zeros((4, 3)), np.zeros((3, 3)), method=m) for m in chains_api.METHODS}
    assert {s.objective for s in tied.values()} == {0.0}


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: chains_api.decode(np.zeros((0, 2)), np.zeros((2, 2))), ValueError, "ChainInstance.theta"),
        (lambda: chains_api.decode(np.zeros((2, 3)), np.zeros((2, 2))), ValueError, "ChainInstance.theta"),
        (lambda: chains_api.decode(np.zeros((2, 2)), np.zeros((2, 3))), ValueError, "ChainScores.tau"),
        (lambda: chains_api.decode(np.zeros(2), np.zeros((2, 2))), ValueError, "ChainInstance.theta"),
        (lambda: chains_api.decode([[np.nan, 0.0]], np.zeros((2, 2))), ValueError, "theta[0, 0]"),
        (lambda: chains_api.decode([[-np.inf, 0.0]], np.zeros((2, 2))), ValueError, "theta[0, 0]"),
        (lambda: chains_api.decode(np.zeros((1, 2)), [[0, np.nan], [0, 0]]), ValueError, "tau[0, 1]"),
        (lambda: chains_api.decode(np.zeros((1, 1)), np.zeros((0, 0))), ValueError, "ChainScores.tau"),
        # two tokens, but no transition is allowed
        (lambda: chains_api.decode(np.zeros((2, 1)), [[-np.inf]]), ValueError, "ChainInstance.theta"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), "vitterbi"), ConfigError, "viterbi"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), "beam", width=0), ConfigError, "width"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), "cg", widht=2), ConfigError, "widht"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), labels=["a"]), ValueError, "labels"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), labels=["a", "a"]), ValueError, "labels"),
        (
            lambda: chains_api.chain_instance(np.zeros((1, 2)), ChainScores(np.zeros((2, 2))), ["a", "b"]),
            ValueError,
            "labels",
        ),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), time_limit=math.nan), ValueError, "time_limit"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), time_limit=-1), ValueError, "time_limit"),
        (lambda: chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), verify="yes"), ValueError, "verify"),
    ],
)  # fmt: skip
def test_chains_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_an_unknown_method_lists_the_known_ones():
    with pytest.raises(ConfigError) as caught:
        chains_api.decode(np.zeros((1, 2)), np.zeros((2, 2)), method="nope")
    assert all(name in str(caught.value) for name in chains_api.METHODS)


def test_a_false_certificate_becomes_an_error_with_the_reason(monkeypatch):
    """decode_instance runs the experiment's verify: a decoder that labels a worse sequence optimal is caught."""
    from decoders.harness import library

    def liar(experiment, decoder):
        return lambda instance, deadline=None, **params: Solution(np.zeros(2, np.int64), 0.0, 0.0, "optimal")

    monkeypatch.setattr(library, "get_decoder", liar)
    theta = np.array([[0.0, 1.0], [0.0, 1.0]])
    solution = chains_api.decode(theta, np.zeros((2, 2)))
    assert solution.status == "error" and "Viterbi finds [1, 1]" in solution.stats["error"]
    assert chains_api.decode(theta, np.zeros((2, 2)), verify=False).status == "optimal"


# --- titles ---------------------------------------------------------------------------------------------------


def title_scores(rng: np.random.Generator, n: int):
    start = rng.integers(-3, 4, size=n).astype(float)
    edge = rng.integers(-3, 4, size=(n, n)).astype(float)
    end = rng.integers(-3, 4, size=n).astype(float)
    edge[rng.random((n, n)) < 0.25] = -np.inf
    np.fill_diagonal(edge, -np.inf)
    start[rng.random(n) < 0.1] = -np.inf
    classes = rng.integers(0, max(1, n - 1), size=n)
    return start, edge, end, classes


def by_hand(start, edge, end, k, classes) -> TitleInstance:
    n = len(start)
    none = np.full(n, -1, np.int32)
    words = [f"w{i}" for i in range(n)]
    return TitleInstance(
        words, classes, start, edge, end, k, none, np.full((n, n), -1, np.int32), none, (), ""
    )


def best_title(start, edge, end, k, classes) -> float:
    """The best score over every ordered choice of ``k`` words of distinct classes (-inf: none)."""
    best = -math.inf
    for path in itertools.permutations(range(len(start)), k):
        if len({int(classes[v]) for v in path}) < k:
            continue
        score = start[path[0]] + end[path[-1]] + sum(edge[a, b] for a, b in itertools.pairwise(path))
        best = max(best, score)
    return best


def test_every_registered_titles_decoder_is_a_method():
    expected = {"colour-coding", "colour-coding-certified", "ilp", "beam", "exhaustive"}
    assert set(titles_api.METHODS) == own_decoders("titles") == expected


@pytest.mark.parametrize("method", sorted(titles_api.METHODS))
def test_titles_decode_is_the_registered_decoder_on_the_same_scores(method):
    rng = np.random.default_rng(1)
    for _ in range(12):
        n = int(rng.integers(1, 7))
        k = int(rng.integers(1, 4))
        start, edge, end, classes = title_scores(rng, n)
        library = titles_api.decode(start, edge, end, k, method=method, classes=classes)
        registered = get_decoder("titles", method)(by_hand(start, edge, end, k, classes))
        same(library, registered)
        if library.status == "optimal":
            assert library.objective == best_title(start, edge, end, k, classes)


def test_titles_empty_and_one_word():
    empty = titles_api.decode(np.zeros(0), np.zeros((0, 0)), np.zeros(0), 1)
    assert (empty.structure, empty.objective, empty.status) == (None, -math.inf, "optimal")
    one = titles_api.decode([2.0], [[-np.inf]], [1.0], 1, method="exhaustive", words=["sorting"])
    assert (one.structure.tolist(), one.objective, one.stats["title"]) == ([0], 3.0, "sorting")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: titles_api.decode(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros(2), 1), "start"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 3)), np.zeros(2), 1), "TitleInstance.edge"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(3), 1), "TitleInstance.end"),
        (lambda: titles_api.decode([np.nan, 0.0], np.zeros((2, 2)), np.zeros(2), 1), "TitleInstance.start[0]"),
        (lambda: titles_api.decode(np.zeros(2), [[0, np.inf], [0, 0]], np.zeros(2), 1), "TitleInstance.edge[0, 1]"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 0), "TitleInstance.k"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1.5), "TitleInstance.k"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, classes=[0.0, 1.0]), "classes"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, classes=[0]), "classes"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, words=["a"]), "words"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, words="ab"), "words"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, "colour"), "method"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, "beam", width=0), "width"),
        (lambda: titles_api.decode(np.zeros(2), np.zeros((2, 2)), np.zeros(2), 1, "ilp", beam=2), "beam"),
    ],
)  # fmt: skip
def test_titles_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, ConfigError), match=message.replace("[", r"\[").replace("]", r"\]")):
        call()


# --- linking --------------------------------------------------------------------------------------------------


def random_graph(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    upper = np.triu(rng.random((n, n)) < p, k=1)
    return upper | upper.T


def saved_graph(adjacency: np.ndarray, path) -> str:
    """The graph saved the way the workflow saves one (independently of the entry point's conversion)."""
    matrix = sp.csr_array(adjacency.astype(np.int8))
    matrix.sort_indices()
    n = adjacency.shape[0]
    Graph(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), np.arange(n, dtype=np.int32)).save(
        path
    )
    return str(path)


def least_cost(adjacency: np.ndarray, sets) -> float:
    """MinDR by enumeration on the graph plus every set made a clique (the maximal connection); a pair with no
    path costs the number of vertices."""
    joined = adjacency.copy()
    for candidates in sets:
        for a, b in itertools.permutations(candidates, 2):
            joined[a, b] = True
    distances = shortest_path(sp.csr_array(joined.astype(np.int8)), unweighted=True)
    distances[np.isinf(distances)] = adjacency.shape[0]
    return min(
        sum(distances[a, b] for a, b in itertools.combinations(choice, 2))
        for choice in itertools.product(*sets)
    )


def test_every_registered_linking_decoder_is_a_method():
    heuristics = {"spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval"}
    assert (
        set(linking_api.METHODS)
        == own_decoders("linking")
        == heuristics | {"decomposable", "exact", "exact-scip"}
    )


@pytest.mark.parametrize("method", sorted(linking_api.METHODS))
def test_linking_decode_is_the_registered_decoder_on_the_same_graph(method, tmp_path):
    rng = np.random.default_rng(2)
    for trial in range(10):
        n = int(rng.integers(2, 12))
        adjacency = random_graph(rng, n, 0.3)
        k = int(rng.integers(1, 4))
        sets = [rng.choice(n, size=int(rng.integers(1, min(n, 3) + 1)), replace=False) for _ in range(k)]
        path = saved_graph(adjacency, tmp_path / f"g{trial}.npz")
        instance = LinkingInstance(path, sets, np.full(k, -1), [""] * k, "")
        registered = get_decoder("linking", method)
        try:
            expected = registered(instance)
        except NotDecomposableError:
            with pytest.raises(NotDecomposableError):
                linking_api.decode(adjacency, sets, method, graph_dir=tmp_path)
            continue
        library = linking_api.decode(adjacency, sets, method, graph_dir=tmp_path)
        if method == "exact":  # CP-SAT picks any optimum: the cost is what must agree
            assert (library.status, library.objective) == (expected.status, expected.objective)
        else:
            same(library, expected)
        if library.status == "optimal":
            assert library.objective == least_cost(adjacency, sets) == library.bound


def test_linking_graphs_in_memory_are_saved_once_under_their_content(tmp_path):
    adjacency = np.eye(4, k=1)
    first = linking_api.graph_file(adjacency, tmp_path)
    assert linking_api.graph_file(sp.coo_array(adjacency.T), tmp_path) == first  # the same undirected graph
    assert linking_api.graph_file(first) == first
    assert linking_api.graph_file(Graph.load(first), tmp_path) == first
    assert linking_api.graph_file(np.eye(4, k=2), tmp_path) != first
    assert len(list(tmp_path.iterdir())) == 2


def test_linking_one_mention_and_one_candidate(tmp_path):
    solution = linking_api.decode(np.zeros((1, 1)), [[0]], graph_dir=tmp_path)
    assert (solution.structure.tolist(), solution.objective, solution.status) == ([0], 0.0, "optimal")


@pytest.mark.parametrize(
    ("graph", "sets", "method", "message"),
    [
        (np.eye(3, k=1), [], "exact", "LinkingInstance.sets is empty"),
        (np.eye(3, k=1), [[]], "exact", "LinkingInstance.sets[0] is empty"),
        (np.eye(3, k=1), [[0, 3]], "exact", "LinkingInstance.sets[0]"),
        (np.eye(3, k=1), [[1, 1]], "exact", "repeats"),
        (np.eye(3, k=1), [[0.0]], "exact", "integer"),
        (np.eye(3, k=1), "01", "exact", "sets"),
        (np.zeros((2, 3)), [[0]], "exact", "graph must be a square"),
        (np.zeros((0, 0)), [[0]], "exact", "graph must be a square"),
        (np.full((2, 2), np.nan), [[0]], "exact", "graph: the adjacency matrix holds NaN"),
        ({"edges": []}, [[0]], "exact", "graph must be the path"),
        (np.eye(3, k=1), [[0]], "cp-sat", "method must be one of"),
    ],
)
def test_linking_bad_arguments_are_named(graph, sets, method, message, tmp_path):
    with pytest.raises((ValueError, ConfigError), match=message.replace("[", r"\[").replace("]", r"\]")):
        linking_api.decode(graph, sets, method, graph_dir=tmp_path)


def test_linking_bad_options_are_named(tmp_path):
    with pytest.raises(ConfigError, match="connection"):
        linking_api.decode(np.eye(2, k=1), [[0]], "degree", connection="all", graph_dir=tmp_path)
    with pytest.raises(ConfigError, match="'seed'"):
        linking_api.decode(np.eye(2, k=1), [[0]], "degree", seed=1, graph_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        linking_api.decode(str(tmp_path / "nowhere.npz"), [[0]])


# --- parsing --------------------------------------------------------------------------------------------------


def parse_scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    arc = rng.integers(-3, 4, size=(n + 1, n + 1)).astype(float)
    arc[rng.random((n + 1, n + 1)) < 0.15] = -np.inf
    gp = rng.normal(size=(n + 1, n + 1, n + 1)).round(2)
    return arc, gp


def tree_value(arc: np.ndarray, gp: np.ndarray | None, heads: np.ndarray) -> float:
    n = len(heads) - 1
    total = arc[heads[1:], np.arange(1, n + 1)].sum()
    if gp is not None:
        g, p, c = gold_parts(heads)
        total += gp[g, p, c].sum()
    return float(total)


def best_tree(arc, gp, projective: bool) -> float:
    trees = enumerate_trees(len(arc) - 1, np.isfinite(arc), projective=projective, single_root=projective)
    return max((tree_value(arc, gp, t) for t in trees), default=-math.inf)


@pytest.fixture
def ppc_instance(monkeypatch):
    """A PPCInstance whose models the registered ppc decoders never read: their scoring is replaced by the raw
    scores under test (``holder``), so that they run on exactly what :func:`parse` receives."""
    holder = {}
    monkeypatch.setattr(ppc_decoders, "_first_order_scores", lambda instance: holder["arc"])
    monkeypatch.setattr(
        ppc_decoders,
        "_grandparent_problem",
        lambda instance: (holder["arc"], DenseGrandparents(holder["gp"])),
    )

    def make(arc, gp):
        holder.update(arc=arc, gp=gp)
        n = len(arc) - 1
        attributes = SentenceAttributes(
            np.ones((4, n + 1), np.int64), np.zeros(n + 2, np.int64), np.zeros(0, np.int64)
        )
        gold = np.array([-1] + [0] * n)
        return PPCInstance(np.ones((4, n + 1), np.int64), attributes, gold, np.ones(n, bool), "m", "f")

    return make


@pytest.mark.parametrize("method", ["mst", "full-lp", "ppc", "ilp"])
def test_parse_is_the_registered_ppc_decoder_on_the_same_scores(method, ppc_instance):
    rng = np.random.default_rng(3)
    for _ in range(8):
        n = int(rng.integers(1, 6))
        arc, gp = parse_scores(rng, n)
        instance = ppc_instance(arc, gp)
        registered = get_decoder("ppc", method)(instance)
        if method == "mst" and registered.objective == -math.inf:
            # the registered mst returns heads of -1 when no tree exists (latent: ppc's arcs are all finite);
            # parse says None, as the LPs and the other experiments' decoders do
            assert set(registered.structure) == {-1}
            registered.structure = None
        library = ppc_api.parse(arc, None if method == "mst" else gp, method)
        same(library, registered, rel=1e-9)
        if method == "mst" and library.structure is not None:
            assert library.objective == best_tree(arc, None, projective=False)
        if method == "ilp" and library.status == "optimal":
            assert library.objective == pytest.approx(
                best_tree(arc, gp, projective=False), rel=1e-6, abs=1e-9
            )


def test_parse_eisner_is_bnb_eisner_on_a_trained_models_scores(tmp_path):
    toy = [
        (["the", "dog", "barks"], ["DT", "NN", "VB"], [2, 3, 0]),
        (["cats", "see", "a", "bird"], ["NN", "VB", "DT", "NN"], [2, 0, 4, 2]),
        (["a", "dog", "sees", "the", "cat"], ["DT", "NN", "VB", "DT", "NN"], [2, 3, 0, 5, 3]),
    ]
    vocab, paths = train_toy_models(tmp_path, toy, [("first", LocalStructure(1), {"order": 1})], epochs=2)
    weights = ParserModel.load(paths["first"]).numerator
    for words, tags, heads in toy:
        tokens = vocab.encode(words, tags, tags)
        allowed = np.ones((len(words) + 1,) * 2, bool)
        allowed[:, 0] = False
        np.fill_diagonal(allowed, False)
        instance = ParseInstance(tokens, as_heads(heads), np.ones(len(words), bool), allowed, paths["first"])
        library = ppc_api.parse(arc_scores(tokens, weights, allowed), method="eisner")
        same(library, bnb_decoders.decode_eisner(instance))


def test_parse_first_order_against_enumeration_with_forbidden_arcs_and_ties():
    rng = np.random.default_rng(4)
    for _ in range(40):
        n = int(rng.integers(1, 6))
        arc = rng.integers(0, 2, size=(n + 1, n + 1)).astype(float)  # many ties
        arc[rng.random((n + 1, n + 1)) < 0.3] = -np.inf
        for method, projective in (("eisner", True), ("mst", False)):
            solution = ppc_api.parse(arc, method=method)
            assert solution.status == "optimal"
            assert solution.objective == best_tree(arc, None, projective)
            assert (solution.structure is None) == (solution.objective == -math.inf)


def test_parse_empty_one_word_and_no_tree():
    for method in ("eisner", "mst"):
        empty = ppc_api.parse(np.zeros((1, 1)), method=method)
        assert (empty.structure, empty.objective, empty.status) == ([], 0.0, "optimal")
        one = ppc_api.parse([[0.0, 2.5], [0.0, 0.0]], method=method)
        assert (one.structure, one.objective) == ([0], 2.5)
        none = ppc_api.parse([[0.0, -np.inf], [0.0, 0.0]], method=method)
        assert (none.structure, none.objective, none.status) == (None, -math.inf, "optimal")
    for method in ("full-lp", "ppc", "ilp"):
        none = ppc_api.parse([[0.0, -np.inf], [0.0, 0.0]], np.zeros((2, 2, 2)), method)
        assert (none.structure, none.objective, none.status) == (None, -math.inf, "optimal")
        one = ppc_api.parse([[0.0, 2.5], [0.0, 0.0]], np.zeros((2, 2, 2)), method)
        assert (one.structure, one.status) == ([0], "optimal") and one.objective == pytest.approx(2.5)


def test_parse_checks_a_false_certificate(monkeypatch):
    monkeypatch.setattr(ppc_api, "_first_order", lambda arc, kind: Solution([0, 1], 1.0, 1.0, "optimal"))
    arc = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 5.0, 0.0]])
    solution = ppc_api.parse(arc, method="mst")
    assert solution.status == "error" and "scores 5.0 > 1.0" in solution.stats["error"]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ppc_api.parse(np.zeros((0, 0))), ValueError, "arc_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 3))), ValueError, "arc_scores"),
        (lambda: ppc_api.parse(np.zeros(3)), ValueError, "arc_scores"),
        (lambda: ppc_api.parse([[0.0, np.nan], [0.0, 0.0]]), ValueError, "arc_scores"),
        (lambda: ppc_api.parse([[0.0, np.inf], [0.0, 0.0]]), ValueError, "arc_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.zeros((2, 2, 2)), "mst"), ValueError, "grandparent_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), None, "ppc"), ValueError, "grandparent_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.zeros((3, 3, 3)), "ppc"), ValueError, "grandparent_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.full((2, 2, 2), np.nan), "ppc"), ValueError, "grandparent_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.full((2, 2, 2), -np.inf), "ppc"), ValueError, "grandparent_scores"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), method="bnb"), ConfigError, "method must be one of eisner"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), method="mst", start="mst"), ConfigError, "start"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.zeros((2, 2, 2)), "ppc", star="mst"), ConfigError, "star"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.zeros((2, 2, 2)), "ppc", start="leaf"), ValueError, "start"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), np.zeros((2, 2, 2)), "full-lp", polytope="x"), ValueError, "polytope"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), time_limit=0), ValueError, "time_limit"),
        (lambda: ppc_api.parse(np.zeros((2, 2)), verify=1), ValueError, "verify"),
    ],
)  # fmt: skip
def test_parse_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_structure_the_experiment_refuses_becomes_an_error(monkeypatch):
    """decode_instance applies the experiment's check_structure to every answer, optimal or not."""
    from decoders.harness import library

    assert chains_api.decode(np.zeros((2, 2)), np.zeros((2, 2)), method="beam").status == "feasible"
    monkeypatch.setattr(
        library,
        "get_decoder",
        lambda experiment, name: lambda instance, deadline=None: Solution([0, 0, 0], 0.0, None, "feasible"),
    )
    solution = chains_api.decode(np.zeros((2, 2)), np.zeros((2, 2)), method="beam")
    assert solution.status == "error"
    assert solution.stats["error"].startswith("invalid structure: structure must be 2 integer label ids")
