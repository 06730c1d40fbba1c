"""config.yaml validation: unknown keys, wrong types and dangling references fail naming the key."""

from __future__ import annotations

import copy

import pytest

from decoders.config import in_order_of, load_config, load_yaml, validate_config
from decoders.errors import ConfigError


@pytest.fixture(scope="module")
def config(repo_root):
    return load_config(repo_root)


@pytest.fixture(scope="module")
def schema(repo_root):
    return repo_root / "workflow" / "schemas" / "config.schema.yaml"


def test_default_config_is_valid_and_gets_defaults(config, schema):
    raw = copy.deepcopy(config)
    del raw["harness"]["warmup"]
    checked = validate_config(raw, schema)
    assert checked["harness"]["warmup"] == 1
    assert "warmup" not in raw["harness"]  # the input is not modified
    assert set(checked["experiments"]) == {"titles", "chains", "bnb", "ppc", "linking"}


def test_an_experiment_set_to_null_is_left_out(config, schema):
    raw = copy.deepcopy(config)
    raw["experiments"]["bnb"] = None
    checked = validate_config(raw, schema)
    assert set(checked["experiments"]) == {"titles", "chains", "ppc", "linking"}
    assert raw["experiments"]["bnb"] is None  # the input is not modified


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (lambda c: c["datasets"]["wsj"].update(limt=3), "datasets.wsj", "'limt' was unexpected"),
        (lambda c: c.update(bogus=1), "(top level)", "'bogus' was unexpected"),
        (lambda c: c["harness"].update(shards="four"), "harness.shards", "not of type 'integer'"),
        (lambda c: c["harness"].update(time_limit=0), "harness.time_limit", "less than or equal"),
        (lambda c: c["datasets"]["ewt"].update(reader="conlu"), "datasets.ewt.reader", "is not one of"),
        (lambda c: c["datasets"]["ewt"].update(limit=-1), "datasets.ewt.limit", "less than the minimum"),
        (
            lambda c: c["experiments"].update(tagging={"datasets": ["wsj"]}),
            "experiments.tagging",
            "no schema",
        ),
        (
            lambda c: c["experiments"]["bnb"]["models"]["sibling"].update(backbone_step=0),
            "experiments.bnb.models.sibling.backbone_step",
            "less than the minimum",
        ),
        (
            lambda c: c["experiments"]["bnb"]["models"]["baseline"].update(backbone_step=2),
            "experiments.bnb.models.baseline",
            "'backbone_step' was unexpected",
        ),
        (
            lambda c: c["experiments"]["chains"]["harness"]["noise"].update(sample=1),
            "experiments.chains.harness.noise.sample",
            "less than the minimum",
        ),
        (
            lambda c: c["experiments"]["chains"]["seeds"].update(seeds=[13]),
            "experiments.chains.seeds.seeds",
            "is too short",
        ),
        (
            lambda c: c["experiments"]["titles"]["harness"].update(noise={"sample": 10}),
            "experiments.titles.harness.noise",
            "'processes' is a required property",
        ),
        (
            lambda c: c["experiments"]["ppc"]["harness"]["noise"].update(processes=0),
            "experiments.ppc.harness.noise.processes",
            "less than the minimum",
        ),
    ],
)
def test_bad_values_name_the_key(config, schema, change, key, words):
    bad = copy.deepcopy(config)
    change(bad)
    with pytest.raises(ConfigError) as info:
        validate_config(bad, schema)
    assert f"{key}: " in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("overlay", ["config/ppc.yaml", "config/quick.yaml", "tests/workflow/config.yaml"])
def test_ppc_measures_run_to_run_noise_in_every_tier(repo_root, overlay):
    """ppc's speed ratios carry intervals with a noise term in the full run, the quick tier and the toy run."""
    noise = load_yaml(repo_root / overlay)["ppc"]["harness"]["noise"]
    assert noise["sample"] >= 2 and noise["processes"] >= 1


def test_bad_sha256_names_the_file(config, schema):
    bad = copy.deepcopy(config)
    bad["corpora"]["wikispeedia"]["files"]["links.tsv"] = "not-a-hash"
    with pytest.raises(ConfigError, match=r"corpora\.wikispeedia\.files\.links\.tsv"):
        validate_config(bad, schema)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda c: c["datasets"]["ewt"]["files"].update(train="ud_english_ewt/missing.conllu"),
            "datasets.ewt.files.train: 'ud_english_ewt/missing.conllu' is not listed under corpora",
        ),
        (
            lambda c: c["experiments"]["chains"].update(datasets=["wsj", "nope"]),
            "experiments.chains.datasets: unknown dataset 'nope'",
        ),
        (
            lambda c: c["experiments"]["chains"]["figure2"].update(datasets=["wsj", "ptb"]),
            "experiments.chains.figure2.datasets: 'ptb' is not one of experiments.chains.datasets",
        ),
        (
            lambda c: c["experiments"]["chains"]["seeds"].update(variants=["viterbi", "beam-99"]),
            "experiments.chains.seeds.variants: 'beam-99' is not one of experiments.chains.variants",
        ),
        (
            lambda c: c["experiments"]["chains"]["seeds"].update(variants=["viterbi", "cg-01"]),
            "experiments.chains.seeds.variants: 'cg-01' is not one of experiments.chains.runs.table1",
        ),
        (
            lambda c: c["experiments"]["chains"]["models"].update({"ssvm.seed2": {"method": "ssvm"}}),
            "experiments.chains.models.ssvm.seed2: the seed study names its models <model>.seed<seed>",
        ),
        (lambda c: c["datasets"]["elevant"].update(graph="ewt"), "datasets.elevant.graph: 'ewt'"),
        (lambda c: c["datasets"]["iitb"].update(graph="ewt"), "datasets.iitb.graph: 'ewt'"),
        (
            lambda c: c["datasets"]["iitb"]["sources"].update(files="el_nope"),
            "datasets.iitb.sources.files: corpus 'el_nope'",
        ),
        (
            lambda c: c["experiments"]["linking"]["runs"].update(exact_sets=["elevant", "kore50"]),
            "experiments.linking.runs.exact_sets: 'kore50' is not one of experiments.linking.datasets",
        ),
        (
            lambda c: c["experiments"]["linking"]["sweep"].update(datasets=["iitb", "ace"]),
            "experiments.linking.sweep.datasets: 'ace' is not one of experiments.linking.datasets",
        ),
        (
            lambda c: c["datasets"]["textbooks"]["sources"].update(ods="textbook_nope"),
            "datasets.textbooks.sources.ods: corpus 'textbook_nope'",
        ),
    ],
)
def test_dangling_references(config, schema, change, message):
    bad = copy.deepcopy(config)
    change(bad)
    with pytest.raises(ConfigError) as info:
        validate_config(bad, schema)
    assert message in str(info.value)


def test_the_files_form_lists_experiments_and_gives_each_its_settings(repo_root, schema):
    """config.yaml lists the experiments; each one's settings come under its own key (config/<name>.yaml): a
    listed experiment without them, a list with repeats and (for the Snakefile) a mapping where the list belongs
    are errors naming the key; an unlisted experiment's settings are left out."""
    from decoders.config import experiment_names, load_yaml

    raw = load_yaml(repo_root / "config.yaml")
    for name in ("chains", "bnb"):
        raw.update(load_yaml(repo_root / "config" / f"{name}.yaml"))
    raw["experiments"] = ["bnb"]
    checked = validate_config(raw, schema)
    assert list(checked["experiments"]) == ["bnb"] and "chains" not in checked and "bnb" not in checked
    for listed, words in (
        (["bnb", "titles"], "'titles' is listed"),
        (["bnb", "bnb"], "bnb listed more than once"),
    ):
        with pytest.raises(ConfigError, match=words):
            validate_config({**raw, "experiments": listed}, schema)
    with pytest.raises(ConfigError, match="experiments: expected a list of experiment names"):
        experiment_names({"experiments": {"bnb": None}})


def test_merged_settings_keep_the_files_key_order():
    """An overlay's keys (loaded before the experiment's file) do not reorder the file's: tables list models and
    variants in the file's order."""
    file = {"table2": {"first": 1, "second": 2, "third": 3}, "epochs": 5, "k": {"a": 1}}
    merged = {"k": 7, "table2": {"third": 30, "first": 1, "second": 2, "extra": 4}, "epochs": 2, "new": [1]}
    ordered = in_order_of(file, merged)
    assert ordered == merged
    assert list(ordered) == ["table2", "epochs", "k", "new"]
    assert list(ordered["table2"]) == ["first", "second", "third", "extra"]
    assert in_order_of(None, merged) is merged and in_order_of(file, None) is None
