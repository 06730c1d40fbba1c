"""The results page: every experiment's Markdown tables and figures, each with the provenance (commit, date,
CPU) of the runs behind it."""

import os

from decoders.content import experiment_settings, section_content
from decoders.io import write_json_atomic
from decoders.tables.captions import caption
from decoders.tables.resources import TIMED_RULES, cost_table, job_usage, usage_table
from decoders.tables.results_page import experiment_section, write_page_html, write_results_page
from decoders.tables.writers import write_table
from decoders.workflow import start_script

start_script(snakemake)
sections = [{"heading": "Corpora", "tables": [snakemake.input.corpora]}]
for name, section in snakemake.params.sections.items():
    sections.append(experiment_section(name, section["tables"], section["provenance"]))
    # what the section's records and tables depend on, by content (decoders.content): Snakemake has just brought
    # every job before this one up to date with the configuration, so the run's settings are the records'
    sections[-1]["content"] = section_content(section["tables"], experiment_settings(snakemake.config, name))
    write_json_atomic(
        snakemake.output.content[list(snakemake.params.sections).index(name)], sections[-1]["content"]
    )
# Every job this page depends on has finished, so its benchmark file is there (jobs of earlier runs too).
usage = usage_table(job_usage("results/benchmarks"), snakemake.config)
write_table(
    usage,
    snakemake.output.resources.removesuffix(".csv"),
    title="Wall time and peak memory per rule (this machine)",
    caption=caption("shared", "resources"),
)
experiments = list(snakemake.params.sections)
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
exclusive = snakemake.config["harness"]["exclusive"]
write_table(
    cost_table(job_usage("results/benchmarks"), experiments, snakemake.config, cores),
    snakemake.output.cost.removesuffix(".csv"),
    title=f"What each experiment costs from scratch (this machine, {cores} cores)",
    caption=caption("shared", "cost"),
    notes=[
        f"Jobs that reserve every core: the timed rules' ({', '.join(sorted(TIMED_RULES))}) when"
        f" `harness.exclusive` is true (this run: {str(exclusive).lower()}); a decode job follows its variant's"
        " own `exclusive` where it sets one, else its experiment's `harness.exclusive`.",
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
# the same page as one HTML file (tables rendered, figures inside): the report's readable view of every table
write_page_html(snakemake.output.page, snakemake.output.page_html)
