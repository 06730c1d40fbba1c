"""The package's layers only point down, and no module imports itself through others.

The graph is decoders.imports' (the one the workflow's code hashes follow). Layers, lowest first: the base modules (``decoders/*.py``: errors, io, checks, config, papers, ...), corpora,
harness, parsing, the experiments (every other package), tables. A module may import its own layer and those
below it; an experiment imports another experiment only where :data:`SIDEWAYS` allows it.
"""

from __future__ import annotations

import pytest

from decoders.imports import SRC, dependencies, import_graph, script_dependencies

LAYERS = {"base": 0, "corpora": 1, "harness": 2, "parsing": 3, "tables": 5}
EXPERIMENT_LAYER = 4
#: (importer, imported) experiments allowed to meet: bnb tags its treebanks with the chains experiment's tagger.
SIDEWAYS = {("bnb", "chains")}


def package_of(module: str, graph: dict[str, dict[str, int]]) -> str:
    """The package a module belongs to (``decoders.bnb`` itself included); ``base`` for ``decoders/*.py``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "base"
    return parts[1] if len(parts) > 2 or any(name.startswith(f"{module}.") for name in graph) else "base"


def layer_of(package: str) -> int:
    return LAYERS.get(package, EXPERIMENT_LAYER)


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import from a lower layer to a higher one, or between experiments outside :data:`SIDEWAYS`."""
    wrong = []
    for module, edges in sorted(graph.items()):
        source = package_of(module, graph)
        for target, line in sorted(edges.items()):
            imported = package_of(target, graph)
            if source == imported:
                continue
            up = layer_of(imported) > layer_of(source)
            sideways = layer_of(imported) == layer_of(source) == EXPERIMENT_LAYER
            if up or (sideways and (source, imported) not in SIDEWAYS):
                wrong.append(f"{module} (line {line}) imports {target}")
    return wrong


def import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
    return cycles


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_no_import_cycles():
    assert import_cycles(import_graph()) == []


def test_the_checks_find_an_upward_import_a_sideways_one_and_a_cycle(tmp_path):
    """The two checks on a made-up package: corpora importing tables, titles importing chains, a -> b -> a."""
    files = {
        "decoders/__init__.py": "",
        "decoders/errors.py": "",
        "decoders/corpora/__init__.py": "",
        "decoders/corpora/read.py": "from decoders.errors import X\nimport decoders.tables.page\n",
        "decoders/tables/__init__.py": "",
        "decoders/tables/page.py": "from decoders.corpora import read\n",
        "decoders/titles/__init__.py": "",
        "decoders/titles/a.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decoders.chains import b\n"
            "def f():\n    from decoders.titles import b\n"
        ),
        "decoders/titles/b.py": "from decoders.titles.a import f\nfrom decoders.chains.model import M\n",
        "decoders/chains/__init__.py": "",
        "decoders/chains/model.py": "",
        "decoders/bnb/__init__.py": "",
        "decoders/bnb/tags.py": "from decoders.chains import model\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path)
    assert upward_imports(graph) == [
        "decoders.corpora.read (line 2) imports decoders.tables.page",
        "decoders.titles.b (line 2) imports decoders.chains.model",
    ]
    assert import_cycles(graph) == [
        ["decoders.corpora.read", "decoders.tables.page"],
        ["decoders.titles.a", "decoders.titles.b"],
    ]


@pytest.mark.parametrize("package", ["corpora", "harness", "parsing", "tables"])
def test_the_named_layers_exist(package):
    """A renamed layer would turn into an 'experiment' silently: the named ones must be packages."""
    assert (SRC / "decoders" / package / "__init__.py").is_file()


def test_a_scripts_dependencies_follow_its_imports_through_the_package(tmp_path):
    """The files a job's code hash covers: the script's modules, what they import in turn, their packages'
    __init__.py; not the modules nothing reaches; a module named that does not exist is a ValueError."""
    files = {
        "decoders/__init__.py": "",
        "decoders/errors.py": "",
        "decoders/unused.py": "",
        "decoders/bnb/__init__.py": "",
        "decoders/bnb/pipeline.py": "from decoders.parsing import trees\ndef f():\n    import decoders.errors\n",
        "decoders/parsing/__init__.py": "",
        "decoders/parsing/trees.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import decoders.unused\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    script = tmp_path / "script.py"
    script.write_text("from decoders.bnb.pipeline import f\nimport numpy\n", encoding="utf-8")
    names = [path.relative_to(tmp_path).as_posix() for path in script_dependencies(script, tmp_path)]
    assert names == [
        "decoders/__init__.py",
        "decoders/bnb/__init__.py",
        "decoders/bnb/pipeline.py",
        "decoders/errors.py",
        "decoders/parsing/__init__.py",
        "decoders/parsing/trees.py",
    ]
    with pytest.raises(ValueError, match="'decoders.nope' is not a module"):
        dependencies(["decoders.nope"], tmp_path)
    script.write_text("import os\nfrom decoders.parsing.tagging import tags\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"script.py, line 2: imports decoders.parsing.tagging, which is not"
    ):
        script_dependencies(script, tmp_path)


def test_every_workflow_script_imports_only_modules_that_exist():
    """A script's imports resolve to the package's modules (a moved module fails here, not in a job)."""
    for script in sorted((SRC.parent / "workflow" / "scripts").glob("*.py")):
        assert script_dependencies(script), script.name
