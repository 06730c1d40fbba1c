"""MinDR kernels and decoders against networkx and brute force on small random graphs."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from decoders.corpora.wikispeedia import Graph
from decoders.harness.protocol import get_decoder
from decoders.linking.connection import connect, induced_components, maximal_connection, minimal_connection
from decoders.linking.cost import distance_cost
from decoders.linking.decoders import evaluate
from decoders.linking.decomposable import NotDecomposableError, decomposable_mindr
from decoders.linking.distances import bfs_distances, bfs_until, group_distances, multi_source_bfs
from decoders.linking.exact import exact_mindr
from decoders.linking.instance import LinkingInstance
from decoders.linking.overlay import overlay_from_edges
from decoders.linking.pagerank import pagerank
from decoders.linking.spanning_tree import overlap_groups, spanning_tree_positions

HEURISTICS = ("spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval", "exact")


def to_graph(g: nx.Graph, n: int) -> Graph:
    adjacency = sp.csr_array(nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr"))
    adjacency.sort_indices()
    return Graph(
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int32), np.arange(n, dtype=np.int32)
    )


def lengths(g: nx.Graph, source: int, n: int) -> np.ndarray:
    found = nx.single_source_shortest_path_length(g, source)
    return np.array([found.get(v, -1) for v in range(n)])


def with_overlay(g: nx.Graph, overlay) -> nx.Graph:
    joined = g.copy()
    joined.add_edges_from(overlay.edges().tolist())
    return joined


def random_sets(rng: np.random.Generator, n: int, k: int, low: int, high: int, disjoint: bool) -> list:
    if disjoint:
        pool = rng.permutation(n)
        sizes = rng.integers(low, high + 1, size=k)
        offsets = np.cumsum([0, *sizes])
        return [pool[a:b].astype(np.int32) for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    return [
        rng.choice(n, size=int(rng.integers(low, high + 1)), replace=False).astype(np.int32) for _ in range(k)
    ]


def brute_force(g: nx.Graph, sets: list) -> float:
    """Minimum of sum_{i<j} d over all choices (unreachable pairs cost the number of vertices)."""
    n = g.number_of_nodes()
    distance = dict(nx.all_pairs_shortest_path_length(g))
    best = np.inf
    for choice in itertools.product(*sets):
        cost = sum(distance[a].get(b, n) for (i, a), (j, b) in itertools.combinations(enumerate(choice), 2))
        best = min(best, cost)
    return float(best)


def chosen_cost(g: nx.Graph, sets: list, positions) -> float:
    n = g.number_of_nodes()
    distance = dict(nx.all_pairs_shortest_path_length(g))
    chosen = [s[p] for s, p in zip(sets, positions, strict=True)]
    return float(sum(distance[a].get(b, n) for a, b in itertools.combinations(chosen, 2)))


@pytest.mark.parametrize("seed", range(4))
def test_bfs_matches_networkx_with_and_without_overlay(seed):
    rng = np.random.default_rng(seed)
    n = 60
    g = nx.gnm_random_graph(n, 70, seed=seed)  # sparse: several components, so -1 is exercised
    graph = to_graph(g, n)
    overlay = overlay_from_edges(rng.integers(0, n, 15), rng.integers(0, n, 15))
    joined = with_overlay(g, overlay)
    for source in (0, 17, 42):
        np.testing.assert_array_equal(
            bfs_distances(graph.indptr, graph.indices, source), lengths(g, source, n)
        )
        np.testing.assert_array_equal(
            bfs_distances(graph.indptr, graph.indices, source, overlay), lengths(joined, source, n)
        )
    sources = np.array([3, 9, 27], dtype=np.int32)
    for h, ov in ((g, None), (joined, overlay)):
        expected = np.stack([lengths(h, int(s), n) for s in sources]).astype(float)
        expected[expected < 0] = np.inf
        nearest = expected.min(axis=0)
        nearest[np.isinf(nearest)] = -1
        np.testing.assert_array_equal(multi_source_bfs(graph.indptr, graph.indices, sources, ov), nearest)
        targets = np.array([5, 50, 33], dtype=np.int32)
        early = bfs_until(graph.indptr, graph.indices, sources, targets, ov)
        np.testing.assert_array_equal(early[targets], nearest[targets])
        group_ptr = np.array([0, 1, 3], dtype=np.int64)
        grouped = group_distances(graph.indptr, graph.indices, group_ptr, sources, targets, ov)
        np.testing.assert_array_equal(grouped[0], lengths(h, 3, n)[targets])
        pair = expected[1:, targets].min(axis=0)
        np.testing.assert_array_equal(grouped[1], np.where(np.isinf(pair), -1, pair))


def test_bfs_until_stops_early():
    path = nx.path_graph(100)
    graph = to_graph(path, 100)
    dist = bfs_until(graph.indptr, graph.indices, np.array([0], np.int32), np.array([3], np.int32))
    assert dist[3] == 3 and (dist[5:] == -1).all()


@pytest.mark.parametrize("seed", range(3))
def test_pagerank_matches_networkx(seed):
    n = 80
    g = nx.gnm_random_graph(n, 150, seed=seed)
    g.add_node(n)  # an isolated (dangling) vertex
    graph = to_graph(g, n + 1)
    expected = nx.pagerank(g, alpha=0.85, tol=1e-10)
    ours = pagerank(graph.indptr, graph.indices, damping=0.85, tol=1e-10)
    np.testing.assert_allclose(ours, [expected[v] for v in range(n + 1)], atol=1e-8)
    assert ours.sum() == pytest.approx(1.0)


def test_pagerank_raises_without_convergence():
    graph = to_graph(nx.gnm_random_graph(30, 60, seed=0), 30)
    with pytest.raises(RuntimeError, match="did not converge"):
        pagerank(graph.indptr, graph.indices, tol=1e-16, max_iter=2)


@pytest.mark.parametrize("seed", range(3))
def test_connection_overlays(seed):
    rng = np.random.default_rng(seed)
    n = 70
    g = nx.gnm_random_graph(n, 120, seed=seed)
    graph = to_graph(g, n)
    sets = random_sets(rng, n, 4, 3, 9, disjoint=False)
    maximal = maximal_connection(graph, sets)
    joined = with_overlay(g, maximal)
    for s in sets:
        assert all(joined.has_edge(int(a), int(b)) for a, b in itertools.combinations(s, 2))
    added = {tuple(e) for e in maximal.edges().tolist()}
    assert not any(g.has_edge(a, b) for a, b in added)
    assert all(any(a in s and b in s for s in map(set, sets)) for a, b in added)
    minimal = minimal_connection(graph, sets)
    assert minimal.n_edges == sum(int(induced_components(graph.indptr, graph.indices, s).max()) for s in sets)
    for s in sets:
        assert induced_components(graph.indptr, graph.indices, s, minimal).max() == 0
    assert connect(graph, sets, "minimal").n_edges == minimal.n_edges
    with pytest.raises(Exception, match="connection must be one of"):
        connect(graph, sets, "partial")


def test_minimal_connection_joins_through_the_hub_of_the_largest_component():
    g = nx.Graph([(0, 1), (0, 2), (0, 9), (3, 4), (5, 6), (6, 7), (6, 8)])  # star at 0 (degree 3), ...
    graph = to_graph(g, 10)
    overlay = minimal_connection(graph, [np.array([1, 0, 2, 3, 4, 5], np.int32)])
    # components {1, 0, 2} (largest, hub 0), {3, 4} (tie -> 3), {5} (5)
    assert sorted(map(tuple, overlay.edges().tolist())) == [(0, 3), (0, 5)]


def decomposable_instance(rng: np.random.Generator, k: int) -> tuple[nx.Graph, int, list]:
    """Blobs (random connected graphs with cycles), one set per blob inducing a connected part of it, blobs
    joined by single edges along a random tree: sets are connected and only bridges separate them."""
    g = nx.Graph()
    sets, blobs, size_total = [], [], 0
    n_blobs = k + int(rng.integers(0, 4))
    for b in range(n_blobs):
        size = int(rng.integers(1, 6))
        vertices = list(range(size_total, size_total + size))
        size_total += size
        g.add_nodes_from(vertices)
        for i in range(1, size):
            g.add_edge(vertices[i], vertices[int(rng.integers(0, i))])
        for _ in range(size):
            a, c = rng.choice(vertices, 2)
            if a != c:
                g.add_edge(int(a), int(c))
        if b < k:
            bfs_order = list(nx.bfs_tree(g.subgraph(vertices), vertices[0]))
            sets.append(np.array(bfs_order[: int(rng.integers(1, size + 1))], dtype=np.int32))
        blobs.append(vertices)
    for b in range(1, n_blobs):
        g.add_edge(int(rng.choice(blobs[b])), int(rng.choice(blobs[int(rng.integers(0, b))])))
    return g, size_total, [sets[i] for i in rng.permutation(k)]


def test_decomposable_mindr_is_exact_on_decomposable_instances():
    rng = np.random.default_rng(7)
    for _ in range(120):
        g, n, sets = decomposable_instance(rng, int(rng.integers(1, 6)))
        graph = to_graph(g, n)
        positions = decomposable_mindr(graph.indptr, graph.indices, sets)
        assert chosen_cost(g, sets, positions) == brute_force(g, sets)


def test_decomposable_mindr_rejects_other_instances():
    cycle = to_graph(nx.cycle_graph(6), 6)
    two_on_a_cycle = [np.array([0], np.int32), np.array([3], np.int32)]
    with pytest.raises(NotDecomposableError, match="biconnected"):
        decomposable_mindr(cycle.indptr, cycle.indices, two_on_a_cycle)
    with pytest.raises(NotDecomposableError, match="disjoint"):
        decomposable_mindr(cycle.indptr, cycle.indices, [np.array([0, 1], np.int32), np.array([1], np.int32)])
    with pytest.raises(NotDecomposableError, match="connected"):
        decomposable_mindr(cycle.indptr, cycle.indices, [np.array([0, 3], np.int32), np.array([1], np.int32)])
    # sets in different components are not refused: each component is solved apart (the pairs across cost n)
    apart = to_graph(nx.Graph([(0, 1), (2, 3), (3, 4)]), 5)
    sets = [np.array([0, 1], np.int32), np.array([4, 3], np.int32), np.array([2], np.int32)]
    assert decomposable_mindr(apart.indptr, apart.indices, sets).tolist() == [0, 1, 0]


def test_spanning_tree_is_exact_when_the_graph_is_a_tree():
    rng = np.random.default_rng(3)
    for seed in range(30):
        tree = nx.random_labeled_tree(25, seed=seed)
        graph = to_graph(tree, 25)
        # disjoint sets that are single vertices or tree edges: connected, so no overlay and G/~ is a tree
        edges = [tuple(e) for e in rng.permutation(np.array(tree.edges()))]
        sets, used = [], set()
        for a, b in edges:
            if len(sets) == int(rng.integers(2, 6)) or {a, b} & used:
                continue
            sets.append(np.array([a, b] if rng.random() < 0.5 else [a], np.int32))
            used |= {a, b}
        overlay = maximal_connection(graph, sets)
        assert overlay.n_edges == 0
        positions = spanning_tree_positions(graph.indptr, graph.indices, overlay, sets)
        assert chosen_cost(tree, sets, positions) == brute_force(tree, sets)


def test_overlap_groups():
    sets = [np.array(s, np.int32) for s in ([1, 2], [5], [2, 3], [3, 9], [6, 5], [7])]
    assert overlap_groups(sets) == [[0, 2, 3], [1, 4], [5]]


@pytest.mark.parametrize("seed", range(6))
def test_cp_sat_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 30
    g = nx.gnm_random_graph(n, 45, seed=seed)
    graph = to_graph(g, n)
    sets = random_sets(rng, n, int(rng.integers(3, 5)), 2, 5, disjoint=seed % 2 == 0)
    overlay = minimal_connection(graph, sets)
    result = exact_mindr(graph.indptr, graph.indices, overlay, sets)
    joined = with_overlay(g, overlay)
    best = brute_force(joined, sets)
    assert result.optimal and result.cost == best == result.bound
    assert chosen_cost(joined, sets, result.positions) == best


def save_instance(tmp_path, g: nx.Graph, n: int, sets: list, name: str = "g") -> LinkingInstance:
    path = tmp_path / f"{name}.npz"
    to_graph(g, n).save(path)
    k = len(sets)
    return LinkingInstance(str(path), tuple(sets), np.zeros(k, np.int32), tuple(["m"] * k), name)


@pytest.mark.parametrize("connection", ["maximal", "minimal"])
def test_every_decoder_returns_one_valid_position_per_set(tmp_path, connection):
    rng = np.random.default_rng(11)
    n = 40
    g = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=5)
    sets = random_sets(rng, n, 5, 2, 6, disjoint=False)
    instance = save_instance(tmp_path, g, n, sets, name=connection)
    overlay = connect(instance.graph, sets, connection)
    optimum = brute_force(with_overlay(g, overlay), sets)
    for name in HEURISTICS:
        solution = get_decoder("linking", name)(instance, connection=connection)
        positions = np.asarray(solution.structure)
        assert positions.shape == (5,) and all(0 <= p < len(s) for p, s in zip(positions, sets, strict=True))
        assert solution.objective == distance_cost(instance, instance.chosen_vertices(positions), connection)
        assert solution.objective >= optimum
        scores = evaluate(instance, solution)
        assert scores == {"fair": int((positions == 0).sum()), "k": 5, "cost": solution.objective}
    exact = get_decoder("linking", "exact")(instance, connection=connection)
    assert exact.status == "optimal" and exact.objective == optimum == exact.bound


def test_distance_cost_matches_networkx(tmp_path):
    g = nx.connected_watts_strogatz_graph(30, 4, 0.2, seed=1)
    sets = [np.array([0, 1], np.int32), np.array([10, 20], np.int32), np.array([15], np.int32)]
    instance = save_instance(tmp_path, g, 30, sets)
    vertices = np.array([1, 20, 15], np.int32)
    overlay = connect(instance.graph, sets, "maximal")
    assert distance_cost(instance, vertices, overlay) == chosen_cost(
        with_overlay(g, overlay), sets, [1, 1, 0]
    )


def test_decomposable_decoder(tmp_path):
    rng = np.random.default_rng(5)
    g, n, sets = decomposable_instance(rng, 4)
    instance = save_instance(tmp_path, g, n, sets, name="dec")
    solution = get_decoder("linking", "decomposable")(instance, connection="minimal")
    assert solution.status == "optimal" and solution.objective == brute_force(g, sets) == solution.bound
    cycle = save_instance(tmp_path, nx.cycle_graph(6), 6, [np.array([0], np.int32), np.array([3], np.int32)])
    with pytest.raises(NotDecomposableError):
        get_decoder("linking", "decomposable")(cycle)


def test_greedy_is_deterministic_per_seed(tmp_path):
    rng = np.random.default_rng(2)
    g = nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=2)
    instance = save_instance(tmp_path, g, 60, random_sets(rng, 60, 6, 3, 8, disjoint=True))
    greedy = get_decoder("linking", "greedy")
    runs = {seed: [greedy(instance, seed=seed).structure.tolist() for _ in range(2)] for seed in range(6)}
    assert all(a == b for a, b in runs.values())


def test_exact_times_out_with_a_bound(tmp_path):
    import time

    g = nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=0)
    sets = [np.array([0, 1], np.int32), np.array([10, 11], np.int32)]
    instance = save_instance(tmp_path, g, 30, sets)
    solution = get_decoder("linking", "exact")(instance, deadline=time.perf_counter() - 1)
    assert solution.status == "timeout" and solution.structure is None and solution.bound == 0.0


# --- ties go to the earlier-listed candidate (sets are in retrieval rank order) -------------------------------

TIE_BREAKERS = ("spanning-tree", "hitting-distance", "greedy", "degree", "pagerank", "retrieval")


@pytest.mark.parametrize("connection", ["maximal", "minimal"])
@pytest.mark.parametrize("name", TIE_BREAKERS)
def test_ties_go_to_the_first_listed_candidate(tmp_path, name, connection):
    """A star: leaves 3 and 5 are interchangeable (same hitting distance, degree, PageRank, distance to the
    centre), so whichever the set lists first is chosen, whatever the vertex ids."""
    g = nx.star_graph(5)  # centre 0, leaves 1..5
    centre = np.array([0], np.int32)
    for leaves in ([5, 3], [3, 5]):
        sets = [np.array(leaves, np.int32), centre]
        instance = save_instance(tmp_path, g, 6, sets, name=f"star{leaves[0]}")
        for seed in range(4):  # greedy's random start set and candidate must not matter
            params = {"seed": seed} if name == "greedy" else {}
            solution = get_decoder("linking", name)(instance, connection=connection, **params)
            assert np.asarray(solution.structure).tolist() == [0, 0]
            assert instance.chosen_vertices(solution.structure).tolist() == [leaves[0], 0]


@pytest.mark.parametrize("name", ("hitting-distance", "greedy", "degree", "spanning-tree"))
def test_a_strictly_better_later_candidate_still_wins(tmp_path, name):
    """The order breaks ties only: on the path 0-..-6, candidate 2 (listed second) is nearer to set {3} and of
    higher degree than candidate 6 (listed first)."""
    sets = [np.array([6, 2], np.int32), np.array([3], np.int32)]
    instance = save_instance(tmp_path, nx.path_graph(7), 7, sets, name="path")
    for seed in range(4):
        params = {"seed": seed} if name == "greedy" else {}
        solution = get_decoder("linking", name)(instance, connection="maximal", **params)
        assert solution.structure.tolist() == [1, 0]


def test_truncated_instance_and_max_candidates(tmp_path):
    g = nx.path_graph(8)
    sets = [np.array([7, 1, 2], np.int32), np.array([3, 0, 6, 5], np.int32)]
    path = tmp_path / "path.npz"
    to_graph(g, 8).save(path)
    instance = LinkingInstance(str(path), tuple(sets), np.array([1, 3], np.int32), ("a", "b"), "doc")
    assert instance.truncated(None) is instance and instance.truncated(4) is instance
    top2 = instance.truncated(2)
    assert [s.tolist() for s in top2.sets] == [[7, 1], [3, 0]] and top2.gold.tolist() == [1, -1]
    assert instance.sets[1].size == 4  # the original is untouched
    with pytest.raises(ValueError, match="at least 1"):
        instance.truncated(0)
    # on the top 2 the targets 1 and 5: 1 is kept, 5 (rank 4) is cut; hitting distance picks 1 and 0
    cut = get_decoder("linking", "hitting-distance")(instance, connection="maximal", max_candidates=2)
    assert cut.structure.tolist() == [1, 1] and cut.stats["max_candidates"] == 2
    assert cut.objective == 1.0  # d(1, 0) on the path
    assert evaluate(instance, cut) == {"fair": 1, "k": 2, "cost": 1.0}
    whole = get_decoder("linking", "hitting-distance")(instance, connection="maximal")
    assert "max_candidates" not in whole.stats
    first = get_decoder("linking", "retrieval")(instance, connection="maximal", max_candidates=1)
    assert first.structure.tolist() == [0, 0] and first.objective == 4.0  # d(7, 3)


# --- SCIP on CP-SAT's model (decoders.linking.exact_scip) ----------------------------------------------------


def _scip_case(seed: int):
    """A small random document: ties (a star or a sparse random graph), far or unreachable pairs (a long path
    beside it, or isolated vertices), single-candidate and overlapping sets."""
    rng = np.random.default_rng(100 + seed)
    kind = seed % 4
    if kind == 0:
        g = nx.star_graph(9)  # every leaf at distance 2 from every other: ties everywhere
    elif kind == 1:
        g = nx.disjoint_union(nx.gnm_random_graph(12, 14, seed=seed), nx.path_graph(400))  # huge distances
    elif kind == 2:
        g = nx.gnm_random_graph(20, 12, seed=seed)  # disconnected: unreachable pairs cost n
    else:
        g = nx.gnm_random_graph(25, 60, seed=seed)
    n = g.number_of_nodes()
    pool = [0, 1, 2, 3, 11, 12, 150, 411] if kind == 1 else list(range(n))
    sets = [
        rng.choice(pool, size=int(rng.integers(1, 4)), replace=False).astype(np.int32)
        for _ in range(int(rng.integers(2, 5)))
    ]
    return g, n, sets


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("connection", ["maximal", "minimal"])
def test_scip_matches_brute_force(seed, connection):
    from decoders.linking.exact_scip import exact_mindr_scip

    g, n, sets = _scip_case(seed)
    graph = to_graph(g, n)
    overlay = connect(graph, sets, connection)
    joined = with_overlay(g, overlay)
    best = brute_force(joined, sets)
    result = exact_mindr_scip(graph.indptr, graph.indices, overlay, sets)
    assert result.optimal and result.cost == best == result.bound
    assert chosen_cost(joined, sets, result.positions) == best
    assert result.stats["solver_status"] == "OPTIMAL"
    again = exact_mindr(graph.indptr, graph.indices, overlay, sets)
    assert again.cost == result.cost  # CP-SAT on the same model


def test_scip_single_mention_and_bad_arguments():
    import math

    from decoders.errors import ConfigError
    from decoders.linking.exact_scip import exact_mindr_scip, mindr_matrix

    g = nx.path_graph(6)
    graph = to_graph(g, 6)
    one = exact_mindr_scip(graph.indptr, graph.indices, None, [np.array([4, 2], np.int32)])
    assert one.optimal and one.cost == 0.0 == one.bound and one.positions.shape == (1,)
    with pytest.raises(ValueError, match="sets is empty"):
        exact_mindr_scip(graph.indptr, graph.indices, None, [])
    with pytest.raises(ValueError, match=r"sets\[1\] is empty"):
        exact_mindr_scip(graph.indptr, graph.indices, None, [np.array([1], np.int32), np.array([], np.int32)])
    two = [np.array([0, 1], np.int32), np.array([5], np.int32)]
    with pytest.raises(ValueError, match="hint"):
        exact_mindr_scip(graph.indptr, graph.indices, None, two, hint=np.array([2, 0]))
    with pytest.raises(ValueError, match="deadline"):
        exact_mindr_scip(graph.indptr, graph.indices, None, two, deadline=math.nan)
    with pytest.raises(ConfigError, match="parameters"):
        exact_mindr_scip(graph.indptr, graph.indices, None, two, parameters=3)
    late = exact_mindr_scip(graph.indptr, graph.indices, None, two, deadline=0.0)
    assert not late.optimal and late.positions is None and late.bound == 0.0
    matrix, rhs, blocks = mindr_matrix([2, 3])
    assert matrix.shape == (1 + 1 + 2 + 3, 2 + 3 + 6) and blocks == [(0, 1, 5)] and rhs.tolist()[:2] == [1, 1]


def test_scip_decoder_is_certified_by_verify(tmp_path):
    from decoders.linking.decoders import verify

    rng = np.random.default_rng(4)
    g = nx.connected_watts_strogatz_graph(40, 4, 0.3, seed=4)
    sets = random_sets(rng, 40, 5, 2, 6, disjoint=False)
    instance = save_instance(tmp_path, g, 40, sets)
    for connection in ("maximal", "minimal"):
        solution = get_decoder("linking", "exact-scip")(instance, connection=connection)
        cp_sat = get_decoder("linking", "exact")(instance, connection=connection)
        assert solution.status == "optimal" and solution.objective == cp_sat.objective == solution.bound
        assert verify(instance, solution) is None
