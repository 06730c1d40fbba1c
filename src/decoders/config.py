"""Load and check the workflow configuration: JSON-schema validation plus the cross-references a schema can't see.

Errors name the offending key as a dotted path (``datasets.wsj.limit``), so a typo in config.yaml is found at
load time, before any job runs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from decoders.errors import ConfigError


def load_yaml(path: str | Path) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc


def validate_config(config: dict[str, Any], schema_path: str | Path) -> dict[str, Any]:
    """Return a copy of ``config`` with schema defaults filled in; raise ConfigError naming the bad key.

    An experiment set to null (``experiments: {bnb: null}`` in a ``--configfile`` overlay) is left out, as if
    config.yaml did not name it: nothing of it is planned, fetched or tabled.
    """
    schema = load_yaml(schema_path)
    config = copy.deepcopy(config)
    if isinstance(config.get("experiments"), dict):
        config["experiments"] = {k: v for k, v in config["experiments"].items() if v is not None}
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        raise ConfigError("invalid configuration:\n" + "\n".join(_describe(e) for e in _leaves(errors)))
    _fill_defaults(config, schema, schema)
    check_references(config)
    return config


def check_references(config: dict[str, Any]) -> None:
    """Every corpus file a dataset reads is listed under corpora; experiments name existing datasets."""
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
        for dataset in spec["datasets"]:
            if dataset not in config["datasets"]:
                problems.append(f"experiments.{experiment}.datasets: unknown dataset {dataset!r}")
    chains = config["experiments"].get("chains")
    if chains is not None:
        problems += _chains_references(chains)
    bnb = config["experiments"].get("bnb")
    if bnb is not None:
        problems += _bnb_references(bnb)
    titles = config["experiments"].get("titles")
    if titles is not None:
        names = [("exact", titles["exact"]), *(("runs", v) for v in titles["runs"])]
        problems += [
            f"experiments.titles.{key}: {name!r} is not one of experiments.titles.variants"
            for key, name in names
            if name not in titles["variants"]
        ]
    linking = config["experiments"].get("linking")
    if linking is not None:
        problems += [
            f"experiments.linking.runs.{run}: {name!r} is not one of experiments.linking.variants"
            for run, names in linking["runs"].items()
            if run != "exact_sets"
            for name in names
            if name not in linking["variants"]
        ]
    if problems:
        raise ConfigError("invalid configuration:\n" + "\n".join(f"  {p}" for p in problems))


def _chains_references(chains: dict[str, Any]) -> list[str]:
    """The chains experiment's names refer to its own datasets, models and variants."""
    problems = []
    for key in ("pos", "joint"):
        problems += [
            f"experiments.chains.{key}: {d!r} is not one of its datasets"
            for d in chains[key]
            if d not in chains["datasets"]
        ]
    figure = chains["figure2"]
    for key, name, where in [
        ("model", chains["model"], "models"),
        *(("figure2.datasets", d, "datasets") for d in figure["datasets"]),
        *(("figure2.models", m, "models") for m in figure["models"]),
        *(("figure2.variants", v, "variants") for v in figure["variants"]),
        *((f"runs.{run}", v, "variants") for run, names in chains["runs"].items() for v in names),
    ]:
        if name not in chains[where]:
            problems.append(f"experiments.chains.{key}: {name!r} is not one of experiments.chains.{where}")
    return problems


#: bnb's entries that name a model, a variant and pruning ks to decode (Table 3, the audit, the search comparison)
BNB_RUN_TABLES = ("table3", "audit", "search")


def bnb_start(bnb: Mapping[str, Any], model: str) -> str | None:
    """The model whose training ``model`` continues: its own ``start_from`` (a second-order model continuing the
    baseline: an equal-training reference), else the experiment's for a non-local (groups) model, else None."""
    spec = bnb["models"][model]
    if "start_from" in spec:
        return spec["start_from"]
    return bnb.get("start_from") if spec.get("groups") else None


def bnb_passes(bnb: Mapping[str, Any], model: str) -> int:
    """The perceptron passes behind a bnb model: its own ``epochs`` (:func:`bnb_epochs`), plus those of the model
    whose training it continues (:func:`bnb_start`)."""
    passes = bnb_epochs(bnb, model)
    start = bnb_start(bnb, model)
    if start is not None and start in bnb["models"] and start != model:
        passes += bnb_passes(bnb, start)
    return passes


def bnb_epochs(bnb: Mapping[str, Any], model: str) -> int:
    """A bnb model's own perceptron passes: its ``epochs``, else ``factor_epochs`` for a non-local (groups)
    model, else the experiment's ``epochs``."""
    spec = bnb["models"][model]
    default = bnb.get("epochs", 6)
    if spec.get("groups") and bnb.get("factor_epochs") is not None:
        default = bnb["factor_epochs"]
    return int(spec.get("epochs", default))


def _plain_second_order(spec: Mapping[str, Any]) -> bool:
    return spec.get("order") == 2 and not spec.get("groups")


def bnb_groups(bnb: Mapping[str, Any], dataset: str, model: str) -> list[str] | None:
    """The factor groups a (groups) model has on ``dataset``: its ``groups`` less those that ``factor_languages``
    keeps to other languages than the dataset's (the hand-crafted factors: English, section 4.3); None for a model
    without groups."""
    groups = bnb["models"][model].get("groups")
    if groups is None:
        return None
    language = bnb.get("languages", {}).get(dataset)
    only = bnb.get("factor_languages", {})
    return [group for group in groups if group not in only or language in only[group]]


def bnb_models(bnb: Mapping[str, Any], dataset: str) -> list[str]:
    """The models trained on ``dataset``: every model but a groups model left with no group there
    (:func:`bnb_groups`: the hand-crafted model on Chinese)."""
    return [model for model in bnb["models"] if bnb_groups(bnb, dataset, model) != []]


def bnb_references(bnb: Mapping[str, Any]) -> dict[str, str | None]:
    """Each Table 2 model's equal-training reference: a second-order model without factors of Table 2 trained for
    as many passes (``baseline`` first, then in Table 2's order); None for such models themselves and for a model
    that has none (a configuration error, see :func:`validate_config`)."""
    models = bnb.get("models", {})
    plain = [m for m in bnb["table2"] if _plain_second_order(models.get(m, {}))]
    plain.sort(key=lambda m: m != "baseline")
    references = {}
    for model in bnb["table2"]:
        if model not in models or model in plain:
            references[model] = None
            continue
        passes = bnb_passes(bnb, model)
        references[model] = next((m for m in plain if bnb_passes(bnb, m) == passes), None)
    return references


def _bnb_breakdown_references(bnb: Mapping[str, Any]) -> list[str]:
    """The breakdown measures one of the experiment's datasets, a branch-and-bound (factor groups) model and a
    variant whose decoder is ``bnb``."""
    spec = bnb.get("breakdown")
    if spec is None:
        return []
    key = "experiments.bnb.breakdown"
    problems = []
    if spec["dataset"] not in bnb["datasets"]:
        problems.append(f"{key}.dataset: {spec['dataset']!r} is not one of experiments.bnb.datasets")
    if spec["model"] not in bnb["models"]:
        problems.append(f"{key}.model: {spec['model']!r} is not one of experiments.bnb.models")
    elif "groups" not in bnb["models"][spec["model"]]:
        problems.append(
            f"{key}.model: {spec['model']!r} is not a branch-and-bound model (it has no factor groups)"
        )
    variant = bnb["variants"].get(spec["variant"])
    if variant is None:
        problems.append(f"{key}.variant: {spec['variant']!r} is not one of experiments.bnb.variants")
    elif variant.get("decoder") != "bnb":
        problems.append(
            f"{key}.variant: {spec['variant']!r} decodes with {variant.get('decoder')!r}; the breakdown times bnb"
        )
    return problems


def _bnb_references(bnb: dict[str, Any]) -> list[str]:
    """The bnb experiment's names refer to its own datasets, models and variants; the pruner scores first-order
    arcs; a head classifier only prunes."""
    problems = [
        f"experiments.bnb.{key}: no entry for dataset {d!r}"
        for key in ("languages", "tags")
        for d in bnb["datasets"]
        if d not in bnb[key]
    ]
    for key, name, where in [
        ("pruner", bnb["pruner"], "models"),
        *((f"{table}.model", bnb[table]["model"], "models") for table in BNB_RUN_TABLES if table in bnb),
        *(
            (f"{table}.variant", bnb[table]["variant"], "variants")
            for table in BNB_RUN_TABLES
            if table in bnb
        ),
        *((f"table2.{m}", m, "models") for m in bnb["table2"]),
        *((f"table2.{m}", v, "variants") for m, v in bnb["table2"].items()),
    ]:
        if name not in bnb[where]:
            problems.append(f"experiments.bnb.{key}: {name!r} is not one of experiments.bnb.{where}")
    pruner = bnb["models"].get(bnb["pruner"], {})
    if bnb["pruner"] in bnb["models"] and pruner.get("order") != 1 and "classifier" not in pruner:
        problems.append(
            f"experiments.bnb.pruner: {bnb['pruner']!r} must be a first-order model ({{order: 1}}) or a head "
            f"classifier ({{classifier: heads}})"
        )
    parsers = [
        *((f"{table}.model", bnb[table]["model"]) for table in BNB_RUN_TABLES if table in bnb),
        *((f"table2.{m}", m) for m in bnb["table2"]),
    ]
    problems += [
        f"experiments.bnb.{key}: {name!r} is a head classifier, which prunes but does not parse"
        for key, name in parsers
        if "classifier" in bnb["models"].get(name, {})
    ]
    starts = [("start_from", bnb.get("start_from"))]
    starts += [
        (f"models.{m}.start_from", spec["start_from"])
        for m, spec in bnb["models"].items()
        if "start_from" in spec
    ]
    for key, start in starts:
        if start is None:
            continue
        if start not in bnb["models"]:
            problems.append(f"experiments.bnb.{key}: {start!r} is not one of experiments.bnb.models")
        elif bnb["models"][start].get("order") != 2 or "start_from" in bnb["models"][start]:
            problems.append(
                f"experiments.bnb.{key}: {start!r} must be the second-order backbone ({{order: 2}}, trained from "
                f"scratch), whose features the models continuing it share"
            )
    problems += [
        f"experiments.bnb.models.{m}.start_from: only a second-order model ({{order: 2}}) continues another's "
        f"training, not {{order: {spec.get('order')}}}"
        for m, spec in bnb["models"].items()
        if "start_from" in spec and spec.get("order") != 2
    ]
    problems += [
        f"experiments.bnb.error_analysis.datasets: {d!r} is not one of its datasets"
        for d in bnb.get("error_analysis", {}).get("datasets", [])
        if d not in bnb["datasets"]
    ]
    problems += [
        f"experiments.bnb.udpipe.datasets: {d!r} is not one of its datasets"
        for d in bnb.get("udpipe", {}).get("datasets", {})
        if d not in bnb["datasets"]
    ]
    problems += _bnb_breakdown_references(bnb)
    curve = bnb.get("learning_curve")
    if curve is not None:
        key = "experiments.bnb.learning_curve"
        problems += [
            f"{key}.datasets: {d!r} is not one of its datasets"
            for d in curve["datasets"]
            if d not in bnb["datasets"]
        ]
        if "order" not in bnb["models"].get(curve["model"], {}):
            problems.append(
                f"{key}.model: {curve['model']!r} is not one of experiments.bnb.models of an order (1, 2 or 3: no "
                "factor groups, not the head classifier)"
            )
    if "baseline" not in bnb["table2"]:
        problems.append("experiments.bnb.table2: needs the 'baseline' model (the differences are to it)")
    if not problems:
        problems += [
            f"experiments.bnb.table2.{model}: no second-order model without factors in table2 is trained for "
            f"{bnb_passes(bnb, model)} passes, as it is (its equal-training reference: add one, e.g. "
            f"baseline-{bnb_passes(bnb, model)}: {{order: 2, epochs: {bnb_passes(bnb, model)}}})"
            for model, reference in bnb_references(bnb).items()
            if reference is None
            and not _plain_second_order(bnb["models"][model])
            and "classifier" not in bnb["models"][model]
        ]
    return problems


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


def _describe(error: jsonschema.ValidationError) -> str:
    key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"  {key}: {error.message}"


def _fill_defaults(instance: Any, schema: dict[str, Any], root: dict[str, Any]) -> None:
    """Set ``default`` values of the schema's properties that the instance leaves out (in place)."""
    schema = _resolve(schema, root)
    if not isinstance(instance, dict):
        return
    for sub in schema.get("allOf", []):
        cond = sub.get("if")
        if cond is None or jsonschema.validators.validator_for(root)(cond).is_valid(instance):
            _fill_defaults(instance, sub.get("then", sub), root)
    for key, prop in schema.get("properties", {}).items():
        if not isinstance(prop, dict):
            continue
        prop = _resolve(prop, root)
        if key not in instance and "default" in prop:
            instance[key] = copy.deepcopy(prop["default"])
        if key in instance:
            _fill_defaults(instance[key], prop, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        known = set(schema.get("properties", {}))
        for key, value in instance.items():
            if key not in known:
                _fill_defaults(value, extra, root)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema
