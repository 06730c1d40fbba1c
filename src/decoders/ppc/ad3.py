"""The grandparent model solved by AD3 (Martins et al.'s alternating directions dual decomposition, the engine of
TurboParser; LGPL-3.0, built by :mod:`decoders.ppc.ad3_install`): the peer a practitioner would reach for.

The factor graph: one binary variable per candidate arc (its score as log-potential), one tree factor
(``PFactorTree``: non-projective arborescences rooted at 0, several root modifiers allowed, as in every ppc
decoder) over all of them, and one pair factor per grandparent part ``(g, p, c)`` over ``(x_gp, x_pc)`` with the
part's score. AD3's LP is therefore the arborescence polytope plus, per part, the pair's marginal polytope
``z <= x_gp``, ``z <= x_pc``, ``z >= x_gp + x_pc - 1``, ``z >= 0``: the LP of ``full-lp`` with ``polytope:
arcgp`` (ArcGP + GPArc) and every cycle inequality (``cycle_cuts: true``), which with OneHead describes the
arborescence polytope. :func:`solve` with ``exact`` runs AD3's branch and bound instead.

AD3's own bound is not reported and its stopping rule is not a certificate, so the bound is recomputed here
from AD3's dual variables ``lambda`` (one per factor-variable link): for any split ``w_fi`` of the arc scores
over the factors, ``sum_i max(0, s_i - sum_f w_fi) + sum_f max_{x in factor f} (w_f . x + part score)`` bounds
the LP (a Lagrangian relaxation of the copies' agreement), the tree factor's maximum by Chu-Liu-Edmonds and a
pair's by its four assignments. The splits tried are ``s_i / degree_i + c lambda`` for ``c`` in
:data:`DUAL_SCALES` (AD3's factor subproblems use ``c = 2``); the least bound is kept, widened by a bound on its
floating-point summation error. The objective: for the LP, the arc values AD3 returns (the agreed copies) and
each pair's value moved into its marginal polytope of those arcs; a tree's exact score for branch and bound.
``optimal`` only when the certified bound is within :data:`~decoders.ppc.lp.OPTIMALITY_GAP` of the objective's
terms, and the arc values lie within :data:`~decoders.ppc.lp.FEASIBILITY` of the tree factor's own copy (a
convex combination of trees) and of OneHead.

AD3 runs in C++ and cannot be interrupted: the LP stops at ``max_iterations``; the branch and bound, which has no
limit of its own, is stopped at the hard limit by the harness killing its worker (``timeout``) or, with
``child``, for in-process decoding (the quick tier), runs in a forked child killed at the deadline. Where AD3 is not installed every call raises :class:`AD3Unavailable` with the install step's
reason (``<sys.prefix>/ad3-build.json``).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import time
from typing import Any

import numpy as np

from decoders.checks import check_deadline, check_float, check_int
from decoders.errors import DecodersError
from decoders.parsing.checks import check_arc_scores
from decoders.parsing.mst import _chu_liu_edmonds
from decoders.ppc.lp import (
    FEASIBILITY,
    INTEGRALITY,
    OPTIMALITY_GAP,
    GrandparentScores,
    LPResult,
    all_parts,
    checked_scores,
)

#: the multiples of AD3's duals tried as the bound's split (module doc)
DUAL_SCALES = (2.0, 1.0, -1.0, -2.0, 0.0)
_UNIT = 2.0**-53
#: AD3's status strings (FactorGraph::solve)
AD3_STATUSES = ("integral", "fractional", "infeasible", "unsolved")


class AD3Unavailable(DecodersError):
    """AD3 is not installed in this environment (the reason from its install step)."""


def ad3_module() -> tuple[Any, Any]:
    """``(ad3, PFactorTree)``; :class:`AD3Unavailable` naming the install step's reason when AD3 cannot be
    imported."""
    try:
        import ad3
        from ad3.extensions import PFactorTree
    except ImportError as error:
        raise AD3Unavailable(f"AD3 not installed: {build_failure() or error}") from None
    return ad3, PFactorTree


def build_failure() -> str | None:
    """The reason ``python -m decoders.ppc.ad3_install`` recorded for a failed build, None when it recorded
    none (never run, or it succeeded)."""
    from decoders.ppc.ad3_install import marker_path

    path = marker_path()
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return "`python -m decoders.ppc.ad3_install` has not been run in this environment"
    if record.get("ok"):
        return None
    return f"the build failed at its {record.get('step')} step: {record.get('reason')}"


def ad3_version() -> str | None:
    """The installed AD3's version, None when it is not installed."""
    try:
        ad3, _ = ad3_module()
    except AD3Unavailable:
        return None
    return str(ad3.__version__)


def _candidate_arcs(arc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(arc_id, arcs)``: the (n + 1, n + 1) index of each candidate arc (finite, m > 0, h != m; -1 else) and
    the arcs as (A, 2) ``[h, m]`` rows in that order."""
    allowed = np.isfinite(arc)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    ids = np.full(arc.shape, -1, dtype=np.int64)
    ids[allowed] = np.arange(int(allowed.sum()))
    return ids, np.argwhere(allowed)


def _widened(total: float, terms: float, count: int) -> float:
    """``total`` plus a bound on the rounding error of summing ``count`` terms whose magnitudes sum to
    ``terms`` (and of the products before)."""
    return total + 2.0 * (count + 2) * _UNIT * terms + 1e-300


def dual_bound(
    arc_id: np.ndarray,
    arcs: np.ndarray,
    arc_scores: np.ndarray,
    pairs: np.ndarray,
    part_scores: np.ndarray,
    duals: np.ndarray,
) -> float:
    """The least certified Lagrangian bound over :data:`DUAL_SCALES` (module doc). ``pairs`` (k, 2): each part's
    two arc indices; ``duals``: AD3's, per link: the tree's ``A`` links first, then two per part."""
    count = len(arcs)
    degree = np.ones(count) + np.bincount(pairs.ravel(), minlength=count)
    tree_links, pair_links = duals[:count], duals[count:].reshape(-1, 2)
    best = math.inf
    for scale in DUAL_SCALES:
        share = arc_scores / degree
        w_tree = share + scale * tree_links
        w_pair = share[pairs] + scale * pair_links
        rest = arc_scores - w_tree - np.bincount(pairs.ravel(), weights=w_pair.ravel(), minlength=count)
        weights = np.full(arc_id.shape, -np.inf)
        weights[arcs[:, 0], arcs[:, 1]] = w_tree
        heads, tree_max = _chu_liu_edmonds(weights)
        first, second = w_pair[:, 0], w_pair[:, 1]
        pair_max = np.maximum(np.maximum(0.0, first), np.maximum(second, first + second + part_scores))
        total = float(np.maximum(rest, 0.0).sum() + tree_max + pair_max.sum())
        terms = float(
            np.abs(rest).sum() + np.abs(w_tree).sum() + (np.abs(w_pair).sum() + np.abs(part_scores).sum())
        )
        best = min(best, _widened(total, terms + abs(total), count + 3 * len(pairs) + len(heads)))
    return best


def _solve(graph: Any, options: dict) -> tuple:
    """``graph.solve(**options)``: (AD3's status, arc values, pair values, local copies, duals)."""
    _, posteriors, additional, status = graph.solve(**options)
    return (
        status,
        np.asarray(posteriors, dtype=float),
        np.asarray(additional, dtype=float),
        np.asarray(graph.get_local_primal_variables(), dtype=float),
        np.asarray(graph.get_dual_variables(), dtype=float),
    )


def _solve_until(graph: Any, options: dict, deadline: float) -> tuple | None:
    """:func:`_solve` in a forked child (AD3's C++ cannot be interrupted), killed at ``deadline``
    (:func:`time.perf_counter` seconds); None when it was. Where the harness isolates decoders it kills the whole
    worker at the limit anyway; this is what stops AD3 where it decodes in-process (the quick tier)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(graph, options, sender), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(max(0.0, deadline - time.perf_counter())):
            return None
        kind, payload = receiver.recv()
    except EOFError:
        raise RuntimeError(f"AD3's branch and bound died (exit code {child.exitcode})") from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    if kind == "error":
        raise RuntimeError(f"AD3's branch and bound failed: {payload}")
    return payload


def _child(graph: Any, options: dict, sender: Any) -> None:
    try:
        sender.send(("ok", _solve(graph, options)))
    except Exception as error:  # sent to the parent, which raises it
        sender.send(("error", f"{type(error).__name__}: {error}"))
    finally:
        sender.close()


def solve(
    arc: np.ndarray,
    scores: GrandparentScores,
    *,
    exact: bool = False,
    max_iterations: int = 1000,
    tolerance: float = 1e-6,
    eta: float = 0.1,
    normalize: bool = True,
    child: bool = False,
    deadline: float | None = None,
) -> LPResult:
    """AD3 on the grandparent model of ``arc`` ((n + 1, n + 1) first-order scores, ``-inf`` forbidden) and every
    part's ``scores``: its LP (``exact`` false: ``solve_lp_map_ad3``) or its branch and bound (``exact``), with
    ``max_iterations`` AD3 iterations (per LP of the branch and bound), residual ``tolerance`` and initial
    penalty ``eta`` (adapted); ``normalize``: the scores divided by a power of two that brings the largest
    to (0.5, 1] before AD3 sees them (AD3's penalty, tolerance and branching are absolute); ``child``: AD3
    runs in a forked child killed at ``deadline`` (20-50 ms more per call, measured; for in-process decoding,
    where no harness kills a worker). The graph's construction and the parts' scoring are inside the call; stats give
    the seconds of each, the AD3 status and whether it stopped at ``max_iterations`` (``iteration_cap``)."""
    ad3, tree_factor = ad3_module()
    for name, flag in (("exact", exact), ("normalize", normalize), ("child", child)):
        if not isinstance(flag, bool):
            raise ValueError(f"{name} must be true or false; got {flag!r}")
    max_iterations = check_int(max_iterations, "max_iterations", minimum=1)
    tolerance = check_float(tolerance, "tolerance", minimum=0.0)
    eta = check_float(eta, "eta", minimum=0.0)
    if eta <= 0.0 or tolerance <= 0.0:
        raise ValueError(f"eta and tolerance must be positive; got {eta!r}, {tolerance!r}")
    deadline = check_deadline(deadline)
    arc = check_arc_scores(arc, "arc")
    n = arc.shape[0] - 1
    start = time.perf_counter()
    stats: dict[str, Any] = {"parts_scored": 0, "parts_added": 0, "lp_solves": 0}
    heads = np.full(n + 1, -1, dtype=np.int64)
    if n == 0:
        return LPResult(heads, 0.0, 0.0, True, True, "optimal", stats)
    allowed = np.isfinite(arc)
    np.fill_diagonal(allowed, False)
    if (~allowed[:, 1:].any(axis=0)).any():  # a word without a head: no tree (AD3's tree factor would fail)
        return LPResult(heads, -math.inf, -math.inf, True, True, "optimal", stats)
    arc_id, arcs = _candidate_arcs(arc)
    parts = all_parts(arc_id)
    part_scores = checked_scores(scores, parts)
    pairs = np.stack([arc_id[parts[:, 0], parts[:, 1]], arc_id[parts[:, 1], parts[:, 2]]], axis=1)
    arc_scores = arc[arcs[:, 0], arcs[:, 1]]
    stats.update(parts_scored=len(parts), parts_added=len(parts))
    scored = time.perf_counter()

    # AD3's penalty (eta) and residual tolerance are absolute and its branching adds +-1000 to a potential:
    # the scores go in divided by a power of two (exact) that brings the largest to (0.5, 1]; the duals come
    # back multiplied by it
    largest = max(float(np.abs(arc_scores).max(initial=0.0)), float(np.abs(part_scores).max(initial=0.0)))
    scale = 2.0 ** math.ceil(math.log2(largest)) if normalize and largest > 0 else 1.0
    graph = ad3.PFactorGraph()
    variables = []
    for score in (arc_scores / scale).tolist():
        variable = graph.create_binary_variable()
        variable.set_log_potential(score)
        variables.append(variable)
    tree = tree_factor()
    graph.declare_factor(tree, variables)
    tree.initialize(n + 1, [(int(h), int(m)) for h, m in arcs])
    for (first, second), score in zip(pairs.tolist(), (part_scores / scale).tolist(), strict=True):
        graph.create_factor_pair([variables[first], variables[second]], score)
    built = time.perf_counter()
    options = {
        "eta": eta,
        "adapt": True,
        "max_iter": max_iterations,
        "tol": tolerance,
        "branch_and_bound": exact,
    }
    if child and deadline is not None:  # AD3's branch and bound has no limit of its own: a child stops at it
        answer = _solve_until(graph, options, deadline)
        if answer is None:
            stats.update(
                seconds_scoring=scored - start, seconds_build=built - scored, ad3_version=ad3.__version__
            )
            return LPResult(heads, math.nan, math.inf, False, False, "timeout", stats)
    else:
        answer = _solve(graph, options)
    solved = time.perf_counter()
    status, x, z, local, duals = answer
    duals = duals * scale
    if x.shape != (len(arcs),) or z.shape != (len(parts),) or duals.shape != (len(arcs) + 2 * len(parts),):
        raise RuntimeError(
            f"AD3 returned {x.shape} arc values, {z.shape} pair values and {duals.shape} duals for "
            f"{len(arcs)} arcs and {len(parts)} parts"
        )
    bound = dual_bound(arc_id, arcs, arc_scores, pairs, part_scores, duals)
    values = np.full(arc.shape, -np.inf)
    values[arcs[:, 0], arcs[:, 1]] = x
    heads, _ = _chu_liu_edmonds(values)
    integral = bool(np.all(np.minimum(np.abs(x), np.abs(1.0 - x)) <= INTEGRALITY))
    residual = max(
        float(np.abs(local[: len(arcs)] - x).max(initial=0.0)),
        float(np.abs(np.bincount(arcs[:, 1], weights=x, minlength=n + 1)[1:] - 1.0).max()),
        float(np.maximum(-x, x - 1.0).max(initial=0.0)),
    )
    if exact:  # a tree: its exact score (heads from the arcs at 1, or the best tree under fractional values)
        on = np.zeros(len(arcs))
        on[arc_id[heads[1:], np.arange(1, n + 1)]] = 1.0
        chosen = on[pairs[:, 0]] * on[pairs[:, 1]]
        objective = float(arc_scores @ on + part_scores @ chosen)
        magnitude = float(np.abs(arc_scores) @ on + np.abs(part_scores) @ chosen)
        feasible = True
    else:
        low = np.maximum(0.0, x[pairs[:, 0]] + x[pairs[:, 1]] - 1.0)
        pair_values = np.clip(z, low, np.minimum(x[pairs[:, 0]], x[pairs[:, 1]]))
        objective = float(arc_scores @ x + part_scores @ pair_values)
        magnitude = float(np.abs(arc_scores) @ np.abs(x) + np.abs(part_scores) @ np.abs(pair_values))
        feasible = residual <= FEASIBILITY
    rounding = 2.0 * (len(arcs) + len(parts) + 2) * _UNIT * magnitude
    gap = bound - objective
    optimal = feasible and gap <= OPTIMALITY_GAP * (1.0 + magnitude) + 2.0 * rounding
    cap = status == "unsolved"
    stats.update(
        lp_solves=1,
        ad3_version=str(ad3.__version__),
        ad3_status=status,
        iteration_cap=bool(cap),
        score_scale=scale,
        residual=residual,
        relative_gap=gap / (1.0 + magnitude),
        seconds_scoring=scored - start,
        seconds_build=built - scored,
        seconds_solve=solved - built,
    )
    if status == "infeasible":
        raise RuntimeError(f"AD3 reported the factor graph infeasible ({n} words, every word has a head)")
    result_status = "optimal" if optimal else "feasible"
    if deadline is not None and time.perf_counter() > deadline and not optimal:
        result_status = "timeout"
    return LPResult(heads, objective, bound, optimal, integral, result_status, stats, arc_values=values)
