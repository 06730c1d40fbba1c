# decoders-bench: exact and approximate decoders for structured NLP problems, on real corpora.
# This file only sets up: configuration, its validation, the rule files and the default target.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/corpora.smk"
include: "workflow/rules/decode.smk"
include: "workflow/rules/chains.smk"
include: "workflow/rules/titles.smk"
include: "workflow/rules/linking.smk"
include: "workflow/rules/bnb.smk"
include: "workflow/rules/ppc.smk"
include: "workflow/rules/tables.smk"


report: "workflow/report/workflow.rst"


rule all:
    default_target: True
    input:
        all_targets(),
