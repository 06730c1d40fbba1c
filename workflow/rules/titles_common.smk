# Helpers of the titles experiment's rules (titles.smk; snakemake --lint wants functions apart from rules).

# titles: one instance set per dataset (its test split scored by the model trained on its train split).
TITLES = config["experiments"].get("titles", {})
TITLES_TABLES = ["table1", "units", "examples"]


def titles_runs_all():
    return [run for dataset in TITLES.get("datasets", []) for run in titles_runs(dataset)]


def titles_runs(dataset):
    """Gathered records of every variant of Table 1 on a dataset (the exact reference first)."""
    names = dict.fromkeys([TITLES["exact"], *TITLES["runs"]])
    return [f"results/runs/titles/{dataset}/{variant}.parquet" for variant in names]


def titles_noise_variants(dataset):
    """The variants whose speeds Table 1 compares with the exact reference's, timed again by the noise jobs."""
    return list(dict.fromkeys([TITLES["exact"], *TITLES["runs"]]))


register_noise("titles", titles_noise_variants)
