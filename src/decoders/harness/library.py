"""What the library's entry points share: one call of a registered decoder by method name, and batch decoding.

The entry points on raw scores (:func:`decoders.chains.api.decode`, :func:`decoders.titles.api.decode`,
:func:`decoders.linking.api.decode`) build their experiment's instance from the user's arrays and hand it to
:func:`decode_instance`, which calls the *registered* decoder (the same function the workflow times), so a
library call and a benchmark record give the same structure, objective and status. The experiment's
``verify`` then checks an ``optimal`` claim from the instance alone (as the runner does: a rejected
certificate becomes an ``error`` Solution with the reason). :func:`decode_batch` decodes many instances with a
progress bar and returns the records frame of :func:`decoders.harness.runner.run_instances`.

This module sits in the harness layer: it names experiments and decoders only as strings and reaches them
through the registry, never by importing them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from decoders.errors import ConfigError
from decoders.harness.protocol import (
    Solution,
    _check_parameters,
    _parameters,
    default_decoder_module,
    get_decoder,
    get_evaluator,
    get_structure_check,
    get_verifier,
    known_decoders,
)
from decoders.harness.runner import checked, run_instances, structure_checked

#: A library method: the registered decoder it calls and the parameters it sets unless the caller does.
Method = tuple[str, Mapping[str, Any]]


def experiment_methods(experiment: str) -> dict[str, Method]:
    """Every decoder the experiment's own module registers, each a method of the same name (for the experiments
    whose decoders all take an instance built from scores alone: titles, linking)."""
    module = default_decoder_module(experiment)
    return {
        name: (name, {})
        for name in known_decoders(experiment)
        if get_decoder(experiment, name).__module__ == module
    }


def method_of(methods: Mapping[str, Method], method: Any, experiment: str) -> Method:
    """``methods[method]``; a ConfigError naming ``method`` and listing the known ones otherwise."""
    if not isinstance(method, str) or method not in methods:
        raise ConfigError(
            f"method must be one of {', '.join(sorted(methods))} for {experiment}; got {method!r}"
        )
    return methods[method]


def deadline_of(time_limit: Any) -> float | None:
    """An absolute :func:`time.perf_counter` deadline ``time_limit`` seconds from now (None: no limit); a
    ValueError naming ``time_limit`` unless it is None or a positive number."""
    if time_limit is None:
        return None
    if (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or math.isnan(time_limit)
        or time_limit <= 0
    ):
        raise ValueError(f"time_limit must be None or a positive number of seconds; got {time_limit!r}")
    return time.perf_counter() + float(time_limit)


def decode_instance(
    experiment: str,
    decoder: str,
    instance: Any,
    params: Mapping[str, Any],
    *,
    time_limit: float | None = None,
    verify: bool = True,
) -> Solution:
    """The registered decoder ``(experiment, decoder)`` on ``instance`` with ``params`` (a parameter it does not
    take is a ConfigError naming it), within ``time_limit`` seconds (cooperative: the decoders that can stop
    early return their best so far as ``timeout``). With ``verify`` (the default), an ``optimal`` Solution is
    checked by the experiment's ``verify`` and becomes an ``error`` Solution, the reason in
    ``stats["error"]``, when its certificate does not hold; so does any Solution whose structure the
    experiment's ``check_structure(instance, structure) -> str | None`` finds of the wrong shape, type or range
    (the runner's checks: :func:`decoders.harness.runner.structure_checked` and :func:`~.runner.checked`)."""
    if not isinstance(verify, bool):
        raise ValueError(f"verify must be True or False; got {verify!r}")
    deadline = deadline_of(time_limit)
    solution = get_decoder(experiment, decoder)(instance, deadline=deadline, **params)
    if not verify:
        return solution
    solution = structure_checked(get_structure_check(experiment), instance, solution)
    return checked(get_verifier(experiment), instance, solution)


def decode_batch(
    experiment: str,
    decoder: str,
    instances: Iterable[Any],
    params: Mapping[str, Any] | None = None,
    *,
    time_limit: float = 60.0,
    evaluate: bool = False,
    isolate: bool = False,
    progress: bool = True,
    size: Callable[[Any], int] | None = None,
) -> pd.DataFrame:
    """Decode every instance with the registered decoder ``(experiment, decoder)`` and ``params``; return the
    records (:mod:`decoders.harness.records`: one row per instance, in input order, with ``status``,
    ``objective``, ``bound``, ``seconds``, and ``structure``/``stats``/``params`` as JSON strings).

    ``instances``: the experiment's instances (e.g. from :func:`decoders.chains.api.chain_instance`), numbered
    ``"0"``, ``"1"``, ... in order, or ``(instance_id, size, instance)`` triples. The size (used to warm the
    JIT up on the median instance before any timing) is ``size(instance)`` when given, else the first of the
    instance's ``n_tokens``, ``n``, ``n_candidates`` it has. This is :func:`decoders.harness.runner.run_instances`
    with a library's defaults: the experiment's ``verify`` checks every ``optimal`` record; ``evaluate`` adds
    the experiment's accuracy columns (it needs gold answers in the instances); ``progress`` shows a tqdm bar.
    ``isolate=False`` (the default) decodes in this process with the cooperative ``time_limit`` only;
    ``isolate=True`` decodes in a worker process that is killed when a call overruns the limit (plus a
    grace), so that a decoder that hangs or crashes the interpreter costs one ``timeout``/``error`` record, not
    the batch (slower to start: the worker imports the decoders and warms up again after a kill). A parameter
    the decoder does not take is a ConfigError naming it, before any instance is decoded.
    """
    if not isinstance(evaluate, bool):
        raise ValueError(f"evaluate must be True or False; got {evaluate!r}")
    if params is not None and not isinstance(params, Mapping):
        raise ValueError(f"params must be a mapping of decoder parameters; got {type(params).__name__}")
    if size is not None and not callable(size):
        raise ValueError(f"size must be a function of an instance; got {size!r}")
    if isinstance(instances, str | bytes | Mapping) or not isinstance(instances, Iterable):
        raise ValueError(f"instances must be a sequence of instances; got {type(instances).__name__}")
    items = [_item(index, value, size) for index, value in enumerate(instances)]
    function = get_decoder(experiment, decoder)  # an unknown name fails here, before any instance
    _check_parameters(f"{experiment} decoder {decoder!r}", _parameters(function), (), dict(params or {}))
    evaluator = get_evaluator(experiment) if evaluate else None
    if evaluate and evaluator is None:
        raise ConfigError(f"experiment {experiment!r} defines no evaluate")
    return run_instances(
        experiment,
        "library",
        decoder,
        decoder,
        dict(params or {}),
        items,
        time_limit=time_limit,
        evaluate=evaluator,
        isolate=isolate,
        progress=progress,
    )


def _item(index: int, value: Any, size: Callable[[Any], int] | None) -> tuple[str, int, Any]:
    """``(instance_id, size, instance)`` of the ``index``-th element of ``instances``."""
    if isinstance(value, tuple) and len(value) == 3:
        return value
    if size is not None:
        return str(index), size(value), value
    for name in ("n_tokens", "n", "n_candidates"):
        found = getattr(value, name, None)
        if isinstance(found, int):
            return str(index), found, value
    raise ValueError(
        f"instances[{index}]: no size known for a {type(value).__name__} (pass size=..., or "
        "(instance_id, size, instance) triples)"
    )
