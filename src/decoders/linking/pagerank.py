"""PageRank of an undirected CSR graph by power iteration (numba), matching ``networkx.pagerank``.

Each undirected edge is followed both ways, so a vertex passes ``damping * rank / degree`` to each neighbour;
isolated (dangling) vertices spread their rank uniformly, and ``1 - damping`` teleports uniformly, as networkx
does with its default personalization. Iteration stops when the L1 change falls below ``n * tol`` (networkx's
criterion), or raises after ``max_iter`` rounds.
"""

from __future__ import annotations

import numba
import numpy as np

from decoders.checks import check_float, check_int
from decoders.linking.checks import check_csr


@numba.njit(cache=True, nogil=True)
def _power_iteration(indptr, indices, damping, tol, max_iter):
    n = indptr.shape[0] - 1
    degree = np.empty(n, np.float64)
    for v in range(n):
        degree[v] = indptr[v + 1] - indptr[v]
    rank = np.full(n, 1.0 / n)
    share = np.empty(n, np.float64)
    new = np.empty(n, np.float64)
    for iteration in range(1, max_iter + 1):
        dangling = 0.0
        for v in range(n):
            if degree[v] > 0:
                share[v] = rank[v] / degree[v]
            else:
                share[v] = 0.0
                dangling += rank[v]
        base = (damping * dangling + 1.0 - damping) / n
        change = 0.0
        for v in range(n):
            total = 0.0
            for e in range(indptr[v], indptr[v + 1]):
                total += share[indices[e]]
            new[v] = base + damping * total
            change += abs(new[v] - rank[v])
        rank, new = new, rank
        if change < n * tol:
            return rank, iteration
    return rank, -1


def pagerank(
    indptr: np.ndarray, indices: np.ndarray, damping: float = 0.85, tol: float = 1e-10, max_iter: int = 200
) -> np.ndarray:
    """PageRank of every vertex (float64, sums to 1) of the undirected graph in CSR form.

    Checked first (ValueError naming the argument): a well-formed CSR graph, ``damping`` in ``0..1``, ``tol``
    finite and > 0, ``max_iter`` an integer >= 1. RuntimeError when it does not converge within ``max_iter``.
    """
    indptr, indices = check_csr(indptr, indices)
    damping = check_float(damping, "damping", minimum=0.0)
    if damping > 1:
        raise ValueError(f"damping must lie in 0..1, got {damping!r}")
    tol = check_float(tol, "tol", positive=True)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    return _pagerank(indptr, indices, damping, tol, max_iter)


def _pagerank(
    indptr: np.ndarray, indices: np.ndarray, damping: float = 0.85, tol: float = 1e-10, max_iter: int = 200
) -> np.ndarray:
    """:func:`pagerank` on checked arguments (the decoder's and the scaling table's path)."""
    if indptr.shape[0] < 2:
        return np.zeros(0, dtype=np.float64)
    rank, iterations = _power_iteration(indptr, indices, float(damping), float(tol), int(max_iter))
    if iterations < 0:
        raise RuntimeError(f"PageRank did not converge to tol={tol} within {max_iter} iterations")
    return rank
