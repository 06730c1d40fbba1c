"""Prepare one dataset with the prepare function of its reader: normalised files and stats.json."""

from decoders.corpora.prepare import PREPARERS
from decoders.workflow import start_script

log = start_script(snakemake)
prepare = PREPARERS[snakemake.params.reader]
inputs = {
    role: (list(paths) if isinstance(paths, list) else paths) for role, paths in snakemake.input.items()
}
stats = prepare(
    snakemake.wildcards.dataset, inputs, dict(snakemake.output.items()), **snakemake.params.options
)
log.info("%s", stats["splits"])
