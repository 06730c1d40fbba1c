# Helpers of the bnb experiment's rules (bnb.smk; snakemake --lint wants functions apart from rules).

from decoders.bnb.settings import (
    BNB_RUN_TABLES,
    bnb_epochs,
    bnb_groups,
    bnb_models,
    bnb_start,
    run_variants,
    seed_models,
)
from decoders.seeds import seeded_name, unseeded

# bnb: per dataset the tags and one model per `models` entry; instance sets "<dataset>~<model>~k<k>" (the model's
# test sentences pruned to k heads per word) or "<dataset>~<model>~unpruned".
BNB = config["experiments"].get("bnb", {})
BNB_TABLES = [
    "table2",
    "table3",
    "statistics",
    "audit",
    "errors",
    "tagging",
    "training",
    "factors",
    "breakdown",
    "learning_curve",
    "seeds",
]
# The seed study's extra models (name "<model>.seed<seed>" -> (model, seed)): trained, pruned and decoded as their
# model, with another seed.
BNB_SEEDS = seed_models(BNB, config["seed"])
# The datasets the hand-crafted factors are counted on: the English ones (none for Chinese, as the paper).
BNB_ENGLISH = [d for d in BNB.get("datasets", []) if BNB.get("languages", {}).get(d) == "en"]


def bnb_tag_options(dataset):
    return {
        "mode": BNB["tags"][dataset],
        "language": BNB["languages"][dataset],
        "tagger": BNB["tagger"],
        "folds": BNB["tagger_folds"],
        "min_count": BNB["min_count"],
        "seed": config["seed"],
        "dev_fraction": BNB["dev_fraction"],
    }


def bnb_model_file(dataset, model):
    return f"results/models/bnb/{dataset}/{model}.npz"


def bnb_trained_models():
    """Every model name bnb_train makes: config/bnb.yaml's models and the seed study's."""
    return [*BNB.get("models", {}), *BNB_SEEDS]


def bnb_seeded_start(model):
    """The model whose training ``model`` continues, with ``model``'s seed (a seed's full model continues the same
    seed's baseline)."""
    base, seed = unseeded(model)
    start = bnb_start(BNB, base)
    return start if start is None or seed is None else seeded_name(start, seed, config["seed"])


def bnb_train_inputs(wildcards):
    inputs = {
        **treebank_split_files(wildcards.dataset),
        "tags": f"results/models/bnb/{wildcards.dataset}/tags.parquet",
    }
    if wildcards.model != BNB["pruner"]:
        inputs["pruner"] = bnb_model_file(wildcards.dataset, BNB["pruner"])
    start = bnb_seeded_start(wildcards.model)
    if start is not None:
        inputs["start"] = bnb_model_file(wildcards.dataset, start)
    return inputs


def bnb_train_options(dataset, name):
    """A model's training options; a seed-study model (bnb_trained_models) has its model's, with its own seed."""
    model, seed = unseeded(name)
    spec = BNB["models"][model]
    # backbone_step only when set, so that the other models' parameters (and their trained files) stay as they were
    step = {"backbone_step": spec["backbone_step"]} if "backbone_step" in spec else {}
    structure = {
        key: value for key, value in spec.items() if key not in ("epochs", "backbone_step", "start_from")
    }
    if "groups" in spec:
        structure["groups"] = bnb_groups(BNB, dataset, model)
        if not structure["groups"]:
            raise ConfigError(
                f"experiments.bnb.models.{model}: no factor group of it is used on {dataset} "
                f"(experiments.bnb.factor_languages), so it is not trained there"
            )
    return {
        "structure": structure,
        **step,
        "language": BNB["languages"][dataset],
        "epochs": bnb_epochs(BNB, model),
        "bits": BNB["feature_bits"],
        "k": BNB["train_k"],
        "search": BNB["training_search"],
        "seed": config["seed"] if seed is None else seed,
        "dev_fraction": BNB["dev_fraction"],
    }


def bnb_set_name(dataset, model, k):
    return f"{dataset}~{model}~{'unpruned' if k is None else f'k{k}'}"


def bnb_set(name):
    """(dataset, model, k) of an instance-set name."""
    dataset, model, pruning = name.split("~")
    return dataset, model, None if pruning == "unpruned" else int(pruning.removeprefix("k"))


def bnb_set_pattern():
    datasets = wildcard_choice(BNB.get("datasets", []))
    models = wildcard_choice(bnb_trained_models())
    return f"({datasets})~({models})~(k[1-9][0-9]*|unpruned)"


def bnb_instance_inputs(wildcards):
    dataset, model, _ = bnb_set(wildcards.set)
    return {
        **treebank_split_files(dataset),
        "tags": f"results/models/bnb/{dataset}/tags.parquet",
        "model": bnb_model_file(dataset, model),
        "pruner": bnb_model_file(dataset, BNB["pruner"]),
    }


def bnb_instance_options(name):
    dataset, _, k = bnb_set(name)
    return {"k": k, "language": BNB["languages"][dataset], "dev_fraction": BNB["dev_fraction"]}


def bnb_learning_curve_options(dataset):
    curve = BNB["learning_curve"]
    return {**bnb_train_options(dataset, curve["model"]), "shares": curve["shares"]}


def bnb_error_options(dataset):
    pruner = bnb_train_options(dataset, BNB["pruner"])
    return {
        "language": BNB["languages"][dataset],
        "folds": BNB["error_analysis"]["folds"],
        "epochs": BNB["epochs"],
        "pruner": {"structure": pruner["structure"], "epochs": pruner["epochs"]},
        "bits": BNB["feature_bits"],
        "k": BNB["train_k"],
        "seed": config["seed"],
        "dev_fraction": BNB["dev_fraction"],
    }


def bnb_factor_count_options(dataset):
    return {"language": BNB["languages"][dataset], "dev_fraction": BNB["dev_fraction"]}


def bnb_udpipe_train_options(dataset):
    """The peer's training options: the dataset's own parser options (udpipe.datasets), else parser_options."""
    udpipe = BNB["udpipe"]
    options = udpipe.get("datasets", {}).get(dataset, udpipe["parser_options"])
    return {"parser_options": options, "seed": config["seed"], "dev_fraction": BNB["dev_fraction"]}


def bnb_udpipe_options(dataset):
    return {"language": BNB["languages"][dataset], "dev_fraction": BNB["dev_fraction"]}


def bnb_histories():
    """The training history of every model trained on each dataset (bnb_models: not the hand-crafted model on
    Chinese)."""
    return [
        f"results/models/bnb/{dataset}/{model}.history.json"
        for dataset in BNB.get("datasets", [])
        for model in bnb_models(BNB, dataset)
    ]


def bnb_oracles():
    """Oracle files: each dataset's baseline set at k (the test set's projective oracle) and the table-3 model's
    sets at every pruning k (each k's pruned oracle)."""
    sets = [bnb_set_name(d, "baseline", BNB.get("k")) for d in BNB.get("datasets", [])]
    if "table3" in BNB:
        sets += [
            bnb_set_name(d, BNB["table3"]["model"], k)
            for d in BNB["datasets"]
            for k in BNB["table3"]["pruning"]
        ]
    return [f"results/instances/bnb/{name}/oracle.parquet" for name in dict.fromkeys(sets)]


def bnb_breakdown_inputs(wildcards):
    """The breakdown's instance set (index and shards), its model and, when pruned, its pruner."""
    spec = BNB["breakdown"]
    name = bnb_set_name(spec["dataset"], spec["model"], spec["pruning"])
    inputs = {
        "index": f"results/instances/bnb/{name}/index.tsv",
        "shards": expand(
            "results/instances/bnb/{set}/shard-{shard}.pkl",
            set=name,
            shard=shard_range("bnb"),
        ),
        "model": bnb_model_file(spec["dataset"], spec["model"]),
    }
    if spec["pruning"] is not None:
        inputs["pruner"] = bnb_model_file(spec["dataset"], BNB["pruner"])
    return inputs


def bnb_breakdown_options():
    """The breakdown's set and its variant's search parameters and time limit (as its decode jobs get them)."""
    spec = BNB["breakdown"]
    variant = BNB["variants"][spec["variant"]]
    return {
        "set_name": bnb_set_name(spec["dataset"], spec["model"], spec["pruning"]),
        "variant": spec["variant"],
        "params": variant.get("params", {}),
        "time_limit": variant.get("time_limit", harness_settings("bnb")["time_limit"]),
        **{key: spec[key] for key in ("repeats", "sentences", "paper_space_bits", "paper_space_sentences")},
    }


def bnb_breakdown_files():
    """The breakdown's per-sentence parquet and summary, when config/bnb.yaml asks for one."""
    if "breakdown" not in BNB:
        return []
    folder = f"results/models/bnb/{BNB['breakdown']['dataset']}"
    return [f"{folder}/breakdown.parquet", f"{folder}/breakdown.json"]


def bnb_runs():
    """Gathered records of Table 2's (model, variant) pairs at k; at every pruning k, the model of Table 3, of the
    search comparison and of the audit, by each of their variants; the seed study's models at k by their model's
    Table 2 variant."""
    pairs = [
        (bnb_set_name(d, model, BNB["k"]), variant)
        for d in BNB.get("datasets", [])
        for model, variant in BNB.get("table2", {}).items()
        if model in bnb_models(BNB, d)
    ]
    pairs += [
        (bnb_set_name(d, BNB[table]["model"], k), variant)
        for table in BNB_RUN_TABLES
        if table in BNB
        for variant in run_variants(BNB, table)
        for d in BNB.get("datasets", [])
        for k in BNB[table]["pruning"]
    ]
    pairs += [
        (bnb_set_name(d, name, BNB["k"]), BNB["table2"][model])
        for d in BNB.get("seeds", {}).get("datasets", [])
        for name, (model, _) in BNB_SEEDS.items()
    ]
    return [f"results/runs/bnb/{s}/{v}.parquet" for s, v in dict.fromkeys(pairs)]


def bnb_seed_histories():
    """The training histories of the seed study's models and of the run's own models it compares them with."""
    spec = BNB.get("seeds", {})
    return [
        f"results/models/bnb/{d}/{seeded_name(m, seed, config['seed'])}.history.json"
        for d in spec.get("datasets", [])
        for m in spec.get("models", [])
        for seed in spec.get("seeds", [])
    ]


def bnb_noise_sets():
    """The instance sets whose speeds Table 3 compares: its model at every pruning k of each dataset."""
    spec = BNB.get("table3")
    if not spec:
        return []
    return [bnb_set_name(d, spec["model"], k) for d in BNB.get("datasets", []) for k in spec["pruning"]]


def bnb_noise_variants(name):
    """Table 3's timed variant on its own instance sets, timed again by the noise jobs (none on other sets)."""
    return [BNB["table3"]["variant"]] if name in bnb_noise_sets() else []


register_noise("bnb", bnb_noise_variants)
