# Helpers of the chains experiment's rules (chains.smk; snakemake --lint wants functions apart from rules).
from decoders.chains.settings import seed_models

# chains: instance sets are "<dataset>" (the tables' model), "<dataset>~<model>" (another trained model) and
# "<dataset>~features" (sentences as feature ids and strings, for the scoring variants and CRFsuite).
CHAINS = config["experiments"].get("chains", {})
CHAINS_TABLES = [
    "table1",
    "table2a",
    "table2b",
    "cg_statistics",
    "speed_by_length",
    "cg_phases",
    "viterbi_peak",
    "peer",
    "figure2",
    "seeds",
]
# The seed study's extra models (name "<model>.seed<seed>" -> (model, seed)): trained and decoded as their model,
# with another seed; their instance sets are "<dataset>~<model>.seed<seed>".
CHAINS_SEEDS = seed_models(CHAINS, config["seed"]) if CHAINS else {}


def chains_set_pattern():
    datasets = wildcard_choice(CHAINS.get("datasets", []))
    models = wildcard_choice([*CHAINS.get("models", {}), *CHAINS_SEEDS, "features"])
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
    return [f"results/runs/chains/{s}/{v}.parquet" for s, v in chains_pairs()]


def chains_pairs():
    """Every (instance set, variant) the chains tables and figures read, once each, in order."""
    runs = CHAINS.get("runs", {})
    pairs = [
        (d, v) for d in CHAINS.get("datasets", []) for v in runs.get("table1", []) + runs.get("table2a", [])
    ]
    pairs += [(d, v) for d in CHAINS.get("pos", []) for v in runs.get("table2b", [])]
    pairs += [(d, v) for d in CHAINS.get("datasets", []) for v in runs.get("profile", [])]
    pairs += [(f"{d}~features", v) for d in CHAINS.get("datasets", []) for v in runs.get("peer", [])]
    figure = CHAINS.get("figure2", {})
    pairs += [
        (d if m == CHAINS["model"] else f"{d}~{m}", v)
        for d in figure.get("datasets", [])
        for m in figure.get("models", [])
        for v in figure.get("variants", [])
    ]
    return list(dict.fromkeys(pairs))


def chains_noise_variants(name):
    """The variants whose speeds the chains tables compare on instance set `name` (all but CG's cycle profile),
    timed again by the noise jobs."""
    profile = set(CHAINS.get("runs", {}).get("profile", []))
    return [v for s, v in chains_pairs() if s == name and v not in profile]


def chains_noise():
    """The noise jobs' records of every instance set whose speeds the chains tables compare."""
    sets = [s for s in dict.fromkeys(s for s, _ in chains_pairs()) if chains_noise_variants(s)]
    return noise_records("chains", sets)


register_noise("chains", chains_noise_variants)


def chains_train_options(model):
    """(spec, seed) a model is trained with: a seed-study model has its model's spec and its own seed."""
    base, seed = CHAINS_SEEDS.get(model, (model, config["seed"]))
    return CHAINS["models"][base], seed


def chains_seed_runs():
    """The seed study's records: each extra seed's instance set decoded by the study's variants."""
    spec = CHAINS.get("seeds") or {}
    return [
        f"results/runs/chains/{d}~{m}/{v}.parquet"
        for d in spec.get("datasets", [])
        for m in CHAINS_SEEDS
        for v in spec.get("variants", [])
    ]


def chains_seed_histories():
    """The training histories of the seed study's models and of the run's own model they repeat."""
    spec = CHAINS.get("seeds") or {}
    models = [CHAINS["model"], *CHAINS_SEEDS] if spec else []
    return [f"results/models/chains/{d}/{m}.history.json" for d in spec.get("datasets", []) for m in models]


def chains_provenance():
    return run_provenance(chains_runs() + chains_seed_runs())
