"""Linking instances: mention detection, BM25 retrieval, Wikispeedia / ELEVANT instance sets on the mirror,
the synthetic Wikipedia-shaped graph with planted instances, and the scaling rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from decoders.corpora.elevant import map_to_titles, read_benchmark, read_documents
from decoders.corpora.wikispeedia import Graph, read_articles, read_links, read_plaintext, undirected_lcc
from decoders.linking.distances import bfs_distances
from decoders.linking.elevant_sets import elevant_instances
from decoders.linking.instance import LinkingInstance
from decoders.linking.nel import (
    body_start,
    find_link_mentions,
    find_phrase,
    non_overlapping,
    strip_parenthesised,
    wikispeedia_instances,
)
from decoders.linking.retrieval import build_index, disjoint_candidates, top_candidates
from decoders.linking.scaling import (
    ROW_COLUMNS,
    graph_rows,
    hitting_distance_choice,
    networkx_rows,
    peer_rows,
)
from decoders.linking.synthetic import plant_instances, synthetic_graph

# --- mention detection on hand-made articles ----------------------------------------------------------------


def test_strip_parenthesised_and_body_start() -> None:
    assert strip_parenthesised("Mercury (planet)") == "Mercury"
    assert strip_parenthesised("Java (programming language)") == "Java"
    assert strip_parenthesised("War (1605-1618) of Poland") == "War of Poland"
    assert strip_parenthesised("Paris") == "Paris"
    text = "   #copyright\n\nParis\n\n2007 Schools Wikipedia Selection. Related subjects: Cities;\n   France\n\n body"
    assert text[body_start(text) :].strip() == "body"
    assert body_start("no header at all") == 0


def test_find_phrase_word_boundaries() -> None:
    assert find_phrase("the iron age and iron", "iron") == 4
    assert find_phrase("ironic irony, iron_ore; iron.", "iron") == 24
    assert find_phrase("environment", "iron") == -1
    assert find_phrase("c++ and c", "c++") == 0
    assert find_phrase("ac++ c++", "c++") == 5
    with pytest.raises(ValueError, match="empty phrase"):
        find_phrase("text", "")


def _toy_articles() -> tuple[pd.Series, pd.Series]:
    header = "   #copyright\n\n{}\n\n2007 Schools Wikipedia Selection. Related subjects: Planets\n\n"
    titles = pd.Series(
        ["Mercury (planet)", "Mercury (element)", "Solar System", "Sun", "Venus", "Planets"], index=range(6)
    )
    texts = pd.Series(
        [
            header.format("Mercury (planet)")
            + "   Mercury is the planet nearest the SUN in the solar\n   system; unlike Venusian rocks, Venus"
            " orbits further.",
            header.format("Mercury (element)") + "   Liquid metal, not the planet mercury.",
            header.format("Solar System") + "   The Sun and the planets.",
            header.format("Sun") + "   A star.",
            header.format("Venus") + "   The second planet.",
            header.format("Planets") + "   Bodies.",
        ],
        index=range(6),
    )
    return texts, titles


def test_find_link_mentions_on_toy_articles() -> None:
    texts, titles = _toy_articles()
    # links of Mercury (planet): Sun, Solar System (line break inside), Venus, Planets (only in the header)
    links = np.array([[0, 3], [0, 2], [0, 4], [0, 5], [1, 0], [1, 2]])
    found = find_link_mentions(texts, titles, links)
    by_link = found.set_index(["source", "target"])
    assert by_link.loc[(0, 3), ["surface", "matched"]].tolist() == ["SUN", "title"]
    assert by_link.loc[(0, 2), ["surface", "matched"]].tolist() == ["solar system", "title"]
    assert by_link.loc[(0, 4), ["surface", "matched"]].tolist() == ["Venus", "title"]  # not "Venusian"
    assert by_link.loc[(0, 5), "matched"] == "none" and by_link.loc[(0, 5), "start"] == -1
    assert by_link.loc[(1, 0), ["surface", "matched"]].tolist() == ["mercury", "stripped"]
    assert by_link.loc[(1, 2), "matched"] == "none"
    body = " ".join(texts[0][body_start(texts[0]) :].split())
    row = by_link.loc[(0, 2)]
    assert body[row["start"] : row["end"]] == "solar system"


def test_non_overlapping_keeps_longest_first() -> None:
    mentions = pd.DataFrame(
        {
            "source": [1, 1, 1, 1, 2],
            "target": [10, 11, 12, 13, 10],
            "start": [0, 0, 5, 20, 0],
            "end": [4, 12, 9, 25, 4],
            "surface": ["a", "b", "c", "d", "e"],
            "matched": ["title"] * 5,
        }
    )
    kept = non_overlapping(mentions)
    assert kept["target"].tolist() == [11, 13, 10]
    assert kept["source"].tolist() == [1, 1, 2]


# --- BM25 ---------------------------------------------------------------------------------------------------


def test_bm25_top_candidates_on_toy_corpus() -> None:
    titles = ["Jaguar", "Jaguar Cars", "Jungle", "Tiger", "Electronic music"]
    texts = [
        "The jaguar is a wild cat of the Americas living in the jungle.",
        "Jaguar is a British car maker; its cars are luxury cars.",
        "A jungle is a tropical forest with dense vegetation.",
        "The tiger is the largest cat species.",
        "Jungle is a genre of electronic dance music.",
    ]
    vertices = [40, 41, 42, 43, 44]
    index = build_index(titles, texts, vertices)
    got = top_candidates(index, ["jaguar cars", "tiger", "tropical forest", "the of", "zebra"], k=3)
    assert got.dtype == np.int32 and got.shape == (5, 3)
    assert got[0, 0] == 41 and got[1, 0] == 43 and got[2, 0] == 42
    assert got[1].tolist() == [43, -1, -1]  # only one article mentions tigers
    assert (got[3] == -1).all() and (got[4] == -1).all()  # stopwords only; unknown word
    assert top_candidates(index, [], k=2).shape == (0, 2)
    with pytest.raises(ValueError, match="k must lie"):
        top_candidates(index, ["x"], k=6)
    with pytest.raises(ValueError, match="distinct"):
        build_index(titles[:2], texts[:2], [1, 1])


def test_disjoint_candidates_best_rank_then_earlier_mention() -> None:
    # rows 0, 1, 2 and 4 belong to document a (a document's rows need not be contiguous), row 3 to b:
    # 5 ranks better in row 1 than in row 0, 7 worse; 9 ranks better in row 2 than in row 0; 8 ties between
    # rows 1 and 2 (rank 2) and the earlier mention wins; 4 ranks better in row 4 than in row 2; b shares nothing
    retrieved = np.array(
        [[7, 5, 9, -1], [5, 8, 7, -1], [9, 8, 6, 4], [7, 5, 9, 8], [3, 4, -1, -1]],
        dtype=np.int32,
    )
    got = disjoint_candidates(retrieved, ["a", "a", "a", "b", "a"])
    assert got.tolist() == [
        [7, -1, -1, -1],
        [5, 8, -1, -1],
        [9, -1, 6, -1],
        [7, 5, 9, 8],
        [3, 4, -1, -1],
    ]
    assert retrieved[0, 1] == 5  # the input is not modified
    assert disjoint_candidates(np.empty((0, 3), dtype=np.int32), []).shape == (0, 3)
    with pytest.raises(ValueError, match="one label per row"):
        disjoint_candidates(retrieved, ["a", "b"])


def _toy_elevant(tmp_path: Path):
    """Five articles on a path graph; one document whose mentions' BM25 sets share articles."""
    titles = ["Star", "Sun", "Solar System", "Iron", "Planet"]
    texts = [
        "A star is a ball of plasma such as the sun.",
        "The sun is the star at the centre of the solar system.",
        "The solar system is the sun and its planets.",
        "Iron is a metal made inside a star.",
        "A planet orbits a star in a planetary system.",
    ]
    graph = undirected_lcc(5, np.array([[0, 1], [1, 2], [2, 3], [3, 4]]))
    path = tmp_path / "toy.npz"
    graph.save(path)
    index = build_index(titles, texts, graph.new_ids(5))
    documents = pd.DataFrame({"benchmark": ["toy"], "doc_id": [1], "title": ["Our star"]})
    mentions = pd.DataFrame(
        {
            "benchmark": ["toy"] * 3,
            "doc_id": [1] * 3,
            "start": [0, 10, 30],
            "surface": ["Sun", "our star", "iron"],
            "node": pd.array([1, 1, 3], dtype="Int64"),  # "our star" is the Sun too
        }
    )
    return documents, mentions, graph, str(path), index


def test_elevant_instances_disjoint_on_toy_document(tmp_path: Path) -> None:
    documents, mentions, graph, path, index = _toy_elevant(tmp_path)
    # BM25 ranks: Sun -> [Sun, Star, Solar System]; our star -> [Star, Planet, Iron, Sun]; iron -> [Iron]
    # (vertices: Star 0, Sun 1, Solar System 2, Iron 3, Planet 4); sets keep that rank order
    ((_, size, overlapping),) = elevant_instances(
        documents, mentions, graph, path, index=index, candidates=5, disjoint=False
    )[0]
    assert [s.tolist() for s in overlapping.sets] == [[1, 0, 2], [0, 4, 3, 1], [3]]
    assert overlapping.gold.tolist() == [0, 3, 0] and size == 8
    instances, stats = elevant_instances(documents, mentions, graph, path, index=index, candidates=5)
    ((_, size, instance),) = instances
    # Star stays with "our star" (rank 1 there, 2 for "Sun"); Sun with "Sun" (rank 1 against 4), so "our
    # star" loses its gold; Iron with "iron" (rank 1 against 3)
    assert [s.tolist() for s in instance.sets] == [[1, 2], [0, 4], [3]]
    assert instance.gold.tolist() == [0, -1, 0] and size == 5
    assert stats["toy"]["candidates_removed"] == 3 and stats["toy"]["gold_removed"] == 1
    assert stats["toy"]["gold_missing"] == 1 and stats["all"]["disjoint"] is True


# --- Wikispeedia and ELEVANT instances on the mirror --------------------------------------------------------

SUBSET = 1200  # graph articles indexed for the real-corpus tests (all 4,589 take ~8 s to index)


@pytest.fixture(scope="module")
def wikispeedia(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = mirror / "wikispeedia"
    articles = read_articles(folder / "articles.tsv")
    links = read_links(folder / "links.tsv", articles)
    graph = undirected_lcc(len(articles), links)
    articles["text"] = read_plaintext(folder / "plaintext_articles.tar.gz", articles, progress=False)
    path = tmp_path_factory.mktemp("linking") / "graph.npz"
    graph.save(path)
    return articles, links, graph, str(path)


@pytest.fixture(scope="module")
def subset_index(wikispeedia):
    """BM25 over the first SUBSET graph articles; instances are restricted to them to keep the test fast."""
    articles, _, graph, _ = wikispeedia
    nodes = graph.original_node[:SUBSET]
    chosen = articles.iloc[nodes]
    return build_index(chosen["title"].tolist(), chosen["text"].tolist(), np.arange(SUBSET)), nodes


def test_wikispeedia_instances(wikispeedia, subset_index) -> None:
    articles, links, graph, path = wikispeedia
    index, nodes = subset_index
    inside = np.isin(links, nodes).all(axis=1)
    instances, stats = wikispeedia_instances(
        articles, links[inside], graph, path, index=index, n_documents=300, seed=0
    )
    assert len(instances) == 300 == len({i for i, _, _ in instances})
    assert stats["graph_links"] == 8527 and stats["links_title_found"] == 6428
    assert stats["links_stripped_found"] == 53 and stats["mentions_non_overlapping"] == 6468
    assert stats["documents_with_2_mentions"] == 958 and stats["mentions_without_candidates"] == 8
    assert stats["max_mentions"] == 33 and stats["mean_mentions"] == pytest.approx(9.95)
    # disjoint sets (the default): 37% of the retrieved candidates were shared and went to a better-ranking
    # mention; 3 mentions lost every candidate, 9 their target (6 of them still in an instance)
    assert stats["disjoint"] is True and stats["candidates_removed"] == 68526
    assert stats["mentions_emptied"] == 3 and stats["gold_removed"] == 9 and stats["gold_missing"] == 6
    assert stats["mean_candidates"] == pytest.approx(39.1075, abs=1e-4) and stats["min_candidates"] == 1
    assert stats["gold_rank_1_share"] == pytest.approx(0.9642, abs=1e-4)  # BM25's own ranking, unchanged
    assert stats["instances_with_all_gold"] == 294
    assert stats["paper"]["mean_entities"] == 11.73 and stats["paper"]["max_candidates"] == 200
    for instance_id, size, instance in instances:
        assert size == instance.n_candidates and instance.k >= 2
        assert all(s.max() < SUBSET for s in instance.sets)
        assert instance.graph_path == path
        assert articles.set_index("name").loc[instance_id, "title"] == instance.document
    first = instances[0][2]
    assert first.gold_structure() is not None
    # sets are in BM25 rank order (a subsequence of each mention's ranking), not sorted by vertex id
    ranked = top_candidates(index, list(first.mentions), k=100)
    for candidates, row in zip(first.sets, ranked, strict=True):
        assert (np.diff([int(np.flatnonzero(row == v)[0]) for v in candidates]) > 0).all()
    assert any((np.diff(s) < 0).any() for s in first.sets)
    golds = np.concatenate([inst.gold for _, _, inst in instances])
    assert golds.size == 2985 and int((golds == 0).sum()) == 2883  # target first: 96.6%
    vertex_titles = articles["title"].to_numpy()[graph.original_node]
    chosen = first.chosen_vertices(first.gold)
    assert [t.lower() for t in vertex_titles[chosen]][:3] == [m.lower() for m in first.mentions][:3]
    overlapping, plain = wikispeedia_instances(
        articles, links[inside], graph, path, index=index, n_documents=300, seed=0, disjoint=False
    )
    assert plain["candidates_removed"] == 0 and plain["gold_missing"] == 0 and plain["mean_mentions"] == 9.96
    assert plain["mean_candidates"] == pytest.approx(62.0020, abs=1e-4)
    assert [i for i, _, _ in overlapping] == [i for i, _, _ in instances]
    for (_, _, disjoint), (_, _, shared) in zip(instances, overlapping, strict=True):
        joined = np.concatenate(disjoint.sets)
        assert np.unique(joined).size == joined.size  # no vertex in two sets of a document
        assert np.isin(joined, np.concatenate(shared.sets)).all()


def test_wikispeedia_instances_rejects_too_many_documents(wikispeedia, subset_index) -> None:
    articles, links, graph, path = wikispeedia
    index, nodes = subset_index
    inside = np.isin(links, nodes).all(axis=1)
    with pytest.raises(ValueError, match="n_documents must lie"):
        wikispeedia_instances(articles, links[inside], graph, path, index=index, n_documents=5000)


def test_elevant_instances(mirror: Path, wikispeedia, subset_index) -> None:
    articles, _, graph, path = wikispeedia
    index, nodes = subset_index
    folder = mirror / "el_benchmarks_elevant"
    benchmarks = ["kore50", "msnbc", "spotlight", "reuters-128"]
    documents = pd.concat([read_documents(folder / f"{b}.benchmark.jsonl", b) for b in benchmarks])
    mentions = pd.concat([read_benchmark(folder / f"{b}.benchmark.jsonl", b) for b in benchmarks])
    mentions = mentions.reset_index(drop=True)
    mapped = map_to_titles(mentions, articles.set_index("node")["title"])
    mentions["node"] = mapped.where(mapped.isin(nodes), pd.NA)  # only the indexed subset
    instances, stats = elevant_instances(documents, mentions, graph, path, index=index)
    assert stats["all"]["docs"] == 256 and stats["all"]["mentions"] == 2109
    assert stats["all"]["mapped_mentions"] == 71 and stats["all"]["docs_kept"] == 14
    # disjoint sets: a repeated surface ("Brazil" 4 times in reuters-128 103) keeps its candidates for the
    # first mention only, so 9 mentions lose all of them and 3 documents drop below two mentions; 2 kept
    # mentions lost their gold to another mention
    assert stats["all"]["candidates_removed"] == 988 and stats["all"]["mentions_emptied"] == 9
    assert stats["all"]["instance_mentions"] == 28 and stats["all"]["gold_missing"] == 2
    assert stats["all"]["gold_removed"] == 11
    assert {b: stats[b]["docs_kept"] for b in benchmarks} == {
        "kore50": 1, "msnbc": 4, "spotlight": 4, "reuters-128": 5
    }  # fmt: skip
    assert stats["kore50"]["coverage"] == pytest.approx(13 / 144)
    assert len(instances) == 14 and all(inst.k >= 2 for _, _, inst in instances)
    _, plain = elevant_instances(documents, mentions, graph, path, index=index, disjoint=False)
    assert plain["all"]["docs_kept"] == 17 and plain["all"]["instance_mentions"] == 40
    assert plain["all"]["gold_missing"] == 0 and plain["all"]["candidates_removed"] == 0
    assert [i for i, _, _ in instances[:3]] == ["kore50-2", "msnbc-2", "msnbc-16"]


def test_iitb_instances(mirror: Path, wikispeedia, subset_index) -> None:
    """IITB's documents (string names, spans annotated twice, NIL titles) make instances as ELEVANT's do: one
    mention per span, NIL spans not linkable, every instance a document with two mapped mentions."""
    from decoders.corpora.entity_fishing import gold_nodes, read_set

    articles, _, graph, path = wikispeedia
    index, nodes = subset_index
    documents, mentions = read_set(mirror / "el_benchmarks_entity_fishing" / "iitb" / "iitb.xml", "iitb")
    mapped = gold_nodes(mentions, articles.set_index("node")["title"])
    mentions["node"] = mapped.where(mapped.isin(nodes), pd.NA)  # only the indexed subset
    single = mentions[~mentions["repeat"]].reset_index(drop=True)
    instances, stats = elevant_instances(documents, single, graph, path, index=index)
    iitb = stats["iitb"]
    assert iitb["docs"] == 104 and iitb["mentions"] == 19751 - 1443
    assert iitb["linkable_mentions"] == int((~single["nil"]).sum())
    assert iitb["mapped_mentions"] == int(single["node"].notna().sum()) > 0
    assert iitb["mapped_share_linkable"] == pytest.approx(iitb["mapped_mentions"] / iitb["linkable_mentions"])
    assert len(instances) == iitb["docs_kept"] > 0
    assert all(inst.k >= 2 and name.startswith("iitb-") for name, _, inst in instances)
    assert {name.removeprefix("iitb-") for name, _, _ in instances} <= set(documents["doc_id"])


# --- synthetic graph and planted instances ------------------------------------------------------------------


@pytest.fixture(scope="module")
def degrees(wikispeedia) -> np.ndarray:
    return wikispeedia[2].degrees()


@pytest.fixture(scope="module")
def small_graph(degrees: np.ndarray) -> Graph:
    return synthetic_graph(10_000, 100_000, degrees=degrees, seed=3)


def test_synthetic_graph_is_simple_connected_and_heavy_tailed(
    small_graph: Graph, degrees: np.ndarray
) -> None:
    graph = small_graph
    assert graph.n_nodes == 10_000 and graph.n_edges == 100_000
    assert graph.indices.dtype == np.int32 and graph.indptr.dtype == np.int64
    n = graph.n_nodes
    adjacency = sp.csr_array((np.ones(graph.indices.size), graph.indices, graph.indptr), shape=(n, n))
    assert (adjacency != adjacency.T).nnz == 0  # symmetric
    assert adjacency.diagonal().sum() == 0  # no self loops
    rows = np.repeat(np.arange(n), graph.degrees())
    assert np.unique(rows.astype(np.int64) * n + graph.indices).size == graph.indices.size  # no duplicates
    assert all(
        (np.diff(graph.indices[graph.indptr[v] : graph.indptr[v + 1]]) > 0).all() for v in range(0, n, 97)
    )
    assert connected_components(adjacency, directed=False)[0] == 1
    degree = graph.degrees()
    assert degree.mean() == 20
    # Erdos-Renyi with mean 20 has standard deviation ~4.5 and maximum ~40 at this size
    assert degree.std() > 3 * np.sqrt(20) and degree.max() > 200
    same = synthetic_graph(10_000, 100_000, degrees=degrees, seed=3)
    assert np.array_equal(same.indices, graph.indices)


def test_synthetic_graph_errors(degrees: np.ndarray) -> None:
    with pytest.raises(ValueError, match="n_edges must lie"):
        synthetic_graph(10, 5, degrees=degrees)
    with pytest.raises(ValueError, match="positive degrees"):
        synthetic_graph(10, 20, degrees=np.array([0, 3]))


def test_plant_instances_are_valid(small_graph: Graph, tmp_path: Path) -> None:
    path = tmp_path / "synthetic.npz"
    small_graph.save(path)
    planted = plant_instances(small_graph, str(path), 5, sets=12, candidates=100, seed=1)
    assert [i for i, _, _ in planted] == [f"planted-{j}" for j in range(5)]
    for _, size, instance in planted:
        assert instance.k == 12 and size == 1200
        assert all(s.size == 100 and (np.diff(s) > 0).all() for s in instance.sets)
        fair = instance.chosen_vertices(instance.gold_structure())
        assert np.unique(fair).size == 12
        distances = np.stack([bfs_distances(small_graph.indptr, small_graph.indices, v) for v in fair])
        assert (distances[:, fair] >= 0).all() and distances[:, fair].max() <= 4  # a ball of radius <= 2
        chosen = instance.chosen_vertices(np.zeros(12, dtype=np.int64))  # the smallest vertex of each set
        assert distances[:, fair].sum() < distances[:, chosen].sum() or np.array_equal(chosen, fair)


def test_hitting_distance_choice_on_a_path(tmp_path: Path) -> None:
    # path 0-1-2-3-4-5: sets {0, 5}, {1, 4}, {2} -> the choice near 2 is 1 and then 0 (hitting distances)
    links = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
    graph = undirected_lcc(6, links)
    graph.save(tmp_path / "g.npz")
    instance = LinkingInstance(
        str(tmp_path / "g.npz"),
        (np.array([0, 5]), np.array([1, 4]), np.array([2])),
        np.zeros(3, dtype=np.int32),
        ("a",) * 3,
        "d",
    )
    assert hitting_distance_choice(graph, instance).tolist() == [0, 0, 0]


def test_scaling_rows(small_graph: Graph, tmp_path: Path) -> None:
    planted = [inst for _, _, inst in plant_instances(small_graph, "g", 2, seed=2)]
    rows = graph_rows("small", small_graph, planted, repeats=1) + networkx_rows(
        "small", small_graph, repeats=1
    )
    frame = pd.DataFrame(rows)
    assert list(frame.columns) == ROW_COLUMNS
    assert set(zip(frame["operation"], frame["library"], strict=True)) == {
        ("graph_arrays", "numpy"), ("bfs", "numba"), ("hitting_distance", "numba"), ("pagerank", "numba"),
        ("build", "networkx"), ("bfs", "networkx"), ("pagerank", "networkx"),
    }  # fmt: skip
    for library in ("igraph", "networkit"):  # distances and PageRank checked against ours inside peer_rows
        peer = pd.DataFrame(peer_rows(library, "small", small_graph, repeats=1))
        assert set(peer["operation"]) == {"build", "bfs", "pagerank"} and (peer["seconds"] > 0).all()
    assert (frame["nodes"] == 10_000).all() and (frame["edges"] == 100_000).all()
    timed = frame[frame["operation"] != "graph_arrays"]
    assert (timed["seconds"] > 0).all()
    assert (
        frame.loc[frame["operation"] == "graph_arrays", "bytes"].item() == 10_001 * 8 + 200_000 * 4 + 40_000
    )


def test_first_candidates_refills_rows_in_rank_order() -> None:
    from decoders.linking.retrieval import first_candidates

    rows = np.array([[5, -1, 7, 8, 9], [-1, -1, 3, -1, -1]], dtype=np.int32)
    assert first_candidates(rows, 3).tolist() == [[5, 7, 8], [3, -1, -1]]
