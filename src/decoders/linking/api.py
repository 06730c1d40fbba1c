"""The linking experiment as a library: one candidate per mention on one's own graph (MinDR).

:func:`decode` takes a graph and candidate sets, builds a :class:`~decoders.linking.instance.LinkingInstance`
and runs the registered decoder the method names (the one the benchmark times), then checks an ``optimal``
answer's certificate with the experiment's ``verify``. Every registered linking decoder takes an instance
alone, so every one is a method.

A LinkingInstance names its graph by the path of a saved :class:`~decoders.corpora.wikispeedia.Graph` (the
decoders read it once per process and cache what they derive from it, PageRank and the adjacency, by that
path). A graph given in memory is therefore saved first, once, to a file named after its content
(``graph-<sha256 of its arrays>.npz`` in ``graph_dir``, by default ``decoders-graphs`` in the system's
temporary folder): the same graph always gets the same path, so nothing cached for one graph is ever used
for another, and a second call with it writes nothing.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from decoders.checks import check_path
from decoders.corpora.wikispeedia import Graph, _symmetric_adjacency
from decoders.harness.library import Method, decode_instance, experiment_methods, method_of
from decoders.harness.protocol import Solution
from decoders.linking.instance import LinkingInstance

EXPERIMENT = "linking"

#: Method -> (registered decoder, default parameters): every decoder of the experiment's module.
METHODS: dict[str, Method] = experiment_methods(EXPERIMENT)


def graph_file(graph: Any, graph_dir: str | os.PathLike | None = None) -> str:
    """The path of a saved Graph holding ``graph``: ``graph`` itself when it is a path (str or PathLike) of a
    saved :class:`~decoders.corpora.wikispeedia.Graph`; else a :class:`Graph`, or an ``(n, n)`` adjacency
    matrix (numpy or scipy sparse; a non-zero entry ``[u, v]`` or ``[v, u]`` is an undirected edge, the diagonal
    is ignored), saved to ``graph_dir`` under a name made of its content's hash (see the module doc). A
    ValueError names ``graph`` for anything else, a non-square matrix, NaN entries or an empty graph."""
    if isinstance(graph, str | os.PathLike):
        return check_path(graph, "graph")
    if not isinstance(graph, Graph):
        graph = _graph_of_adjacency(graph)
    digest = hashlib.sha256()
    for array in (graph.indptr, graph.indices, graph.original_node):
        digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(b"|")
    folder = Path(tempfile.gettempdir(), "decoders-graphs") if graph_dir is None else Path(graph_dir)
    path = folder / f"graph-{digest.hexdigest()}.npz"
    if not path.is_file():
        graph.save(path)  # atomically: a concurrent caller sees the whole file or none
    return str(path)


def _graph_of_adjacency(adjacency: Any) -> Graph:
    if sp.issparse(adjacency):
        matrix = sp.coo_array(adjacency)
        rows, cols, values = matrix.row, matrix.col, matrix.data
    elif isinstance(adjacency, np.ndarray | list):
        matrix = np.asarray(adjacency)
        if matrix.dtype.kind not in "biuf":
            raise ValueError(f"graph must be an adjacency matrix of numbers; got dtype {matrix.dtype}")
        rows, cols = np.nonzero(matrix)
        values = matrix[rows, cols]
    else:
        raise ValueError(
            "graph must be the path of a saved Graph, a Graph, or an (n, n) adjacency matrix (numpy or scipy "
            f"sparse); got {type(adjacency).__name__}"
        )
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 1:
        raise ValueError(
            f"graph must be a square (n, n) adjacency matrix with n >= 1; got shape {matrix.shape}"
        )
    if np.isnan(np.asarray(values, dtype=float)).any():
        raise ValueError("graph: the adjacency matrix holds NaN (an edge is a non-zero entry)")
    present = np.asarray(values) != 0
    links = np.stack([rows[present], cols[present]], axis=1).astype(np.int64)
    undirected = _symmetric_adjacency(matrix.shape[0], links)
    undirected.sort_indices()
    return Graph(
        undirected.indptr.astype(np.int64),
        undirected.indices.astype(np.int32),
        np.arange(matrix.shape[0], dtype=np.int32),
    )


def linking_instance(
    graph: Any,
    sets: Sequence[Any],
    gold: Any = None,
    *,
    graph_dir: str | os.PathLike | None = None,
) -> LinkingInstance:
    """The :class:`~decoders.linking.instance.LinkingInstance` of ``graph`` (as :func:`graph_file` takes it)
    and ``sets``: one sequence of distinct candidate vertex ids per mention, in rank order (decoders break
    ties towards the earlier candidate). ``gold``: the position of the right candidate in each set (-1: not
    among them; default: all -1), for :func:`decoders.linking.decoders.evaluate`. ValueError naming the
    argument (``LinkingInstance.<field>``) for no set, an empty set, a repeated or out-of-range vertex."""
    path = graph_file(graph, graph_dir)
    if isinstance(sets, str | bytes) or not isinstance(sets, Sequence | np.ndarray):
        raise ValueError(f"sets must be a sequence of candidate arrays; got {type(sets).__name__}")
    k = len(sets)
    gold = np.full(k, -1, dtype=np.int32) if gold is None else gold
    return LinkingInstance(path, sets, gold, tuple("" for _ in range(k)), "")


def decode(
    graph: Any,
    sets: Sequence[Any],
    method: str = "exact",
    *,
    graph_dir: str | os.PathLike | None = None,
    time_limit: float | None = None,
    verify: bool = True,
    **options: Any,
) -> Solution:
    """One candidate per set minimising the sum of the pairwise hop distances between the chosen vertices
    (MinDR; a pair in different components costs ``n``, the graph's vertex count): ``structure`` the chosen
    position in each set, ``objective`` the distance cost, ``bound`` a certified *lower* bound (a minimisation)
    from the exact methods: ``exact`` (CP-SAT; ``optimal``, or ``timeout`` with its best and its bound) and
    ``decomposable`` (Algorithm 1, exact on decomposable instances only: NotDecomposableError otherwise). The
    heuristics (``spanning-tree``, ``hitting-distance``, ``greedy``, ``degree``, ``pagerank``, ``retrieval``)
    return ``feasible`` without a bound.

    ``graph``, ``sets``, ``graph_dir``: as :func:`linking_instance`. ``method``: one of :data:`METHODS`;
    ``options``: the decoder's parameters (``connection``: ``maximal`` (each set made a clique, the default) or
    ``minimal``; ``max_candidates``; ``greedy``: ``seed``), a ConfigError naming one the method does not take.
    ``time_limit``, ``verify``: as :func:`decoders.harness.library.decode_instance`.

    >>> import numpy as np
    >>> path_graph = np.eye(5, k=1)  # the path 0 - 1 - 2 - 3 - 4
    >>> solution = decode(path_graph, [[0, 3], [4, 2]], method="exact")
    >>> solution.status, solution.structure.tolist(), solution.objective, solution.bound
    ('optimal', [1, 1], 1.0, 1.0)
    """
    decoder, defaults = method_of(METHODS, method, EXPERIMENT)
    instance = linking_instance(graph, sets, graph_dir=graph_dir)
    return decode_instance(
        EXPERIMENT, decoder, instance, {**defaults, **options}, time_limit=time_limit, verify=verify
    )
