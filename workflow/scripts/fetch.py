"""Fetch one corpus: every configured file from the mirror or upstream, sha256-verified, written atomically."""

from decoders.corpora.fetch import VERIFIED, corpus_files, fetch_file
from decoders.workflow import start_script

log = start_script(snakemake)
corpus = snakemake.params.corpus
files = corpus_files(corpus, snakemake.config["corpora"][corpus], base_dir=snakemake.params.base_dir)
for item, dest in zip(files, snakemake.output, strict=True):
    source = fetch_file(item, dest, snakemake.config["mirror"], store=VERIFIED)
    log.info("%s <- %s (sha256 %s)", dest, source, item.sha256)
