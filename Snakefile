# decoders-bench: exact and approximate decoders for structured NLP problems, on real corpora.
# This file only sets up: configuration, its validation, the rule files and the default target.

import os
from pathlib import Path

from snakemake.utils import min_version

from decoders.config import experiment_names, in_order_of, load_yaml
from decoders.tier import ENV, check_tier

min_version("9.0")


configfile: "config.yaml"


# Each listed experiment's settings: config/<name>.yaml beside this file, under the key <name> (a --configfile
# overlay still wins: Snakemake applies the command line's configuration again after every file).
# Keys keep the file's order (in_order_of), whatever order an overlay gives them in.
for _experiment in experiment_names(config):
    _file = Path(workflow.basedir) / "config" / f"{_experiment}.yaml"
    workflow.configfile(str(_file))
    config[_experiment] = in_order_of((load_yaml(_file) or {}).get(_experiment), config.get(_experiment))

# The tier (config.yaml: tier): a quick run (--config tier=quick) reads config/quick.yaml after the experiments'
# files and works in the folder quick/ (its own data/ and results/; a --directory given instead is used as it is),
# so that its numbers never mix with a full run's. Every job learns the tier from the environment (decoders.tier).
os.environ[ENV] = check_tier(config.get("tier", "full"))
if config.get("tier") == "quick":
    workflow.configfile(str(Path(workflow.basedir) / "config" / "quick.yaml"))
    # a relative mirror path starts where snakemake was started, not in quick/
    if config.get("mirror") not in (None, "auto"):
        config["mirror"] = os.path.abspath(config["mirror"])

    workdir: "quick"


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
