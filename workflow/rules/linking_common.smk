# Helpers of the linking experiment's rules (linking.smk; snakemake --lint wants functions apart from rules).

# linking: instance sets "wikispeedia" and "elevant" (NEL on the Wikispeedia graph) and "synthetic" (planted
# on a Wikipedia-size graph built by the workflow).
LINKING = config["experiments"].get("linking", {})
LINKING_TABLES = ["table1", "exact", "instances", "jaccard", "scaling"]
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
