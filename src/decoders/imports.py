"""What the package's modules import of each other, read from their source (nothing is imported).

The workflow hashes the modules a job's script imports, directly or through others, so that a change to any of
them reruns the job (:func:`dependencies`); tests/test_layers.py checks on the same graph that imports only
point down the package's layers. An import under ``if TYPE_CHECKING:`` is an annotation and left out; an import
inside a function counts; ``from a import b`` counts ``a.b`` when that is a module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: The package's source folder (``src``, holding ``decoders``).
SRC = Path(__file__).resolve().parent.parent


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_names(path: str | Path, *, modules_only: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of every ``decoders`` import in a Python file, outside ``if TYPE_CHECKING:``; for
    ``from a import b``, both ``a`` and ``a.b`` (only ``a`` with ``modules_only``: the names that must be
    modules). SyntaxError names the file."""
    path = Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("decoders")]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("decoders")
        ):
            found.append((node.lineno, node.module))
            if not modules_only:
                found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found)


def modules(src: str | Path = SRC) -> dict[str, Path]:
    """Dotted module name -> file of every module of ``decoders`` under ``src`` (a package: its __init__.py)."""
    return dict(_modules(str(src)))


def import_graph(src: str | Path = SRC) -> dict[str, dict[str, int]]:
    """Module -> {module of the package it imports: the line of its first such import}. Read once per ``src`` and
    process (the workflow asks for every job; the source does not change while it plans)."""
    return {name: dict(edges) for name, edges in _import_graph(str(src)).items()}


@cache
def _modules(src: str) -> dict[str, Path]:
    root = Path(src)
    found = {}
    for path in sorted((root / "decoders").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def _import_graph(src: str) -> dict[str, dict[str, int]]:
    files = _modules(src)
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        edges: dict[str, int] = {}
        for line, target in imported_names(path):
            if target in files and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def dependencies(roots: Iterable[str], src: str | Path = SRC) -> list[Path]:
    """The files of the modules ``roots`` and of every module they import, directly or through others, with the
    packages' __init__.py that importing them runs; sorted. A root that is no module of the package is a
    ValueError naming it."""
    files = _modules(str(src))
    graph = _import_graph(str(src))
    seen: set[str] = set()
    todo = []
    for root in roots:
        if root not in files:
            raise ValueError(f"{root!r} is not a module of the decoders package under {src}")
        todo.append(root)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        parents = [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [parent for parent in parents if parent in files]
        todo += list(graph[name])
    return sorted(files[name] for name in seen)


def script_dependencies(script: str | Path, src: str | Path = SRC) -> list[Path]:
    """:func:`dependencies` of the package modules a script (one of workflow/scripts) imports; an import of a
    module the package does not have is a ValueError naming the script and its line."""
    files = _modules(str(src))
    for line, name in imported_names(script, modules_only=True):
        if name not in files:
            raise ValueError(f"{script}, line {line}: imports {name}, which is not a module of the package")
    return dependencies((name for _, name in imported_names(script) if name in files), src)


def module_file(name: str, extra_paths: Iterable[str | Path] = ()) -> Path | None:
    """The source file of module ``name`` as an import would find it (nothing of it is run; a dotted name's parent
    packages are imported), searching ``extra_paths`` too for a top-level module; None when there is none, or when
    it has no Python source (a compiled extension, a namespace package)."""
    import importlib.machinery
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None and "." not in name:
        spec = importlib.machinery.PathFinder.find_spec(name, [str(path) for path in extra_paths])
    origin = getattr(spec, "origin", None)
    if not origin or not str(origin).endswith(".py"):
        return None
    return Path(origin)


def registered_decoders(path: str | Path) -> set[tuple[str | None, str]]:
    """``(experiment, name)`` of every ``register(experiment, name)`` call in a Python file whose name is a string
    literal, read from its source: the experiment resolved through the module's own string constants
    (``EXPERIMENT = "chains"``), None when it is computed. A decorator made in a loop is not seen (the caller
    then imports the module to know). SyntaxError names the file."""
    path = Path(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: set[tuple[str | None, str]] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        func = node.func
        called = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        first, second = node.args[0], node.args[1]
        if called != "register" or not (isinstance(second, ast.Constant) and isinstance(second.value, str)):
            continue
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            experiment = first.value
        else:
            experiment = constants.get(first.id) if isinstance(first, ast.Name) else None
        found.add((experiment, second.value))
    return found
