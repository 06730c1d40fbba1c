"""Names a package exports without importing them until first use (PEP 562's module ``__getattr__``).

Everything in the workflow imports ``decoders`` (and its experiment packages), so their ``__init__`` must stay
light: the library's entry points pull in numba, OR-Tools and HiGHS, and are imported only when a user reads
the name. The targets are given as strings and imported by :mod:`importlib`, so they are no edge of the
package's import graph (:mod:`decoders.imports`): a job's code hash does not grow with them, and the layers
stay as the modules' own imports make them (tests/test_library.py checks that no module of the package reads
a name through these exports).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` exporting ``exports`` (name -> ``"module:attribute"``):
    the first read of a name imports its module and keeps the value in the package's namespace; any other
    missing name is the usual AttributeError."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module), attribute)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
