"""The results page: every experiment's Markdown tables and figures, each with the provenance (commit, date,
CPU) of the runs behind it."""

import os

from decoders.tables.resources import cost_table, job_usage, usage_table
from decoders.tables.results_page import experiment_section, write_results_page
from decoders.tables.writers import write_table
from decoders.workflow import start_script

start_script(snakemake)
sections = [{"heading": "Corpora", "tables": [snakemake.input.corpora]}]
for name, section in snakemake.params.sections.items():
    sections.append(experiment_section(name, section["tables"], section["provenance"]))
# Every job this page depends on has finished, so its benchmark file is there (jobs of earlier runs too).
usage = usage_table(job_usage("results/benchmarks"), snakemake.config)
write_table(
    usage,
    snakemake.output.resources.removesuffix(".csv"),
    title="Wall time and peak memory per rule (this machine)",
    notes=[
        "From the benchmark file of every job (results/benchmarks/<rule>/<job>.tsv): wall minutes, summed and "
        "of the longest job; peak_mb: the largest peak resident memory of the rule's jobs (their process tree); "
        "declared_mb: the mem_mb that job asks a scheduler for (config.yaml: resources; a variant's own mem_mb).",
        "over_declared: jobs whose peak exceeded what they declared (a cluster would kill and retry them).",
    ],
)
experiments = list(snakemake.params.sections)
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
write_table(
    cost_table(job_usage("results/benchmarks"), experiments, snakemake.config, cores),
    snakemake.output.cost.removesuffix(".csv"),
    title=f"What each experiment costs from scratch (this machine, {cores} cores)",
    notes=[
        "Every job of the experiment by stage, from its benchmark file: fetching and preparing its corpora (shared"
        " with other experiments on the same datasets), its own rules, decoding and gathering. job_minutes: summed"
        " wall minutes of the stage's jobs (one thread each); a job run more than once counts its last run, and"
        " jobs of earlier runs in this folder that the configuration no longer asks for count too.",
        f"least_wall_minutes (row `all`): the shortest wall clock {cores} cores allow for those jobs, the timed jobs"
        " (decoding, the UDPipe peers' parses, linking's scaling; they reserve every core under harness.exclusive)"
        " one after another and the others spread over every core, never less than the longest job: a lower bound"
        " for `snakemake --cores` on this machine, reached only if no core ever idles.",
    ],
)
sections.append(
    {
        "heading": "Time and memory per rule; cost per experiment",
        "tables": [
            snakemake.output.resources.replace(".csv", ".md"),
            snakemake.output.cost.replace(".csv", ".md"),
        ],
    }
)
write_results_page(sections, snakemake.output.page)
