"""Title scorers and word graphs: Simple Good-Turing, the bigram model, selection features, graph construction,
the pipeline, and a small end-to-end run on real textbook sections from the mirror."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from decoders.corpora.textbooks import read_textbook, select_units, split_units
from decoders.errors import ConfigError, CorpusFormatError
from decoders.titles.graph import AUXILIARY_CLASS, auxiliary_words, build_instance, title_length
from decoders.titles.instance import path_problem, path_score, realise
from decoders.titles.language_model import (
    BOS,
    EOS,
    UNK,
    estimate_bigram_lm,
    lm_tokens,
    sentences,
    simple_good_turing,
)
from decoders.titles.pipeline import (
    TitleModel,
    build_instances,
    rouge_l,
    selection_accuracy,
    train,
    unit_statistics,
)
from decoders.titles.selection import Stemmer, body_tokens, stem_features

# --------------------------------------------------------------------------------------------------------
# Simple Good-Turing


def test_sgt_matches_published_values_on_the_prosody_table():
    # The first rows of Gale & Sampson's prosody frequency table; p0 and p as published by the Smile
    # library's Good-Turing test (7 decimals).
    r = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
    n_r = [120, 40, 24, 13, 15, 5, 11, 2, 2, 1, 3]
    sgt = simple_good_turing(np.repeat(r, n_r))
    total = sum(a * b for a, b in zip(r, n_r, strict=True))
    assert sgt.p0 == pytest.approx(120 / total)
    assert sgt.p0 == pytest.approx(0.2047782, abs=1e-7)
    expected = [0.0009267, 0.0024393, 0.0040945, 0.0058063, 0.0075464, 0.0093026, 0.0110689]
    expected += [0.0128418, 0.0146194, 0.0164005, 0.0199696]
    np.testing.assert_allclose(sgt.p, expected, atol=1e-7)
    assert sgt.p0 + (sgt.p * sgt.n_r).sum() == pytest.approx(1.0)
    assert not sgt.turing.any()  # here the smoothed estimates are used throughout


def test_sgt_uses_turing_estimates_until_they_agree_with_the_smoothed_ones():
    r = [1, 2, 3, 4, 5, 6, 7, 8, 10]
    n_r = [1000, 250, 120, 60, 40, 25, 10, 8, 5]
    sgt = simple_good_turing(np.repeat(r, n_r))
    assert sgt.turing.tolist() == [True, True] + [False] * 7
    assert sgt.r_star[:2].tolist() == pytest.approx([2 * 250 / 1000, 3 * 120 / 250])
    lgt = [(x + 1) * ((x + 1) / x) ** sgt.slope for x in r[2:]]
    assert sgt.r_star[2:].tolist() == pytest.approx(lgt)
    assert sgt.p0 == pytest.approx(1000 / sum(a * b for a, b in zip(r, n_r, strict=True)))
    assert sgt.p0 + (sgt.p * sgt.n_r).sum() == pytest.approx(1.0)
    assert sgt.probability(np.array([2, 2, 10])).tolist() == pytest.approx([sgt.p[1], sgt.p[1], sgt.p[-1]])
    assert (sgt.discount(np.array(r)) < 1).all()
    with pytest.raises(ValueError, match="not in the estimated"):
        sgt.probability(np.array([9]))


@pytest.mark.parametrize(
    "counts, message",
    [
        ([3, 3, 3], "two distinct counts"),
        ([1, 2, 2, 2, 2, 2], "slope"),  # more types seen twice than once: no Zipf-like decay
        ([0, 1, 2], "positive"),
        ([], "positive"),
    ],
)
def test_sgt_rejects_unusable_tables(counts, message):
    with pytest.raises(ValueError, match=message):
        simple_good_turing(np.array(counts, dtype=np.int64))


# --------------------------------------------------------------------------------------------------------
# Bigram language model


def test_sentences_and_lm_tokens():
    text = "We sort it. Then Dijkstra's algorithm runs! Is it fast? e.g. not always\nHeading line"
    assert sentences(text) == [
        "We sort it.", "Then Dijkstra's algorithm runs!", "Is it fast? e.g. not always", "Heading line",
    ]  # fmt: skip
    assert lm_tokens("Dijkstra's O(n) Red-Black trees") == ["dijkstra", "o", "n", "red", "black", "trees"]


def zipf_sentences(count: int, seed: int) -> list[list[str]]:
    """Random sentences over a Zipf-distributed vocabulary with many rare words (so SGT has singletons)."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(300)])
    weights = 1.0 / np.arange(1, vocabulary.size + 1)
    weights /= weights.sum()
    return [list(rng.choice(vocabulary, size=rng.integers(3, 12), p=weights)) for _ in range(count)]


@pytest.fixture(scope="module")
def zipf_lm():
    return estimate_bigram_lm(zipf_sentences(400, seed=1))


def test_lm_conditionals_sum_to_one_over_the_vocabulary(zipf_lm):
    lm = zipf_lm
    assert lm.vocabulary[:3] == (BOS, EOS, UNK)
    assert lm.unigram_sgt.p0 > 0 and lm.bigram_sgt.p0 > 0
    predicted = np.arange(1, lm.size)  # every word, </s> and <unk>; <s> is never predicted
    for context in [BOS, "waa", "wab", "wkz", "never-seen"]:
        context_id = lm.ids([context])[0]
        total = np.exp(lm.log_prob_ids(context_id, predicted)).sum()
        assert total == pytest.approx(1.0, abs=1e-9), context
        assert np.isfinite(lm.log_prob_ids(context_id, predicted)).all()
    assert lm.log_prob_ids(0, 0) == -np.inf  # nothing predicts <s>
    assert lm.ids(["waa", "qqq"]).tolist() == [lm.vocabulary.index("waa"), 2]
    # An unknown context backs off to the unigram, an unknown word is <unk>.
    np.testing.assert_allclose(lm.log_prob(["qqq"], ["waa"]), lm.log_unigram[[lm.vocabulary.index("waa")]])
    assert lm.log_prob(["waa"], ["qqq"])[0] == lm.log_prob(["waa"], [UNK])[0]


def test_lm_discounts_seen_bigrams_and_gives_unseen_ones_mass(zipf_lm):
    lm = zipf_lm
    sentences_ = zipf_sentences(400, seed=1)
    pairs = pd.Series(
        [(a, b) for s in sentences_ for a, b in zip([BOS, *s], [*s, EOS], strict=True)]
    ).value_counts()
    (v, w), count = pairs.index[0], int(pairs.iloc[0])
    context_total = int(sum(c for (a, _), c in pairs.items() if a == v))
    expected = lm.bigram_sgt.discount(np.array([count]))[0] * count / context_total
    assert np.exp(lm.log_prob([v], [w])[0]) == pytest.approx(expected)
    assert expected < count / context_total
    unseen = next(word for word in lm.vocabulary[3:] if (v, word) not in pairs.index)
    # Katz back-off: the mass the discounts left, spread in proportion to the unigram of the unseen followers.
    followers = [b for (a, b) in pairs.index if a == v]
    left = 1 - sum(
        lm.bigram_sgt.discount(np.array([c]))[0] * c / context_total for (a, _), c in pairs.items() if a == v
    )
    unigram = np.exp(lm.log_unigram)
    alpha = left / (1 - unigram[lm.ids(followers)].sum())
    assert alpha > 0
    assert np.exp(lm.log_prob([v], [unseen])[0]) == pytest.approx(alpha * unigram[lm.ids([unseen])[0]])
    assert lm.sentence_log_prob(sentences_[0]) < 0


def test_lm_pickles_and_renormalises_contexts_that_saw_every_word():
    # No word is a singleton, so <unk> gets nothing; "a" is followed by every word and by </s>, so it has no
    # unseen follower to give left-over mass to: its seen bigrams are renormalised.
    corpus = [list("aabcd"), list("abac"), list("ada")]
    lm = estimate_bigram_lm(corpus)
    assert lm.unigram_sgt.p0 == 0.0
    assert lm.log_alpha[lm.ids(["a"])[0]] == -np.inf
    copy = pickle.loads(pickle.dumps(lm))
    for context in [BOS, "a", "b", "d", "unknown"]:
        probabilities = np.exp(copy.log_prob_ids(copy.ids([context])[0], np.arange(1, copy.size)))
        assert probabilities.sum() == pytest.approx(1.0), context
    assert copy.log_prob(["a"], ["b"]).tolist() == lm.log_prob(["a"], ["b"]).tolist()
    with pytest.raises(ValueError, match="non-empty sentence"):
        estimate_bigram_lm([[], []])


# --------------------------------------------------------------------------------------------------------
# Selection features


def test_stem_features_positions_frequencies_and_idf():
    bodies = ["Trees grow. A tree is a graph. Sorting trees sorts graphs.", "Graphs again."]
    tokens, n_sentences = body_tokens(bodies, Stemmer())
    assert n_sentences.tolist() == [3, 1]
    assert tokens["word"].tolist() == [
        "trees",
        "grow",
        "tree",
        "graph",
        "sorting",
        "trees",
        "sorts",
        "graphs",
    ] + ["graphs"]
    assert tokens["stem"].tolist()[:4] == ["tree", "grow", "tree", "graph"]
    df = {"tree": 1, "graph": 2}
    features = stem_features(tokens, n_sentences, df, 2).set_index(["unit", "stem"])
    tree = features.loc[(0, "tree")]
    assert tree["tf_rel"] == pytest.approx(3 / 8)
    assert tree["in_first_sentence"] == 1 and tree["first_sentence_log"] == 0
    assert tree["sentence_spread"] == pytest.approx(1.0)
    assert tree["forms"] == 2
    assert tree["idf"] == pytest.approx(np.log(3 / 2) + 1)
    assert tree["tfidf_rank_log"] == 0  # the section's top stem by TF*IDF
    graph = features.loc[(0, "graph")]
    assert graph["first_sentence_rel"] == pytest.approx(1 / 3)
    assert graph["first_position_rel"] == pytest.approx(3 / 8)
    assert graph["last_position_rel"] == pytest.approx(7 / 8)
    assert graph["idf"] == pytest.approx(1.0)
    assert features.loc[(0, "sort"), "idf"] == pytest.approx(np.log(3) + 1)  # in no document of df
    assert features.loc[(1, "graph"), "in_first_sentence"] == 1


# --------------------------------------------------------------------------------------------------------
# Word graphs on synthetic sections

CONTENT = [
    "tree", "trees", "sort", "sorting", "sorted", "graph", "graphs", "heap", "path", "paths", "search",
    "searching", "node", "nodes", "edge", "edges", "array", "arrays", "list", "lists", "queue", "stack", "hash",
    "table", "key", "keys", "value", "values", "root", "leaf",
]  # fmt: skip
AUX = ["of", "the", "in", "for"]


def synthetic_units(count: int = 30, seed: int = 0) -> pd.DataFrame:
    """Sections of Zipf-distributed content words, often with a preposition or article between two."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(CONTENT) + 1)
    weights /= weights.sum()
    rows = []
    for unit in range(count):
        body = []
        for _ in range(12):
            chosen = rng.choice(CONTENT, size=rng.integers(3, 7), p=weights)
            out = [chosen[0]]
            for word in chosen[1:]:
                if rng.random() < 0.6:
                    out.append(AUX[rng.integers(len(AUX))])
                out.append(word)
            body.append(" ".join(out).capitalize() + ".")
        first, second = rng.choice(CONTENT, size=2, replace=False)
        rows.append(
            ("synthetic", f"synthetic/{unit}", f"{first.capitalize()} of {second}", " ".join(body), unit)
        )
    return pd.DataFrame(rows, columns=["source", "section_id", "title", "body", "position"])


@pytest.fixture(scope="module")
def synthetic():
    units = synthetic_units()
    model = train(units.iloc[:24], units, {"aux_words": 3, "C": 1.0, "seed": 0})
    return units, model


def test_auxiliary_words_rank_title_frequency_then_body_frequency():
    titles = ["Trees of the Forest", "Sorting in a Graph", "Search of Paths", "And then"]
    bodies = ["with with with with into into the", "towards"]
    assert auxiliary_words(titles, bodies, 4) == ("of", "the", "a", "in")
    # Fewer in the titles than asked for: the rest by frequency in the bodies; "and", "then" are not aux words.
    assert auxiliary_words(titles, bodies, 7) == ("of", "the", "a", "in", "with", "into", "towards")
    assert auxiliary_words(titles, bodies, 0) == ()
    assert {"of", "the", "a", "an", "with"} <= AUXILIARY_CLASS and "and" not in AUXILIARY_CLASS
    with pytest.raises(ValueError):
        auxiliary_words(titles, bodies, -1)


def test_graph_shapes_classes_and_forbidden_edges(synthetic):
    units, model = synthetic
    assert model.aux_words == ("of", "for", "the")  # "of" in every title, then body frequency
    unit = units.iloc[24]
    instance = build_instance(unit, model.selection, model.lm, model.aux_words, k=2)
    words = list(instance.words)
    assert words == list(dict.fromkeys(w for w in lm_tokens(unit["body"]) if w in CONTENT))
    n = instance.n
    assert instance.edge.shape == (n, n) and instance.start.shape == (n,) and instance.k == 2
    same = instance.klass[:, None] == instance.klass[None, :]
    assert np.isneginf(instance.edge[same]).all()
    assert np.isfinite(instance.edge[~same]).all()
    assert (instance.edge_aux[same] == -1).all()
    # Morphological variants share a class, other words do not.
    klass = dict(zip(words, instance.klass.tolist(), strict=True))
    assert klass["tree"] == klass["trees"] and klass["sort"] == klass["sorted"] == klass["sorting"]
    assert klass["tree"] != klass["sort"]
    assert instance.n_classes == len({model.selection.stemmer.stems([w])[0] for w in words})
    assert instance.reference == unit["title"]
    with pytest.raises(ValueError, match="only"):
        build_instance(unit, model.selection, model.lm, model.aux_words, k=instance.n_classes + 1)


def test_graph_weights_are_selection_plus_best_route(synthetic):
    units, model = synthetic
    unit = units.iloc[25]
    instance = build_instance(unit, model.selection, model.lm, model.aux_words, k=3)
    lm, aux = model.lm, list(model.aux_words)
    scored = model.selection.log_probabilities([unit["body"]]).set_index("stem")["log_prob"]
    selection = {w: scored[model.selection.stemmer.stems([w])[0]] for w in instance.words}

    def best(previous: str, following: str) -> tuple[float, int]:
        direct = lm.log_prob([previous], [following])[0]
        routes = [lm.log_prob([previous], [x])[0] + lm.log_prob([x], [following])[0] for x in aux]
        return (direct, -1) if direct >= max(routes) else (max(routes), int(np.argmax(routes)))

    routed = np.argwhere(instance.edge_aux >= 0)
    assert len(routed) > 0 and (instance.edge_aux == -1).any()
    v, u = routed[0]
    words = instance.words
    weight, via = best(words[v], words[u])
    assert via == instance.edge_aux[v, u]
    assert instance.edge[v, u] == pytest.approx(selection[words[u]] + weight)

    # A hand path whose middle edge goes through an auxiliary word.
    first = next(
        i for i in range(instance.n) if instance.klass[i] not in (instance.klass[v], instance.klass[u])
    )
    path = [first, v, u]
    assert path_problem(instance, path) is None
    expected = 0.0
    realised: list[str] = []
    for previous, following in zip(
        [BOS, *(words[p] for p in path)], [*(words[p] for p in path), EOS], strict=True
    ):
        weight, via = best(previous, following)
        expected += weight + (selection[following] if following != EOS else 0.0)
        if via >= 0:
            realised.append(aux[via])
        if following != EOS:
            realised.append(following)
    assert path_score(instance, path) == pytest.approx(expected)
    assert realise(instance, path) == realised
    assert aux[instance.edge_aux[v, u]] in realise(instance, path)
    assert realise(instance, path).index(aux[instance.edge_aux[v, u]]) == realised.index(words[u]) - 1


def test_build_instances_sizes_and_title_lengths(synthetic):
    units, model = synthetic
    items = build_instances(model, units.iloc[24:])
    assert [section for section, _, _ in items] == units["section_id"].iloc[24:].tolist()
    for (_, size, instance), title in zip(items, units["title"].iloc[24:], strict=True):
        assert instance.k == title_length(title) == 2
        assert size == instance.n * instance.k
    # Scores computed for all sections at once give the same graph as one section on its own.
    alone = build_instance(units.iloc[24], model.selection, model.lm, model.aux_words, 2)
    np.testing.assert_array_equal(alone.edge, items[0][2].edge)
    np.testing.assert_array_equal(alone.start_aux, items[0][2].start_aux)
    with pytest.raises(ValueError, match="no selection score"):
        build_instance(units.iloc[24], model.selection, model.lm, model.aux_words, 2, selection_scores={})


# --------------------------------------------------------------------------------------------------------
# Pipeline


def test_train_rejects_bad_options(synthetic):
    units, _ = synthetic
    for options, message in [
        ({"beam": 3}, "unknown"),
        ({"aux_words": -1}, "aux_words"),
        ({"C": 0}, "C must"),
        ({"seed": "x"}, "seed"),
    ]:
        with pytest.raises(ConfigError, match=message):
            train(units, units, options)
    with pytest.raises(ConfigError, match="no sections"):
        train(units.iloc[:0], units, {})


def test_the_trained_scorer_does_not_depend_on_the_seed(synthetic):
    """Training has no random choice (the logistic regression's lbfgs solver ignores ``random_state``; the
    bigram model and the auxiliary words are counts): another seed gives the same model and the same title graphs,
    so the seed spread of the titles results is zero by construction (docs/titles.md#seeds)."""
    units, model = synthetic
    other = train(units.iloc[:24], units, {"aux_words": 3, "C": 1.0, "seed": 14})
    ours, theirs = model.selection.classifier[-1], other.selection.classifier[-1]
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)
    np.testing.assert_array_equal(ours.intercept_, theirs.intercept_)
    assert other.aux_words == model.aux_words
    for position in (24, 27):
        unit = units.iloc[position]
        a = build_instance(unit, model.selection, model.lm, model.aux_words, 2)
        b = build_instance(unit, other.selection, other.lm, other.aux_words, 2)
        np.testing.assert_array_equal(a.edge, b.edge)


def test_model_save_and_load(tmp_path, synthetic):
    units, model = synthetic
    path = tmp_path / "model.pkl"
    model.save(path)
    loaded = TitleModel.load(path)
    assert loaded.aux_words == model.aux_words and loaded.options == model.options
    unit = units.iloc[26]
    a = build_instance(unit, model.selection, model.lm, model.aux_words, 2)
    b = build_instance(unit, loaded.selection, loaded.lm, loaded.aux_words, 2)
    np.testing.assert_array_equal(a.edge, b.edge)
    (tmp_path / "other.pkl").write_bytes(pickle.dumps({"not": "a model"}))
    with pytest.raises(CorpusFormatError, match="not a TitleModel"):
        TitleModel.load(tmp_path / "other.pkl")
    (tmp_path / "junk.pkl").write_bytes(b"junk")
    with pytest.raises(CorpusFormatError, match="not a pickled title model"):
        TitleModel.load(tmp_path / "junk.pkl")


def test_rouge_l_f_measure():
    # LCS 2 of a 3-word reference and a 2-word title: P = 1, R = 2/3, F = 0.8.
    assert rouge_l("Binary Search Trees", ["binary", "trees"]) == pytest.approx(0.8)
    assert rouge_l("Binary Search Trees", ["trees", "binary"]) == pytest.approx(0.4)
    assert rouge_l("Sorting", ["graphs"]) == 0.0
    assert rouge_l("Sorting", []) == 0.0


# --------------------------------------------------------------------------------------------------------
# End to end on real sections: the first 20 training and 5 test sections of Open Data Structures


@pytest.fixture(scope="module")
def ods(mirror: Path) -> dict[str, pd.DataFrame]:
    registry = yaml.safe_load((mirror / "registry.yaml").read_text(encoding="utf-8"))
    files = registry["textbook_ods"]["files"]
    paths = [
        mirror / "textbook_ods" / entry["stored"] for name, entry in files.items() if name.endswith(".tex")
    ]
    parts = split_units(select_units(read_textbook("ods", paths)))
    assert (len(parts["train"]), len(parts["test"])) == (49, 21)
    train_units, test_units = parts["train"].iloc[:20], parts["test"].iloc[:5]
    return {"train": train_units, "test": test_units, "all": pd.concat([train_units, test_units])}


def test_real_sections_end_to_end(ods):
    model = train(ods["train"], ods["all"], {"aux_words": 24, "C": 1.0, "seed": 0})
    assert model.aux_words == (
        "a", "an", "the", "of", "for", "from", "in", "to", "at", "by", "on", "with",
        "as", "since", "per", "about", "into", "up", "out", "after", "during", "over", "between", "within",
    )  # fmt: skip
    assert model.lm.size == 1880
    assert unit_statistics(ods["train"]) == pytest.approx(
        {
            "sections": 20,
            "mean_section_words": 681.3,
            "mean_title_words": 4.0,
            "mean_title_content_words": 3.05,
        }
    )
    items = build_instances(model, ods["test"])
    assert [(section, instance.n, instance.k, instance.n_classes) for section, _, instance in items] == [
        ("ods/heaps/1", 132, 4, 117),
        ("ods/heaps/2", 171, 4, 144),
        ("ods/heaps/3", 136, 2, 114),
        ("ods/sorting/0", 99, 2, 85),
        ("ods/sorting/1", 395, 3, 312),
    ]
    for _, _, instance in items:
        assert np.isfinite(instance.start).all() and np.isfinite(instance.end).all()
        assert (instance.start < 0).all() and (instance.end < 0).all()
        # The true title's content words that occur in the body, one per class, form a feasible path.
        title = [w for w in dict.fromkeys(lm_tokens(instance.reference)) if w in instance.words]
        path = list(
            {instance.klass[instance.words.index(w)]: instance.words.index(w) for w in title}.values()
        )
        if len(path) == instance.k:
            assert path_problem(instance, path) is None
    quality = selection_accuracy(model, ods["test"])
    assert (quality["sections"], quality["pairs"], quality["positives"], quality["title_stems"]) == (
        5,
        772,
        12,
        15,
    )
    assert quality["roc_auc"] > 0.8  # the classifier ranks title stems well above the rest
    assert quality["precision_at_k"] == quality["recall_at_k"]  # k = number of title stems
