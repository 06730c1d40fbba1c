"""Prepare steps: corpus files in data/raw -> normalised splits in data/prepared/<dataset>/ plus stats.json.

One function per reader kind (the ``reader`` of a dataset in config.yaml). Each takes the input paths by role
and the output paths by name (as the Snakemake rule names them), writes every output atomically, and returns
the stats it wrote. ``stats.json`` holds ``splits`` (the rows of the corpora table: one per split, with the
table's count columns), ``details`` (everything the reader measured) and ``notes`` (how the split was made).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from decoders.checks import check_int, check_mapping, check_text, checked
from decoders.corpora import conll, elevant, entity_fishing, textbooks, uner, wikispeedia, wsj
from decoders.corpora.sentences import sentence_stats
from decoders.errors import ConfigError
from decoders.io import read_parquet, write_json_atomic, write_parquet_atomic

log = logging.getLogger(__name__)

Paths = Mapping[str, str | Path]


class _Roles(Mapping):
    """A prepare step's ``inputs`` or ``outputs`` (paths by role) whose missing role is a ConfigError naming it
    and the dataset, not a KeyError from deep inside the step."""

    def __init__(self, paths: Any, name: str, dataset: str) -> None:
        self._paths, self._name, self._dataset = check_mapping(paths, name), name, dataset

    def __getitem__(self, key: str) -> Any:
        try:
            return self._paths[key]
        except KeyError:
            roles = ", ".join(map(str, self._paths)) or "none"
            raise ConfigError(f"{self._dataset}: {self._name} has no {key!r} (it has: {roles})") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._paths.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


_F = TypeVar("_F", bound=Callable[..., Any])


def _step(func: _F) -> _F:
    """A prepare step: ``dataset`` a string, ``inputs`` and ``outputs`` mappings whose missing role is named
    (:class:`_Roles`), ``limit`` None or an integer >= 1, ``sample`` None or a mapping of split sizes, ``seed`` an
    integer >= 0 (each a ValueError or ConfigError naming it)."""

    @functools.wraps(func)
    def step(dataset: Any, inputs: Any, outputs: Any, **options: Any) -> Any:
        dataset = check_text(dataset, "dataset")
        if options.get("limit") is not None:
            check_int(options["limit"], "limit", minimum=1)
        if options.get("sample") is not None:
            for split, size in check_mapping(options["sample"], "sample").items():
                check_int(size, f"sample[{split!r}]", minimum=1)
        if "seed" in options:
            check_int(options["seed"], "seed", minimum=0)
        return func(
            dataset, _Roles(inputs, "inputs", dataset), _Roles(outputs, "outputs", dataset), **options
        )

    return step  # type: ignore[return-value]


def _write_stats(path: str | Path, dataset: str, reader: str, splits, details=None, notes=()) -> dict:
    stats = {
        "dataset": dataset,
        "reader": reader,
        "splits": splits,
        "details": details or {},
        "notes": list(notes),
    }
    write_json_atomic(path, stats)
    return stats


def _table_counts(stats: dict[str, Any]) -> dict[str, Any]:
    """The corpora-table columns of a sentence split's stats."""
    keys = ("documents", "sentences", "tokens", "tags", "joint_labels")
    return {key: stats[key] for key in keys if key in stats}


@checked(frame="frame", size="positive?", seed="count")
def sample_split(frame: pd.DataFrame, size: int | None, seed: int) -> pd.DataFrame:
    """A fixed, seeded sample of ``size`` rows of ``frame`` in their original order (all of them when ``size``
    is None or not smaller): the quick tier's test sets and shortened training sets."""
    if size is None or len(frame) <= size:
        return frame
    keep = np.sort(np.random.default_rng(seed).choice(len(frame), size=size, replace=False))
    return frame.iloc[keep].reset_index(drop=True)


def _sample_notes(
    sample: Mapping[str, int] | None, totals: Mapping[str, int], seed: int, what: str
) -> list[str]:
    return [
        f"quick tier: {split} is a seeded sample (seed {seed}) of {size:,} of its {totals[split]:,} {what}"
        for split, size in (sample or {}).items()
        if split in totals and size < totals[split]
    ]


def _check_sample(dataset: str, sample: Mapping[str, int] | None, splits: Mapping[str, Any]) -> None:
    """ConfigError naming the key for a sample of a split the dataset does not have."""
    unknown = sorted(set(sample or {}) - set(splits))
    if unknown:
        raise ConfigError(
            f"datasets.{dataset}.sample: no split {', '.join(unknown)} (its splits: {', '.join(splits)})"
        )


def _write_sentence_splits(
    dataset: str,
    reader: str,
    splits: dict[str, pd.DataFrame],
    outputs: Paths,
    limit: int | None,
    notes=(),
    with_all: bool = False,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Write each split (its first ``limit`` sentences; ``sample``: a seeded sample of that many sentences of the
    splits it names) to parquet, and the stats of what was written.

    ``with_all``: also describe the whole corpus as the split ``all`` (its published size), for corpora that we
    split ourselves.
    """
    _check_sample(dataset, sample, splits)
    details, rows = {}, {}
    if with_all:
        details["all"] = sentence_stats(pd.concat(splits.values(), ignore_index=True))
        rows["all"] = _table_counts(details["all"])
    notes = [*notes, *_sample_notes(sample, {k: len(v) for k, v in splits.items()}, seed, "sentences")]
    for name, frame in splits.items():
        frame = sample_split(frame, (sample or {}).get(name), seed)
        frame = frame.iloc[:limit] if limit is not None else frame
        write_parquet_atomic(outputs[name], frame)
        details[name] = {**sentence_stats(frame), **{k: v for k, v in frame.attrs.items() if k != "source"}}
        rows[name] = _table_counts(details[name])
        log.info("%s/%s: %s", dataset, name, rows[name])
    if limit is not None:
        notes = [*notes, f"limited to the first {limit} sentences of each split (test configuration)"]
    return _write_stats(outputs["stats"], dataset, reader, rows, details, notes)


@_step
def prepare_conllu(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    limit: int | None = None,
    tags: str = "xpos",
    morphology: bool = False,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """A UD treebank with its own train/dev/test files (``morphology``: with lemmas and features)."""
    splits = {
        name: conll.read_conllu(inputs[name], limit=limit, tags_from=tags, morphology=morphology)
        for name in ("train", "dev", "test")
    }
    notes = [] if tags == "xpos" else [f"tags are {tags.upper()} (the treebank has no XPOS)"]
    return _write_sentence_splits(dataset, "conllu", splits, outputs, limit, notes, sample=sample, seed=seed)


@_step
def prepare_conllx(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    limit: int | None = None,
    morphology: bool = False,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The CoNLL-X Danish treebank, split by the documents ``inputs["documents"]`` lists (see ``split_cdt``;
    ``morphology``: with lemmas and features)."""
    treebank = conll.read_conllx(inputs["treebank"], morphology=morphology)
    splits = conll.split_cdt(treebank, inputs["documents"])
    test_docs = splits["test"]["doc_id"]
    notes = [
        f"no split upstream: documents {test_docs.iloc[0]}..{test_docs.iloc[-1]} (the last ones, until >= "
        f"{conll.CDT_TEST_SENTENCES} sentences, the CoNLL-X 2006 test size) are test, the rest train"
    ]
    return _write_sentence_splits(
        dataset, "conllx", splits, outputs, limit, notes, with_all=True, sample=sample, seed=seed
    )


@_step
def prepare_wsj(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    limit: int | None = None,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The NLTK WSJ sample: words, PTB tags and heads, split by documents (see :func:`wsj.split_wsj`)."""
    frame = wsj.read_wsj(inputs["dependency"], inputs.get("treebank"))
    splits = wsj.split_wsj(frame)
    for split in splits.values():
        split.attrs = {k: v for k, v in frame.attrs.items() if k != "source"}
    test_docs = splits["test"]["doc_id"]
    notes = [
        f"document-based split: {test_docs.iloc[0]}..{test_docs.iloc[-1]} are test (the last documents, "
        f"until >= {wsj.WSJ_TEST_FRACTION:.0%} of the sentences), the rest train"
    ]
    return _write_sentence_splits(
        dataset, "wsj", splits, outputs, limit, notes, with_all=True, sample=sample, seed=seed
    )


@_step
def prepare_uner(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    limit: int | None = None,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """UniversalNER tags joined with the UD treebank's tags on sentence id: labels (tag, IOB2 tag)."""
    splits = {
        name: uner.join_uner_ud(uner.read_iob2(inputs[name]), conll.read_conllu(inputs[f"ud_{name}"]))
        for name in ("train", "test")
    }
    notes = [
        f"train = {Path(inputs['train']).name}, test = {Path(inputs['test']).name} (UNER files), joined with "
        "UD XPOS by sent_id; sentences whose tokens differ between the two releases are dropped (see details)"
    ]
    return _write_sentence_splits(dataset, "uner", splits, outputs, limit, notes, sample=sample, seed=seed)


@_step
def prepare_textbooks(
    dataset: str,
    inputs: Mapping[str, list[str | Path]],
    outputs: Paths,
    *,
    min_body_words: int,
    min_title_content_words: int,
    train_fraction: float,
    limit: int | None = None,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Section units of every textbook (``inputs``: textbook -> chapter files in book order), the units kept
    for title generation, and their train/test split (``sample``: a seeded sample of that many units of the
    splits it names)."""
    _check_sample(dataset, sample, ("train", "test"))
    units = pd.concat(
        [textbooks.read_textbook(source, [Path(p) for p in paths]) for source, paths in inputs.items()],
        ignore_index=True,
    )
    kept = textbooks.select_units(units, min_body_words, min_title_content_words)
    if limit is not None:
        kept = kept.groupby("source", sort=False).head(limit)
    splits = textbooks.split_units(kept, train_fraction)
    totals = {name: len(frame) for name, frame in splits.items()}
    splits = {name: sample_split(frame, (sample or {}).get(name), seed) for name, frame in splits.items()}
    write_parquet_atomic(outputs["units"], units)
    details = {"read": textbooks.textbook_stats(units), "all": textbooks.textbook_stats(kept)}
    for name, frame in splits.items():
        write_parquet_atomic(outputs[name], frame)
        details[name] = textbooks.textbook_stats(frame)
    rows = {
        name: {
            "units": stats["sections"],
            "mean_title_words": round(stats["mean_title_words"], 2),
            "mean_body_words": round(stats["mean_section_words"], 1),
        }
        for name, stats in details.items()
        if name != "read"
    }
    notes = [
        f"{details['read']['sections']} sections read; kept those with >= {min_body_words} body words and >= "
        f"{min_title_content_words} title content word(s); within each book, the first "
        f"{train_fraction:.0%} in book order are train, the rest test (as the paper's first 382 of 547).",
    ]
    if limit is not None:
        notes.append(f"limited to the first {limit} kept units of each book (test configuration)")
    notes += _sample_notes(sample, totals, seed, "units")
    return _write_stats(outputs["stats"], dataset, "textbooks", rows, details, notes)


@_step
def prepare_wikispeedia(dataset: str, inputs: Paths, outputs: Paths) -> dict[str, Any]:
    """Articles (with plaintext) and the symmetrised largest connected component as CSR arrays."""
    articles = wikispeedia.read_articles(inputs["articles"])
    links = wikispeedia.read_links(inputs["links"], articles)
    graph = wikispeedia.undirected_lcc(len(articles), links)
    articles = articles.assign(text=wikispeedia.read_plaintext(inputs["plaintext"], articles))
    vertex = pd.Series(graph.new_ids(len(articles)), index=articles.index).astype("Int64")
    articles = articles.assign(vertex=vertex.mask(vertex < 0))  # graph vertex; NA outside the component
    details = wikispeedia.graph_stats(articles, links, graph)
    graph.save(outputs["graph"])
    write_parquet_atomic(outputs["articles"], articles)
    splits = {
        "directed": {"nodes": details["nodes"], "edges": details["directed_links"]},
        "graph": {"nodes": details["lcc_nodes"], "edges": details["lcc_edges"]},
    }
    notes = [
        "directed: the hyperlinks as published; graph: symmetrised, self loops and duplicates dropped, "
        f"largest connected component ({details['components']} components in all); edges are undirected.",
    ]
    return _write_stats(outputs["stats"], dataset, "wikispeedia", splits, details, notes)


def _document_sets(
    dataset: str,
    reader: str,
    sets: Mapping[str, Callable[[], tuple[pd.DataFrame, pd.DataFrame]]],
    inputs: Paths,
    outputs: Paths,
    map_and_count: Callable[[pd.DataFrame, pd.DataFrame, pd.Series], tuple[pd.Series, dict[str, Any]]],
    mapped_note: str,
    limit: int | None,
    sample: Mapping[str, int] | None,
    seed: int,
) -> dict[str, Any]:
    """The prepare step of benchmark documents with gold entities (ELEVANT's, entity-fishing's): each set of
    ``sets`` (name -> its reader) cut to a seeded sample of ``sample["test"]`` documents and/or its first
    ``limit``, and its mentions to theirs; ``map_and_count(documents, mentions, titles)`` gives the mentions'
    Wikispeedia nodes and the per-set statistics; outputs ``documents``, ``mentions`` (with ``node``), ``stats``."""
    _check_sample(dataset, sample, ("test",))
    documents, mentions, totals = [], [], {}
    for name, read in sets.items():
        docs, ments = read()
        totals[name] = len(docs)
        docs = sample_split(docs, (sample or {}).get("test"), seed)
        if limit is not None:
            docs = docs.iloc[:limit]
        documents.append(docs)
        mentions.append(ments[ments["doc_id"].isin(docs["doc_id"])])
    documents_frame = pd.concat(documents, ignore_index=True)
    mentions_frame = pd.concat(mentions, ignore_index=True)
    titles = read_parquet(inputs["articles"], columns=["node", "title"]).set_index("node")["title"]
    mentions_frame["node"], details = map_and_count(documents_frame, mentions_frame, titles)
    write_parquet_atomic(outputs["documents"], documents_frame)
    write_parquet_atomic(outputs["mentions"], mentions_frame)
    splits = {
        name: {"documents": d["docs"], "mentions": d["mentions"], "mapped_mentions": d["mapped_mentions"]}
        for name, d in details.items()
    }
    if len(splits) > 1:
        splits["all"] = {key: sum(row[key] for row in splits.values()) for key in next(iter(splits.values()))}
    notes = [mapped_note]
    if limit is not None:
        notes.append(f"limited to the first {limit} documents of each set (test configuration)")
    if (sample or {}).get("test"):
        of = ", ".join(f"{name} {total:,}" for name, total in totals.items())
        notes.append(
            f"quick tier: each set is a seeded sample (seed {seed}) of at most {sample['test']:,} of its "
            f"documents ({of})"
        )
    return _write_stats(outputs["stats"], dataset, reader, splits, details, notes)


@_step
def prepare_elevant(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    limit: int | None = None,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Documents and gold mentions of every benchmark (``inputs``: benchmark -> file), gold names mapped to the
    Wikispeedia articles ``inputs["articles"]`` (``sample``: ``{test: n}``, a seeded sample of n documents of
    each benchmark; every benchmark is test data)."""

    def reader(path: str | Path, benchmark: str) -> Callable[[], tuple[pd.DataFrame, pd.DataFrame]]:
        return lambda: (elevant.read_documents(path, benchmark), elevant.read_benchmark(path, benchmark))

    def map_and_count(documents, mentions, titles):
        nodes = elevant.map_to_titles(mentions, titles)
        return nodes, elevant.elevant_stats(documents, mentions, nodes)

    sets = {name: reader(path, name) for name, path in inputs.items() if name != "articles"}
    note = (
        "mapped_mentions: gold names matched to a Wikispeedia title (exactly, else after Unicode/case "
        "normalisation); NIL mentions never map."
    )
    return _document_sets(dataset, "elevant", sets, inputs, outputs, map_and_count, note, limit, sample, seed)


@_step
def prepare_entity_fishing(
    dataset: str,
    inputs: Paths,
    outputs: Paths,
    *,
    sets: list[str],
    limit: int | None = None,
    sample: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Documents and gold mentions of the entity-fishing sets ``sets`` (``inputs["files"]``: the corpus's files,
    ``<set>/<set>.xml`` and ``<set>/RawText/*`` among them), gold titles mapped to the Wikispeedia articles
    ``inputs["articles"]`` (:func:`~decoders.corpora.entity_fishing.gold_nodes`); ``sample``: ``{test: n}``, a
    seeded sample of n documents of each set (every set is test data)."""
    _check_sample(dataset, sample, ("test",))
    if not isinstance(sets, list) or not sets or not all(isinstance(s, str) and s for s in sets):
        raise ConfigError(f"datasets.{dataset}.sets: a non-empty list of set names, got {sets!r}")
    files = [Path(p) for p in inputs["files"]]
    readers = {}
    for name in sets:
        found = [p for p in files if p.name == f"{name}.xml" and p.parent.name == name]
        if len(found) != 1:
            raise ConfigError(
                f"datasets.{dataset}.sets: {name!r} needs exactly one file {name}/{name}.xml among the corpus's"
                f" files; found {len(found)}"
            )
        readers[name] = functools.partial(entity_fishing.read_set, found[0], name)

    def map_and_count(documents, mentions, titles):
        nodes = entity_fishing.gold_nodes(mentions, titles)
        return nodes, entity_fishing.set_stats(documents, mentions, nodes)

    note = (
        "mentions: annotations; mapped_mentions: annotated spans whose gold Wikipedia title names a Wikispeedia "
        "article (exactly, else after Unicode/case normalisation; Wikispeedia has no redirects); NIL never maps, "
        "and a span annotated twice counts once."
    )
    return _document_sets(
        dataset, "entity_fishing", readers, inputs, outputs, map_and_count, note, limit, sample, seed
    )


# The prepare step of each reader kind (config.yaml: datasets.<name>.reader).
PREPARERS = {
    "conllu": prepare_conllu,
    "conllx": prepare_conllx,
    "wsj": prepare_wsj,
    "uner": prepare_uner,
    "textbooks": prepare_textbooks,
    "wikispeedia": prepare_wikispeedia,
    "elevant": prepare_elevant,
    "entity_fishing": prepare_entity_fishing,
}
