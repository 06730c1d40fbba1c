"""The results page: every experiment's Markdown tables and figures, each with the provenance (commit, date,
CPU) of the runs behind it."""

from decoders.tables.results_page import write_results_page
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
write_results_page(sections, snakemake.output[0])
