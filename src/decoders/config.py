"""Load and check the workflow configuration: JSON-schema validation plus the cross-references a schema can't see.

Errors name the offending key as a dotted path (``datasets.wsj.limit``), so a typo in config.yaml is found at
load time, before any job runs.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from referencing import Registry, Resource

from decoders.errors import ConfigError


def load_yaml(path: str | Path) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc


def experiment_names(config: Mapping[str, Any]) -> list[str]:
    """The experiments a run builds: config.yaml's ``experiments`` list (the Snakefile loads config/<name>.yaml of
    each); ConfigError when it is not a list of distinct names."""
    names = config.get("experiments")
    if not isinstance(names, list) or not all(isinstance(name, str) and name for name in names):
        raise ConfigError(
            f"experiments: expected a list of experiment names such as [titles, chains, linking, bnb, ppc] (each "
            f"one's settings in config/<name>.yaml); got {names!r}"
        )
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"experiments: {', '.join(repeated)} listed more than once")
    return list(names)


def in_order_of(reference: Any, merged: Any) -> Any:
    """``merged`` with its mappings' keys in ``reference``'s order (keys ``reference`` lacks after them), at every
    level. The Snakefile loads an experiment's file after the command line's overlays, whose keys would otherwise
    come first, and tables list variants and models in the order of the experiment's file."""
    if not isinstance(reference, Mapping) or not isinstance(merged, Mapping):
        return merged
    keys = [key for key in reference if key in merged] + [key for key in merged if key not in reference]
    return {key: in_order_of(reference.get(key), merged[key]) for key in keys}


def load_config(root: str | Path) -> dict[str, Any]:
    """The workflow's configuration as its files give it (unchecked, no defaults): ``root``/config.yaml with the
    settings of every experiment it lists from ``root``/config/<name>.yaml, gathered as ``experiments: {name:
    settings}`` (the form :func:`validate_config` checks)."""
    root = Path(root)
    config = load_yaml(root / "config.yaml")
    for name in experiment_names(config):
        part = load_yaml(root / "config" / f"{name}.yaml")
        if not isinstance(part, dict) or set(part) != {name}:
            raise ConfigError(f"{root / 'config' / f'{name}.yaml'}: expected the one top-level key {name!r}")
        config.update(part)
    _gather_experiments(config, ())
    return config


def _gather_experiments(config: dict[str, Any], known: Iterable[str]) -> None:
    """The file form (``experiments: [names]``, each name's settings under a top-level key of its own, from
    config/<name>.yaml and overlays) as the checked form ``experiments: {name: settings}``, in place. Settings of
    a known experiment that is not listed are left out (an overlay may set them for a run that leaves it out)."""
    names = experiment_names(config)
    gathered = {}
    for name in names:
        if config.get(name) is None:
            raise ConfigError(
                f"experiments: {name!r} is listed, but no settings are given under the key {name!r} "
                f"(config/{name}.yaml)"
            )
        gathered[name] = config.pop(name)
    for name in known:
        config.pop(name, None)
    config["experiments"] = gathered


def experiment_schema(schema_path: str | Path, name: str) -> Path:
    """The schema of an experiment's settings: ``<name>.schema.yaml`` beside the configuration's schema."""
    return Path(schema_path).with_name(f"{name}.schema.yaml")


def _registry(schema_path: str | Path) -> Registry:
    """Every schema beside ``schema_path``, under its file URI, so that one refers to another by file name."""
    resources = []
    for path in sorted(Path(schema_path).resolve().parent.glob("*.schema.yaml")):
        contents = load_yaml(path)
        contents["$id"] = path.as_uri()
        resources.append((path.as_uri(), Resource.from_contents(contents)))
    return Registry().with_resources(resources)


def _schema_errors(
    schema_path: str | Path, instance: Any, registry: Registry, prefix: tuple = ()
) -> list[str]:
    schema = load_yaml(schema_path)
    schema["$id"] = Path(schema_path).resolve().as_uri()
    validator = jsonschema.validators.validator_for(schema)(schema, registry=registry)
    errors = sorted(validator.iter_errors(instance), key=lambda e: (list(e.absolute_path), e.message))
    return [_describe(error, prefix) for error in _leaves(errors)]


def validate_config(config: dict[str, Any], schema_path: str | Path) -> dict[str, Any]:
    """Return a checked copy of ``config`` with the schemas' defaults filled in, its experiments gathered as
    ``experiments: {name: settings}`` (:func:`_gather_experiments`; a configuration already in that form is
    taken as it is, an experiment set to null left out); raise ConfigError naming the bad key. The run's settings
    are checked against ``schema_path``, each experiment's against its own schema (:func:`experiment_schema`).
    """
    config = copy.deepcopy(config)
    folder = Path(schema_path).parent
    if isinstance(config.get("experiments"), dict):
        config["experiments"] = {k: v for k, v in config["experiments"].items() if v is not None}
    else:
        known = [path.name.removesuffix(".schema.yaml") for path in folder.glob("*.schema.yaml")]
        _gather_experiments(config, known)
    registry = _registry(schema_path)
    problems = _schema_errors(schema_path, config, registry)
    for name, settings in (
        config.get("experiments", {}).items() if isinstance(config.get("experiments"), dict) else ()
    ):
        schema = experiment_schema(schema_path, name)
        if not schema.is_file():
            problems.append(f"  experiments.{name}: no experiment has this name (no schema {schema})")
            continue
        problems += _schema_errors(schema, settings, registry, ("experiments", name))
    if problems:
        raise ConfigError("invalid configuration:\n" + "\n".join(problems))
    # the schemas' defaults, in place (imported here: the modules that read a checked configuration need not)
    from snakemake.utils import validate

    validate(config, str(schema_path), set_default=True)
    for name, settings in config["experiments"].items():
        validate(settings, str(experiment_schema(schema_path, name)), set_default=True)
    check_references(config)
    return config


def experiment_problems(name: str, settings: Mapping[str, Any]) -> list[str]:
    """What an experiment's own check finds wrong with its settings (names that refer to nothing, for example):
    ``problems(settings)`` of decoders.<name>.settings, where the experiment has one."""
    try:
        module = importlib.import_module(f"decoders.{name}.settings")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"decoders.{name}", f"decoders.{name}.settings"):
            raise
        return []
    return list(module.problems(settings))


def check_references(config: dict[str, Any]) -> None:
    """Every corpus file a dataset reads is listed under corpora; experiments name existing datasets, and pass
    their own checks (:func:`experiment_problems`)."""
    problems = []
    corpora = config["corpora"]
    for name, dataset in config["datasets"].items():
        for role, ref in dataset.get("files", {}).items():
            corpus, _, path = ref.partition("/")
            if corpus not in corpora or path not in corpora[corpus]["files"]:
                problems.append(f"datasets.{name}.files.{role}: {ref!r} is not listed under corpora")
        for source, corpus in dataset.get("sources", {}).items():
            if corpus not in corpora:
                problems.append(
                    f"datasets.{name}.sources.{source}: corpus {corpus!r} is not listed under corpora"
                )
        graph = dataset.get("graph")
        if graph is not None and config["datasets"].get(graph, {}).get("reader") != "wikispeedia":
            problems.append(f"datasets.{name}.graph: {graph!r} is not a wikispeedia dataset")
    for experiment, spec in config["experiments"].items():
        for dataset in spec.get("datasets", []):  # an experiment may read no corpus
            if dataset not in config["datasets"]:
                problems.append(f"experiments.{experiment}.datasets: unknown dataset {dataset!r}")
    for experiment, spec in config["experiments"].items():
        problems += experiment_problems(experiment, spec)
    if problems:
        raise ConfigError("invalid configuration:\n" + "\n".join(f"  {p}" for p in problems))


def _leaves(errors: list[jsonschema.ValidationError]) -> list[jsonschema.ValidationError]:
    """The most specific errors: for a failed if/then or oneOf, the errors inside it."""
    out = []
    for error in errors:
        if error.context:
            best = jsonschema.exceptions.best_match(error.context)
            out.append(best if best is not None else error)
        else:
            out.append(error)
    return out


def _describe(error: jsonschema.ValidationError, prefix: tuple = ()) -> str:
    key = ".".join(str(p) for p in (*prefix, *error.absolute_path)) or "(top level)"
    return f"  {key}: {error.message}"
