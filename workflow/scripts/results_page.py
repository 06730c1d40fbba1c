"""The results page: every experiment's Markdown tables and figures, each with the provenance (commit, date,
CPU) of the runs behind it."""

import os

from decoders.tables.resources import cost_table, job_usage, usage_table
from decoders.tables.results_page import write_results_page
from decoders.tables.writers import write_table
from decoders.workflow import start_script

start_script(snakemake)
sections = [{"heading": "Corpora", "tables": [snakemake.input.corpora]}]
if snakemake.input.chains:
    sections.append(
        {
            "heading": "chains: MAP inference in chains by column generation (Belanger et al. 2012)",
            "tables": snakemake.input.chains,
            "provenance": snakemake.input.chains_provenance,
            "figures": [
                ("Fig. 2: transition L2 vs accuracy and CG speed", "figures/chains/figure2.png"),
                (
                    "CG statistics: domain sizes, rounds per sentence, candidates per oracle call",
                    "figures/chains/cg_statistics.png",
                ),
                ("Speed-up over Viterbi by sentence length", "figures/chains/speed_by_length.png"),
            ],
        }
    )
if snakemake.input.titles:
    sections.append(
        {
            "heading": "titles: selection and ordering by colour-coding, ILP and beam (Deshpande et al. 2007)",
            "tables": snakemake.input.titles,
            "provenance": snakemake.input.titles_provenance,
            "figures": [
                (
                    "Fig. 2: % of titles solved exactly vs colour-coding iterations",
                    "figures/titles/figure2.png",
                ),
                ("Median seconds per title vs title length k", "figures/titles/time_vs_k.png"),
            ],
        }
    )
if snakemake.input.linking:
    sections.append(
        {
            "heading": "linking: entity linking by graph-distance minimisation (Blanco, Boldi and Marino)",
            "tables": snakemake.input.linking,
            "provenance": snakemake.input.linking_provenance,
            "figures": [
                ("Value vs candidates kept per mention (Wikispeedia)", "figures/linking/sweep.png")
                for table in snakemake.input.linking
                if table.endswith("sweep.md")
            ],
        }
    )
if snakemake.input.bnb:
    sections.append(
        {
            "heading": "bnb: branch-and-bound dependency parsing with non-local features (Qian and Liu 2013)",
            "tables": snakemake.input.bnb,
            "provenance": snakemake.input.bnb_provenance,
            "figures": [
                ("Fig. 4: parsing time vs sentence length per pre-pruning k", "figures/bnb/figure4.png"),
                ("Fig. 5: DP calls vs sentence length per pre-pruning k", "figures/bnb/figure5.png"),
                ("Dev UAS per perceptron pass of every model", "figures/bnb/training.png"),
            ],
        }
    )
if snakemake.input.ppc:
    sections.append(
        {
            "heading": "ppc: grandparent parsing LPs by parse, price and cut (Riedel et al. 2012)",
            "tables": snakemake.input.ppc,
            "provenance": snakemake.input.ppc_provenance,
            "figures": [
                (
                    "Seconds per sentence vs length: BF (lean and paper's rows) and PPC (ours and the paper's)",
                    "figures/ppc/time_vs_length.png",
                ),
                ("The full LP's growth with sentence length: parts and seconds", "figures/ppc/bf_growth.png"),
            ],
        }
    )
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
experiments = [name for name, settings in snakemake.config["experiments"].items() if settings]
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
