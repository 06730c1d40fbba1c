"""Wikispeedia reader: counts on the real corpus, the CSR graph against networkx, and malformed inputs."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decoders.corpora.wikispeedia import (
    Graph,
    graph_stats,
    read_articles,
    read_links,
    read_plaintext,
    undirected_lcc,
)
from decoders.errors import CorpusFormatError

N_ARTICLES = 4604
N_LINKS = 119_882
N_SELF_LOOPS = 110
N_UNDIRECTED = 106_537
N_COMPONENTS = 14
LCC_NODES = 4589
LCC_EDGES = 106_534
LCC_MAX_DEGREE = 1621
PLAINTEXT_BYTES = 97_986_746  # MANIFEST: "4604 files, 97986746 bytes of text"


@pytest.fixture(scope="module")
def folder(mirror: Path) -> Path:
    return mirror / "wikispeedia"


@pytest.fixture(scope="module")
def articles(folder: Path) -> pd.DataFrame:
    return read_articles(folder / "articles.tsv")


@pytest.fixture(scope="module")
def links(folder: Path, articles: pd.DataFrame) -> np.ndarray:
    return read_links(folder / "links.tsv", articles)


@pytest.fixture(scope="module")
def graph(articles: pd.DataFrame, links: np.ndarray) -> Graph:
    return undirected_lcc(len(articles), links)


# --- real corpus -------------------------------------------------------------------------------------------


def test_articles_real(articles: pd.DataFrame) -> None:
    assert len(articles) == N_ARTICLES
    assert list(articles.columns) == ["node", "name", "title"]
    assert articles["node"].tolist() == list(range(N_ARTICLES))
    assert articles["name"].is_unique and articles["title"].is_unique
    by_name = articles.set_index("name")["title"]
    assert by_name["%C3%81ed%C3%A1n_mac_Gabr%C3%A1in"] == "Áedán mac Gabráin"
    assert by_name["C%2B%2B"] == "C++"
    assert by_name["%E2%82%AC2_commemorative_coins"] == "€2 commemorative coins"
    assert articles["node"].iloc[0] == 0 and articles["name"].iloc[0] == "%C3%81ed%C3%A1n_mac_Gabr%C3%A1in"


def test_links_real(articles: pd.DataFrame, links: np.ndarray) -> None:
    assert links.shape == (N_LINKS, 2) and links.dtype == np.int32
    names = articles["name"].to_numpy()
    assert names[links[0]].tolist() == ["%C3%81ed%C3%A1n_mac_Gabr%C3%A1in", "Bede"]
    assert names[links[-1]].tolist() == ["Zulu", "Zimbabwe"]
    assert int(np.count_nonzero(links[:, 0] == links[:, 1])) == N_SELF_LOOPS
    assert len(np.unique(links, axis=0)) == N_LINKS  # no repeated directed link in the file


def test_lcc_real_against_networkx(articles: pd.DataFrame, links: np.ndarray, graph: Graph) -> None:
    full = nx.Graph()
    full.add_nodes_from(range(len(articles)))
    full.add_edges_from(links.tolist())
    full.remove_edges_from(list(nx.selfloop_edges(full)))
    assert full.number_of_edges() == N_UNDIRECTED
    assert nx.number_connected_components(full) == N_COMPONENTS
    lcc = max(nx.connected_components(full), key=len)
    reference = full.subgraph(lcc)

    assert graph.n_nodes == len(lcc) == LCC_NODES
    assert graph.n_edges == reference.number_of_edges() == LCC_EDGES
    assert set(graph.original_node.tolist()) == lcc
    assert graph.indptr.dtype == np.int64 and graph.indices.dtype == np.int32
    assert graph.original_node.dtype == np.int32
    expected_degree = np.array([reference.degree(int(v)) for v in graph.original_node])
    np.testing.assert_array_equal(graph.degrees(), expected_degree)
    assert int(graph.degrees().max()) == LCC_MAX_DEGREE
    # every CSR edge, mapped back to article nodes, is an edge of the networkx graph
    sources = np.repeat(graph.original_node, graph.degrees())
    targets = graph.original_node[graph.indices]
    assert all(reference.has_edge(int(s), int(t)) for s, t in zip(sources, targets, strict=True))


def test_graph_stats_real(articles: pd.DataFrame, links: np.ndarray, graph: Graph) -> None:
    stats = graph_stats(articles, links, graph)
    assert stats == {
        "nodes": N_ARTICLES,
        "directed_links": N_LINKS,
        "self_loops": N_SELF_LOOPS,
        "undirected_edges": N_UNDIRECTED,
        "components": N_COMPONENTS,
        "isolated_nodes": 12,
        "lcc_nodes": LCC_NODES,
        "lcc_edges": LCC_EDGES,
        "lcc_max_degree": LCC_MAX_DEGREE,
        "lcc_mean_degree": pytest.approx(2 * LCC_EDGES / LCC_NODES),
        "articles_with_plaintext": None,
    }


def test_plaintext_real(folder: Path, articles: pd.DataFrame, links: np.ndarray, graph: Graph) -> None:
    text = read_plaintext(folder / "plaintext_articles.tar.gz", articles, progress=False)
    assert text.name == "text" and text.index.equals(articles.index)
    assert text.notna().all()
    assert int(text.str.encode("utf-8").str.len().sum()) == PLAINTEXT_BYTES
    assert "Áedán mac Gabráin" in text.iloc[0][:200]
    stats = graph_stats(articles.assign(text=text), links, graph)
    assert stats["articles_with_plaintext"] == N_ARTICLES


# --- undirected_lcc on small graphs ------------------------------------------------------------------------


def test_undirected_lcc_hand_made() -> None:
    # component {0, 1, 2, 3} with a reciprocal pair, a duplicate and a self loop; component {4, 5}; 6 isolated
    links = np.array([[0, 1], [1, 0], [1, 2], [1, 2], [2, 2], [3, 2], [5, 4]])
    graph = undirected_lcc(7, links)
    assert graph.n_nodes == 4 and graph.n_edges == 3
    assert graph.indptr.tolist() == [0, 1, 3, 5, 6]
    assert graph.indices.tolist() == [1, 0, 2, 1, 3, 2]
    assert graph.original_node.tolist() == [0, 1, 2, 3]
    assert graph.degrees().tolist() == [1, 2, 2, 1]
    assert graph.new_ids(7).tolist() == [0, 1, 2, 3, -1, -1, -1]


def test_undirected_lcc_renumbers_and_breaks_ties_by_lowest_node() -> None:
    # components {1, 4} and {2, 3} tie; the one holding node 1 wins; {0} is isolated
    graph = undirected_lcc(5, np.array([[4, 1], [3, 2]]))
    assert graph.original_node.tolist() == [1, 4]
    assert graph.indices.tolist() == [1, 0]
    # no links at all: the largest component is the single node 0
    lone = undirected_lcc(3, np.empty((0, 2), dtype=np.int32))
    assert lone.n_nodes == 1 and lone.n_edges == 0 and lone.original_node.tolist() == [0]


def test_undirected_lcc_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="outside"):
        undirected_lcc(3, np.array([[0, 3]]))
    with pytest.raises(ValueError, match="shape"):
        undirected_lcc(3, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="at least one node"):
        undirected_lcc(0, np.empty((0, 2), dtype=np.int32))


@settings(max_examples=150, deadline=None)
@given(
    st.integers(min_value=1, max_value=25).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60),
        )
    )
)
def test_undirected_lcc_matches_networkx(case: tuple[int, list[tuple[int, int]]]) -> None:
    n, pairs = case
    links = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    graph = undirected_lcc(n, links)

    reference = nx.Graph()
    reference.add_nodes_from(range(n))
    reference.add_edges_from(pairs)
    reference.remove_edges_from(list(nx.selfloop_edges(reference)))
    components = list(nx.connected_components(reference))
    size = max(len(c) for c in components)
    lcc = min((c for c in components if len(c) == size), key=min)
    sub = reference.subgraph(lcc)

    assert graph.original_node.tolist() == sorted(lcc)
    assert graph.n_edges == sub.number_of_edges()
    for v in range(graph.n_nodes):
        row = graph.indices[graph.indptr[v] : graph.indptr[v + 1]]
        assert np.all(np.diff(row) > 0)  # sorted, no duplicates
        neighbours = {int(graph.original_node[u]) for u in row}
        assert neighbours == set(sub.neighbors(int(graph.original_node[v])))


# --- Graph persistence -------------------------------------------------------------------------------------


def test_graph_save_load_round_trip(tmp_path: Path) -> None:
    graph = undirected_lcc(6, np.array([[0, 1], [1, 2], [2, 0], [4, 5]]))
    path = tmp_path / "out" / "graph.npz"
    graph.save(path)
    assert sorted(p.name for p in path.parent.iterdir()) == ["graph.npz"]  # no temporary file left
    loaded = Graph.load(path)
    for name in ("indptr", "indices", "original_node"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(graph, name))
        assert getattr(loaded, name).dtype == getattr(graph, name).dtype
    assert loaded.n_nodes == 3 and loaded.n_edges == 3


def test_graph_load_rejects_bad_files(tmp_path: Path) -> None:
    missing = tmp_path / "missing.npz"
    np.savez(missing, indptr=np.array([0], dtype=np.int64))
    with pytest.raises(CorpusFormatError, match="missing array"):
        Graph.load(missing)
    inconsistent = tmp_path / "inconsistent.npz"
    np.savez(
        inconsistent,
        indptr=np.array([0, 1, 2], dtype=np.int64),
        indices=np.array([1, 5], dtype=np.int32),
        original_node=np.array([0, 1], dtype=np.int32),
    )
    with pytest.raises(CorpusFormatError, match="0..n-1"):
        Graph.load(inconsistent)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not an npz")
    with pytest.raises(CorpusFormatError, match="garbage.npz"):
        Graph.load(garbage)


def test_graph_rejects_wrong_dtypes() -> None:
    with pytest.raises(ValueError, match="int64"):
        Graph(np.array([0, 0], dtype=np.int32), np.empty(0, np.int32), np.array([0], dtype=np.int32))


@pytest.mark.parametrize("neighbours", [[2, 1, 0, 0], [1, 1, 0, 0]])
def test_graph_rejects_unsorted_or_repeated_neighbours(neighbours) -> None:
    """The searches bisect neighbour lists (the overlay's and G's): a row out of order would be searched wrong."""
    indptr, nodes = np.array([0, 2, 3, 4], dtype=np.int64), np.arange(3, dtype=np.int32)
    Graph(indptr, np.array([1, 2, 0, 0], dtype=np.int32), nodes)
    with pytest.raises(ValueError, match="sorted and distinct"):
        Graph(indptr, np.array(neighbours, dtype=np.int32), nodes)


# --- malformed and alternative inputs ----------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


HEADER = "# comment\n# FORMAT: article\n\n"


def test_articles_and_links_accept_gzip(tmp_path: Path) -> None:
    plain = HEADER + "A\nB%C3%A9_c\n"
    gz = tmp_path / "articles.tsv.gz"
    gz.write_bytes(gzip.compress(plain.encode()))
    articles = read_articles(gz)
    assert articles["title"].tolist() == ["A", "Bé c"]
    links = tmp_path / "links.tsv.gz"
    links.write_bytes(gzip.compress(b"# c\nA\tB%C3%A9_c\nB%C3%A9_c\tA\n"))
    assert read_links(links, articles).tolist() == [[0, 1], [1, 0]]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("A\nB\nA\n", 6, "already listed on line 4"),
        ("A\nB\tC\n", 5, "one URL-encoded article name"),
        ("A\n%FF\n", 5, "does not URL-decode"),
    ],
)
def test_articles_errors(tmp_path: Path, body: str, line: int, message: str) -> None:
    path = _write(tmp_path / "articles.tsv", HEADER + body)
    with pytest.raises(CorpusFormatError, match=message) as info:
        read_articles(path)
    assert info.value.line == line and info.value.path == str(path)


def test_articles_empty_and_non_utf8(tmp_path: Path) -> None:
    with pytest.raises(CorpusFormatError, match="no articles"):
        read_articles(_write(tmp_path / "empty.tsv", HEADER))
    raw = tmp_path / "latin1.tsv"
    raw.write_bytes(b"A\nB\xe9\n")
    with pytest.raises(CorpusFormatError, match=r"line 2: not valid UTF-8"):
        read_articles(raw)


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("A\tB\nA\tZ\n", 3, "target 'Z' is not in the article list"),
        ("A\tB\nQ\tA\nA\tQ\n", 3, r"source 'Q' is not in the article list \(2 unknown"),
        ("A\tB\nA\tB\tC\n", 3, "expected 'source<TAB>target'"),
        ("A\tB\nA B\n", 3, "expected 'source<TAB>target'"),
        ("A\t\n", 2, "expected 'source<TAB>target'"),
    ],
)
def test_links_errors(tmp_path: Path, body: str, line: int, message: str) -> None:
    articles = read_articles(_write(tmp_path / "articles.tsv", "A\nB\n"))
    path = _write(tmp_path / "links.tsv", "# links\n" + body)
    with pytest.raises(CorpusFormatError, match=message) as info:
        read_links(path, articles)
    assert info.value.line == line


def _tar(path: Path, members: dict[str, bytes], compress: bool = True) -> Path:
    with tarfile.open(path, "w:gz" if compress else "w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_plaintext_matches_members_by_basename(tmp_path: Path) -> None:
    articles = read_articles(_write(tmp_path / "articles.tsv", "A\nB%C3%A9\nC\n"))
    tar = _tar(
        tmp_path / "snap.tar",
        {"x/plaintext_articles/A.txt": b"alpha", "B%C3%A9.txt": "b\u00e9ta".encode(), "x/README": b"skip"},
        compress=False,
    )
    text = read_plaintext(tar, articles, progress=False)
    assert text.iloc[:2].tolist() == ["alpha", "béta"]
    assert pd.isna(text.iloc[2])


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"p/A.txt": b"\xff\xfe"}, "'p/A.txt' is not UTF-8 at byte 0"),
        ({"p/Z.txt": b"zeta"}, "'p/Z.txt' names no known article"),
        ({"p/A.txt": b"a", "q/A.txt": b"a"}, "are the same article"),
    ],
)
def test_plaintext_errors(tmp_path: Path, members: dict[str, bytes], message: str) -> None:
    articles = read_articles(_write(tmp_path / "articles.tsv", "A\n"))
    tar = _tar(tmp_path / "p.tar.gz", members)
    with pytest.raises(CorpusFormatError, match=message):
        read_plaintext(tar, articles, progress=False)


def test_plaintext_not_a_tar(tmp_path: Path) -> None:
    articles = read_articles(_write(tmp_path / "articles.tsv", "A\n"))
    with pytest.raises(CorpusFormatError, match="not a readable tar"):
        read_plaintext(_write(tmp_path / "bad.tar.gz", "plain text"), articles, progress=False)


def test_wikispeedia_functions_name_a_wrong_argument() -> None:
    """Found here: each gave pathlib's, numpy's or tarfile's TypeError, or an AttributeError."""
    from decoders.corpora import wikispeedia

    frame = pd.DataFrame({"a": [1]})
    for call, words in [
        (lambda: wikispeedia.read_articles(None), "articles_tsv must be a path"),
        (lambda: wikispeedia.read_links(np.zeros(2), frame), "links_tsv must be a path"),
        (lambda: wikispeedia.read_links("links.tsv", [1]), "articles must be a pandas DataFrame"),
        (lambda: wikispeedia.read_plaintext(5, frame), "tar_path must be a path"),
        (
            lambda: wikispeedia.undirected_lcc(-1, np.zeros((0, 2), np.int64)),
            "n_nodes must be an integer >= 0",
        ),
        (lambda: wikispeedia.undirected_lcc(3, [[0, 1]]), "links must be a ndarray"),
        (lambda: wikispeedia.graph_stats(frame, np.zeros((0, 2)), None), "graph must be a Graph"),
        (lambda: wikispeedia.Graph.load(None), "path must be a path"),
    ]:
        with pytest.raises(ValueError, match=words):
            call()
