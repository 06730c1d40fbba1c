"""The results page: all Markdown tables with the provenance (commit, date, CPU) of the runs behind them."""

from decoders.tables.results_page import write_results_page
from decoders.workflow import start_script

start_script(snakemake)
sections = [("Corpora", [snakemake.input.corpora])]
if snakemake.input.chains:
    sections.append(
        (
            "chains: MAP inference in chains by column generation (Belanger et al. 2012)",
            snakemake.input.chains,
        )
    )
figures = (
    [
        ("Fig. 2: transition L2 vs accuracy and CG speed", "figures/chains/figure2.png"),
        ("Final restricted-domain sizes per token", "figures/chains/domain_sizes.png"),
    ]
    if snakemake.input.chains
    else []
)
write_results_page(sections, snakemake.input.provenance, snakemake.output[0], figures=figures)
