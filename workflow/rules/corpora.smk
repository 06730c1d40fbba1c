# Corpora: fetch every configured file (mirror or upstream, sha256-verified), then prepare normalised splits.


# One fetch job per corpus: all of its files, each verified and written atomically under data/raw/<corpus>/.
for _corpus in config["corpora"]:

    rule:
        name:
            f"fetch_{_corpus}"
        output:
            corpus_outputs(_corpus),
        log:
            f"results/logs/fetch/{_corpus}.log",
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=job_mem_mb("fetch"),
            runtime=job_runtime("fetch"),
        params:
            corpus=_corpus,
            mirror=config["mirror"],
            base_dir=workflow.basedir,
            code=code_hash("corpora/fetch.py"),
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
        wildcard_constraints:
            dataset=wildcard_choice(datasets_read_by(_reader)),
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=job_mem_mb("prepare"),
            runtime=job_runtime("prepare"),
        params:
            reader=_reader,
            options=lambda wildcards: prepare_options(wildcards.dataset),
            code=code_hash("corpora"),
        script:
            "../scripts/prepare.py"
