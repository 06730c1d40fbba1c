# decoders-bench: exact and approximate decoders for structured NLP problems, on real corpora.
# This file only sets up: configuration, its validation, the rule files and the default target.

from pathlib import Path

from snakemake.utils import min_version

from decoders.config import experiment_names

min_version("9.0")


configfile: "config.yaml"


# Each listed experiment's settings: config/<name>.yaml beside this file, under the key <name> (a --configfile
# overlay still wins: Snakemake applies the command line's configuration again after every file).
for _experiment in experiment_names(config):
    workflow.configfile(str(Path(workflow.basedir) / "config" / f"{_experiment}.yaml"))


include: "workflow/rules/common.smk"
include: "workflow/rules/corpora.smk"
include: "workflow/rules/decode.smk"


# Each experiment's helpers and rules (they register its targets and results-page section, common.smk).
for _experiment in config["experiments"]:

    include: f"workflow/rules/{_experiment}_common.smk"
    include: f"workflow/rules/{_experiment}.smk"


include: "workflow/rules/tables.smk"


report: report_caption("shared", "workflow")


rule all:
    default_target: True
    input:
        all_targets(),
