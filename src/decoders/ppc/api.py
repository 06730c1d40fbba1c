"""Dependency parsing as a library: the best tree of one's own arc (and grandparent) scores.

:func:`parse` takes raw scores, as a user who has their own scorer holds them, and returns a
:class:`~decoders.harness.protocol.Solution` with status, objective, bound and certificate, checked from the
scores alone before it is returned.

Why it lives here. First-order decoding (Eisner, Chu-Liu-Edmonds) belongs to :mod:`decoders.parsing`, the layer
below the experiments; the grandparent LPs (full LP, parse-price-cut, ILP) are the ppc experiment's
(:mod:`decoders.ppc.lp`). One entry point over both cannot sit in ``decoders.parsing`` without importing an
upper layer, so it sits in the ppc package, which may import parsing. Its methods are exactly what the
registered ``ppc`` decoders run once they have scored an instance (``mst``, ``full-lp``, ``ppc``, ``ilp``),
plus bnb's first-order ``eisner``.

Not methods here, because they need trained models rather than score arrays: bnb's ``second-order``,
``third-order``, ``bnb`` (branch and bound) and ``cp-sat`` (their parts and non-local factor groups are
scored from token features with a model's weights, inside the decoder), and ppc's ``ppc-audit`` (an audit
of ``ppc`` that rescores every part from the model).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from decoders.errors import ConfigError
from decoders.harness.library import deadline_of, method_of
from decoders.harness.protocol import Solution
from decoders.harness.runner import checked
from decoders.parsing.checks import check_arc_scores, check_cube
from decoders.parsing.eisner import eisner
from decoders.parsing.mst import chu_liu_edmonds
from decoders.parsing.trees import enumerate_trees, is_projective, tree_error
from decoders.ppc.lp import DenseGrandparents, LPResult, brute_force, integer_program, parse_price_cut
from decoders.ppc.model import gold_parts

#: Method -> (what runs, default options): the first-order methods take arc scores only, the LPs grandparent
#: scores too.
METHODS: dict[str, tuple[str, dict[str, Any]]] = {
    name: (name, {}) for name in ("eisner", "mst", "full-lp", "ppc", "ilp")
}
FIRST_ORDER = ("eisner", "mst")

#: Trees up to this many words are checked against every tree (first-order methods).
VERIFY_ENUMERATE = 6
#: Relative tolerance of the first-order checks (of ``sum |terms|``); the LPs' is theirs (1e-6).
VERIFY_RTOL = 1e-9
LP_RTOL = 1e-6


def parse(
    arc_scores: Any,
    grandparent_scores: Any = None,
    method: str = "mst",
    *,
    time_limit: float | None = None,
    verify: bool = True,
    **options: Any,
) -> Solution:
    """The best dependency tree of a sentence of ``n`` words.

    ``arc_scores``: ``(n + 1, n + 1)``, ``[h, m]`` the score of the arc ``h -> m`` (0 the root, words ``1..n``),
    finite or ``-inf`` (a forbidden arc; the diagonal and column 0 are never used). ``grandparent_scores``:
    ``(n + 1, n + 1, n + 1)``, ``[g, p, c]`` the score of the arcs ``g -> p -> c`` together (finite; entries of
    no part, ``p = 0`` or ``g = c``, are never used), required by the LP methods and refused by the first-order
    ones. ``method``:

    * ``eisner``: projective, one root modifier (Eisner's dynamic program, exact: ``optimal``);
    * ``mst``: non-projective, the root may take several modifiers (Chu-Liu-Edmonds, exact: ``optimal``);
    * ``full-lp``: the grandparent LP over every part (options ``polytope``, ``rows``, ``cycle_cuts``);
    * ``ppc``: the same LP by parse, price and cut, scoring only what pricing cannot rule out (options
      ``tighten``, ``start``, ``columns_per_word``, ``rows``, ``no_gp``, ``primal``);
    * ``ilp``: the grandparent model's best tree (``ppc``, then branch and bound when its LP is fractional).

    The LP methods report the LP objective and a certified bound (``optimal`` when they meet within 1e-6
    relative); ``structure`` is the tree read from the LP (its arcs when ``stats["integral"]``, else the MST
    of the fractional arc values). ``structure`` is ``heads[1:]``: each word's head (0 the root). No tree over
    the allowed arcs: ``structure`` None, objective and bound ``-inf``, ``optimal``. With ``verify`` (the
    default) an ``optimal`` claim is checked from the scores: a first-order tree is a tree (projective for
    Eisner) whose arcs score the objective, equal to the bound, and up to :data:`VERIFY_ENUMERATE` words no
    tree scores more; an LP's bound is not below its objective, and an integral solution's tree scores its
    objective. A failed check gives an ``error`` Solution with the reason. ``time_limit``: seconds (the LPs
    stop with ``timeout``; the first-order methods take microseconds and do not stop early).

    ValueError naming the argument for a wrong shape, NaN or ``+inf``; ConfigError for an unknown method
    (listing the known ones) or an option the method does not take.

    >>> import numpy as np
    >>> arc = np.zeros((4, 4))
    >>> arc[0, 2] = arc[2, 1] = arc[1, 3] = 5.0  # root -> 2 -> 1 -> 3: the arcs 0 -> 2 and 1 -> 3 cross
    >>> parse(arc, method="mst").structure, parse(arc, method="mst").objective
    ([2, 0, 1], 15.0)
    >>> parse(arc, method="eisner").structure, parse(arc, method="eisner").objective
    ([2, 0, 2], 10.0)
    >>> gp = np.zeros((4, 4, 4))
    >>> gp[0, 2, 3] = 6.0  # root -> 2 -> 3 together
    >>> solution = parse(arc, gp, method="ppc")
    >>> solution.status, solution.structure, solution.objective, solution.stats["integral"]
    ('optimal', [2, 0, 2], 16.0, True)
    """
    kind, defaults = method_of(METHODS, method, "parse")
    options = {**defaults, **options}
    if not isinstance(verify, bool):
        raise ValueError(f"verify must be True or False; got {verify!r}")
    arc = check_arc_scores(arc_scores, "arc_scores")
    n = arc.shape[0] - 1
    if kind in FIRST_ORDER:
        if grandparent_scores is not None:
            raise ValueError(f"grandparent_scores: method {method!r} is first-order; pass None")
        if options:
            raise ConfigError(f"method {method!r} takes no options; got {', '.join(sorted(options))}")
        deadline_of(time_limit)  # checked; a first-order parse takes microseconds
        solution = _first_order(arc, kind)
        gp = None
    else:
        if grandparent_scores is None:
            raise ValueError(f"grandparent_scores are required by method {method!r}: an (n + 1)^3 array")
        gp = check_cube(grandparent_scores, "grandparent_scores", (n + 1,) * 3, forbid=False)
        solution = _lp(arc, gp, kind, options, deadline_of(time_limit))
    if not verify:
        return solution
    return checked(lambda _, claimed: _certificate_problem(arc, gp, kind, claimed), None, solution)


def _first_order(arc: np.ndarray, kind: str) -> Solution:
    heads, score = (eisner if kind == "eisner" else chu_liu_edmonds)(arc)
    stats = {"words": arc.shape[0] - 1}
    if score == -math.inf:
        return Solution(None, -math.inf, -math.inf, "optimal", {**stats, "infeasible": True})
    return Solution(heads[1:].tolist(), float(score), float(score), "optimal", stats)


def _lp(arc: np.ndarray, gp: np.ndarray, kind: str, options: dict, deadline: float | None) -> Solution:
    scores = DenseGrandparents(gp)
    solve = {"full-lp": brute_force, "ppc": parse_price_cut, "ilp": integer_program}[kind]
    try:
        result: LPResult = solve(arc, scores, deadline=deadline, **options)
    except TypeError as exc:  # an option the LP does not take: named, as the registered decoders name it
        raise ConfigError(f"method {kind!r}: {exc}") from None
    stats = {"words": arc.shape[0] - 1, **result.stats, "parts_scored": scores.scored}
    stats["integral"] = bool(result.integral)
    if result.objective == -math.inf:
        return Solution(None, -math.inf, -math.inf, "optimal", {**stats, "infeasible": True})
    structure = None if (result.heads[1:] < 0).any() else result.heads[1:].tolist()
    return Solution(structure, result.objective, result.bound, result.status, stats)


def _certificate_problem(arc: Any, gp: Any, method: str, solution: Solution) -> str | None:
    """Why ``solution`` (an ``optimal`` claim of :func:`parse`'s ``method`` on ``arc`` and, for the LPs, ``gp``)
    is not certified by the scores alone, or None when it is (see :func:`parse`)."""
    arc = check_arc_scores(arc, "arc")
    n = arc.shape[0] - 1
    first_order = method in FIRST_ORDER
    single_root = method == "eisner"
    trees = None
    if first_order and n <= VERIFY_ENUMERATE:
        trees = enumerate_trees(n, np.isfinite(arc), projective=single_root, single_root=single_root)
    if solution.structure is None:
        if solution.objective != -math.inf or solution.bound != -math.inf:
            return f"no tree, but objective {solution.objective!r} and bound {solution.bound!r} are not -inf"
        if trees is not None and len(trees):
            return f"no tree claimed, but {trees[0][1:].tolist()} is one"
        return None
    if len(solution.structure) != n:
        return f"structure must hold {n} heads; got {len(solution.structure)}"
    heads = np.concatenate([[-1], np.asarray(solution.structure, dtype=np.int64)])
    problem = tree_error(heads, single_root=single_root)
    if problem is not None:
        return f"not a tree: {problem}"
    if single_root and not is_projective(heads):
        return "eisner's tree is not projective"
    terms = arc[heads[1:], np.arange(1, n + 1)]
    if not first_order:
        g, p, c = gold_parts(heads)
        terms = np.concatenate([terms, gp[g, p, c]])
    score, scale = float(terms.sum()), float(np.abs(terms).sum())
    objective, bound = solution.objective, solution.bound
    if not first_order:
        tolerance = LP_RTOL * (1.0 + abs(objective))
        if bound is None or bound < objective - tolerance:
            return f"bound {bound!r} below the objective {objective!r}"
        if solution.stats.get("integral") and abs(score - objective) > tolerance:
            return f"the integral solution's tree scores {score!r}, not the objective {objective!r}"
        return None
    tolerance = VERIFY_RTOL * scale
    if abs(score - objective) > tolerance or bound is None or abs(bound - objective) > tolerance:
        return f"the tree scores {score!r}; objective {objective!r}, bound {bound!r}"
    if trees is not None:
        others = arc[trees[:, 1:], np.arange(1, n + 1)].sum(axis=1)
        best = int(np.argmax(others))
        other_scale = float(np.abs(arc[trees[best, 1:], np.arange(1, n + 1)]).sum())
        if others[best] - score > VERIFY_RTOL * max(scale, other_scale):
            return f"the tree {trees[best][1:].tolist()} scores {float(others[best])!r} > {score!r}"
    return None
