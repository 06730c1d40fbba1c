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
        params:
            corpus=_corpus,
            mirror=config["mirror"],
            base_dir=workflow.basedir,
        script:
            "../scripts/fetch.py"


rule prepare_conllu:
    input:
        unpack(dataset_files),
    output:
        train=prepared("{dataset}", "train.parquet"),
        dev=prepared("{dataset}", "dev.parquet"),
        test=prepared("{dataset}", "test.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("conllu")),
    conda:
        CONDA_ENV
    params:
        limit=lambda wildcards: DATASETS[wildcards.dataset]["limit"],
        tags=lambda wildcards: DATASETS[wildcards.dataset]["tags"],
    script:
        "../scripts/prepare_conllu.py"


rule prepare_conllx:
    input:
        unpack(dataset_files),
        documents=lambda wildcards: workflow_file(DATASETS[wildcards.dataset]["documents"]),
    output:
        train=prepared("{dataset}", "train.parquet"),
        test=prepared("{dataset}", "test.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("conllx")),
    conda:
        CONDA_ENV
    params:
        limit=lambda wildcards: DATASETS[wildcards.dataset]["limit"],
    script:
        "../scripts/prepare_conllx.py"


rule prepare_wsj:
    input:
        unpack(dataset_files),
    output:
        train=prepared("{dataset}", "train.parquet"),
        test=prepared("{dataset}", "test.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("wsj")),
    conda:
        CONDA_ENV
    params:
        limit=lambda wildcards: DATASETS[wildcards.dataset]["limit"],
    script:
        "../scripts/prepare_wsj.py"


rule prepare_uner:
    input:
        unpack(dataset_files),
    output:
        train=prepared("{dataset}", "train.parquet"),
        test=prepared("{dataset}", "test.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("uner")),
    conda:
        CONDA_ENV
    params:
        limit=lambda wildcards: DATASETS[wildcards.dataset]["limit"],
    script:
        "../scripts/prepare_uner.py"


rule prepare_textbooks:
    input:
        unpack(textbook_files),
    output:
        units=prepared("{dataset}", "units.parquet"),
        train=prepared("{dataset}", "train.parquet"),
        test=prepared("{dataset}", "test.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("textbooks")),
    conda:
        CONDA_ENV
    params:
        spec=lambda wildcards: DATASETS[wildcards.dataset],
    script:
        "../scripts/prepare_textbooks.py"


rule prepare_wikispeedia:
    input:
        unpack(dataset_files),
    output:
        graph=prepared("{dataset}", "graph.npz"),
        articles=prepared("{dataset}", "articles.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("wikispeedia")),
    conda:
        CONDA_ENV
    script:
        "../scripts/prepare_wikispeedia.py"


rule prepare_elevant:
    input:
        unpack(dataset_files),
        articles=lambda wildcards: prepared(DATASETS[wildcards.dataset]["graph"], "articles.parquet"),
    output:
        documents=prepared("{dataset}", "documents.parquet"),
        mentions=prepared("{dataset}", "mentions.parquet"),
        stats=prepared("{dataset}", "stats.json"),
    log:
        "results/logs/prepare/{dataset}.log",
    wildcard_constraints:
        dataset=wildcard_choice(datasets_read_by("elevant")),
    conda:
        CONDA_ENV
    params:
        limit=lambda wildcards: DATASETS[wildcards.dataset]["limit"],
    script:
        "../scripts/prepare_elevant.py"
