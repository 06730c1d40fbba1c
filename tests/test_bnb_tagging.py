"""Tags for parsing: jackknifed tags come from taggers that never saw the sentence."""

from __future__ import annotations

import pandas as pd
import pytest

from decoders.bnb.tagging import coarse_of, jackknife_tags, predict_tags, tag_accuracy, train_tagger
from decoders.errors import ConfigError

SPEC = {"method": "ssvm", "lambda_e": 0.1, "lambda_t": 0.1, "epochs": 5, "learning_rate": 0.1}


def _frame(sentences):
    rows = [
        {
            "sent_id": f"s{i}",
            "doc_id": "d",
            "words": w,
            "coarse_tags": t,
            "tags": t,
            "heads": [0] * len(w),
            "deprels": ["_"] * len(w),
        }  # fmt: skip
        for i, (w, t) in enumerate(sentences)
    ]
    return pd.DataFrame(rows)


def test_jackknifed_tags_come_from_the_other_folds():
    base = [(["the", "dog", "runs"], ["DT", "NN", "VBZ"]), (["a", "cat", "sleeps"], ["DT", "NN", "VBZ"])] * 6
    # a word seen in one fold only: its own fold's tagger has never seen it, the full tagger has
    frame = _frame([*base, (["the", "zebra", "runs"], ["DT", "NN", "VBZ"])])
    tags = jackknife_tags(frame, SPEC, folds=3, min_count=1, seed=0)
    assert [len(t) for t in tags] == [len(w) for w in frame["words"]]
    assert tag_accuracy(tags[:12], frame["tags"].tolist()[:12]) == 100.0
    full = train_tagger(frame, SPEC, min_count=1, seed=0)
    assert predict_tags(full, [["a", "dog", "sleeps"]]) == [["DT", "NN", "VBZ"]]
    with pytest.raises(ValueError, match="folds"):
        jackknife_tags(frame, SPEC, folds=1, min_count=1, seed=0)


def test_coarse_tags_of_ptb_tags():
    assert [coarse_of(t) for t in ["NNS", "VBD", "PRP$", ",", "``", "-LRB-"]] == [
        "NN",
        "VB",
        "PR",
        ",",
        "``",
        "-LRB-",
    ]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: coarse_of(None), "tag must be a string"),
        (lambda: coarse_of(["NN"]), "tag must be a string"),
        (lambda: tag_accuracy([["DT"]], [["DT"], ["NN"]]), "predicted has 1 sentences, gold 2"),
        (lambda: tag_accuracy([["DT", "NN"]], [["DT"]]), r"predicted\[0\] has 2 tags, gold\[0\] 1"),
        (lambda: tag_accuracy(5, [["DT"]]), "predicted must be a sequence"),
        (lambda: tag_accuracy([["DT"]], [None]), r"gold\[0\] must be a sequence"),
        (lambda: train_tagger(_frame([(["a"], ["DT"])]), {"epochs": 1}, min_count=1, seed=0), "'method'"),
        (lambda: train_tagger([1], SPEC, min_count=1, seed=0), "frame must be a pandas DataFrame"),
        (lambda: train_tagger(_frame([(["a"], ["DT"])]), SPEC, min_count="1", seed=0), "min_count"),
        (lambda: jackknife_tags(_frame([(["a"], ["DT"])] * 3), [1], folds=2, min_count=1, seed=0), "spec"),
        (
            lambda: jackknife_tags(_frame([(["a"], ["DT"])] * 3), SPEC, folds="2", min_count=1, seed=0),
            "folds",
        ),
        (lambda: predict_tags("model", [["a"]]), "model must be a ChainModel"),
    ],
)
def test_bad_arguments_are_named(call, words):
    """Found here: a tag that is not a string gave a TypeError or AttributeError, a spec without its method a
    KeyError, sentences of unequal lengths zip()'s unnamed ValueError."""
    with pytest.raises((ValueError, ConfigError), match=words):
        call()
