"""The hand-crafted factors' table: counts per split on a hand-made treebank, the table's shape, bad inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from decoders.bnb import pipeline
from decoders.bnb.factors import PATTERN_NOTES, PATTERNS
from decoders.bnb.tagging import coarse_of
from decoders.errors import CorpusFormatError
from decoders.tables import bnb as bnb_tables

# (words, gold tags, heads as in a sentence table)
RATHER = (
    ["regulation", "occurs", "through", "inaction", ",", "rather", "than", "through", "rules"],
    ["NN", "VBZ", "IN", "NN", ",", "RB", "IN", "IN", "NNS"],
    [2, 0, 2, 3, 3, 7, 3, 7, 8],  # through(3) -> than -> rather, than -> through(8): Figure 3's arcs
)
STOCK = (
    ["the", "stock", "market", "fell", "5", "%", "in", "Oct.", "19", ",", "1987"],
    ["DT", "NN", "NN", "VBD", "CD", "NN", "IN", "NNP", "CD", ",", "CD"],
    [3, 3, 4, 0, 6, 4, 6, 7, 8, 8, 8],
)
LOANS = (
    ["big", "bank", "loans", "rose", "by", "5", "%", "in", "March"],
    ["JJ", "NN", "NNS", "VBD", "IN", "CD", "NN", "IN", "NNP"],
    [3, 3, 4, 0, 4, 7, 5, 4, 8],  # by -> % -> 5; "in" on the verb
)
#: Per split its sentences, and the tags the parsers read where they differ from gold (position: tag).
SPLIT_SENTENCES = {
    "train": [(RATHER, {}), (STOCK, {})],
    "dev": [(LOANS, {})],
    "test": [(RATHER, {8: "RB"})],  # the second "through" mistagged: A1 and A2 no longer share a tag
}


def _treebank(predicted: bool = True) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    frames, tables = {}, []
    for split, sentences in SPLIT_SENTENCES.items():
        rows, read = [], []
        for i, ((words, tags, heads), changes) in enumerate(sentences):
            rows.append(
                {
                    "sent_id": f"{split}{i}",
                    "doc_id": f"{split}{i}",
                    "words": words,
                    "coarse_tags": [coarse_of(tag) for tag in tags],
                    "tags": tags,
                    "heads": heads,
                    "deprels": ["dep"] * len(words),
                }
            )
            read.append([changes.get(j + 1, tag) if predicted else tag for j, tag in enumerate(tags)])
        frames[split] = pd.DataFrame(rows)
        tables.append(
            pd.DataFrame(
                {
                    "split": split,
                    "sent_id": frames[split]["sent_id"],
                    "tags": read,
                    "coarse": [[coarse_of(tag) for tag in tags] for tags in read],
                }
            )
        )
    return frames, pd.concat(tables, ignore_index=True)


def _by_hand() -> dict[tuple[str, str], tuple[int, int]]:
    """(split, pattern) -> (candidates, gold firings), counted by hand; every other pair is (0, 0)."""
    # train: one quadruple V N1 P N2 of each PP pattern, (fell, %, in, Oct.); gold has % -> in -> Oct.: the noun's
    pp = ("pp_verb", "pp_noun", "pp_verb_ud", "pp_noun_ud")
    counts = {("train", name): (1, 1 if name == "pp_noun" else 0) for name in pp}
    # train: Figure 3 in the first sentence; DT NN NN, CD %, Oct. 19 , 1987 in the second, each in its gold arcs
    counts |= {("train", name): (1, 1) for name in ("rather_than", "det_nn_nn", "cd_percent", "month_date")}
    # dev: "in" after % (rose .. % in March: no arc of a quadruple's V -> N1 in gold, % hangs on "by"); JJ is not
    # in the training vocabulary, so "big bank loans" (JJ NN NNS) is no candidate of jj_nn_nn
    counts |= {("dev", name): (1, 0) for name in pp}
    counts |= {("dev", "cd_percent"): (1, 1), ("dev", "in_cd_percent"): (1, 1)}
    return counts  # test: "through" read as IN and RB, so no rather_than


def test_factor_counts_of_a_hand_made_treebank():
    frames, table = _treebank()
    counts = pipeline.factor_counts(frames, table, language="en")
    assert list(counts.columns) == ["split", "pattern", "sentences", "candidates", "gold"]
    assert counts["pattern"].tolist() == list(PATTERNS) * 3
    expected = _by_hand()
    for row in counts.itertuples():
        assert (row.candidates, row.gold) == expected.get((row.split, row.pattern), (0, 0)), row
        assert row.sentences == len(SPLIT_SENTENCES[row.split])
    # the counts read the tags the parsers read: with gold tags, test's Figure 3 is a candidate, and fires
    gold = pipeline.factor_counts(*_treebank(predicted=False), language="en").set_index(["split", "pattern"])
    assert tuple(gold.loc[("test", "rather_than"), ["candidates", "gold"]]) == (1, 1)


def test_factor_counts_job_and_table(tmp_path):
    frames, table = _treebank()
    splits = {}
    for split, frame in frames.items():
        splits[split] = str(tmp_path / f"{split}.parquet")
        frame.to_parquet(splits[split])
    tags = tmp_path / "tags.parquet"
    table.to_parquet(tags)
    out = tmp_path / "wsj" / "factor_counts.parquet"
    out.parent.mkdir()
    pipeline.factor_counts_job(splits, str(tags), str(out), dev_fraction=0.1, language="en")
    factors = bnb_tables.factor_table([out]).set_index("pattern")
    assert factors.loc["rather_than", ["train_gold", "dev_gold", "test_gold"]].tolist() == [1, 0, 0]
    assert factors.loc["in_cd_percent", ["dev_candidates", "dev_gold"]].tolist() == [1, 1]
    assert bnb_tables._factor_sentences([out]) == "wsj 2/1/1"


def _fake_counts(path, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        [
            {"split": split, "pattern": name, "sentences": 10, "candidates": int(rng.integers(5, 9))}
            for split in ("train", "dev", "test")
            for name in PATTERNS
        ]
    )
    frame["gold"] = frame["candidates"] - 2
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path)
    return frame


def test_factor_table_has_one_row_per_dataset_and_pattern(tmp_path):
    paths = [tmp_path / dataset / "factor_counts.parquet" for dataset in ("wsj", "ewt")]
    fakes = [_fake_counts(path, seed) for seed, path in enumerate(paths)]
    table = bnb_tables.factor_table(paths)
    assert list(table.columns) == [
        "dataset", "pattern", "targets",
        "train_gold", "dev_gold", "test_gold", "train_candidates", "dev_candidates", "test_candidates",
    ]  # fmt: skip
    assert len(table) == 2 * len(PATTERNS)
    assert table["dataset"].tolist() == ["wsj"] * len(PATTERNS) + ["ewt"] * len(PATTERNS)
    assert table["targets"].tolist() == [PATTERN_NOTES[name] for name in PATTERNS] * 2
    ewt = fakes[1].set_index(["split", "pattern"])
    row = table[(table["dataset"] == "ewt") & (table["pattern"] == "quotes")].iloc[0]
    assert row["dev_candidates"] == ewt.loc[("dev", "quotes"), "candidates"]
    assert row["test_gold"] == ewt.loc[("test", "quotes"), "gold"]
    assert list(bnb_tables.factor_table([]).columns) == list(table.columns)  # no English dataset: empty


def test_missing_or_malformed_counts_name_the_file(tmp_path):
    missing = tmp_path / "wsj" / "factor_counts.parquet"
    with pytest.raises(CorpusFormatError, match="wsj/factor_counts.parquet: cannot read"):
        bnb_tables.factor_table([missing])
    frame = _fake_counts(missing, 0)
    frame.drop(columns="gold").to_parquet(missing)
    with pytest.raises(CorpusFormatError, match=r"factor_counts.parquet: factor counts lack column\(s\)"):
        bnb_tables.factor_table([missing])
    frame[frame["pattern"] != "quotes"].to_parquet(missing)
    with pytest.raises(CorpusFormatError, match="factor_counts.parquet: .*one row per split"):
        bnb_tables.factor_table([missing])
    frame.assign(gold=frame["gold"] - 100).to_parquet(missing)
    with pytest.raises(CorpusFormatError, match="non-negative integers"):
        bnb_tables.factor_table([missing])
