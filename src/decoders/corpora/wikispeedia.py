"""Wikispeedia (West & Leskovec, SNAP): article list, hyperlink graph and plaintext articles.

The entity-linking experiment needs an undirected, connected Wikipedia graph that numba BFS code can walk, so
the directed links are symmetrised, self loops and duplicates dropped, the graph cut to its largest connected
component and stored as compact CSR arrays (:class:`Graph`).

Every reader takes a file path, so it works on the mirror and on ``data/raw``; the text files may also be
given gzip-compressed (a ``.gz`` suffix is detected).
"""

from __future__ import annotations

import gzip
import os
import tarfile
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from tqdm import tqdm

from decoders.checks import check_path, checked
from decoders.errors import CorpusFormatError
from decoders.io import atomic_path

__all__ = [
    "Graph",
    "graph_stats",
    "read_articles",
    "read_links",
    "read_plaintext",
    "undirected_lcc",
]


def _data_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line)`` for the lines that are neither blank nor ``#`` comments.

    Lines are decoded one by one so that a byte that is not UTF-8 is reported on its own line.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise CorpusFormatError(path, number, f"not valid UTF-8 ({exc.reason})") from None
            if line.strip() and not line.startswith("#"):
                yield number, line


@checked(articles_tsv="path")
def read_articles(articles_tsv: str | Path) -> pd.DataFrame:
    """Read ``articles.tsv``: one URL-encoded article name per line, ``#`` comment lines.

    Returns columns ``node`` (0..n-1 in file order), ``name`` (as in the file, URL-encoded; the key used by
    ``links.tsv`` and the plaintext file names) and ``title`` (URL-decoded as UTF-8, ``_`` -> space). ``+``
    stays a plus sign: the files encode it as ``%2B``.
    """
    names: list[str] = []
    titles: list[str] = []
    first_line: dict[str, int] = {}
    for number, line in _data_lines(articles_tsv):
        name = line.strip()
        if "\t" in name or " " in name:
            raise CorpusFormatError(
                articles_tsv, number, f"expected one URL-encoded article name, got {line!r}"
            )
        if name in first_line:
            raise CorpusFormatError(
                articles_tsv, number, f"article {name!r} already listed on line {first_line[name]}"
            )
        try:
            title = urllib.parse.unquote(name, encoding="utf-8", errors="strict")
        except UnicodeDecodeError:
            raise CorpusFormatError(articles_tsv, number, f"{name!r} does not URL-decode to UTF-8") from None
        first_line[name] = number
        names.append(name)
        titles.append(title.replace("_", " "))
    if not names:
        raise CorpusFormatError(articles_tsv, None, "no articles found")
    return pd.DataFrame({"node": np.arange(len(names), dtype=np.int64), "name": names, "title": titles})


@checked(links_tsv="path", articles="frame")
def read_links(links_tsv: str | Path, articles: pd.DataFrame) -> np.ndarray:
    """Read ``links.tsv`` (``source<TAB>target`` URL-encoded names) into an ``(m, 2)`` int32 array of nodes.

    Links are kept as in the file (directed, self loops included); :func:`undirected_lcc` cleans them.
    """
    numbers: list[int] = []
    ends: list[str] = []
    for number, line in _data_lines(links_tsv):
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise CorpusFormatError(links_tsv, number, f"expected 'source<TAB>target', got {line!r}")
        numbers.append(number)
        ends.extend(fields)
    position = pd.Index(articles["name"]).get_indexer(ends)
    unknown = np.flatnonzero(position < 0)
    if unknown.size:
        first = int(unknown[0])
        raise CorpusFormatError(
            links_tsv,
            numbers[first // 2],
            f"link {'source' if first % 2 == 0 else 'target'} {ends[first]!r} is not in the article list"
            f" ({unknown.size} unknown names in the file)",
        )
    nodes = articles["node"].to_numpy()[position]
    return nodes.astype(np.int32).reshape(-1, 2)


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected simple graph in CSR form: neighbours of ``v`` are ``indices[indptr[v]:indptr[v + 1]]``.

    Each undirected edge appears in both directions; neighbour lists are sorted. ``original_node[v]`` is the
    article ``node`` that graph vertex ``v`` stands for.
    """

    indptr: np.ndarray  # int64, shape (n + 1,)
    indices: np.ndarray  # int32, shape (2 * edges,)
    original_node: np.ndarray  # int32, shape (n,)

    def __post_init__(self) -> None:
        problem = _csr_problem(self.indptr, self.indices, self.original_node)
        if problem:
            raise ValueError(f"invalid Graph: {problem}")

    @property
    def n_nodes(self) -> int:
        return int(self.indptr.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        """Number of undirected edges (each is stored twice)."""
        return int(self.indices.shape[0] // 2)

    def degrees(self) -> np.ndarray:
        """Degree of every vertex (int64)."""
        return np.diff(self.indptr)

    def new_ids(self, n_original: int) -> np.ndarray:
        """Map article nodes to graph vertices: length ``n_original``, -1 for nodes outside the graph."""
        mapping = np.full(n_original, -1, dtype=np.int32)
        mapping[self.original_node] = np.arange(self.n_nodes, dtype=np.int32)
        return mapping

    def save(self, path: str | Path) -> None:
        """Write the three arrays to one ``.npz`` file, atomically."""
        with atomic_path(path) as tmp, open(tmp, "wb") as handle:
            np.savez(handle, indptr=self.indptr, indices=self.indices, original_node=self.original_node)

    @classmethod
    def load(cls, path: str | Path) -> Graph:
        """Read a graph written by :meth:`save`, checking array names, dtypes and CSR consistency."""
        path = check_path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in ("indptr", "indices", "original_node")}
        except KeyError as exc:
            raise CorpusFormatError(path, None, f"not a saved Graph: missing array {exc}") from None
        except (ValueError, OSError) as exc:
            raise CorpusFormatError(path, None, f"not a readable .npz file ({exc})") from None
        problem = _csr_problem(arrays["indptr"], arrays["indices"], arrays["original_node"])
        if problem:
            raise CorpusFormatError(path, None, f"not a valid Graph: {problem}")
        return cls(**arrays)


def _csr_problem(indptr: np.ndarray, indices: np.ndarray, original_node: np.ndarray) -> str | None:
    """Describe what makes the arrays an invalid :class:`Graph`, or return None if they are fine."""
    expected = {
        "indptr": (indptr, np.int64),
        "indices": (indices, np.int32),
        "original_node": (original_node, np.int32),
    }
    for name, (array, dtype) in expected.items():
        if not isinstance(array, np.ndarray) or array.ndim != 1 or array.dtype != dtype:
            return f"{name} must be a 1-d {np.dtype(dtype).name} array"
    n = indptr.shape[0] - 1
    if n < 0 or indptr[0] != 0 or indptr[-1] != indices.shape[0] or np.any(np.diff(indptr) < 0):
        return "indptr must start at 0, be non-decreasing and end at len(indices)"
    if original_node.shape[0] != n:
        return f"original_node has {original_node.shape[0]} entries for {n} vertices"
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        return "indices must lie in 0..n-1"
    if indices.shape[0] % 2:
        return "an undirected graph stores every edge twice, so len(indices) must be even"
    rising = np.diff(indices.astype(np.int64)) > 0  # within a row: sorted, no repeats (searches bisect them)
    boundary = indptr[1:-1] - 1  # the last entry of each row but the last, where the next row starts over
    rising[boundary[(boundary >= 0) & (boundary < rising.size)]] = True
    if not rising.all():
        return "every vertex's neighbours must be sorted and distinct"
    return None


def _symmetric_adjacency(n_nodes: int, links: np.ndarray) -> sp.csr_array:
    """Symmetric 0/1 adjacency of the links as undirected edges, without self loops or duplicates."""
    links = np.asarray(links)
    if n_nodes < 1:
        raise ValueError(f"a graph needs at least one node, got n_nodes={n_nodes}")
    if links.ndim != 2 or links.shape[1] != 2:
        raise ValueError(f"links must have shape (m, 2), got {links.shape}")
    if links.size and (links.min() < 0 or links.max() >= n_nodes):
        raise ValueError(f"links name nodes outside 0..{n_nodes - 1}")
    source, target = links[:, 0].astype(np.int64), links[:, 1].astype(np.int64)
    proper = source != target
    rows = np.concatenate([source[proper], target[proper]])
    cols = np.concatenate([target[proper], source[proper]])
    adjacency = sp.coo_array(
        (np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n_nodes, n_nodes)
    ).tocsr()
    adjacency.sum_duplicates()
    adjacency.data[:] = 1
    return adjacency


@checked(n_nodes="count", links=np.ndarray)
def undirected_lcc(n_nodes: int, links: np.ndarray) -> Graph:
    """Symmetrise ``links`` over nodes ``0..n_nodes-1`` and keep the largest connected component.

    Self loops and duplicate or reciprocal links collapse to one undirected edge. Vertices of the component
    are renumbered ``0..n'-1`` in increasing original order; if several components tie for the largest, the
    one holding the smallest node id is kept, so the result is deterministic.
    """
    adjacency = _symmetric_adjacency(n_nodes, links)
    _, labels = connected_components(adjacency, directed=False)
    largest = int(np.argmax(np.bincount(labels)))  # labels follow node order, so ties go to the lowest node
    keep = np.flatnonzero(labels == largest)
    component = adjacency[keep][:, keep].tocsr()
    component.sort_indices()
    return Graph(
        indptr=component.indptr.astype(np.int64),
        indices=component.indices.astype(np.int32),
        original_node=keep.astype(np.int32),
    )


@checked(tar_path="path", articles="frame", progress="flag")
def read_plaintext(tar_path: str | Path, articles: pd.DataFrame, progress: bool = True) -> pd.Series:
    """Read the article texts from the plaintext tarball (gzip or plain tar), indexed like ``articles``.

    Members are matched to articles by basename ``<URL-encoded name>.txt``, whatever folder they sit in, so
    both the mirror's tarball and SNAP's own work. Members not ending in ``.txt`` are skipped; a ``.txt``
    member naming no article, a second member for the same article, or a text that is not UTF-8 is an error.
    Articles without a file get a missing value. The Series is named ``text``.
    """
    position = pd.Series(np.arange(len(articles)), index=pd.Index(articles["name"]))
    texts: list[str | None] = [None] * len(articles)
    member_of: dict[int, str] = {}
    try:
        with tarfile.open(tar_path, "r:*") as archive:
            for member in tqdm(archive, total=len(articles), desc="plaintext articles", disable=not progress):
                base = os.path.basename(member.name)
                if not member.isfile() or not base.endswith(".txt") or base.startswith("._"):
                    continue
                name = base[: -len(".txt")]
                if name not in position.index:
                    raise CorpusFormatError(tar_path, None, f"member {member.name!r} names no known article")
                at = int(position[name])
                if at in member_of:
                    raise CorpusFormatError(
                        tar_path, None, f"members {member_of[at]!r} and {member.name!r} are the same article"
                    )
                handle = archive.extractfile(member)
                if handle is None:
                    raise CorpusFormatError(tar_path, None, f"member {member.name!r} cannot be read")
                data = handle.read()
                try:
                    texts[at] = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise CorpusFormatError(
                        tar_path, None, f"member {member.name!r} is not UTF-8 at byte {exc.start}"
                    ) from None
                member_of[at] = member.name
    except FileNotFoundError:
        raise
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise CorpusFormatError(tar_path, None, f"not a readable tar archive ({exc})") from None
    return pd.Series(texts, index=articles.index, name="text", dtype="str")


@checked(articles="frame", links=np.ndarray, graph=Graph)
def graph_stats(articles: pd.DataFrame, links: np.ndarray, graph: Graph) -> dict[str, Any]:
    """Sizes of the corpus and of the graph the linking experiment uses, for the corpus report.

    ``articles_with_plaintext`` counts non-missing ``text`` values and is None if ``articles`` has no
    ``text`` column (see :func:`read_plaintext`).
    """
    adjacency = _symmetric_adjacency(len(articles), links)
    n_components, labels = connected_components(adjacency, directed=False)
    degrees = graph.degrees()
    with_text = int(articles["text"].notna().sum()) if "text" in articles.columns else None
    return {
        "nodes": len(articles),
        "directed_links": int(len(links)),
        "self_loops": int(np.count_nonzero(links[:, 0] == links[:, 1])),
        "undirected_edges": int(adjacency.nnz // 2),
        "components": int(n_components),
        "isolated_nodes": int(np.count_nonzero(np.bincount(labels) == 1)),
        "lcc_nodes": graph.n_nodes,
        "lcc_edges": graph.n_edges,
        "lcc_max_degree": int(degrees.max()),
        "lcc_mean_degree": float(degrees.mean()),
        "articles_with_plaintext": with_text,
    }
