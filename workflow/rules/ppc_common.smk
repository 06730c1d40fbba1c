# Helpers of the ppc experiment's rules (ppc.smk; snakemake --lint wants functions apart from rules).

from decoders.ppc.settings import seed_sets
from decoders.seeds import seeded_name, unseeded

# ppc: per dataset the first-order (MST) and grandparent parsers, then the test sentences as instance set
# "<dataset>" (never pruned), decoded by every variant (decode.smk), and the UDPipe 1 peer.
PPC = config["experiments"].get("ppc", {})
# The seed study's extra instance sets ("<dataset>.seed<n>" -> (dataset, seed)): the dataset's splits, parsers
# trained with that seed.
PPC_SEEDS = seed_sets(PPC, config["seed"])
PPC_SEED_VARIANTS = PPC.get("seeds", {}).get("variants", [])


def ppc_sets():
    """Every instance set ppc trains and decodes: its datasets and the seed study's sets."""
    return [*PPC.get("datasets", []), *PPC_SEEDS]


def ppc_splits(wildcards):
    """The prepared splits of an instance set's dataset (a seed-study set reads its dataset's)."""
    return treebank_split_files(unseeded(wildcards.dataset)[0])


def ppc_train_options(name):
    """The parsers' training options of an instance set; a seed-study set's with its own seed."""
    seed = unseeded(name)[1]
    return {
        "bits": PPC.get("feature_bits", 20),
        "epochs": PPC.get("epochs", 5),
        "train_k": PPC.get("train_k"),
        "first_order": PPC["first_order"],
        "epoch_tolerance": PPC.get("epoch_tolerance", 0.0),
        "seed": config["seed"] if seed is None else seed,
        "dev_fraction": PPC.get("dev_fraction", 0.1),
    }


def ppc_seed_histories():
    """The training histories of the seed study: every seed's, the run's own included."""
    spec = PPC.get("seeds", {})
    return [
        f"results/models/ppc/{seeded_name(d, seed, config['seed'])}/history.json"
        for d in spec.get("datasets", [])
        for seed in spec.get("seeds", [])
    ]


def ppc_noise_variants(dataset):
    """The variants whose speeds Tables 1 and 2 compare, timed again by the noise jobs: every configured variant
    but the audit (decoder ppc-audit, not a speed row), each of which plays a role of Table 1 or 2
    (decoders.tables.ppc.variant_roles), and AD3's branch and bound, which the noise jobs (no worker to kill)
    could not stop at the time limit: its speed intervals cover the sentences' sampling only."""
    left_out = ("ppc-audit", "ad3-exact")
    return [name for name, spec in PPC.get("variants", {}).items() if spec.get("decoder") not in left_out]


register_noise("ppc", ppc_noise_variants)
