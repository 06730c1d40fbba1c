"""The decoder protocol shared by every experiment: the Solution a decoder returns, and the registry of decoders.

A decoder is a callable ``decoder(instance, *, deadline=None, **params) -> Solution``. Decoders register under
``(experiment, name)`` with :func:`register` when their module is imported; :func:`get_decoder` imports an
experiment's decoder module (``decoders.<experiment>.decoders`` unless told otherwise) on demand, so that a worker
process that receives only names can look the callable up without anything being pickled.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import numbers
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from decoders.checks import check_deadline
from decoders.errors import ConfigError
from decoders.imports import module_file, registered_decoders

STATUSES: tuple[str, ...] = ("optimal", "feasible", "timeout", "error")
"""``optimal``: certified optimum (or, with no structure and objective and bound ``-inf``, certified that no
structure exists: titles' instances that admit no title); ``feasible``: a valid structure, optimality not
certified; ``timeout``: the deadline passed (best structure and bound so far, or nothing); ``error``: no
structure and no certificate (the decoder raised, its worker died, or a heuristic found nothing)."""


@dataclass
class Solution:
    """What a decoder returns for one instance.

    ``structure`` is the decoded object (path, tag sequence, heads, chosen candidates) as a numpy array or list,
    or None when nothing was found; ``objective`` its score (NaN, or None, when nothing is known); ``bound`` a certified
    upper bound on the optimum (maximisation) or None; ``stats`` counters such as iterations or parts scored.
    """

    structure: Any
    objective: float
    bound: float | None = None
    status: str = "feasible"
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.status, str) or self.status not in STATUSES:
            raise ValueError(f"Solution.status must be one of {', '.join(STATUSES)}; got {self.status!r}")
        if not isinstance(self.stats, dict):
            raise ValueError(f"Solution.stats must be a dict; got {type(self.stats).__name__}")
        self.objective = math.nan if self.objective is None else _real(self.objective, "Solution.objective")
        if self.bound is not None:
            self.bound = _real(self.bound, "Solution.bound")
        if self.status == "optimal" and math.isnan(self.objective):
            raise ValueError("Solution.status is 'optimal' but the objective is NaN")


def _real(value: Any, name: str) -> float:
    """A Solution's objective or bound as a float (NaN and infinities allowed: unknown, no structure, no bound); a
    string, a bool or an array is a ValueError naming the field, not ``float()``'s TypeError."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        return float(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number or None; got {value!r}")
    return float(value)


class Decoder(Protocol):
    """A decoder: maps a scored instance to a Solution.

    ``deadline`` is an absolute :func:`time.perf_counter` value; a decoder that can stop early returns its best
    solution and bound so far with status ``timeout`` once it has passed (the cooperative limit; the runner also
    enforces a hard limit by killing the worker process).
    """

    def __call__(self, instance: Any, *, deadline: float | None = None, **params: Any) -> Solution: ...


D = TypeVar("D", bound=Callable[..., Solution])

_REGISTRY: dict[str, dict[str, Callable[..., Solution]]] = {}


def default_decoder_module(experiment: str) -> str:
    """The module whose import registers an experiment's decoders."""
    return f"decoders.{experiment}.decoders"


def register(
    experiment: str, name: str, *, timing_loop: Callable[..., float] | None = None
) -> Callable[[D], D]:
    """Decorator: register a decoder under ``(experiment, name)``.

    Registering a different callable under a name already taken is an error; registering the same function
    again (a module imported twice, e.g. by a reload) replaces the entry.

    ``timing_loop(instance, repeats, **params) -> float`` (optional, for decoders that take microseconds) decodes
    the instance ``repeats`` times inside compiled code, exactly as the decoder does, and returns the sum of the
    objectives; the runner can time it instead of single calls (see :func:`decoders.harness.runner.timed_call`),
    which keeps Python's per-call cost, comparable to such a decode itself, out of the timing.

    The registered callable (also what the decorator returns) checks the two arguments every decoder shares
    before the decoder runs: ``instance`` against the decoder's annotation of it (a class or a union of classes;
    unchecked when unannotated) and ``deadline`` (:func:`decoders.checks.check_deadline`: NaN and non-numbers
    refused, ``+inf`` passed on as None); each a ValueError naming the argument. A parameter the decoder does not
    take (a misspelt key of a variant's params, or a second positional argument) is a ConfigError naming it and
    listing the decoder's parameters, not Python's TypeError.
    """

    def decorator(func: D) -> D:
        func = _checking(func, f"{experiment} decoder {name!r}")
        if timing_loop is not None:
            func.timing_loop = timing_loop  # type: ignore[attr-defined]
        table = _REGISTRY.setdefault(experiment, {})
        previous = table.get(name)
        if previous is not None and _qualified_name(previous) != _qualified_name(func):
            raise ConfigError(
                f"decoder {name!r} of experiment {experiment!r} is already registered "
                f"({_qualified_name(previous)}); cannot register {_qualified_name(func)} under the same name"
            )
        table[name] = func
        return func

    return decorator


def load_decoder_module(experiment: str, module: str | None = None) -> None:
    """Import the module that registers ``experiment``'s decoders.

    Without ``module`` the default ``decoders.<experiment>.decoders`` is tried and its absence is not an error
    (the experiment may have no decoders yet); an explicitly named module that cannot be found is a ConfigError.
    A module that exists but fails to import (e.g. a missing dependency of it) raises as usual.
    """
    name = module or default_decoder_module(experiment)
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (missing == name or name.startswith(missing + ".")):
            raise
        if module is not None:
            raise ConfigError(f"decoder module {module!r} for experiment {experiment!r} not found") from exc


def known_decoders(experiment: str, module: str | None = None) -> list[str]:
    """Sorted names of the decoders registered for ``experiment`` (after importing its decoder module)."""
    load_decoder_module(experiment, module)
    return sorted(_REGISTRY.get(experiment, {}))


def get_decoder(experiment: str, name: str, module: str | None = None) -> Callable[..., Solution]:
    """The decoder registered as ``(experiment, name)``; ConfigError listing the known ones if there is none."""
    known = known_decoders(experiment, module)
    if name not in known:
        listing = ", ".join(known) if known else "none registered"
        where = module or default_decoder_module(experiment)
        raise ConfigError(
            f"unknown decoder {name!r} for experiment {experiment!r} (module {where}); known decoders: {listing}"
        )
    return _REGISTRY[experiment][name]


def decoder_problems(
    experiment: str, variants: Mapping[str, Any], extra_paths: Iterable[str | Path] = ()
) -> list[str]:
    """What is wrong with the ``decoder`` and ``module`` names of an experiment's variants, one line each naming
    the key (the workflow raises them when it loads, so that ``snakemake -n`` fails as the job would).

    A module is found as an import would find it (``extra_paths`` too: the folder Snakemake puts on its scripts'
    import path) without running it, and its source is read for ``register(experiment, name)`` calls
    (:func:`decoders.imports.registered_decoders`); only a name not found that way costs importing the module,
    whose registry then decides (:func:`get_decoder`'s message, listing the known decoders)."""
    problems = []
    for variant, spec in variants.items():
        if not isinstance(spec, Mapping) or not isinstance(spec.get("decoder"), str):
            continue  # the schema names these
        where = f"experiments.{experiment}.variants.{variant}"
        name, module = spec["decoder"], spec.get("module")
        path = module_file(module or default_decoder_module(experiment), extra_paths)
        if path is None:
            if module is not None:
                problems.append(
                    f"{where}.module: decoder module {module!r} not found on the import path (put it in src/ "
                    "beside the package, in workflow/scripts/, or in a folder on PYTHONPATH)"
                )
            else:
                problems.append(
                    f"{where}.decoder: experiment {experiment!r} has no decoder module to find {name!r} in"
                )
            continue
        found = registered_decoders(path)
        if (experiment, name) in found or (None, name) in found:
            continue
        try:
            get_decoder(experiment, name, module)
        except ConfigError as exc:
            problems.append(f"{where}.decoder: {exc}")
    return problems


def _qualified_name(func: Callable[..., Any]) -> str:
    module = getattr(func, "__module__", "?")
    qualname = getattr(func, "__qualname__", type(func).__qualname__)
    return f"{module}.{qualname}"


def get_evaluator(experiment: str, module: str | None = None) -> Callable[[Any, Solution], dict] | None:
    """The task's ``evaluate(instance, solution) -> dict``, or None if there is none.

    It is the experiment's own (defined beside its decoders in ``decoders.<experiment>.decoders``), whatever module
    a decoder lives in, so that every variant's records get the same evaluation columns (correct tokens,
    ROUGE-L, ...). A decoder ``module`` that defines an ``evaluate`` of its own adds its columns, never replacing
    one of the experiment's; without an experiment's evaluate, the module's is used alone.
    """
    functions = _experiment_and_module(experiment, module, "evaluate")
    if len(functions) <= 1:
        return functions[0] if functions else None
    own, *added = functions

    def evaluate(instance: Any, solution: Solution) -> dict:
        columns = dict(own(instance, solution))
        for extra in added:
            for key, value in dict(extra(instance, solution)).items():
                columns.setdefault(key, value)
        return columns

    evaluate.checks = tuple(_qualified_name(f) for f in functions)  # type: ignore[attr-defined]
    return evaluate


def get_verifier(experiment: str, module: str | None = None) -> Callable[[Any, Solution], str | None] | None:
    """The experiment's certificate check ``verify(instance, solution) -> str | None``, or None if it has none.

    An experiment's decoder module (``decoders.<experiment>.decoders``) defines it beside ``evaluate``; every
    decoder of the experiment gets it, whatever module the decoder lives in (a decoder cannot opt out of it). A
    decoder ``module`` that defines a ``verify`` of its own adds it: both must accept (the experiment's first). The
    runner calls it, outside the timing, on every Solution whose status is ``optimal``: it recomputes what the
    certificate claims from the instance alone (the structure is feasible, its score equals the objective, the
    bound equals the objective) and returns None when everything holds, else the reason, which turns the record
    into an ``error``. A decoder module added for a new experiment gets the check by defining ``verify``.
    """
    return _all_of(experiment, module, "verify")


def get_structure_check(
    experiment: str, module: str | None = None
) -> Callable[[Any, Any], str | None] | None:
    """The experiment's ``check_structure(instance, structure) -> str | None``, or None if it has none.

    Defined beside ``verify`` in ``decoders.<experiment>.decoders`` (and, stricter, in a decoder's own module, as
    for :func:`get_verifier`): None when ``structure`` is a valid structure of ``instance`` (its type, shape, range
    and feasibility: a tag per token over allowed transitions, a tree, one candidate per set...), else the reason.
    The runner calls it, outside the timing, on every Solution that has a structure, whatever its status: a
    structure that fails it turns the record into an ``error`` with the reason, never a ``feasible`` one.
    """
    return _all_of(experiment, module, "check_structure")


def get_exact_check(
    experiment: str, module: str | None = None
) -> Callable[[Any, Solution, float], tuple[str | None, str]] | None:
    """The experiment's ``exact_check(instance, solution, time_limit) -> (reason | None, outcome)`` for the
    ``optimal`` claims of a decoder that lives outside the experiment's own module, or None.

    Where ``verify`` cannot prove an optimum from the instance alone (beyond its enumeration), the experiment's
    module may define it: it solves the instance again with one of the project's certified exact decoders,
    within ``time_limit`` seconds, and rejects a claim that decoder beats (``outcome`` is ``"confirmed"``,
    ``"rejected"`` or ``"undecided"``: the exact decoder did not finish and found nothing better). The runner
    applies it, outside the timing, to a user's decoder only (``module`` not the experiment's own): the project's
    decoders are set against each other when the tables are built (decoders.tables.crosscheck), and re-solving
    every instance they decode would double the run."""
    if module is None or module == default_decoder_module(experiment):
        return None
    return _module_function(experiment, None, "exact_check")


def checks_of(experiment: str, module: str | None = None) -> dict[str, list[str]]:
    """The qualified names of the checks and evaluation a variant's records get (``structure``, ``verify``,
    ``evaluate``, and ``exact`` for a decoder outside the experiment's module): the experiment's own and its
    decoder module's, as the runner applies them (for provenance)."""
    names = {
        key: [_qualified_name(f) for f in _experiment_and_module(experiment, module, name)]
        for key, name in (("structure", "check_structure"), ("verify", "verify"), ("evaluate", "evaluate"))
    }
    exact = get_exact_check(experiment, module)
    names["exact"] = [] if exact is None else [_qualified_name(exact)]
    return names


def _all_of(experiment: str, module: str | None, name: str) -> Callable[..., str | None] | None:
    """The experiment's function ``name`` and its decoder module's (a check returning a reason or None), as one
    check that every one of them must pass; the only one, or None."""
    functions = _experiment_and_module(experiment, module, name)
    if len(functions) <= 1:
        return functions[0] if functions else None

    def check(*args: Any) -> str | None:
        for function in functions:
            reason = function(*args)
            if reason is not None:
                return reason if function is functions[0] else f"{_qualified_name(function)}: {reason}"
        return None

    check.checks = tuple(_qualified_name(f) for f in functions)  # type: ignore[attr-defined]
    return check


def _experiment_and_module(experiment: str, module: str | None, name: str) -> list[Callable[..., Any]]:
    """``name`` of the experiment's decoder module, then of ``module`` where that defines a different one."""
    found = [_module_function(experiment, None, name)]
    if module is not None and module != default_decoder_module(experiment):
        own = _module_function(experiment, module, name)
        if own is not None and all(own is not other for other in found):
            found.append(own)
    return [function for function in found if function is not None]


def _module_function(experiment: str, module: str | None, name: str) -> Callable[..., Any] | None:
    load_decoder_module(experiment, module)
    loaded = sys.modules.get(module or default_decoder_module(experiment))
    function = getattr(loaded, name, None)
    return function if callable(function) else None


def _parameters(func: Callable[..., Any]) -> tuple[tuple[str, ...], bool, int] | None:
    """The keyword parameters ``func`` takes besides ``instance`` and ``deadline``, whether it takes any keyword
    (``**params``) and how many positional arguments it takes after the instance (``-1``: any); None when its
    signature cannot be read (nothing is checked then)."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    kinds = inspect.Parameter
    parameters = list(signature.parameters.values())[1:]
    names = tuple(
        p.name
        for p in parameters
        if p.kind in (kinds.POSITIONAL_OR_KEYWORD, kinds.KEYWORD_ONLY) and p.name != "deadline"
    )
    any_keyword = any(p.kind == kinds.VAR_KEYWORD for p in parameters)
    positional = sum(p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD) for p in parameters)
    if any(p.kind == kinds.VAR_POSITIONAL for p in parameters):
        positional = -1
    return names, any_keyword, positional


def _check_parameters(
    label: str, taken: tuple[tuple[str, ...], bool, int] | None, args: tuple, params: dict
) -> None:
    """ConfigError naming a parameter the decoder does not take (:func:`register`)."""
    if taken is None:
        return
    names, any_keyword, positional = taken
    if positional >= 0 and len(args) > positional:
        raise ConfigError(
            f"{label} takes the instance as its only positional argument; got {len(args)} more "
            f"(pass parameters by name: {_listing(names)})"
        )
    if not any_keyword:
        unknown = sorted(key for key in params if key not in names)
        if unknown:
            raise ConfigError(f"{label} has no parameter {unknown[0]!r}; its parameters: {_listing(names)}")


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "none besides deadline"


def _checking(func: D, label: str | None = None) -> D:
    """``func`` with its ``instance`` checked against its annotation, its ``deadline`` checked and its other
    arguments against its signature (:func:`register`); a function already wrapped is returned as it is."""
    if getattr(func, "checks_arguments", False):
        return func
    label = label or f"decoder {getattr(func, '__name__', func)!r}"
    taken = _parameters(func)
    try:
        kind = typing.get_type_hints(func).get("instance")
    except (NameError, TypeError):  # an annotation that cannot be resolved: nothing to check against
        kind = None
    if not (isinstance(kind, type | types.UnionType) and kind is not object):
        kind = None
    expected = (
        None
        if kind is None
        else " or ".join(
            t.__name__ for t in (kind.__args__ if isinstance(kind, types.UnionType) else (kind,))
        )
    )

    @functools.wraps(func)
    def decoder(instance: Any, *args: Any, deadline: Any = None, **params: Any) -> Solution:
        if args or params:
            _check_parameters(label, taken, args, params)
        if kind is not None and not isinstance(instance, kind):
            raise ValueError(f"instance must be a {expected}; got {type(instance).__name__}")
        return func(instance, *args, deadline=check_deadline(deadline), **params)

    decoder.checks_arguments = True  # type: ignore[attr-defined]
    return decoder  # type: ignore[return-value]
