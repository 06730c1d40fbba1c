"""The machinery of the public-input tables (tests/test_*_public_inputs.py, issue robust-scale).

Each of those files has a table ``ENTRIES``: one entry per public callable of its package's modules, found by
importing them, with valid arguments (the call must succeed; None when the valid call needs files) and, per class
of bad input in :data:`CLASSES` (a wrong shape, a NaN where floats are taken, an id out of range where ids are
taken), the argument to replace, its bad value and the name the error must give, or an ``"n/a: reason"``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest

from decoders.errors import DecodersError

CLASSES = ("shape", "nan", "id")


def public_callables(modules: Iterable[str]) -> set[str]:
    """``module.name`` of every public function, class, numba dispatcher or wrapped function (``lru_cache``)
    that ``modules`` define themselves (not what they import)."""
    found = set()
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if (
                not name.startswith("_")
                and callable(value)
                and getattr(value, "__module__", None) == module_name
                and (
                    inspect.isfunction(value)
                    or inspect.isclass(value)
                    or hasattr(value, "py_func")
                    or hasattr(value, "__wrapped__")
                )
            ):
                found.add(f"{module_name}.{name}")
    return found


def resolve(qualified: str) -> Any:
    module_name, name = qualified.rsplit(".", 1)
    return getattr(importlib.import_module(module_name), name)


def assert_every_public_callable_has_an_entry(modules: Iterable[str], entries: Mapping[str, tuple]) -> None:
    public = public_callables(modules)
    assert public - set(entries) == set(), "public callables without an entry"
    assert set(entries) - public == set(), "entries for callables that are not public any more"
    for name, (_, cases) in entries.items():
        assert set(cases) == set(CLASSES), name
        for case in cases.values():
            assert isinstance(case, tuple) or case.startswith("n/a"), name


def assert_no_public_compiled_kernel(modules: Iterable[str]) -> None:
    """The numba kernels are private; every public name is a Python function that checks, or a class."""
    for module_name in modules:
        for name, value in vars(importlib.import_module(module_name)).items():
            if hasattr(value, "py_func") and getattr(value, "__module__", None) == module_name:
                assert name.startswith("_"), f"{module_name}.{name}"


def valid_calls(entries: Mapping[str, tuple]) -> list[str]:
    """The entries whose valid call is made."""
    return sorted(name for name, (valid, _) in entries.items() if valid is not None)


def bad_calls(entries: Mapping[str, tuple]) -> list[tuple[str, str]]:
    """``(entry, class)`` for every class of bad input that applies."""
    return [
        (name, kind)
        for name, (_, cases) in sorted(entries.items())
        for kind in CLASSES
        if isinstance(cases[kind], tuple)
    ]


def assert_refused_by_name(
    qualified: str, valid: Mapping[str, Any], case: tuple, value: Callable[[Any], Any] = lambda v: v
) -> None:
    """The call with ``valid`` arguments but one replaced by ``case = (argument, bad, named)`` raises a
    ValueError or DecodersError whose message contains ``named`` (``value`` turns a lazy table value into the
    argument)."""
    argument, bad, named = case
    args = {**valid, argument: value(bad)}
    with pytest.raises((ValueError, DecodersError), match=re.escape(named)):
        resolve(qualified)(**args)
