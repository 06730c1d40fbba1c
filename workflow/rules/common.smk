# Helpers shared by every .smk file of the workflow: the validated configuration and the paths stages agree on.

import functools
import importlib
import hashlib
import math
import re
from pathlib import Path

import pandas as pd

from decoders.config import validate_config
from decoders.corpora.fetch import resolve_mirror
from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

from decoders.errors import ConfigError
from decoders.io import write_text_atomic
from decoders.labelled import labelled
from decoders.tables.captions import caption
from decoders.tier import QUICK_NOTE
from decoders.harness.protocol import decoder_problems
from decoders.harness.runner import default_grace
from decoders.tables.resources import noise_mem_mb as resources_noise_mem_mb
from decoders.imports import dependencies, module_file, script_dependencies
from decoders.imports import modules as package_modules

# Fails at load time, naming the key, on an unknown key, a wrong type or a dangling reference. The checked form
# holds the experiments as `experiments: {name: settings}` (decoders.config.validate_config).
# (The schemas are read from the folder itself: each experiment's sits beside config.schema.yaml, and
# workflow.source_path would give a cached copy of the one file.)
_checked = validate_config(config, Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml")
config.clear()
config.update(_checked)

# Every variant's decoder and module resolve now, not when its job runs (decoders.harness.protocol).
_problems = [
    problem
    for _name, _settings in config["experiments"].items()
    for problem in decoder_problems(
        _name, (_settings or {}).get("variants", {}), [Path(workflow.basedir) / "workflow" / "scripts"]
    )
]
if _problems:
    raise ConfigError("invalid configuration:\n" + "\n".join(f"  {p}" for p in _problems))

DATASETS = config["datasets"]

# The mirror is read by fetch jobs only, but a mistyped folder is said at once, before any job is planned;
# `auto` becomes the folder it found (or null: download).
try:
    config["mirror"], _mirror_line = resolve_mirror(config["mirror"], workflow.basedir)
except ConfigError as _error:
    raise ConfigError(str(_error)) from None  # the message alone, not resolve_mirror's frame
logger.info(_mirror_line)

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
    "entity_fishing": ["documents.parquet", "mentions.parquet"],
}


@functools.cache
def code_hash(script, *modules):
    """sha256 of the package code a job runs: every module that workflow/scripts/<script>.py imports, directly or
    through others, and `modules` (named, for those a job loads by name: a decoder module) with theirs
    (decoders.imports, read from the source). Given as a parameter, a change to that code reruns the jobs, as
    Snakemake does by itself only for changes to their script."""
    root = Path(workflow.basedir)
    src = root / "src"
    files = set(script_dependencies(root / "workflow" / "scripts" / f"{script}.py", src))
    ours = package_modules(src)
    files.update(dependencies([name for name in modules if name in ours], src))
    # a user's decoder module outside the package: its source and what it imports of ours
    for name in modules:
        if name not in ours:
            path = module_file(name, [root / "workflow" / "scripts"])
            files.update([path, *script_dependencies(path, src)])
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update((file.relative_to(src).as_posix() if file.is_relative_to(src) else file.name).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


# The parameters of the rules that make report items print short in the report's job panel (decoders.labelled);
# their value, and so when they rerun a job, stays as it is.
def shown_code(digest):
    """A code hash (code_hash, claims_hash) as the report prints it: its first 12 digits. Given as a function of
    the wildcards: Snakemake formats a str parameter with the job's wildcards (a plain str again), not a returned one.
    """
    shown = labelled(digest, f"sha256 {digest[:12]}")
    return lambda wildcards: shown


def shown_settings(experiment, settings):
    """An experiment's settings (every experiment's: "*") as the report prints them: where the configuration holds
    them."""
    return labelled(settings, f"the configuration's experiments.{experiment}")


def decoder_modules(wildcards):
    """The modules a decode job loads by name: its variant's decoder module and its reference's (harness.reference),
    each the variant's `module` or decoders.<experiment>.decoders, where that exists."""
    return modules_of(wildcards.experiment, [variant_spec(wildcards)])


def modules_of(experiment_name, specs):
    """The modules that define the decoders of variants `specs` of experiment `experiment_name` and of its
    reference (harness.reference), each the variant's `module` (a user's, outside the package, too) or
    decoders.<experiment>.decoders, and the latter in any case, where they exist."""
    experiment = config["experiments"][experiment_name]
    specs = list(specs)
    reference = harness_settings(experiment_name).get("reference")
    if reference in experiment.get("variants", {}):
        specs.append(experiment["variants"][reference])
    own = (
        f"decoders.{experiment_name}.decoders"  # its verify, check_structure and evaluate check every variant
    )
    names = {spec.get("module", own) for spec in specs} | {own}
    ours = package_modules(Path(workflow.basedir) / "src")
    scripts = [Path(workflow.basedir) / "workflow" / "scripts"]
    return sorted(
        name
        for name in names
        if name in ours or (not name.startswith("decoders.") and module_file(name, scripts) is not None)
    )


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
    """mem_mb of a decode job: its variant's own `mem_mb` (config/<experiment>.yaml; a solver that needs more than the rest,
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
    threads) or with exclusive: false (harness.exclusive, the experiment's harness.exclusive, or a variant's own
    `exclusive`: one whose seconds are not a result, such as an audit), harness.threads."""
    threads = config["harness"]["threads"]
    exclusive = config["harness"]["exclusive"]
    if hasattr(wildcards, "experiment"):
        exclusive = harness_settings(wildcards.experiment).get("exclusive", exclusive)
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
    """Keyword options of a dataset's prepare function: its config entry less what names inputs (with the run's
    seed where the dataset is sampled)."""
    options = {
        key: value
        for key, value in DATASETS[dataset].items()
        if key not in ("reader", "files", "sources", "documents", "graph")
    }
    return {**options, "seed": config["seed"]} if options.get("sample") else options


# The experiments this run builds (config.yaml's list, in its order), and the datasets they read: only these
# corpora are fetched and prepared.
BUILT_EXPERIMENTS = list(config["experiments"])

# What each experiment's rule file adds to the run as a whole (register_experiment, called as the Snakefile
# includes it): its default targets and its results-page section.
EXPERIMENT_TARGETS = {}
PAGE_SECTIONS = {}


def register_experiment(name, targets, tables, provenance):
    """An experiment's default targets, the Markdown tables of its results-page section, and `provenance`: a
    function giving the decode jobs' provenance files behind those tables (the page summarises them)."""
    EXPERIMENT_TARGETS[name] = list(targets)
    PAGE_SECTIONS[name] = {"tables": list(tables), "provenance": provenance}


def used_datasets():
    """Datasets of the built experiments, with the datasets they are prepared from (an ELEVANT set's graph)."""
    names = [d for e in BUILT_EXPERIMENTS for d in config["experiments"][e].get("datasets", [])]
    names += [DATASETS[d]["graph"] for d in names if "graph" in DATASETS[d]]
    return [name for name in DATASETS if name in names]


def all_targets():
    targets = ["results/tables/corpora.csv", "results/tables/corpora.md", "results/tables/corpora.tex"]
    for name in BUILT_EXPERIMENTS:
        targets += EXPERIMENT_TARGETS[name]
    return [*targets, "results/RESULTS.md", "results/explorer", "results/explorer.html"]


def page_sections():
    """The results page's experiment sections, in the run's order: name -> its tables and provenance files."""
    return {
        name: {"tables": PAGE_SECTIONS[name]["tables"], "provenance": PAGE_SECTIONS[name]["provenance"]()}
        for name in BUILT_EXPERIMENTS
    }


def page_inputs(wildcards):
    """Every table and provenance file of the results page's experiment sections."""
    return [
        file for section in page_sections().values() for file in section["tables"] + section["provenance"]
    ]


def page_csvs(wildcards):
    """The CSV beside every Markdown table of the page's experiment sections: the scoreboard reads them."""
    return [
        str(Path(table).with_suffix(".csv"))
        for section in page_sections().values()
        for table in section["tables"]
    ]


def claims_hash():
    """sha256 of the scoreboard's claims (decoders/tables/claims.yaml): a change to them rewrites the page."""
    path = Path(workflow.basedir) / "src" / "decoders" / "tables" / "claims.yaml"
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
    """The variant's entry in config/<experiment>.yaml: decoder name, its parameters, optionally the module defining it."""
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
    """The shard record files of a variant (which must exist in config/<experiment>.yaml) to gather."""
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


# Run-to-run noise (the noise jobs of decode.smk): each experiment names, per instance set, the variants its tables
# compare (register_noise); the sample and the number of processes are its harness.noise.
NOISE = "results/noise/{experiment}/{dataset}"
NOISE_VARIANTS = {}


def register_noise(experiment, variants):
    """`variants(set)`: the variants of `experiment` timed again on that instance set by its noise jobs."""
    NOISE_VARIANTS[experiment] = variants


def noise_variants(wildcards):
    variants = NOISE_VARIANTS.get(wildcards.experiment)
    if variants is None:
        raise ValueError(f"experiments.{wildcards.experiment}: the experiment registers no noise variants")
    return list(variants(wildcards.dataset))


def noise_records(experiment, sets):
    """The noise jobs' record files of an experiment's instance sets (none without harness.noise)."""
    noise = harness_settings(experiment).get("noise")
    if not noise:
        return []
    return [
        f"results/noise/{experiment}/{name}/process-{process}.parquet"
        for name in sets
        for process in range(1, noise["processes"] + 1)
    ]


def _noise_specs(wildcards):
    variants = config["experiments"][wildcards.experiment].get("variants", {})
    return {name: variants[name] for name in noise_variants(wildcards) if name in variants}


def noise_inputs(wildcards):
    """A noise job reads every shard of the set, its index, and the params_file of a variant that has one."""
    return {
        "shards": expand(
            f"{INSTANCES}/shard-{{shard}}.pkl", shard=shard_range(wildcards.experiment), **wildcards
        ),
        "index": expand(f"{INSTANCES}/index.tsv", **wildcards)[0],
        "params_files": list(noise_params_files(wildcards).values()),
    }


def noise_params_files(wildcards):
    return {
        name: spec["params_file"].format(dataset=wildcards.dataset)
        for name, spec in _noise_specs(wildcards).items()
        if "params_file" in spec
    }


def noise_modules(wildcards):
    """The decoder modules a noise job loads by name (its variants' and the reference's)."""
    return modules_of(wildcards.experiment, _noise_specs(wildcards).values())


def noise_mem_mb(wildcards, attempt):
    """A noise job's mem_mb (decoders.tables.resources.noise_mem_mb), grown with each retry up to max_mem_mb."""
    return min(resources_noise_mem_mb(config, wildcards.experiment) * attempt, RESOURCES["max_mem_mb"])


def noise_runtime(wildcards, attempt):
    """A noise job's bound in minutes: sample x variants x (time limit + grace) + start-up per variant, capped."""
    harness = harness_settings(wildcards.experiment)
    seconds = 0.0
    for spec in _noise_specs(wildcards).values():
        limit = spec.get("time_limit", harness["time_limit"])
        seconds += harness["noise"]["sample"] * (limit + default_grace(limit))
    minutes = math.ceil(seconds / 60) + RESOURCES["decode_startup"] * max(len(_noise_specs(wildcards)), 1)
    return min(minutes * attempt, RESOURCES["max_runtime"])


def run_provenance(runs):
    """Provenance files of the decode jobs behind gathered runs (the results page summarises them)."""
    # a run's path is results/runs/<experiment>/<set>/<variant>.parquet
    return [
        str(Path(run.removesuffix(".parquet")) / f"shard-{i}.json")
        for run in runs
        for i in shard_range(Path(run).parts[2])
    ]


# The parsing experiments' (bnb, ppc) treebank splits.
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


def built_headings():
    """The results-page headings of the experiments this run builds (each decoders.tables.<experiment>.PAGE)."""
    return [importlib.import_module(f"decoders.tables.{name}").PAGE["heading"] for name in BUILT_EXPERIMENTS]


# The report shows a CSV item only as a download (its eye icon): a table's caption says where it is rendered (a
# figure that shares its table's caption, e.g. chains' cg_statistics, shows the same words, true of it too).
SHARED_TABLES = ("corpora", "resources", "cost")
# CSV items whose caption key is not their table's name (chains' figure2.csv, Figure 2's points) or not in their
# experiment's table list (linking's sweep table, built only when the configuration has a sweep)
TABLE_CAPTION_KEYS = {("chains", "figure2_points"), ("linking", "sweep")}
TABLE_ITEM_NOTE = (
    "The table of this caption is shown rendered, with its column notes, in the results page (``RESULTS.html``) "
    "and in the explorer, both under *Results page*; the eye icon of its CSV item downloads it as CSV."
)


def report_caption(experiment, key):
    """The report caption of an output, from decoders/tables/captions/<experiment>.yaml (declared once: the results
    page prints the same text under the table), written as reStructuredText into .snakemake/captions/ (rewritten
    only when it changed) for report() to read."""
    text = caption(experiment, key).rst()
    tables = SHARED_TABLES if experiment == "shared" else globals().get(f"{experiment.upper()}_TABLES", ())
    # chains' table2 captions table2a and table2b
    if key in tables or f"{key}a" in tables or (experiment, key) in TABLE_CAPTION_KEYS:
        text += f"\n{TABLE_ITEM_NOTE}\n"
    if (experiment, key) == ("shared", "workflow"):  # the front page names the experiments this run built
        text += "\n\nThis run built:\n\n" + "\n".join(f"- {heading}" for heading in built_headings()) + "\n"
    if config["tier"] == "quick":
        text = f"**{QUICK_NOTE}**\n\n{text}"
    path = Path(".snakemake", "captions", f"{experiment}_{key}.rst").resolve()
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text_atomic(path, text)
    return str(path)
