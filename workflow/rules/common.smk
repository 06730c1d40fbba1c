# Helpers shared by every .smk file of the workflow: the validated configuration and the paths stages agree on.

import hashlib
import math
import re
from pathlib import Path

import pandas as pd

from decoders.config import BNB_RUN_TABLES, bnb_epochs, bnb_groups, bnb_models, bnb_start, validate_config
from snakemake.exceptions import WorkflowError

from decoders.errors import ConfigError
from decoders.harness.runner import default_grace

# Fails at load time, naming the key, on an unknown key, a wrong type or a dangling reference.
config.update(validate_config(config, workflow.source_path("../schemas/config.schema.yaml")))

DATASETS = config["datasets"]

# The mirror is read by fetch jobs only, but a mistyped folder is said at once, before any job is planned.
if config["mirror"] is not None and not Path(config["mirror"]).is_dir():
    raise ConfigError(
        f"mirror: {config['mirror']} is not a folder (relative paths start in {Path.cwd()}); give the corpus "
        "mirror's folder, or mirror: null (on the command line: --config mirror=) to download every corpus "
        "from upstream"
    )

# Every job runs in the project's pinned environment: with --use-conda the one environment.yml describes,
# otherwise the Python environment running Snakemake (where `pip install -e .` put the package). A conda
# environment lacks the package itself: scripts then import it through workflow/scripts/decoders, a link to
# src/decoders (Snakemake puts the scripts' folder on their import path, after installed packages).
CONDA_ENV = "../../environment.yml"

# The files each kind of prepared dataset consists of (besides stats.json), under data/prepared/<dataset>/.
PREPARED_FILES = {
    "conllu": ["train.parquet", "dev.parquet", "test.parquet"],
    "conllx": ["train.parquet", "test.parquet"],
    "wsj": ["train.parquet", "test.parquet"],
    "uner": ["train.parquet", "test.parquet"],
    "textbooks": ["units.parquet", "train.parquet", "test.parquet"],
    "wikispeedia": ["graph.npz", "articles.parquet"],
    "elevant": ["documents.parquet", "mentions.parquet"],
}


def code_hash(*parts):
    """sha256 of package code (files or folders under src/decoders) that jobs run. Given as a parameter, a
    change to that code reruns the jobs, as Snakemake does by itself only for changes to their script. A part
    that does not exist (an experiment without a package yet) adds nothing."""
    root = Path(workflow.basedir) / "src" / "decoders"
    digest = hashlib.sha256()
    for part in ("errors.py", "io.py", "workflow.py", *parts):
        path = root / part
        for file in (sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []):
            digest.update(file.relative_to(root).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


# Cluster resources (config.yaml: resources). Every rule declares threads, mem_mb and runtime (minutes) through
# these helpers, so that the same workflow runs locally and on a cluster; a retried job asks for attempt x more.
RESOURCES = config["resources"]


def _rule_resource(key, name):
    return RESOURCES["rules"].get(key, {}).get(name, RESOURCES[name])


def job_mem_mb(key):
    """mem_mb of the jobs of rule `key` (fetch / prepare for their generated rules), grown with each retry up
    to resources.max_mem_mb: a job failing for another reason than memory must not end up asking for more than
    any node has (SLURM then rejects it rather than running it again)."""
    mem_mb = _rule_resource(key, "mem_mb")
    _check_mem_mb(f"rule {key}", mem_mb)
    return lambda wildcards, attempt: min(mem_mb * attempt, RESOURCES["max_mem_mb"])


def _check_mem_mb(what, mem_mb):
    cap = RESOURCES["max_mem_mb"]
    if mem_mb > cap:
        raise ConfigError(f"resources: {what} asks for mem_mb {mem_mb}, more than max_mem_mb {cap}")


def decode_mem_mb(wildcards, attempt):
    """mem_mb of a decode job: its variant's own `mem_mb` (config.yaml; a solver that needs more than the rest,
    such as SCIP) or resources.rules.decode, grown with each retry up to resources.max_mem_mb.
    """
    spec = variant_spec(wildcards)
    mem_mb = spec.get("mem_mb", _rule_resource("decode", "mem_mb"))
    _check_mem_mb(f"experiments.{wildcards.experiment}.variants.{wildcards.variant}", mem_mb)
    return min(mem_mb * attempt, RESOURCES["max_mem_mb"])


def benchmark_file(key, name):
    """Where Snakemake records a job's wall time and peak memory (max_rss, MB): results/benchmarks/<key>/<name>.tsv,
    keyed like resources.rules (fetch / prepare for their generated rules), so that every measured peak can be
    set beside the mem_mb its rule declares (decoders.harness.usage)."""
    return f"results/benchmarks/{key}/{name}.tsv"


def job_runtime(key):
    """runtime in minutes of the jobs of rule `key`, grown with each retry, capped at resources.max_runtime."""
    minutes = _rule_resource(key, "runtime")
    return lambda wildcards, attempt: min(minutes * attempt, RESOURCES["max_runtime"])


def timed_threads(wildcards):
    """Threads of a job that measures time (decode, linking_scaling): with harness.exclusive (the default) every
    core of a local run, so that no other job runs beside it and disturbs its timings, while the job decodes on
    one thread (its worker process pins the numeric libraries to one: decoders.harness.runner). Without a core
    count (a cluster executor: every job has an allocation of its own; profiles/slurm also sets these rules'
    threads) or with exclusive: false (harness.exclusive, or a variant's own `exclusive`: one whose seconds are
    not a result, such as an audit), harness.threads."""
    threads = config["harness"]["threads"]
    exclusive = config["harness"]["exclusive"]
    if hasattr(wildcards, "variant"):
        exclusive = variant_spec(wildcards).get("exclusive", exclusive)
    if exclusive:
        try:
            return max(workflow.cores, threads)
        except WorkflowError:  # no --cores given
            pass
    return threads


def harness_settings(experiment):
    """The decoding harness settings of an experiment: config `harness` with the experiment's overrides."""
    return {**config["harness"], **(config["experiments"].get(experiment) or {}).get("harness", {})}


def shard_range(experiment):
    """The shard numbers of an experiment's instance sets (its own `harness.shards`, else the harness's)."""
    return range(harness_settings(experiment)["shards"])


def decode_runtime(wildcards, input, attempt):
    """A decode job's bound in minutes: instances in its shard x (time limit + grace) + start-up, capped.
    Read from the instance set's index.tsv (written with the shards) once the shard exists; before that the
    missing input makes Snakemake evaluate this again later."""
    shard = Path(input.instances)
    shard.stat()  # FileNotFoundError for the input itself: Snakemake defers the value until it exists
    shards = pd.read_csv(shard.with_name("index.tsv"), sep="\t", usecols=["shard"])["shard"]
    instances = int((shards == int(wildcards.shard)).sum())
    limit = variant_spec(wildcards).get("time_limit", harness_settings(wildcards.experiment)["time_limit"])
    minutes = math.ceil(instances * (limit + default_grace(limit)) / 60) + RESOURCES["decode_startup"]
    return min(minutes * attempt, RESOURCES["max_runtime"])


def raw(ref):
    """data/raw path of a corpus file named <corpus>/<path> in the configuration."""
    return f"data/raw/{ref}"


def corpus_outputs(corpus):
    return [raw(f"{corpus}/{path}") for path in config["corpora"][corpus]["files"]]


def datasets_read_by(*readers):
    return [name for name, spec in DATASETS.items() if spec["reader"] in readers]


def wildcard_choice(names):
    """A wildcard constraint matching exactly these names (never empty: an empty set matches nothing)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def workflow_file(path):
    """A file shipped with the workflow (e.g. workflow/resources/...), wherever Snakemake runs."""
    return str(Path(workflow.basedir) / path)


def prepared(dataset, name):
    return f"data/prepared/{dataset}/{name}"


def prepare_inputs(wildcards):
    """Named inputs of a prepare job: corpus files by role (a list of chapters per textbook), plus the document
    index of a CoNLL-X treebank and the Wikispeedia articles that ELEVANT names are mapped to.
    """
    spec = DATASETS[wildcards.dataset]
    inputs = {role: raw(ref) for role, ref in spec.get("files", {}).items()}
    inputs.update({source: corpus_outputs(corpus) for source, corpus in spec.get("sources", {}).items()})
    if "documents" in spec:
        inputs["documents"] = workflow_file(spec["documents"])
    if "graph" in spec:
        inputs["articles"] = prepared(spec["graph"], "articles.parquet")
    return inputs


def prepare_options(dataset):
    """Keyword options of a dataset's prepare function: its config entry less what names inputs."""
    return {
        key: value
        for key, value in DATASETS[dataset].items()
        if key not in ("reader", "files", "sources", "documents", "graph")
    }


# The experiments this workflow runs, and the datasets they read: only these corpora are fetched and prepared.
BUILT_EXPERIMENTS = [
    name for name in ("chains", "titles", "linking", "bnb", "ppc") if config["experiments"].get(name)
]


def used_datasets():
    """Datasets of the built experiments, with the datasets they are prepared from (an ELEVANT set's graph)."""
    names = [d for e in BUILT_EXPERIMENTS for d in config["experiments"][e].get("datasets", [])]
    names += [DATASETS[d]["graph"] for d in names if "graph" in DATASETS[d]]
    return [name for name in DATASETS if name in names]


def all_targets():
    targets = [
        "results/tables/corpora.csv",
        "results/tables/corpora.md",
        "results/tables/corpora.tex",
    ]
    if CHAINS:
        targets += ["results/tables/chains/table1.csv"]
    if config["experiments"].get("titles"):
        targets += ["results/tables/titles/table1.csv"]
    if config["experiments"].get("linking"):
        targets += ["results/tables/linking/table1.csv"]
    if config["experiments"].get("bnb"):
        targets += ["results/tables/bnb/table2.csv"]
    if config["experiments"].get("ppc"):
        targets += ["results/tables/ppc/table1.csv"]
    return [*targets, "results/RESULTS.md"]


# Decoding (decode.smk): instance sets and result records of (experiment, dataset, variant).
wildcard_constraints:
    experiment="|".join(config["experiments"]),
    dataset=r"[^/]+",
    variant=r"[^/]+",
    shard=r"\d+",


INSTANCES = "results/instances/{experiment}/{dataset}"
RUNS = "results/runs/{experiment}/{dataset}/{variant}"


def variant_params(wildcards):
    """The variant's entry as the decode job sees it: what it runs, not what it asks the scheduler for."""
    return {key: value for key, value in variant_spec(wildcards).items() if key != "mem_mb"}


def variant_spec(wildcards):
    """The variant's entry in config.yaml: decoder name, its parameters, optionally the module defining it."""
    variants = config["experiments"][wildcards.experiment].get("variants", {})
    if wildcards.variant not in variants:
        known = ", ".join(sorted(variants)) or "none"
        raise ValueError(
            f"experiments.{wildcards.experiment}.variants: no variant {wildcards.variant!r} (known: {known})"
        )
    return variants[wildcards.variant]


def decode_inputs(wildcards):
    """A decode job reads its instance shard; the set's index for a variant with a `sample` (the index says which
    instances it holds); and the variant's params_file when the workflow computes some of its parameters (e.g.
    the titles experiment's smallest optimal beam width)."""
    inputs = {"instances": expand(f"{INSTANCES}/shard-{{shard}}.pkl", **wildcards)[0]}
    spec = variant_spec(wildcards)
    if spec.get("sample") is not None:
        inputs["index"] = expand(f"{INSTANCES}/index.tsv", **wildcards)[0]
    if "params_file" in spec:
        inputs["params_file"] = spec["params_file"].format(dataset=wildcards.dataset)
    return inputs


def shard_records(wildcards):
    """The shard record files of a variant (which must exist in config.yaml) to gather."""
    variant_spec(wildcards)
    return expand(
        f"{RUNS}/shard-{{shard}}.parquet",
        shard=shard_range(wildcards.experiment),
        **wildcards,
    )


def instance_shards(experiment):
    """The shard files of an instance set ({set} wildcard) of an experiment."""
    return expand(
        f"results/instances/{experiment}/{{{{set}}}}/shard-{{shard}}.pkl",
        shard=shard_range(experiment),
    )


# chains: instance sets are "<dataset>" (the tables' model), "<dataset>~<model>" (another trained model) and
# "<dataset>~features" (sentences as feature ids and strings, for the scoring variants and CRFsuite).
CHAINS = config["experiments"].get("chains", {})
# The code behind the chains scorers and instance sets: the decoders are not part of it, so that a change to a
# decoding kernel reruns the decodes (whose code hash covers the experiment's package) but does not retrain.
CHAINS_MODEL_CODE = [
    "chains/pipeline.py",
    "chains/features.py",
    "chains/model.py",
    "chains/train.py",
    "chains/viterbi.py",
    "chains/instance.py",
    "chains/crfsuite.py",
    "corpora/sentences.py",
    "harness/instances.py",
    "harness/sharding.py",
    "harness/records.py",
]
CHAINS_TABLES = [
    "table1",
    "table2a",
    "table2b",
    "cg_statistics",
    "speed_by_length",
    "peer",
    "figure2",
]


def chains_set_pattern():
    datasets = wildcard_choice(CHAINS.get("datasets", []))
    models = wildcard_choice([*CHAINS.get("models", {}), "features"])
    return f"({datasets})(~({models}))?"


def chains_set(name):
    """(dataset, model, features?) of an instance-set name."""
    dataset, _, suffix = name.partition("~")
    if suffix == "features":
        return dataset, CHAINS["model"], True
    return dataset, suffix or CHAINS["model"], False


def chains_instance_inputs(wildcards):
    dataset, model, features = chains_set(wildcards.set)
    inputs = {
        "test": prepared(dataset, "test.parquet"),
        "model": f"results/models/chains/{dataset}/{model}.npz",
    }
    if features:
        inputs["crfsuite"] = f"results/models/chains/{dataset}/crfsuite.model"
    return inputs


def chains_runs():
    """Gathered records of every (instance set, variant) the chains tables and figures read."""
    runs = CHAINS.get("runs", {})
    pairs = [
        (d, v) for d in CHAINS.get("datasets", []) for v in runs.get("table1", []) + runs.get("table2a", [])
    ]
    pairs += [(d, v) for d in CHAINS.get("pos", []) for v in runs.get("table2b", [])]
    pairs += [(f"{d}~features", v) for d in CHAINS.get("datasets", []) for v in runs.get("peer", [])]
    figure = CHAINS.get("figure2", {})
    pairs += [
        (d if m == CHAINS["model"] else f"{d}~{m}", v)
        for d in figure.get("datasets", [])
        for m in figure.get("models", [])
        for v in figure.get("variants", [])
    ]
    return [f"results/runs/chains/{s}/{v}.parquet" for s, v in dict.fromkeys(pairs)]


def run_provenance(runs):
    """Provenance files of the decode jobs behind gathered runs (the results page summarises them)."""
    # a run's path is results/runs/<experiment>/<set>/<variant>.parquet
    return [
        str(Path(run.removesuffix(".parquet")) / f"shard-{i}.json")
        for run in runs
        for i in shard_range(Path(run).parts[2])
    ]


def chains_provenance():
    return run_provenance(chains_runs())


# titles: one instance set per dataset (its test split scored by the model trained on its train split).
TITLES = config["experiments"].get("titles", {})
TITLES_TABLES = ["table1", "units", "examples"]


def titles_runs_all():
    return [run for dataset in TITLES.get("datasets", []) for run in titles_runs(dataset)]


def titles_runs(dataset):
    """Gathered records of every variant of Table 1 on a dataset (the exact reference first)."""
    names = dict.fromkeys([TITLES["exact"], *TITLES["runs"]])
    return [f"results/runs/titles/{dataset}/{variant}.parquet" for variant in names]


# linking: instance sets "wikispeedia" and "elevant" (NEL on the Wikispeedia graph) and "synthetic" (planted
# on a Wikipedia-size graph built by the workflow).
LINKING = config["experiments"].get("linking", {})
LINKING_TABLES = ["table1", "instances", "jaccard", "scaling"]
LINKING_GRAPH = "data/prepared/wikispeedia/graph.npz"
SYNTHETIC_GRAPH = "results/graphs/linking/synthetic.npz"


def linking_runs():
    """Gathered records of Table 1's variants on the NEL sets and of the scaling variants on the synthetic set."""
    runs = LINKING.get("runs", {})
    pairs = [(s, v) for s in ("wikispeedia", "elevant") for v in runs.get("table1", [])]
    pairs += [(s, v) for s in runs.get("exact_sets", []) for v in runs.get("exact", [])]
    pairs += [("synthetic", v) for v in runs.get("synthetic", [])]
    return [f"results/runs/linking/{s}/{v}.parquet" for s, v in pairs]


def linking_shards(name):
    return expand(
        "results/instances/linking/{set}/shard-{shard}.pkl",
        set=name,
        shard=shard_range("linking"),
    )


# bnb: per dataset the tags and one model per `models` entry; instance sets "<dataset>~<model>~k<k>" (the model's
# test sentences pruned to k heads per word) or "<dataset>~<model>~unpruned".
BNB = config["experiments"].get("bnb", {})
# The code behind bnb's tags, models and instance sets (the decoders' own changes rerun only the decodes).
BNB_MODEL_CODE = [
    "bnb/pipeline.py",
    "bnb/model.py",
    "bnb/factors.py",
    "bnb/search.py",
    "parsing",
    "corpora/sentences.py",
]
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
]
# The datasets the hand-crafted factors are counted on: the English ones (none for Chinese, as the paper).
BNB_ENGLISH = [d for d in BNB.get("datasets", []) if BNB.get("languages", {}).get(d) == "en"]


def treebank_split_files(dataset):
    """A parsing dataset's prepared train/dev/test files (dev only when the treebank has one)."""
    reader = DATASETS[dataset]["reader"]
    return {
        split: prepared(dataset, f"{split}.parquet")
        for split in ("train", "dev", "test")
        if f"{split}.parquet" in PREPARED_FILES[reader]
    }


def treebank_splits(wildcards):
    return treebank_split_files(wildcards.dataset)


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


def bnb_train_inputs(wildcards):
    inputs = {
        **treebank_split_files(wildcards.dataset),
        "tags": f"results/models/bnb/{wildcards.dataset}/tags.parquet",
    }
    if wildcards.model != BNB["pruner"]:
        inputs["pruner"] = bnb_model_file(wildcards.dataset, BNB["pruner"])
    start = bnb_start(BNB, wildcards.model)
    if start is not None:
        inputs["start"] = bnb_model_file(wildcards.dataset, start)
    return inputs


def bnb_train_options(dataset, model):
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
        "seed": config["seed"],
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
    models = wildcard_choice(BNB.get("models", {}))
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
    """The breakdown's per-sentence parquet and summary, when config.yaml asks for one."""
    if "breakdown" not in BNB:
        return []
    folder = f"results/models/bnb/{BNB['breakdown']['dataset']}"
    return [f"{folder}/breakdown.parquet", f"{folder}/breakdown.json"]


def bnb_runs():
    """Gathered records of Table 2's (model, variant) pairs at k and Table 3's model at every pruning k."""
    pairs = [
        (bnb_set_name(d, model, BNB["k"]), variant)
        for d in BNB.get("datasets", [])
        for model, variant in BNB.get("table2", {}).items()
        if model in bnb_models(BNB, d)
    ]
    pairs += [
        (bnb_set_name(d, BNB[table]["model"], k), BNB[table]["variant"])
        for table in BNB_RUN_TABLES
        if table in BNB
        for d in BNB.get("datasets", [])
        for k in BNB[table]["pruning"]
    ]
    return [f"results/runs/bnb/{s}/{v}.parquet" for s, v in dict.fromkeys(pairs)]


# ppc: per dataset the first-order (MST) and grandparent parsers, then the test sentences as instance set
# "<dataset>" (never pruned), decoded by every variant (decode.smk), and the UDPipe 1 peer.
PPC = config["experiments"].get("ppc", {})
PPC_MODEL_CODE = [
    "ppc/pipeline.py",
    "ppc/model.py",
    "ppc/training.py",
    "ppc/lp.py",
    "parsing",
    "corpora/sentences.py",
]


def ppc_train_options(dataset):
    return {
        "bits": PPC.get("feature_bits", 20),
        "epochs": PPC.get("epochs", 5),
        "train_k": PPC.get("train_k"),
        "first_order": PPC["first_order"],
        "epoch_tolerance": PPC.get("epoch_tolerance", 0.0),
        "seed": config["seed"],
        "dev_fraction": PPC.get("dev_fraction", 0.1),
    }
