# Corpora: fetch every configured file (mirror or upstream, sha256-verified), then prepare normalised splits.
# Both go before any other ready job (priority 2; Snakemake otherwise prefers the jobs with the largest inputs),
# so that every experiment's long jobs can start early.


# One fetch job per corpus: all of its files, each verified and written atomically under data/raw/<corpus>/ and
# kept as a hard link in data/raw/.verified/<sha256> (decoders.corpora.fetch): Snakemake deletes a job's outputs
# before running it, so a fetch that runs again (forced, or after a code change) and then fails would otherwise
# lose files that were already verified. The mirror is read from the configuration, not given as a parameter:
# the files are defined by their hashes, and another path to the same mirror must not rerun anything.
for _corpus in config["corpora"]:

    rule:
        name:
            f"fetch_{_corpus}"
        output:
            corpus_outputs(_corpus),
        log:
            f"results/logs/fetch/{_corpus}.log",
        benchmark:
            benchmark_file("fetch", _corpus)
        priority: 2
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=job_mem_mb("fetch"),
            runtime=job_runtime("fetch"),
        params:
            corpus=_corpus,
            base_dir=workflow.basedir,
            code=code_hash("fetch"),
        script:
            "../scripts/fetch.py"


# One prepare rule per reader kind (decoders.corpora.prepare.PREPARERS): a dataset's corpus files ->
# data/prepared/<dataset>/ (the files PREPARED_FILES lists, named by their stem) and stats.json.
for _reader, _files in PREPARED_FILES.items():

    rule:
        name:
            f"prepare_{_reader}"
        input:
            unpack(prepare_inputs),
        output:
            **{Path(f).stem: prepared("{dataset}", f) for f in _files},
            stats=prepared("{dataset}", "stats.json"),
        log:
            "results/logs/prepare/{dataset}.log",
        benchmark:
            benchmark_file("prepare", "{dataset}")
        wildcard_constraints:
            dataset=wildcard_choice(datasets_read_by(_reader)),
        priority: 2
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=job_mem_mb("prepare"),
            runtime=job_runtime("prepare"),
        params:
            reader=_reader,
            options=lambda wildcards: prepare_options(wildcards.dataset),
            code=code_hash("prepare"),
        script:
            "../scripts/prepare.py"
