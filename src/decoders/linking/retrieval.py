"""Candidate retrieval for entity linking: a BM25 index over article titles and plaintext bodies.

Blanco et al. (section 6) retrieve the top 100 articles per mention with BM25F over title, body and anchor
fields. Wikispeedia has no anchor-text field, so the index holds one text per article, the title repeated
``title_weight`` times followed by the body, which gives the title field a heavier weight in the spirit of
BM25F while keeping the plain BM25 of ``bm25s`` (lower-cased words of two or more characters, English
stopwords dropped). Queries are scored in one batched ``retrieve`` call.

The paper's candidate sets come from a mention-entity dictionary and hardly overlap across the mentions of a
document; BM25 sets do (a hub such as ``Star`` is retrieved for "star", "Sun", "solar system", ...), and
since MinDR may pick one vertex for several sets, a shared hub becomes a free choice of distance 0.
:func:`disjoint_candidates` gives each vertex of a document to the one mention that ranks it best.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from decoders.checks import check_int, check_texts
from decoders.linking.checks import INT32_MAX, check_span, check_vertices, integer_array

__all__ = ["ArticleIndex", "build_index", "disjoint_candidates", "first_candidates", "top_candidates"]


@dataclass(frozen=True, eq=False)
class ArticleIndex:
    """A BM25 index whose document ``i`` is the article at graph vertex ``vertices[i]``."""

    retriever: bm25s.BM25
    tokenizer: bm25s.tokenization.Tokenizer
    vertices: np.ndarray  # int32, one graph vertex per indexed document

    def __post_init__(self) -> None:
        if not isinstance(self.retriever, bm25s.BM25):
            raise ValueError(
                f"ArticleIndex.retriever must be a bm25s.BM25, got {type(self.retriever).__name__}"
            )
        if not isinstance(self.tokenizer, bm25s.tokenization.Tokenizer):
            raise ValueError(
                f"ArticleIndex.tokenizer must be a bm25s Tokenizer, got {type(self.tokenizer).__name__}"
            )
        vertices = check_vertices(self.vertices, "ArticleIndex.vertices", None, distinct=True)
        indexed = getattr(self.retriever, "scores", {}).get("num_docs")
        if indexed is not None and int(indexed) != vertices.size:
            raise ValueError(
                f"ArticleIndex.vertices has {vertices.size} entries for {int(indexed)} indexed documents"
            )
        object.__setattr__(self, "vertices", vertices)

    @property
    def n_documents(self) -> int:
        return int(self.vertices.shape[0])


def build_index(
    titles: Sequence[str],
    texts: Sequence[str],
    vertices: Sequence[int] | np.ndarray,
    *,
    title_weight: int = 3,
) -> ArticleIndex:
    """Index articles ``(titles[i], texts[i])`` standing for graph vertices ``vertices[i]`` (distinct).

    ``title_weight`` copies of the title precede the body, so a query word in the title counts more than
    the same word in the body (the title-field boost of BM25F). ``titles`` and ``texts`` are sequences of strings,
    ``vertices`` distinct vertex ids (integers >= 0), ``title_weight`` an integer >= 1.
    """
    titles = check_texts(titles, "titles")
    texts = check_texts(texts, "texts")
    vertices = check_vertices(vertices, "vertices", None)
    if not len(titles) == len(texts) == vertices.shape[0]:
        raise ValueError(
            f"titles, texts and vertices differ in length: {len(titles)}, {len(texts)}, {vertices.shape[0]}"
        )
    if vertices.shape[0] == 0:
        raise ValueError("cannot index an empty article set")
    if np.unique(vertices).size != vertices.size:
        raise ValueError("vertices must be distinct: each article is one graph vertex")
    if isinstance(title_weight, bool) or not isinstance(title_weight, int | np.integer) or title_weight < 1:
        raise ValueError(f"title_weight must be an integer, at least 1; got {title_weight!r}")
    documents = [
        " ".join([title] * title_weight) + "\n" + text for title, text in zip(titles, texts, strict=True)
    ]
    tokenizer = bm25s.tokenization.Tokenizer(lower=True, stopwords="english")
    tokens = tokenizer.tokenize(documents, update_vocab=True, show_progress=False, return_as="tuple")
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    return ArticleIndex(retriever=retriever, tokenizer=tokenizer, vertices=vertices)


def top_candidates(index: ArticleIndex, queries: Sequence[str], k: int = 100) -> np.ndarray:
    """The ``k`` best-scoring articles of every query, as graph vertices: int32 array ``(len(queries), k)``.

    Row ``q`` lists vertices by decreasing BM25 score. Only articles sharing a word with the query score
    above zero; the slots past them hold ``-1`` (a query whose words are all unknown or stopwords gets a row
    of ``-1``). ``k`` may not exceed the number of indexed articles. ``queries`` is a sequence of strings.
    """
    if not isinstance(index, ArticleIndex):
        raise ValueError(f"index must be an ArticleIndex, got {type(index).__name__}")
    queries = check_texts(queries, "queries")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= index.n_documents:
        raise ValueError(f"k must lie in 1..{index.n_documents} (the indexed articles), got {k}")
    if len(queries) == 0:
        return np.empty((0, k), dtype=np.int32)
    query_ids = index.tokenizer.tokenize(
        list(queries), update_vocab=False, show_progress=False, return_as="ids"
    )
    documents, scores = index.retriever.retrieve(query_ids, k=k, show_progress=False, return_as="tuple")
    candidates = index.vertices[np.asarray(documents, dtype=np.int64)]
    return np.where(np.asarray(scores) > 0, candidates, np.int32(-1)).astype(np.int32)


def disjoint_candidates(retrieved: np.ndarray, documents: Sequence[object] | np.ndarray) -> np.ndarray:
    """Make the candidate rows of each document disjoint: a copy of ``retrieved``, shared vertices dropped.

    ``retrieved`` is :func:`top_candidates`' ``(n, k)`` array (vertices by decreasing score, ``-1`` for empty
    slots); ``documents[q]`` names the document of row ``q`` (any hashable labels), and rows of one document
    are in text order. A vertex retrieved for several rows of a document stays only in the row that ranks it
    best (smallest column); on a tie, in the earliest row. Its other occurrences become ``-1``, so columns
    keep their BM25 rank. Uses no gold information.
    """
    retrieved = _rows(retrieved)
    n, k = retrieved.shape
    if isinstance(documents, str | bytes):
        raise ValueError(f"documents must give one label per row, got a string {documents!r}")
    labels = np.asarray(documents)
    if labels.ndim != 1:
        raise ValueError(f"documents must give one label per row (1-d), got shape {labels.shape}")
    if labels.shape != (n,):
        raise ValueError(f"documents must give one label per row: {labels.shape[0]} labels for {n} rows")
    out = retrieved.copy()
    if n == 0 or k == 0:
        return out
    _, document = np.unique(labels, return_inverse=True)
    row, column = np.nonzero(retrieved >= 0)
    vertex = retrieved[row, column]
    # sort by (document, vertex, rank, row): the first of every (document, vertex) run is the one kept
    order = np.lexsort((row, column, vertex, document[row]))
    same = (document[row][order][1:] == document[row][order][:-1]) & (vertex[order][1:] == vertex[order][:-1])
    dropped = order[1:][same]
    out[row[dropped], column[dropped]] = -1
    return out


def _rows(retrieved) -> np.ndarray:
    """Candidate rows: a 2-d integer array of vertex ids >= 0 or -1 (an empty slot)."""
    retrieved = integer_array(retrieved, "retrieved", ndim=2)
    check_span(retrieved, "retrieved", -1, INT32_MAX)
    return retrieved


def first_candidates(retrieved: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` vertices (``>= 0``) of every row, in rank order, padded with ``-1``: after
    :func:`disjoint_candidates` on a deeper ranking, this refills each mention's set up to ``k`` candidates.
    ``retrieved`` is a 2-d integer array (vertices >= 0, -1 for empty slots), ``k`` an integer >= 1."""
    retrieved = _rows(retrieved)
    k = check_int(k, "k", minimum=1)
    valid = retrieved >= 0
    position = np.cumsum(valid, axis=1) - 1
    row, column = np.nonzero(valid & (position < k))
    out = np.full((retrieved.shape[0], k), -1, dtype=retrieved.dtype)
    out[row, position[row, column]] = retrieved[row, column]
    return out
