"""Treebank sentences as parser input: gold trees checked, punctuation left out of UAS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from decoders.errors import CorpusFormatError
from decoders.parsing.features import Vocabulary
from decoders.parsing.treebank import parse_sentences, projective_flags, uas


def _frame(rows):
    return pd.DataFrame(
        [
            {
                "sent_id": f"s{i}",
                "doc_id": "d",
                "words": w,
                "coarse_tags": c,
                "tags": t,
                "heads": h,
                "deprels": ["_"] * len(w),
            }
            for i, (w, t, c, h) in enumerate(rows)
        ]
    )


def test_uas_ignores_punctuation_by_gold_tag_per_language():
    frame = _frame([
        (["Dogs", "bark", "."], ["NNS", "VBP", "."], ["NOUN", "VERB", "PUNCT"], [2, 0, 2]),
        (["狗", "叫", "。"], ["NN", "VV", "PU"], ["NOUN", "VERB", "PUNCT"], [2, 0, 2]),
    ])  # fmt: skip
    vocab = Vocabulary.build(zip(frame["words"], frame["tags"], frame["coarse_tags"], strict=True))
    english = parse_sentences(frame.iloc[:1], vocab, language="en")
    chinese = parse_sentences(frame.iloc[1:], vocab, language="zh")
    assert english[0].scored.tolist() == [True, True, False]
    assert chinese[0].scored.tolist() == [True, True, False]
    wrong_punct = [np.array([-1, 2, 0, 1])]
    assert uas(wrong_punct, english) == 100.0
    assert uas([np.array([-1, 0, 1, 2])], english) == 0.0
    with pytest.raises(ValueError, match="language"):
        parse_sentences(frame, vocab, language="xx")


def test_bad_gold_trees_are_named_and_projectivity_is_counted():
    frame = _frame([(["a", "b"], ["X", "Y"], ["X", "Y"], [0, 0])])
    vocab = Vocabulary.build([(["a", "b"], ["X", "Y"], ["X", "Y"])])
    with pytest.raises(CorpusFormatError, match="s0: 2 words attach to the root"):
        parse_sentences(frame, vocab, language="en", source="train.parquet")
    flags = projective_flags([np.array([-1, 3, 4, 0, 3]), np.array([-1, 2, 0])])
    assert flags.tolist() == [False, True]
