# Helpers of the ppc experiment's rules (ppc.smk; snakemake --lint wants functions apart from rules).

# ppc: per dataset the first-order (MST) and grandparent parsers, then the test sentences as instance set
# "<dataset>" (never pruned), decoded by every variant (decode.smk), and the UDPipe 1 peer.
PPC = config["experiments"].get("ppc", {})


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


def ppc_noise_variants(dataset):
    """The variants whose speeds Tables 1 and 2 compare, timed again by the noise jobs: every configured variant
    but the audit (decoder ppc-audit, not a speed row), each of which plays a role of Table 1 or 2
    (decoders.tables.ppc.variant_roles)."""
    return [name for name, spec in PPC.get("variants", {}).items() if spec.get("decoder") != "ppc-audit"]


register_noise("ppc", ppc_noise_variants)
