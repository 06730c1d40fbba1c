"""The package as a library: lazy exports that keep ``import decoders`` light and the layers honest, the batch
helper, and README's "Using the decoders as a library" examples run as doctests."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import decoders
from decoders.chains import api as chains_api
from decoders.errors import ConfigError
from decoders.imports import SRC, imported_names, modules

ROOT = SRC.parent
#: package -> the names it exports lazily
LAZY = {
    "decoders": decoders.__all__,
    "decoders.chains": ["chain_instance", "decode"],
    "decoders.titles": ["decode", "title_instance"],
    "decoders.linking": ["decode", "linking_instance"],
    "decoders.ppc": ["parse"],
}
HEAVY = ("numba", "ortools", "highspy", "scipy", "pandas", "decoders.harness", "decoders.chains.api")


def test_import_decoders_imports_no_decoder_nor_numba_nor_or_tools():
    """Everything in the workflow imports ``decoders`` and its experiment packages: in a fresh interpreter,
    importing them loads none of the heavy modules; reading an export does."""
    packages = ", ".join(LAZY)
    script = (
        f"import sys, json, {packages}\n"
        f"before = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "decoders.decode_chain([[0.0]], [[0.0]])\n"
        f"after = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps([before, after]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    output = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    before, after = json.loads(output.stdout)
    assert before == []
    assert {"numba", "decoders.chains.api"} <= set(after)


@pytest.mark.parametrize("package", sorted(LAZY))
def test_every_export_resolves_is_listed_and_a_misspelt_name_is_an_attribute_error(package):
    module = sys.modules.get(package) or __import__(package, fromlist=["_"])
    assert sorted(module.__all__) == sorted(LAZY[package])
    for name in module.__all__:
        value = getattr(module, name)
        assert callable(value) and name in dir(module)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'decod'"):
        module.decod  # noqa: B018


def test_the_top_level_names_are_the_entry_points():
    assert decoders.decode_chain is chains_api.decode is decoders.chains.decode
    assert decoders.parse is decoders.ppc.parse
    assert decoders.link is decoders.linking.decode
    assert decoders.decode_title is decoders.titles.decode


def test_no_module_reads_a_name_through_the_lazy_exports():
    """The exports are strings to importlib, no edge of the import graph that tests/test_layers.py checks: so no
    module of the package (nor a workflow script) may import a name through them, which would reach an upper
    layer unseen (``from decoders import parse`` in decoders.parsing, say)."""
    lazy = {f"{package}.{name}" for package, names in LAZY.items() for name in names}
    files = [*modules().values(), *sorted((ROOT / "workflow" / "scripts").glob("*.py"))]
    found = [f"{path}: line {line} imports {name}" for path in files for line, name in imported_names(path)]
    assert [entry for entry in found if entry.rsplit(" imports ", 1)[1] in lazy] == []


# --- the batch helper ------------------------------------------------------------------------------------------


def sentences(count: int = 4):
    rng = np.random.default_rng(5)
    tau = np.array([[0.0, -1.0, 0.5], [-np.inf, 0.5, 0.0], [0.0, 0.0, 0.0]])
    return [
        chains_api.chain_instance(rng.normal(size=(n, 3)), tau, gold=rng.integers(0, 3, size=n))
        for n in rng.integers(1, 8, size=count)
    ]


@pytest.mark.parametrize("method", ["cg", "beam"])
def test_decode_batch_gives_the_records_of_single_calls(method):
    instances = sentences()
    frame = decoders.decode_batch(
        "chains", method, instances, {"width": 2} if method == "beam" else {}, progress=False
    )
    assert frame["instance_id"].tolist() == ["0", "1", "2", "3"]
    assert frame["size"].tolist() == [instance.n_tokens for instance in instances]
    for row, instance in zip(frame.itertuples(), instances, strict=True):
        params = {"width": 2} if method == "beam" else {}
        single = chains_api.decode(instance.theta, instance.scores, method, **params)
        assert (row.status, row.objective) == (single.status, single.objective)
        assert json.loads(row.structure) == single.structure.tolist()
    assert frame.attrs["harness"]["isolate"] is False
    assert frame.attrs["harness"]["verifier"] == ["decoders.chains.decoders.verify"]


def test_decode_batch_evaluates_and_takes_triples():
    instances = sentences(2)
    items = [(f"s{i}", instance.n_tokens, instance) for i, instance in enumerate(instances)]
    frame = decoders.decode_batch("chains", "viterbi", items, evaluate=True, progress=False)
    assert frame["instance_id"].tolist() == ["s0", "s1"]
    assert frame["total"].tolist() == [instance.n_tokens for instance in instances]
    assert (frame["correct"] <= frame["total"]).all()


def test_decode_batch_isolated_gives_the_same_records():
    instances = sentences(2)
    alone = decoders.decode_batch("chains", "cg", instances, isolate=True, progress=False)
    here = decoders.decode_batch("chains", "cg", instances, progress=False)
    assert alone["objective"].tolist() == here["objective"].tolist()
    assert alone.attrs["harness"]["isolate"] is True


def test_decode_batch_of_no_instance_is_an_empty_frame():
    assert len(decoders.decode_batch("chains", "cg", [], progress=False)) == 0


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"decoder": "vitterbi"}, ConfigError, "unknown decoder 'vitterbi'"),
        ({"experiment": "chain"}, ConfigError, "unknown decoder"),
        ({"instances": "abc"}, ValueError, "instances must be a sequence"),
        ({"instances": [object()]}, ValueError, r"instances\[0\]: no size known"),
        ({"params": [("width", 2)]}, ValueError, "params must be a mapping"),
        ({"params": {"widht": 2}}, ConfigError, "widht"),
        ({"evaluate": "yes"}, ValueError, "evaluate must be True or False"),
        ({"size": 3}, ValueError, "size must be a function"),
        ({"time_limit": -1.0}, ConfigError, "time_limit"),
    ],
)
def test_decode_batch_names_a_bad_argument(arguments, error, message):
    call = {
        "experiment": "chains",
        "decoder": "cg",
        "instances": sentences(1),
        "progress": False,
        **arguments,
    }
    with pytest.raises(error, match=message):
        decoders.decode_batch(**call)


# --- README -----------------------------------------------------------------------------------------------------


def library_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Using the decoders as a library")
    end = text.index("\n## ", start + 1)
    assert text[end:].startswith("\n## Adding a decoder")
    return text[start:end]


def test_the_readme_library_examples_run_as_doctests():
    """Every ``>>>`` example of the section, in order and in one namespace, prints what the README shows."""
    section = library_section()
    test = doctest.DocTestParser().get_doctest(section, {}, "README.md (library)", "README.md", 0)
    assert len(test.examples) >= 15
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=lambda text: pytest.fail(text))
    assert result.failed == 0


def test_the_readme_names_every_method_of_every_entry_point():
    from decoders.linking.api import METHODS as LINKING
    from decoders.ppc.api import METHODS as PARSING
    from decoders.titles.api import METHODS as TITLES

    section = library_section()
    for method in [*chains_api.METHODS, *TITLES, *LINKING, *PARSING]:
        assert f"`{method}`" in section, method


@pytest.mark.parametrize("module", ["chains", "titles", "linking", "ppc"])
def test_the_entry_points_docstring_examples_run(module):
    found = doctest.testmod(__import__(f"decoders.{module}.api", fromlist=["_"]), raise_on_error=False)
    assert found.attempted >= 3 and found.failed == 0


def test_the_readme_section_comes_before_adding_a_decoder():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("## Using the decoders as a library") < text.index("## Adding a decoder")
    assert Path(ROOT / "README.md").is_file()


def test_decode_instance_names_an_unknown_decoder_and_a_bad_flag():
    from decoders.harness.library import decode_instance

    instance = sentences(1)[0]
    with pytest.raises(
        ConfigError, match="unknown decoder 'cgg' for experiment 'chains'.*known decoders: beam"
    ):
        decode_instance("chains", "cgg", instance, {})
    with pytest.raises(ValueError, match="verify must be True or False"):
        decode_instance("chains", "cg", instance, {}, verify=None)
    with pytest.raises(ValueError, match="instance must be a ChainInstance"):
        decode_instance("chains", "cg", instance.theta, {})
    assert decode_instance("chains", "cg", instance, {}, time_limit=10).status == "optimal"


def test_decode_batch_takes_title_and_linking_instances(tmp_path):
    """The size of an instance is found on each experiment's instance (words, candidates)."""
    edge = np.array([[-np.inf, 1.0], [2.0, -np.inf]])
    titles = [decoders.title_instance(np.zeros(2), edge, np.zeros(2), k) for k in (1, 2)]
    frame = decoders.decode_batch("titles", "exhaustive", titles, progress=False)
    assert frame["status"].tolist() == ["optimal", "optimal"] and frame["objective"].tolist() == [0.0, 2.0]
    graph = np.eye(4, k=1)
    sets = [[[0], [3]], [[0, 1], [2]]]
    links = [decoders.linking_instance(graph, each, graph_dir=tmp_path) for each in sets]
    frame = decoders.decode_batch("linking", "exact", links, {"connection": "minimal"}, progress=False)
    assert frame["size"].tolist() == [2, 3] and frame["objective"].tolist() == [3.0, 1.0]
