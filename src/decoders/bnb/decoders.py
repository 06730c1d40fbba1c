"""The bnb decoders, registered for the harness, the UAS evaluation and the certificate check.

Every decoder takes a :class:`~decoders.bnb.instance.ParseInstance`, loads the instance's model and pruner once
per process (the harness's untimed warm-up call does it), and inside the timed call prunes the sentence again
(section 4.4: the pruner's first-order scores of every arc and the k best heads per word it keeps,
:func:`decoders.bnb.model.prune_heads`; nothing for an unpruned instance), refusing an instance whose stored
``allowed`` that pruner does not reproduce, then scores the sentence over the kept arcs (arcs, second-order
parts, non-local factors: pruning and scoring are part of parsing, as in the paper's words per second) and
returns the heads as ``structure`` (``heads[1:]``, 1-based, 0 = root). Objectives and bounds are in the units
of the model's integer weight numerator, so every score is an exact integer. ``eisner``, ``second-order`` and
``third-order`` are exact dynamic programs (``optimal``, bound = objective); ``bnb`` is branch and bound,
``optimal`` only when its certificate holds (:mod:`decoders.bnb.search`), else ``feasible`` (stopped by the time
limit or the node limit) with the largest open bound; ``timeout`` with no structure if it stopped before finding
any tree. A model whose weights could make a sentence's tree scores pass 2^53 is refused for it
(CorpusFormatError naming the file).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from decoders.bnb.audit import solve_exact
from decoders.bnb.instance import ParseInstance
from decoders.bnb.model import NonLocalStructure, check_exact_range, prune_heads, structure_of
from decoders.bnb.search import STEP_RULES
from decoders.checks import cached_by_path
from decoders.errors import ConfigError, CorpusFormatError
from decoders.harness.protocol import Solution, register
from decoders.parsing.model import ParserModel
from decoders.parsing.perceptron import LocalStructure
from decoders.parsing.trees import enumerate_trees, is_projective, structure_error, tree_error

EXPERIMENT = "bnb"

#: Sentences up to this length are checked by enumerating every projective tree the pruning allows.
VERIFY_ENUMERATE = 7


@cached_by_path(maxsize=4)
def load_model(path: str) -> tuple[ParserModel, LocalStructure | NonLocalStructure]:
    model = ParserModel.load(path)
    return model, structure_of(model.structure, model.vocabulary)


@cached_by_path(maxsize=4)
def load_pruner(path: str) -> np.ndarray:
    """The pruner's weights (the head classifier's numerator: the pruning keeps each word's k best heads, so the
    denominator does not matter), read once per process."""
    return ParserModel.load(path).numerator


def _unpruned(n: int) -> np.ndarray:
    """Every arc of a sentence of ``n`` words but those into the root and the loops."""
    mask = np.ones((n + 1, n + 1), dtype=bool)
    mask[:, 0] = False
    np.fill_diagonal(mask, False)
    return mask


def pruned_arcs(instance: ParseInstance) -> np.ndarray:
    """The arcs the decoders may use, computed inside their timed call: the pruner's k best heads per word
    (:func:`decoders.bnb.model.prune_heads` with the instance's ``pruner`` and ``k``), every arc when unpruned.
    ConfigError when they differ from the instance's ``allowed`` (it was built with another pruner or k)."""
    if not isinstance(instance, ParseInstance):
        raise ConfigError(f"a bnb decoder takes a ParseInstance, got {type(instance).__name__}")
    if instance.pruner is None:
        allowed = _unpruned(instance.n)
    else:
        allowed = prune_heads(instance.tokens, load_pruner(instance.pruner), instance.k)
    if not np.array_equal(allowed, instance.allowed):
        what = (
            "no pruning" if instance.pruner is None else f"the pruner {instance.pruner} at k = {instance.k}"
        )
        raise ConfigError(
            f"the instance's allowed arcs are not those {what} keeps: it was built with another pruner "
            "(rebuild the instance set)"
        )
    return allowed


@lru_cache(maxsize=4)
def _largest_weight(path: str) -> float:
    """The largest |weight| of a model's numerator (read once per process, as the model is)."""
    return float(np.abs(load_model(path)[0].numerator).max())


def _check_exact(instance: ParseInstance, structure: LocalStructure | NonLocalStructure) -> None:
    """CorpusFormatError naming the model file when its weights could make this sentence's tree scores pass
    2^53 (:func:`decoders.bnb.model.check_exact_range`): the objectives and bounds reported in the numerator's
    units would no longer be exact, and branch and bound's grid certificate would not hold."""
    groups = getattr(structure, "groups", ())
    order = getattr(structure, "order", 2)
    try:
        check_exact_range(_largest_weight(instance.model), instance.n, groups, order, "the model's weights")
    except ValueError as exc:
        raise CorpusFormatError(instance.model, None, str(exc)) from exc


def _expect(structure: Any, kind: type, name: str, path: str) -> None:
    if not isinstance(structure, kind):
        raise ConfigError(f"decoder {name!r} cannot use the model {path} ({type(structure).__name__})")


def _tree_solution(heads: np.ndarray, score: float, instance: ParseInstance, **stats: Any) -> Solution:
    stats = {"words": instance.n, **stats}
    return Solution(heads[1:].tolist(), score, score, "optimal", stats)


def _decode_local(instance: ParseInstance, name: str, order: int) -> Solution:
    model, structure = load_model(instance.model)
    _expect(structure, LocalStructure, name, instance.model)
    if structure.order != order:
        raise ConfigError(
            f"decoder {name!r} needs an order-{order} model; {instance.model} is order {structure.order}"
        )
    _check_exact(instance, structure)
    allowed = pruned_arcs(instance)
    heads = structure.decode(instance.tokens, model.numerator, allowed)
    return _tree_solution(heads, _score(instance, heads), instance)


@register(EXPERIMENT, "eisner")
def decode_eisner(instance: ParseInstance, *, deadline: float | None = None) -> Solution:
    """First-order Eisner over the allowed arcs."""
    return _decode_local(instance, "eisner", 1)


@register(EXPERIMENT, "second-order")
def decode_second_order(instance: ParseInstance, *, deadline: float | None = None) -> Solution:
    """The baseline: the second-order DP (arcs, adjacent siblings, outermost grandchildren)."""
    return _decode_local(instance, "second-order", 2)


@register(EXPERIMENT, "third-order")
def decode_third_order(instance: ParseInstance, *, deadline: float | None = None) -> Solution:
    """The paper's "3rd order re-impl." row: Koo and Collins (2010) Model 1 (grand-siblings)."""
    return _decode_local(instance, "third-order", 3)


@register(EXPERIMENT, "bnb")
def decode_bnb(
    instance: ParseInstance,
    *,
    deadline: float | None = None,
    max_iterations: int = 100,
    epsilon: float = 1e-8,
    max_nodes: int = 100_000,
    max_open_mb: int | None = 512,
    step_rule: str = "normalized",
    fixing: bool = True,
) -> Solution:
    """Algorithm 1 with the second-order backbone and the model's factor groups (``step_rule``, ``fixing`` and
    ``max_open_mb``, the search's memory for one level's nodes in MiB (null: none):
    :func:`decoders.bnb.search.branch_and_bound`)."""
    settings = search_settings(
        max_iterations=max_iterations,
        epsilon=epsilon,
        max_nodes=max_nodes,
        max_open_mb=max_open_mb,
        step_rule=step_rule,
        fixing=fixing,
    )
    model, structure = load_model(instance.model)
    _expect(structure, NonLocalStructure, "bnb", instance.model)
    _check_exact(instance, structure)
    configured = replace(structure, **settings)
    allowed = pruned_arcs(instance)
    result, factors = configured.solve(instance.tokens, model.numerator, allowed, deadline)
    stats = {"words": instance.n, "factors": factors, **result.stats}
    if result.heads is None:  # stopped before any tree was found
        return Solution(None, math.nan, result.bound, "timeout", stats)
    return Solution(result.heads[1:].tolist(), result.objective, result.bound, result.status, stats)


def search_settings(
    *,
    max_iterations: int = 100,
    epsilon: float = 1e-8,
    max_nodes: int = 100_000,
    max_open_mb: int | None = 512,
    step_rule: str = "normalized",
    fixing: bool = True,
) -> dict[str, Any]:
    """A ``bnb`` variant's parameters, checked (ConfigError naming a bad one), as the
    :class:`~decoders.bnb.model.NonLocalStructure` fields they set (``dataclasses.replace``)."""
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations < 1:
        raise ConfigError(f"max_iterations must be an integer >= 1; got {max_iterations!r}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ConfigError(f"max_nodes must be an integer >= 1; got {max_nodes!r}")
    if max_open_mb is not None and (
        isinstance(max_open_mb, bool) or not isinstance(max_open_mb, int) or max_open_mb < 1
    ):
        raise ConfigError(f"max_open_mb must be an integer >= 1 or null; got {max_open_mb!r}")
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, int | float)
        or not math.isfinite(epsilon)
        or epsilon < 0
    ):
        raise ConfigError(f"epsilon must be a finite number >= 0; got {epsilon!r}")
    if not isinstance(step_rule, str) or step_rule not in STEP_RULES:
        raise ConfigError(f"step_rule must be one of {list(STEP_RULES)}; got {step_rule!r}")
    if not isinstance(fixing, bool):
        raise ConfigError(f"fixing must be true or false; got {fixing!r}")
    return {
        "max_iterations": max_iterations,
        "epsilon": float(epsilon),
        "max_nodes": max_nodes,
        "max_open_bytes": None if max_open_mb is None else max_open_mb << 20,
        "step_rule": step_rule,
        "fixing": fixing,
    }


@register(EXPERIMENT, "cp-sat")
def decode_cp_sat(
    instance: ParseInstance,
    *,
    deadline: float | None = None,
    workers: int = 1,
    max_words: int | None = None,
    min_words: int = 1,
) -> Solution:
    """The exactness audit: the B&B model (second-order parts and the model's factor groups) solved by CP-SAT as
    one integer program (:mod:`decoders.bnb.audit`), independent of branch and bound. A sentence longer than
    ``max_words`` or shorter than ``min_words`` is not attempted (status ``timeout``, no tree, ``not_attempted``
    in its stats): the program grows as n^4, so long sentences get a variant of their own with a longer limit
    (config/bnb.yaml's ``audit.beyond``), and a variant for them leaves the short ones to the other."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be an integer >= 1; got {workers!r}")
    if max_words is not None and (
        isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1
    ):
        raise ConfigError(f"max_words must be an integer >= 1 or null; got {max_words!r}")
    if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 1:
        raise ConfigError(f"min_words must be an integer >= 1; got {min_words!r}")
    if (max_words is not None and instance.n > max_words) or instance.n < min_words:
        return Solution(None, math.nan, math.nan, "timeout", {"words": instance.n, "not_attempted": True})
    model, structure = load_model(instance.model)
    _expect(structure, NonLocalStructure, "cp-sat", instance.model)
    _check_exact(instance, structure)
    allowed = pruned_arcs(instance)
    backbone, factors = structure.parts(instance.tokens, model.numerator, allowed)
    left = math.inf if deadline is None else deadline - time.perf_counter()
    if left <= 0:  # already passed: no time to give the solver (it would stop in presolve, knowing nothing)
        return Solution(None, math.nan, None, "timeout", {"words": instance.n, "factors": len(factors)})
    result = solve_exact(backbone, factors, time_limit=min(left, 1e6), workers=workers)
    stats = {"words": instance.n, "factors": len(factors), **result.stats}
    structure_out = None if result.heads is None else result.heads[1:].tolist()
    return Solution(structure_out, result.objective, result.bound, result.status, stats)


def tree_score(instance: ParseInstance, heads: Any) -> float:
    """The exact score of a tree under the instance's model: the summed numerator weights of the features it
    fires. ``heads`` is the full head array (``heads[0] = -1``, then each word's head); a ValueError names the
    argument unless it is a tree of the sentence. What a decoder of one's own scores its trees with."""
    if not isinstance(instance, ParseInstance):
        raise ValueError(f"instance must be a ParseInstance; got {type(instance).__name__}")
    heads = np.asarray(heads)
    if heads.shape != (instance.n + 1,) or heads.dtype.kind not in "iu":
        raise ValueError(
            f"heads must be {instance.n + 1} integers (heads[0] = -1); got {heads.dtype} {heads.shape}"
        )
    problem = tree_error(heads)
    if problem is not None:
        raise ValueError(f"heads: {problem}")
    return _score(instance, heads)


def _score(instance: ParseInstance, heads: np.ndarray) -> float:
    """The model's exact score of a tree: the summed numerator weights of the features it fires."""
    model, structure = load_model(instance.model)
    size = model.numerator.shape[0]
    return float(model.numerator[structure.features(instance.tokens, heads, size)].sum())


def _check_arguments(instance: Any, solution: Any) -> None:
    """ValueError naming ``instance`` unless it is a ParseInstance, and ``solution`` unless it is a Solution."""
    if not isinstance(instance, ParseInstance):
        raise ValueError(f"instance must be a ParseInstance; got {type(instance).__name__}")
    if not isinstance(solution, Solution):
        raise ValueError(f"solution must be a Solution; got {type(solution).__name__}")


def evaluate(instance: ParseInstance, solution: Solution) -> dict[str, int]:
    """Correct heads and scored words (UAS without punctuation)."""
    _check_arguments(instance, solution)
    if solution.structure is None or len(solution.structure) != instance.n:
        raise ValueError(f"solution.structure must hold {instance.n} heads")
    heads = np.asarray(solution.structure, dtype=np.int64)
    correct = int(np.count_nonzero((heads == instance.gold[1:]) & instance.scored))
    return {"correct": correct, "total": int(np.count_nonzero(instance.scored))}


def check_structure(instance: ParseInstance, structure: Any) -> str | None:
    """Why ``structure`` is not a parse of ``instance`` in this experiment's space (None when it is): one integer
    head per word, forming a single-rooted projective tree over the arcs the pruning allowed. The harness applies
    it to every record with a structure (:func:`decoders.harness.protocol.get_structure_check`)."""
    if not isinstance(instance, ParseInstance):
        raise ValueError(f"instance must be a ParseInstance; got {type(instance).__name__}")
    heads, problem = structure_error(structure, instance.n)
    if problem is not None:
        return problem
    if not is_projective(heads):
        return "the tree is not projective"
    if not instance.allowed[heads[1:], np.arange(1, instance.n + 1)].all():
        return "the tree uses an arc the pruning removed"
    return None


def exact_check(instance: ParseInstance, solution: Solution, time_limit: float) -> tuple[str | None, str]:
    """A user's decoder's ``optimal`` claim beyond :func:`verify`'s enumeration, set against the project's exact
    decoder of the instance's model within ``time_limit`` seconds (:func:`decoders.harness.protocol.get_exact_check`):
    the dynamic program of a first-, second- or third-order model (Eisner, the second-order DP, Koo and Collins's
    Model 1), branch and bound for a model with factor groups. ``(reason, "rejected")`` when it finds a tree that
    scores more (scores are exact integers: no tolerance), ``(None, "confirmed")`` when it proves the claimed score
    optimal (or :func:`verify` enumerated every tree), else ``(None, "undecided")``."""
    _check_arguments(instance, solution)
    if instance.n <= VERIFY_ENUMERATE:
        return None, "confirmed"  # verify enumerated every tree
    _, structure = load_model(instance.model)
    if isinstance(structure, LocalStructure):
        name = {1: "eisner", 2: "second-order", 3: "third-order"}[structure.order]
        found = _decode_local(instance, name, structure.order)
    else:
        found = decode_bnb(instance, deadline=time.perf_counter() + time_limit)
    if found.structure is not None and found.objective > solution.objective:
        return (
            f"the model's exact decoder finds {found.structure} scoring {found.objective!r} > objective {solution.objective!r}",
            ("rejected"),
        )
    return None, "confirmed" if found.status == "optimal" else "undecided"


def verify(instance: ParseInstance, solution: Solution) -> str | None:
    """The harness's certificate check of an ``optimal`` Solution: the structure is a single-rooted projective
    tree over the allowed arcs; its score recomputed from the model's features equals the objective exactly
    (integer weights); the bound equals the objective; and, up to :data:`VERIFY_ENUMERATE` words, no projective
    tree over the allowed arcs scores more. Returns None when everything holds, else the reason."""
    _check_arguments(instance, solution)
    if solution.structure is None:
        return f"structure must hold {instance.n} heads"
    problem = check_structure(instance, solution.structure)
    if problem is not None:
        return problem
    heads = np.concatenate([[-1], np.asarray(solution.structure, dtype=np.int64)])
    score = _score(instance, heads)
    if score != solution.objective:
        return f"the tree scores {score!r}, not the objective {solution.objective!r}"
    if solution.bound != solution.objective:
        return f"bound {solution.bound!r} differs from the objective {score!r}"
    if instance.n <= VERIFY_ENUMERATE:
        for tree in enumerate_trees(instance.n, instance.allowed):
            other = _score(instance, tree)
            if other > score:
                return f"the tree {tree[1:].tolist()} scores {other!r} > {score!r}"
    return None
