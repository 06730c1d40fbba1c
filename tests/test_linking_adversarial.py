"""Adversarial inputs for the linking decoders: small random graphs (disconnected, with isolated vertices, empty or
complete), overlapping candidate sets, ties everywhere, one mention, one candidate per set. Every exact decoder must
agree with brute force (every choice enumerated, distances from this file's own breadth-first search on the graph
plus its own copy of the connection overlay, unreachable pairs costing n), every heuristic must return one valid
position per set whose reported cost is the recomputed one, the harness's verifier must accept every honest
certificate and reject tampered ones, and bad instances and parameters must be refused with the field named."""

from __future__ import annotations

import hashlib
import itertools
from collections import deque
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.harness.protocol import Solution, get_decoder, get_verifier
from decoders.linking.decoders import verify
from decoders.linking.decomposable import NotDecomposableError
from decoders.linking.instance import LinkingInstance

EXACT = ("exact",)  # always optimal; "decomposable" is exact on the instances it accepts (tested apart)
HEURISTICS = ("spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval")
CONNECTIONS = ("maximal", "minimal")
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- an independent reference


def save_graph(directory: Path, n: int, edges: list[tuple[int, int]]) -> str:
    """The graph saved as a Graph .npz under a name made from its content (a path names one graph per process)."""
    key = hashlib.sha256(repr((n, sorted(edges))).encode()).hexdigest()[:16]
    path = directory / f"g{n}-{key}.npz"
    if not path.exists():
        rows = [a for a, b in edges] + [b for a, b in edges]
        cols = [b for a, b in edges] + [a for a, b in edges]
        adjacency = sp.csr_array((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
        adjacency.sum_duplicates()
        adjacency.sort_indices()
        Graph(
            adjacency.indptr.astype(np.int64),
            adjacency.indices.astype(np.int32),
            np.arange(n, dtype=np.int32),
        ).save(path)
    return str(path)


def neighbours(n: int, edges) -> list[set[int]]:
    out: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            out[a].add(b)
            out[b].add(a)
    return out


def overlay_edges(n: int, edges, sets, connection: str) -> list[tuple[int, int]]:
    """The connection's added edges, rewritten from its definition (section 5): maximal = every set a clique;
    minimal = the components of G[X_i] (labelled in order of first position) joined from the maximum-degree vertex
    of the largest one (first position on ties; equal sizes: the earliest component) to each other component's
    maximum-degree vertex."""
    if connection == "maximal":
        return [(int(a), int(b)) for s in sets for a, b in itertools.combinations(s, 2)]
    adjacent = neighbours(n, edges)
    added = []
    for s in sets:
        s = [int(v) for v in s]
        label: dict[int, int] = {}
        for v in s:
            if v in label:
                continue
            label[v] = current = len(set(label.values()))
            queue = deque([v])
            while queue:
                u = queue.popleft()
                for w in adjacent[u]:
                    if w in s and w not in label:
                        label[w] = current
                        queue.append(w)
        components = [[v for v in s if label[v] == c] for c in range(len(set(label.values())))]
        hubs = [max(c, key=lambda v: (len(adjacent[v]), -s.index(v))) for c in components]
        largest = max(range(len(components)), key=lambda c: (len(components[c]), -c))
        added += [(hubs[largest], hubs[c]) for c in range(len(components)) if c != largest]
    return added


def distances(n: int, edges) -> np.ndarray:
    """All-pairs hop distances by breadth-first search from every vertex; unreachable = n."""
    adjacent = neighbours(n, edges)
    out = np.full((n, n), n, dtype=np.int64)
    for source in range(n):
        out[source, source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for w in adjacent[u]:
                if out[source, w] == n and w != source:
                    out[source, w] = out[source, u] + 1
                    queue.append(w)
    return out


def cost_of(d: np.ndarray, sets, positions) -> int:
    chosen = [int(s[p]) for s, p in zip(sets, positions, strict=True)]
    return int(sum(d[a, b] for a, b in itertools.combinations(chosen, 2)))


def brute_force(d: np.ndarray, sets) -> tuple[int, int]:
    """The least and the greatest cost over every choice."""
    costs = [cost_of(d, sets, choice) for choice in itertools.product(*(range(len(s)) for s in sets))]
    return min(costs), max(costs)


def decomposable(n: int, edges, sets) -> bool:
    """Section 5.1's condition on G plus the overlay: disjoint sets, each inducing a connected subgraph, and no
    two sets with vertices in one 2-edge-connected component (networkx's bridges, not the decoder's search)."""
    if len({int(v) for s in sets for v in s}) != sum(len(s) for s in sets):
        return False
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    if not all(nx.is_connected(g.subgraph([int(v) for v in s])) for s in sets):
        return False
    g.remove_edges_from(list(nx.bridges(g)))
    piece = {v: c for c, part in enumerate(nx.connected_components(g)) for v in part}
    owners = [{piece[int(v)] for v in s} for s in sets]
    return all(not (a & b) for a, b in itertools.combinations(owners, 2))


# --------------------------------------------------------------------------- generators


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("graphs")


@st.composite
def problems(draw):
    """``(n, edges, sets, gold)``: n <= 8 vertices, any edge set (empty, complete, disconnected, isolated
    vertices), k <= 4 ranked sets of 1..3 distinct vertices drawn independently (so they overlap)."""
    n = draw(st.integers(1, 8))
    pairs = list(itertools.combinations(range(n), 2))
    edges = sorted(draw(st.sets(st.sampled_from(pairs)))) if pairs else []
    k = draw(st.integers(1, 4))
    sets = [
        np.array(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(3, n), unique=True)), np.int32)
        for _ in range(k)
    ]
    gold = np.array([draw(st.integers(-1, len(s) - 1)) for s in sets], np.int32)
    return n, edges, sets, gold


def build(graph_dir: Path, problem) -> LinkingInstance:
    n, edges, sets, gold = problem
    k = len(sets)
    return LinkingInstance(save_graph(graph_dir, n, edges), tuple(sets), gold, ("m",) * k, "doc")


def reference(problem, connection: str, max_candidates: int | None = None):
    """``(sets, d)``: the sets as decoded (cut to ``max_candidates``) and the distances on G plus the overlay."""
    n, edges, sets, _ = problem
    if max_candidates is not None:
        sets = [s[:max_candidates] for s in sets]
    return sets, distances(n, [*edges, *overlay_edges(n, edges, sets, connection)])


# --------------------------------------------------------------------------- exact decoders


@SETTINGS
@given(problems(), st.sampled_from(CONNECTIONS), st.sampled_from([None, 1, 2]))
def test_exact_decoders_match_brute_force_and_verify(graph_dir, problem, connection, max_candidates):
    instance = build(graph_dir, problem)
    sets, d = reference(problem, connection, max_candidates)
    best, _ = brute_force(d, sets)
    params = {"connection": connection, "max_candidates": max_candidates}
    for name in EXACT:
        solution = get_decoder("linking", name)(instance, **params)
        assert solution.status == "optimal", name
        assert solution.objective == best == solution.bound, (name, solution.objective, best)
        assert cost_of(d, sets, solution.structure) == best, name
        assert verify(instance, solution) is None, name
    n, edges, _, _ = problem
    joined = [*edges, *overlay_edges(n, edges, sets, connection)]
    whole = nx.empty_graph(n)
    whole.add_edges_from(joined)
    event(f"decomposable {decomposable(n, joined, sets)}, connected {nx.is_connected(whole)}")
    if decomposable(n, joined, sets):
        solution = get_decoder("linking", "decomposable")(instance, **params)
        assert solution.status == "optimal" and solution.objective == best == solution.bound
        assert cost_of(d, sets, solution.structure) == best
        assert verify(instance, solution) is None
    else:
        with pytest.raises(NotDecomposableError):
            get_decoder("linking", "decomposable")(instance, **params)


@SETTINGS
@given(problems(), st.sampled_from(CONNECTIONS), st.sampled_from([None, 1, 2]), st.integers(0, 2**32))
def test_heuristics_return_valid_positions_and_their_true_cost(graph_dir, problem, connection, cut, seed):
    instance = build(graph_dir, problem)
    sets, d = reference(problem, connection, cut)
    best, worst = brute_force(d, sets)
    for name in HEURISTICS:
        params = {
            "connection": connection,
            "max_candidates": cut,
            **({"seed": seed} if name == "greedy" else {}),
        }
        solution = get_decoder("linking", name)(instance, **params)
        positions = np.asarray(solution.structure)
        assert solution.status == "feasible" and solution.bound is None, name
        assert positions.shape == (len(sets),) and positions.dtype.kind in "iu", name
        assert all(0 <= p < len(s) for p, s in zip(positions, sets, strict=True)), name
        assert solution.objective == cost_of(d, sets, positions), (name, solution.objective)
        assert best <= solution.objective <= worst, name
    retrieval = get_decoder("linking", "retrieval")(instance, connection=connection, max_candidates=cut)
    assert np.asarray(retrieval.structure).tolist() == [0] * len(sets)


def test_unreachable_pairs_cost_n_in_every_decoder(tmp_path):
    """Components 0-1-2-6 and 3-4 and an isolated vertex 5 (n = 7): each of the five pairs of sets across
    components costs 7 whatever the choice; within the first, set 0's vertex 2 is 1 hop from set 3's 6, its
    vertex 0 two hops (through the overlay edge 0-2 that connects set 0)."""
    path = save_graph(tmp_path, 7, [(0, 1), (1, 2), (2, 6), (3, 4)])
    sets = (
        np.array([0, 2], np.int32),
        np.array([4, 3], np.int32),
        np.array([5], np.int32),
        np.array([6], np.int32),
    )
    instance = LinkingInstance(path, sets, np.zeros(4, np.int32), ("a", "b", "c", "d"), "doc")
    for connection in CONNECTIONS:
        for name in (*EXACT, "decomposable", *HEURISTICS):
            solution = get_decoder("linking", name)(instance, connection=connection)
            positions = np.asarray(solution.structure)
            assert solution.objective == 5 * 7 + (1 if positions[0] == 1 else 2), (name, connection)
            if solution.status == "optimal":
                assert solution.objective == solution.bound == 36 and positions[0] == 1, name
                assert verify(instance, solution) is None
    # Algorithm 1 solves the component 3-4 on its own and keeps the ranking's first vertex on the tie
    assert np.asarray(get_decoder("linking", "decomposable")(instance).structure).tolist() == [1, 0, 0, 0]


# --------------------------------------------------------------------------- the certificate check


@SETTINGS
@given(problems(), st.sampled_from(CONNECTIONS), st.sampled_from([None, 2]), st.data())
def test_verify_accepts_honest_certificates_and_rejects_tampered_ones(
    graph_dir, problem, connection, cut, data
):
    instance = build(graph_dir, problem)
    sets, d = reference(problem, connection, cut)
    good = get_decoder("linking", "exact")(instance, connection=connection, max_candidates=cut)
    assert verify(instance, good) is None
    positions = np.asarray(good.structure)
    stats = dict(good.stats)

    def tampered(structure, objective, bound) -> str:
        return verify(instance, Solution(structure, objective, bound, "optimal", dict(stats))) or ""

    best = good.objective
    assert "structure costs" in tampered(positions, best + 1, best + 1)
    if best > 0:
        assert "structure costs" in tampered(positions, best - 1, best - 1)
    assert "bound" in tampered(positions, best, best - 1)
    assert "bound" in tampered(positions, best, None)
    assert "bound" in tampered(positions, best, float("nan"))
    # another choice, honestly costed and bounded, that is not optimal
    choices = list(itertools.product(*(range(len(s)) for s in sets)))
    worse = [c for c in choices if cost_of(d, sets, c) > best]
    if worse:
        choice = np.array(data.draw(st.sampled_from(worse)), dtype=np.int64)
        value = cost_of(d, sets, choice)
        assert "< objective" in tampered(choice, value, value)
    i = data.draw(st.integers(0, len(sets) - 1))
    for bad in (len(sets[i]), -1, 10**6):
        moved = positions.copy()
        moved[i] = bad
        assert f"structure[{i}] = {bad} is not a position" in tampered(moved, best, best)
    assert "integer positions" in tampered(positions.astype(float), best, best)
    assert "integer positions" in tampered(positions[:-1], best, best)
    assert "no structure" in tampered(None, best, best)
    # the certificate is checked on the problem the decoder solved: another connection or cut is a mismatch
    # only where the cost differs, and an unknown connection is refused
    stats["connection"] = "partial"
    assert "connection must be one of" in tampered(positions, best, best)


def test_verify_moves_one_set_where_there_are_too_many_choices_to_enumerate(tmp_path):
    """A path 0..89 and three sets of 30 consecutive vertices (27 000 choices, past VERIFY_ENUMERATE): the optimum
    costs 2 (60 - 29) = 62; a far choice for set 0, honestly costed, is caught by moving set 0 alone."""
    path = save_graph(tmp_path, 90, [(v, v + 1) for v in range(89)])
    sets = tuple(np.arange(30 * i, 30 * (i + 1), dtype=np.int32) for i in range(3))
    instance = LinkingInstance(path, sets, np.zeros(3, np.int32), ("a", "b", "c"), "doc")
    assert get_verifier("linking") is verify
    good = get_decoder("linking", "exact")(
        instance, connection="minimal"
    )  # the sets are connected: no overlay
    assert good.objective == good.bound == 62 and verify(instance, good) is None
    far = np.array([0, good.structure[1], 0], dtype=np.int64)
    value = float(2 * (60 - 0))
    reason = verify(instance, Solution(far, value, value, "optimal", dict(good.stats))) or ""
    assert "set 0 moved to position 29 (vertex 29), the others fixed, costs 62 < objective 120" in reason


# --------------------------------------------------------------------------- bad input


@pytest.fixture(scope="module")
def small_graph(tmp_path_factory) -> str:
    return save_graph(tmp_path_factory.mktemp("small"), 5, [(0, 1), (1, 2), (2, 3)])


def _make(path, sets, gold=None, mentions=None):
    k = len(sets)
    gold = np.zeros(k, np.int32) if gold is None else gold
    return LinkingInstance(path, tuple(sets), gold, ("m",) * k if mentions is None else mentions, "doc")


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        (
            [[0, 1], [2.0]],
            r"LinkingInstance.sets\[1\] must hold integer vertex ids; got dtype float64 .*2\.0",
        ),
        ([[0, 1], [2.5, 3.0]], r"sets\[1\] must hold integer vertex ids; got dtype float64 .*2\.5"),
        ([[True, False]], r"sets\[0\] must hold integer vertex ids; got dtype bool"),
        ([["1"]], r"sets\[0\] must hold integer vertex ids; got dtype <U1"),
        (
            [[0, 1], [2, -1]],
            r"LinkingInstance.sets\[1\]\[1\] = -1 is not a vertex of the graph .*g5-.*\(0..4\)",
        ),
        ([[0], [1], [3, 5]], r"sets\[2\]\[1\] = 5 is not a vertex of the graph .*\(0..4\)"),
        ([[0], [1], [10**6]], r"LinkingInstance.sets\[2\]\[0\] = 1000000 is not a vertex of the graph"),
        ([[2**32 + 1]], r"sets\[0\]\[0\] = 4294967297 is not a vertex"),  # would wrap to 1 as int32
        ([np.array([2**64 - 1], np.uint64)], r"sets\[0\]\[0\] = 18446744073709551615 is not a vertex"),
        ([[0, 1], []], r"LinkingInstance.sets\[1\] is empty"),
        ([[[0, 1]]], r"LinkingInstance.sets\[0\] must be a 1-d array of vertex ids; got shape \(1, 2\)"),
        ([3], r"LinkingInstance.sets\[0\] must be a 1-d array"),
        ([[0, 1], [2, 3, 2]], r"LinkingInstance.sets\[1\]\[2\] = 2 repeats LinkingInstance.sets\[1\]\[0\]"),
        ([], r"LinkingInstance.sets is empty"),
    ],
)
def test_bad_candidate_sets_are_refused_naming_the_field(small_graph, sets, message):
    with pytest.raises(ValueError, match=message):
        _make(small_graph, [np.asarray(s) if isinstance(s, list) else s for s in sets])


def test_bad_gold_mentions_and_graph_files_are_refused(small_graph, tmp_path):
    sets = [np.array([0, 1]), np.array([2])]
    with pytest.raises(
        ValueError, match=r"LinkingInstance.gold\[1\] = 1 is not a position in .*sets\[1\] \(-1..0"
    ):
        _make(small_graph, sets, gold=np.array([0, 1]))
    with pytest.raises(ValueError, match=r"LinkingInstance.gold\[0\] = -2 is not a position"):
        _make(small_graph, sets, gold=np.array([-2, 0]))
    with pytest.raises(
        ValueError, match=r"LinkingInstance.gold must hold integer positions; got dtype float64"
    ):
        _make(small_graph, sets, gold=np.array([0.0, 0.0]))
    with pytest.raises(ValueError, match=r"gold must have one position per set \(2\); got shape \(3,\)"):
        _make(small_graph, sets, gold=np.array([0, 0, 0]))
    with pytest.raises(ValueError, match=r"mentions must have one entry per set \(2\)"):
        _make(small_graph, sets, mentions=("a",))
    missing = tmp_path / "nowhere" / "graph.npz"
    with pytest.raises(FileNotFoundError, match=f"graph_path = '{missing}': no graph file"):
        _make(str(missing), sets)
    garbage = tmp_path / "garbage.npz"
    garbage.write_text("not a zip")
    with pytest.raises(ValueError, match=f"graph_path = '{garbage}' is not a saved Graph"):
        _make(str(garbage), sets)
    other = tmp_path / "other.npz"
    np.savez(other, something=np.zeros(3))
    with pytest.raises(ValueError, match="is not a saved Graph"):
        _make(str(other), sets)
    # a Path is accepted and kept as a string; an in-memory graph's vertex count must agree with its file
    assert _make(Path(small_graph), sets).graph_path == small_graph
    with pytest.raises(ValueError, match="n_vertices = 9 but the graph .* has 5 vertices"):
        LinkingInstance(small_graph, tuple(sets), np.zeros(2, np.int32), ("a", "b"), "d", n_vertices=9)
    unsaved = LinkingInstance(str(missing), tuple(sets), np.zeros(2, np.int32), ("a", "b"), "d", n_vertices=3)
    assert unsaved.k == 2
    with pytest.raises(ValueError, match=r"sets\[1\]\[0\] = 3 is not a vertex of the graph .*\(0..2\)"):
        LinkingInstance(
            str(missing), (sets[0], np.array([3])), np.zeros(2, np.int32), ("a", "b"), "d", n_vertices=3
        )


@pytest.mark.parametrize("name", (*EXACT, "decomposable", *HEURISTICS))
def test_bad_decoder_parameters_are_refused_naming_the_key(small_graph, name):
    instance = _make(small_graph, [np.array([0, 1]), np.array([3])])
    bad = [
        ({"connection": "partial"}, "connection must be one of maximal, minimal; got 'partial'"),
        ({"connection": None}, "connection must be one of"),
        ({"connection": 1}, "connection must be one of"),
        ({"max_candidates": 0}, "max_candidates must be None or an integer >= 1; got 0"),
        ({"max_candidates": -3}, "max_candidates must be"),
        ({"max_candidates": 2.5}, "max_candidates must be"),
        ({"max_candidates": True}, "max_candidates must be"),
        ({"max_candidates": "3"}, "max_candidates must be"),
    ]
    if name == "greedy":
        bad += [
            ({"seed": -1}, "seed must be an integer >= 0; got -1"),
            ({"seed": 1.5}, "seed must be"),
            ({"seed": True}, "seed must be"),
            ({"seed": "13"}, "seed must be"),
        ]
    for params, message in bad:
        with pytest.raises(ConfigError, match=message):
            get_decoder("linking", name)(instance, **params)


# --------------------------------------------------------------------------- units of the scores


@st.composite
def scored_sets(draw):
    """``(scores, sets)``: per-vertex scores drawn from a small pool (so that ties are common) of magnitudes
    1e-6..1e6, and k <= 4 sets of distinct vertices."""
    pool = draw(
        st.lists(st.floats(1e-6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=4)
    )
    n = draw(st.integers(1, 10))
    scores = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=np.float64)
    k = draw(st.integers(1, 4))
    sets = [
        np.array(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(4, n), unique=True)), np.int32)
        for _ in range(k)
    ]
    return scores, sets


@SETTINGS
@given(scored_sets(), st.floats(-12, 12))
def test_score_positions_do_not_depend_on_the_unit_of_the_scores(problem, exponent):
    """The only float scores the linking package takes (``score_positions``, the PageRank decoder's choice):
    multiplying them by any constant in 1e-12..1e12 leaves every chosen position unchanged, ties included (the
    first listed candidate keeps them). Products that rounding makes equal where the scores were not (adjacent
    floats) would be a different input, so they are skipped."""
    from hypothesis import assume

    from decoders.linking.heuristics import score_positions

    scores, sets = problem
    scaled = scores * 10.0**exponent
    for s in sets:
        assume(
            (
                np.sign(np.subtract.outer(scaled[s], scaled[s]))
                == np.sign(np.subtract.outer(scores[s], scores[s]))
            ).all()
        )
    assert score_positions(scaled, sets).tolist() == score_positions(scores, sets).tolist()
    with pytest.raises(ValueError, match=r"scores\[0\] is nan"):
        score_positions(np.r_[np.nan, scaled[1:]], sets)
    with pytest.raises(ValueError, match=r"scores\[0\] is inf"):
        score_positions(np.r_[np.inf, scaled[1:]], sets)
