"""Three open textbooks -> (source, section id, title, body) units, filtered and split in book order."""

from decoders.corpora.prepare import prepare_textbooks
from decoders.workflow import start_script

start_script(snakemake)
spec = snakemake.params.spec
prepare_textbooks(
    snakemake.wildcards.dataset,
    {source: list(getattr(snakemake.input, source)) for source in spec["sources"]},
    dict(snakemake.output.items()),
    min_body_words=spec["min_body_words"],
    min_title_content_words=spec["min_title_content_words"],
    train_fraction=spec["train_fraction"],
    limit=spec["limit"],
)
