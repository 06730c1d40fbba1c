# Helpers of the linking experiment's rules (linking.smk; snakemake --lint wants functions apart from rules).

# linking: the NEL instance sets on the Wikispeedia graph, one per dataset of experiments.linking.datasets
# ("wikispeedia": its articles' own links; a benchmark's documents: "elevant", "iitb", "newswire"), and
# "synthetic" (planted on a Wikipedia-size graph built by the workflow).
LINKING = config["experiments"].get("linking", {})
NEL_SETS = list(LINKING.get("datasets", []))
# the sets of benchmark documents (every NEL set but the Wikispeedia articles' own)
DOCUMENT_SETS = [s for s in NEL_SETS if DATASETS[s]["reader"] in ("elevant", "entity_fishing")]
LINKING_TABLES = ["table1", "exact", "instances", "jaccard", "scaling"]
LINKING_GRAPH = "data/prepared/wikispeedia/graph.npz"
SYNTHETIC_GRAPH = "results/graphs/linking/synthetic.npz"


def linking_runs():
    """Gathered records of Table 1's variants on the NEL sets and of the scaling variants on the synthetic set."""
    runs = LINKING.get("runs", {})
    pairs = [(s, v) for s in NEL_SETS for v in runs.get("table1", [])]
    pairs += [(s, v) for s in runs.get("exact_sets", []) for v in runs.get("exact", [])]
    pairs += [(s, v) for s in runs.get("exact_peer_sets", []) for v in runs.get("exact_peer", [])]
    pairs += [("synthetic", v) for v in runs.get("synthetic", [])]
    return [f"results/runs/linking/{s}/{v}.parquet" for s, v in pairs]


def linking_shards(name):
    return expand(
        "results/instances/linking/{set}/shard-{shard}.pkl",
        set=name,
        shard=shard_range("linking"),
    )
