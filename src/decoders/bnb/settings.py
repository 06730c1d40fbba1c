"""The bnb experiment's settings (config/bnb.yaml): what they imply (passes behind a model, equal-training
references) and what decoders.config.check_references asks of them (:func:`problems`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from decoders.errors import ConfigError
from decoders.seeds import SEED_MARK, seeded_name, unseeded

_F = TypeVar("_F", bound=Callable[..., Any])


def _settings(func: _F) -> _F:
    """A public reader of bnb's settings: ``bnb`` a mapping (its ``models`` one too), ``model`` a model it has
    and ``dataset`` a string, and a setting it lacks, a ConfigError naming the key, not a KeyError or a
    ``'list' object has no attribute 'get'``."""

    @functools.wraps(func)
    def checked(bnb: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(bnb, Mapping):
            raise ConfigError(f"experiments.bnb (bnb) must be a mapping; got {type(bnb).__name__}")
        models = bnb.get("models")
        if not isinstance(models, Mapping):
            raise ConfigError(f"experiments.bnb.models must be a mapping; got {type(models).__name__}")
        names = dict(
            zip(("dataset", "model") if func.__name__ in _BY_DATASET else ("model",), args, strict=False)
        )
        names.update(kwargs)
        for key, value in names.items():
            if not isinstance(value, str):
                raise ConfigError(f"{key} must be a string; got {type(value).__name__}")
        if "model" in names and names["model"] not in models:
            raise ConfigError(
                f"model {names['model']!r} is not one of experiments.bnb.models ({', '.join(models)})"
            )
        try:
            return func(bnb, *args, **kwargs)
        except KeyError as exc:
            raise ConfigError(f"experiments.bnb lacks the setting {exc.args[0]!r}") from exc
        except (AttributeError, TypeError) as exc:
            raise ConfigError(f"experiments.bnb: a setting of the wrong type ({exc})") from exc

    return checked  # type: ignore[return-value]


_BY_DATASET = ("bnb_groups", "bnb_models")


@_settings
def problems(bnb: dict[str, Any]) -> list[str]:
    """Names in bnb's settings that refer to nothing, and settings that contradict each other."""
    return _bnb_references(bnb)


#: bnb's entries that name a model, a variant and pruning ks to decode (Table 3, the audit, the search comparison)
BNB_RUN_TABLES = ("table3", "audit", "search")


def run_variants(bnb: Mapping[str, Any], table: str) -> list[str]:
    """The variants a run table (:data:`BNB_RUN_TABLES`) decodes its model with: its ``variant``, and for the audit
    also ``beyond`` (the solver of the longer sentences, with its own limits), when given."""
    spec = bnb[table]
    return [spec["variant"], *([spec["beyond"]] if spec.get("beyond") else [])]


def audit_worst_case_minutes(bnb: Mapping[str, Any]) -> dict[str, float]:
    """Per audit variant, the most its decode jobs can spend on one instance set: its ``sample`` of sentences times
    its time limit per sentence (its own ``time_limit``, else the experiment's harness limit), in minutes; NaN for
    a variant without a sample or a limit (no bound)."""
    default = bnb.get("harness", {}).get("time_limit")
    minutes = {}
    for name in run_variants(bnb, "audit"):
        spec = bnb["variants"].get(name, {})
        sample, limit = spec.get("sample"), spec.get("time_limit", default)
        minutes[name] = sample * limit / 60 if sample is not None and limit is not None else float("nan")
    return minutes


def seed_models(bnb: Mapping[str, Any], run_seed: int) -> dict[str, tuple[str, int]]:
    """The models the seed study (``seeds``) trains beyond the run's own: name -> (model, seed), for every model
    of ``seeds.models`` and seed of ``seeds.seeds`` but the run's seed (whose models are the run's)."""
    spec = bnb.get("seeds") or {}
    return {
        seeded_name(model, seed, run_seed): (model, seed)
        for model in spec.get("models", [])
        for seed in spec.get("seeds", [])
        if seed != run_seed
    }


@_settings
def bnb_start(bnb: Mapping[str, Any], model: str) -> str | None:
    """The model whose training ``model`` continues: its own ``start_from`` (a second-order model continuing the
    baseline: an equal-training reference), else the experiment's for a non-local (groups) model, else None."""
    spec = bnb["models"][model]
    if "start_from" in spec:
        return spec["start_from"]
    return bnb.get("start_from") if spec.get("groups") else None


@_settings
def bnb_passes(bnb: Mapping[str, Any], model: str) -> int:
    """The perceptron passes behind a bnb model: its own ``epochs`` (:func:`bnb_epochs`), plus those of the model
    whose training it continues (:func:`bnb_start`)."""
    passes = bnb_epochs(bnb, model)
    start = bnb_start(bnb, model)
    if start is not None and start in bnb["models"] and start != model:
        passes += bnb_passes(bnb, start)
    return passes


@_settings
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


@_settings
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


@_settings
def bnb_models(bnb: Mapping[str, Any], dataset: str) -> list[str]:
    """The models trained on ``dataset``: every model but a groups model left with no group there
    (:func:`bnb_groups`: the hand-crafted model on Chinese)."""
    return [model for model in bnb["models"] if bnb_groups(bnb, dataset, model) != []]


@_settings
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
    problems = _bnb_name_references(bnb)
    problems += _bnb_model_roles(bnb)
    problems += _bnb_start_references(bnb)
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
    problems += _bnb_learning_curve_references(bnb)
    problems += _bnb_audit_budget(bnb)
    problems += _bnb_seed_references(bnb)
    if "baseline" not in bnb["table2"]:
        problems.append("experiments.bnb.table2: needs the 'baseline' model (the differences are to it)")
    if not problems:
        problems += _bnb_missing_equal_training(bnb)
    return problems


def _bnb_name_references(bnb: Mapping[str, Any]) -> list[str]:
    """Each dataset has a language and tags; the models and variants named are the experiment's."""
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
            (f"{table}.{key}", bnb[table][key], "variants")
            for table in BNB_RUN_TABLES
            if table in bnb
            for key in ("variant", "beyond")
            if bnb[table].get(key)
        ),
        *((f"table2.{m}", m, "models") for m in bnb["table2"]),
        *((f"table2.{m}", v, "variants") for m, v in bnb["table2"].items()),
    ]:
        if name not in bnb[where]:
            problems.append(f"experiments.bnb.{key}: {name!r} is not one of experiments.bnb.{where}")
    return problems


def _bnb_model_roles(bnb: Mapping[str, Any]) -> list[str]:
    """The pruner is a first-order model or a head classifier; no head classifier parses."""
    problems = []
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
    return problems


def _bnb_start_references(bnb: Mapping[str, Any]) -> list[str]:
    """Every start_from names the second-order backbone; only second-order models continue one."""
    problems = []
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
        f"training, not {_kind(spec)}"
        for m, spec in bnb["models"].items()
        if "start_from" in spec and spec.get("order") != 2
    ]
    return problems


def _unknown_datasets(bnb: Mapping[str, Any], key: str, datasets: list[str]) -> list[str]:
    """A problem for each of an entry's ``datasets`` (at ``key``) that is not one of the experiment's."""
    return [f"{key}.datasets: {d!r} is not one of its datasets" for d in datasets if d not in bnb["datasets"]]


def _bnb_learning_curve_references(bnb: Mapping[str, Any]) -> list[str]:
    """The learning curve (if any) measures the experiment's datasets and a model of an order."""
    curve = bnb.get("learning_curve")
    if curve is None:
        return []
    key = "experiments.bnb.learning_curve"
    problems = _unknown_datasets(bnb, key, curve["datasets"])
    if "order" not in bnb["models"].get(curve["model"], {}):
        problems.append(
            f"{key}.model: {curve['model']!r} is not one of experiments.bnb.models of an order (1, 2 or 3: no "
            "factor groups, not the head classifier)"
        )
    return problems


def _bnb_audit_budget(bnb: Mapping[str, Any]) -> list[str]:
    """The audit's stated budget (``audit.budget_minutes``, per instance set) bounds what its variants can spend:
    each has a sample and a time limit, and their worst cases sum to at most the budget."""
    audit = bnb.get("audit", {})
    budget = audit.get("budget_minutes")
    if budget is None or any(name not in bnb["variants"] for name in run_variants(bnb, "audit")):
        return []
    worst = audit_worst_case_minutes(bnb)
    unbounded = [name for name, minutes in worst.items() if minutes != minutes]
    if unbounded:
        return [
            f"experiments.bnb.audit.budget_minutes: the audit variant(s) {', '.join(unbounded)} need a `sample` "
            "and a `time_limit` (experiments.bnb.variants) for the budget to bound them"
        ]
    if sum(worst.values()) > budget:
        parts = ", ".join(f"{name} {minutes:g}" for name, minutes in worst.items())
        return [
            f"experiments.bnb.audit.budget_minutes: {budget:g} minutes per instance set is less than the audit "
            f"variants' worst case ({parts}: sample x time_limit, {sum(worst.values()):g} minutes)"
        ]
    return []


def _bnb_seed_references(bnb: Mapping[str, Any]) -> list[str]:
    """The seed study trains models of the experiment that Table 2 decodes, on its datasets, with every model
    whose training they continue (so that a seed's factor model continues the same seed's baseline)."""
    spec = bnb.get("seeds")
    if not spec:
        return []
    key = "experiments.bnb.seeds"
    problems = _unknown_datasets(bnb, key, spec["datasets"])
    for model in spec["models"]:
        if model not in bnb["models"]:
            problems.append(f"{key}.models: {model!r} is not one of experiments.bnb.models")
            continue
        if model not in bnb["table2"]:
            problems.append(f"{key}.models: {model!r} is not in table2, which names the variant decoding it")
        start = bnb_start(bnb, model)
        if start is not None and start not in spec["models"]:
            problems.append(
                f"{key}.models: {model!r} continues {start!r}'s training, so {start!r} must be trained with each "
                "seed too (add it to seeds.models)"
            )
    problems += [
        f"experiments.bnb.models.{model}: the seed study names its models <model>{SEED_MARK}<seed>; rename it"
        for model in bnb["models"]
        if unseeded(model)[1] is not None
    ]
    return problems


def _bnb_missing_equal_training(bnb: Mapping[str, Any]) -> list[str]:
    """Table 2's models without an equal-training reference, each with the entry that gives one."""
    return [
        f"experiments.bnb.table2.{model}: no second-order model without factors in table2 is trained for "
        f"{bnb_passes(bnb, model)} passes, as it is (its equal-training reference: add one, e.g. "
        f"baseline-{bnb_passes(bnb, model)}: {{order: 2, epochs: {bnb_passes(bnb, model)}}})"
        for model, reference in bnb_references(bnb).items()
        if reference is None
        and not _plain_second_order(bnb["models"][model])
        and "classifier" not in bnb["models"][model]
    ]


def _kind(spec: Mapping[str, Any]) -> str:
    """What a model is, as a message names it: ``{order: n}``, a groups model or the head classifier."""
    if "order" in spec:
        return f"{{order: {spec['order']}}}"
    return "a model with factor groups" if "groups" in spec else "the head classifier"
