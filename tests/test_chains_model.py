"""Chain tagger: token features, vocabulary and sparse matrix, the scorer, SSVM and perceptron training."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.chains import train as train_module
from decoders.chains.features import (
    BOS,
    EOS,
    FeatureMatrix,
    FeatureVocabulary,
    fit_features,
    token_features,
    word_shape,
)
from decoders.chains.instance import sequence_score
from decoders.chains.model import ChainModel, label_inventory, sentence_labels
from decoders.chains.train import ssvm_objective, train_chain_model, train_perceptron, train_ssvm
from decoders.chains.viterbi import viterbi
from decoders.corpora.conll import read_conllu
from decoders.corpora.uner import join_uner_ud, read_iob2
from decoders.corpora.wsj import read_wsj, split_wsj
from decoders.errors import ConfigError, CorpusFormatError

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def wsj(mirror: Path) -> dict[str, pd.DataFrame]:
    return split_wsj(read_wsj(mirror / "ptb_wsj_sample_nltk" / "dependency_treebank.zip"))


@pytest.fixture(scope="module")
def wsj_features(wsj: dict[str, pd.DataFrame]) -> tuple[FeatureVocabulary, FeatureMatrix]:
    return fit_features(wsj["train"]["words"], min_count=1)


def synthetic_task(n_sentences: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """Words ``wK`` always carry label ``LK mod 4``; the word ``amb`` repeats the previous token's label.

    The previous-word feature and the transitions both make the ambiguous word separable.
    """
    rng = np.random.default_rng(seed)
    sentences, labels = [], []
    for _ in range(n_sentences):
        words, tags = [], []
        for position in range(int(rng.integers(1, 9))):
            if position > 0 and rng.random() < 0.3:
                words.append("amb")
                tags.append(tags[-1])
            else:
                k = int(rng.integers(0, 12))
                words.append(f"w{k}")
                tags.append(f"L{k % 4}")
        sentences.append(words)
        labels.append(tags)
    return sentences, labels


def model_score(model: ChainModel, matrix: FeatureMatrix, sentence: int, labels: np.ndarray) -> float:
    """The model's score of a labelling, summed feature by feature (the definition, no folding)."""
    span = matrix.sentence_slice(sentence)
    total = model.start[labels[0]] + model.end[labels[-1]]
    for i, token in enumerate(range(span.start, span.stop)):
        for feature in matrix.token_ids(token):
            total += model.weights[feature, labels[i]]
    for a, b in itertools.pairwise(labels):
        total += model.tau[a, b]
    return float(total)


def random_model(vocabulary: FeatureVocabulary, n_labels: int, seed: int) -> ChainModel:
    rng = np.random.default_rng(seed)
    return ChainModel(
        rng.normal(size=(len(vocabulary), n_labels)),
        rng.normal(size=n_labels),
        rng.normal(size=n_labels),
        rng.normal(size=(n_labels, n_labels)),
        [f"T{i}" for i in range(n_labels)],
        vocabulary,
        {"note": "random"},
    )


# --------------------------------------------------------------------------- features


def test_word_shape() -> None:
    assert word_shape("Vinken") == "Xxxxxx"
    assert word_shape("12-3") == "dd-d"
    assert word_shape("U.S.") == "X.X."
    assert word_shape("") == ""


def test_token_features_of_a_known_sentence() -> None:
    features = token_features(["Pierre", "Vinken", ",", "61"])
    assert features[0] == [
        "bias",
        "w=Pierre",
        "lw=pierre",
        "p1=P",
        "p2=Pi",
        "p3=Pie",
        "p4=Pier",
        "s1=e",
        "s2=re",
        "s3=rre",
        "s4=erre",
        "shape=Xxxxxx",
        "sshape=Xx",
        "upper",
        "title",
        f"w-2={BOS}",
        f"w-1={BOS}",
        "w+1=vinken",
        "w+2=,",
        f"w-1|w={BOS}|pierre",
        "w|w+1=pierre|vinken",
        f"s3-1={BOS}",
        "s3+1=ken",
        "BOS",
    ]
    comma, number = features[2], features[3]
    assert {"w=,", "shape=,", "punct", "w-1=vinken", "w+1=61", f"w+2={EOS}"} <= set(comma)
    assert not {"upper", "title", "digit", "BOS", "EOS"} & set(comma)
    assert {"shape=dd", "sshape=d", "digit", f"w+1={EOS}", f"s3+1={EOS}", "EOS", "p2=61"} <= set(number)
    assert "p3=61" not in " ".join(number)  # no affix longer than the word
    hyphenated = token_features(["U.S.-based"])[0]
    assert {"hyphen", "upper", "title", "shape=X.X.-xxxxx", "sshape=X.X.-x", "BOS", "EOS"} <= set(hyphenated)
    assert "allcaps" not in hyphenated
    assert "allcaps" in token_features(["IBM"])[0]
    for token in features:
        assert len(token) == len(set(token))


def test_vocabulary_min_count_and_unknown_features() -> None:
    train = [["the", "cat"], ["the", "dog"]]
    vocabulary, matrix = fit_features(train, min_count=2)
    assert "w=the" in vocabulary.index and "w=cat" not in vocabulary.index
    assert vocabulary == FeatureVocabulary.build(train, min_count=2)
    # the matrix built in the same pass equals the vocabulary's transform of the same sentences
    again = vocabulary.transform(train)
    np.testing.assert_array_equal(matrix.ids, again.ids)
    np.testing.assert_array_equal(matrix.token_offsets, again.token_offsets)
    np.testing.assert_array_equal(matrix.sentence_offsets, [0, 2, 4])
    # unknown features are dropped: a sentence of unseen words keeps only features seen twice
    unseen = vocabulary.transform([["zebra"]])
    names = {vocabulary.names[i] for i in unseen.ids}
    assert names == {
        *("bias", "BOS", "EOS", "sshape=x"),
        *("w-2=<s>", "w-1=<s>", "s3-1=<s>", "w+1=</s>", "w+2=</s>", "s3+1=</s>"),
    }
    with pytest.raises(ValueError, match="min_count"):
        fit_features(train, min_count=0)
    with pytest.raises(ValueError, match=r"sentence 1 \(0-based\) has no words"):
        vocabulary.transform([["the"], []])


def test_vocabulary_and_matrix_round_trip(tmp_path: Path) -> None:
    sentences = [["Ünïcode", "words", ":", "a|b"], ["x"]]
    vocabulary, matrix = fit_features(sentences)
    vocabulary.save(tmp_path / "vocabulary.npz")
    matrix.save(tmp_path / "matrix.npz")
    assert FeatureVocabulary.load(tmp_path / "vocabulary.npz") == vocabulary
    loaded = FeatureMatrix.load(tmp_path / "matrix.npz")
    for name in ("ids", "token_offsets", "sentence_offsets"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(matrix, name))
    assert (loaded.n_sentences, loaded.n_tokens) == (2, 5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.npz", "vocabulary.npz"]  # no leftovers


def test_bad_feature_files_name_the_file(tmp_path: Path) -> None:
    text = tmp_path / "text.npz"
    text.write_text("not an archive\n")
    with pytest.raises(CorpusFormatError, match=r"text\.npz: not a readable \.npz"):
        FeatureMatrix.load(text)
    missing = tmp_path / "missing.npz"
    np.savez(missing, ids=np.zeros(3, dtype=np.int32))
    with pytest.raises(CorpusFormatError, match=r"missing\.npz: missing array\(s\) \['token_offsets'"):
        FeatureMatrix.load(missing)
    inconsistent = tmp_path / "inconsistent.npz"
    np.savez(inconsistent, ids=np.zeros(3, dtype=np.int32), token_offsets=[0, 2], sentence_offsets=[0, 1])
    with pytest.raises(CorpusFormatError, match=r"inconsistent\.npz: inconsistent feature matrix"):
        FeatureMatrix.load(inconsistent)
    offsets = tmp_path / "offsets.npz"
    np.savez(offsets, feature_bytes=np.frombuffer(b"abc", dtype=np.uint8), feature_offsets=[0, 2])
    with pytest.raises(CorpusFormatError, match=r"offsets\.npz: feature offsets do not cover"):
        FeatureVocabulary.load(offsets)
    with pytest.raises(CorpusFormatError, match=r"text\.npz"):
        ChainModel.load(text)


def test_real_wsj_feature_counts(wsj: dict[str, pd.DataFrame], wsj_features) -> None:
    vocabulary, matrix = wsj_features
    assert (matrix.n_sentences, matrix.n_tokens) == (3518, 84820)
    assert len(vocabulary) == 179665
    assert len(matrix.ids) == 1679616
    test = vocabulary.transform(wsj["test"]["words"])
    assert (test.n_sentences, test.n_tokens, len(test.ids)) == (396, 9264, 168710)
    pruned, pruned_matrix = fit_features(wsj["train"]["words"], min_count=2)
    assert (len(pruned), len(pruned_matrix.ids)) == (63240, 1563191)
    assert len(label_inventory(wsj["train"])) == 45


# --------------------------------------------------------------------------- model


def test_emissions_equal_a_naive_sum_and_fold_start_and_end(wsj: dict[str, pd.DataFrame]) -> None:
    vocabulary, matrix = fit_features(wsj["train"]["words"].iloc[:40])
    model = random_model(vocabulary, 5, seed=1)
    rng = np.random.default_rng(2)
    for s in range(matrix.n_sentences):
        theta = model.emissions(matrix, s)
        span = matrix.sentence_slice(s)
        naive = np.array(
            [model.weights[matrix.token_ids(t)].sum(axis=0) for t in range(span.start, span.stop)]
        )
        naive[0] += model.start
        naive[-1] += model.end
        np.testing.assert_allclose(theta, naive, rtol=1e-12, atol=1e-12)
        labels = rng.integers(0, 5, size=len(theta))
        assert sequence_score(theta, model.tau, labels) == pytest.approx(
            model_score(model, matrix, s, labels)
        )
    one_word = vocabulary.transform([["Pierre"]])
    theta = model.emissions(one_word, 0)
    assert sequence_score(theta, model.tau, np.array([3])) == pytest.approx(
        model_score(model, one_word, 0, np.array([3]))
    )


def test_instances_share_scores_and_predict_is_viterbi(wsj: dict[str, pd.DataFrame]) -> None:
    frame = wsj["train"].iloc[:25]
    vocabulary, matrix = fit_features(frame["words"])
    model = random_model(vocabulary, 6, seed=3)
    gold = np.random.default_rng(4).integers(0, 6, size=matrix.n_tokens)
    instances = model.instances(matrix, gold)
    assert len(instances) == 25 and all(inst.scores is model.scores for inst in instances)
    assert model.scores.tau is not None and model.scores.labels == model.labels
    predicted = model.predict(matrix)
    for s, inst in enumerate(instances):
        np.testing.assert_array_equal(inst.gold, gold[matrix.sentence_slice(s)])
        np.testing.assert_array_equal(
            viterbi(inst.theta, inst.scores.tau)[0], predicted[matrix.sentence_slice(s)]
        )
    with pytest.raises(ValueError, match="sentence_index 25 out of range"):
        model.emissions(matrix, 25)
    with pytest.raises(ValueError, match="out of range"):
        model.emissions(FeatureMatrix(np.array([len(vocabulary)]), [0, 1], [0, 1]), 0)


def test_labels_and_joint_inventory(mirror: Path) -> None:
    ud = read_conllu(mirror / "ud_english_ewt" / "en_ewt-ud-dev.conllu")
    joint = join_uner_ud(read_iob2(mirror / "uner_english_ewt" / "en_ewt-ud-dev.iob2"), ud)
    labels = label_inventory(joint)
    assert len(labels) == 343 == 49 * 7
    ners = ["B-LOC", "B-ORG", "B-PER", "I-LOC", "I-ORG", "I-PER", "O"]
    assert labels[:7] == tuple(f"$|{ner}" for ner in ners)  # tag-major, both parts sorted
    assert labels.index("NNP|B-PER") == 7 * sorted(set(joint["tags"].explode())).index("NNP") + 2
    first = sentence_labels(joint)[0]
    assert first[6:8] == ["NNP|B-LOC", "NNP|I-LOC"]
    vocabulary = FeatureVocabulary(["bias"])
    model = ChainModel(np.zeros((1, 2)), np.zeros(2), np.zeros(2), np.zeros((2, 2)), ["A", "B"], vocabulary)
    np.testing.assert_array_equal(model.encode_labels([["A", "B"], ["B"]]), [0, 1, 1])
    assert model.decode_labels(np.array([1, 0])) == ["B", "A"]
    with pytest.raises(ValueError, match="'C' is not one of the model's 2 labels"):
        model.encode_labels([["A", "C"]])


def test_model_round_trip(tmp_path: Path) -> None:
    sentences, _ = synthetic_task(20, seed=5)
    vocabulary, matrix = fit_features(sentences)
    model = random_model(vocabulary, 4, seed=6)
    model.save(tmp_path / "model.npz")
    loaded = ChainModel.load(tmp_path / "model.npz")
    assert loaded.labels == model.labels and loaded.vocabulary == vocabulary and loaded.meta == model.meta
    for name in ("weights", "start", "end", "tau"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    np.testing.assert_array_equal(loaded.predict(loaded.featurize(sentences)), model.predict(matrix))


# --------------------------------------------------------------------------- training


@pytest.mark.parametrize("method", ["perceptron", "ssvm"])
def test_training_separates_a_separable_task(method: str) -> None:
    sentences, tags = synthetic_task(60, seed=7)
    frame = pd.DataFrame({"words": sentences, "tags": tags})
    model, history = train_chain_model(frame, method=method, epochs=15, seed=0, progress=False)
    matrix = model.featurize(sentences)
    gold = model.encode_labels(tags)
    assert model.accuracy(matrix, gold) == 1.0
    assert history[-1]["violations"] < history[0]["violations"]
    assert model.meta["method"] == method and model.meta["features"] == model.n_features


def reference_sgd(matrix, gold, n_features, n_labels, lambda_e, lambda_t, learning_rate, epochs, seed):
    """Averaged SSVM SGD written densely (explicit shrinkage of every weight, explicit running sum)."""
    n = matrix.n_sentences
    emission = np.zeros((n_features + 2, n_labels))
    transition = np.zeros((n_labels, n_labels))
    sum_e, sum_t = np.zeros_like(emission), np.zeros_like(transition)
    rng = np.random.default_rng(seed)
    mu = min(lambda_e, lambda_t) / n
    steps = 0
    for _ in range(epochs):
        for s in rng.permutation(n):
            span = matrix.sentence_slice(s)
            y = gold[span]
            rows = [list(matrix.token_ids(t)) for t in range(span.start, span.stop)]
            rows[0].append(n_features)
            rows[-1].append(n_features + 1)
            theta = np.array([emission[r].sum(axis=0) for r in rows]) + 1.0
            theta[np.arange(len(y)), y] -= 1.0
            y_hat, _ = viterbi(theta, transition)
            eta = learning_rate / (1 + learning_rate * mu * steps)
            grad_e, grad_t = np.zeros_like(emission), np.zeros_like(transition)
            for i, r in enumerate(rows):
                np.add.at(grad_e, (r, y_hat[i]), 1.0)
                np.add.at(grad_e, (r, y[i]), -1.0)
            for i in range(len(y) - 1):
                grad_t[y_hat[i], y_hat[i + 1]] += 1.0
                grad_t[y[i], y[i + 1]] -= 1.0
            emission = (1 - eta * lambda_e / n) * emission - eta * grad_e
            transition = (1 - eta * lambda_t / n) * transition - eta * grad_t
            sum_e += emission
            sum_t += transition
            steps += 1
    return sum_e / steps, sum_t / steps


@pytest.mark.parametrize("rescale_below", [None, 0.9])
def test_lazy_scaling_and_averaging_match_dense_sgd(rescale_below, monkeypatch) -> None:
    """Strong transition regularisation rescales tau; a threshold of 0.9 rescales both blocks at every step."""
    if rescale_below is not None:
        monkeypatch.setattr(train_module, "_RESCALE_BELOW", rescale_below)
    sentences, tags = synthetic_task(30, seed=8)
    frame = pd.DataFrame({"words": sentences, "tags": tags})
    labels = label_inventory(frame)
    vocabulary, matrix = fit_features(sentences)
    gold = np.array([labels.index(t) for t in itertools.chain.from_iterable(tags)])
    options = {"lambda_e": 5.0, "lambda_t": 20.0, "learning_rate": 0.5, "epochs": 6, "seed": 3}
    model, _ = train_ssvm(matrix, gold, labels, vocabulary, progress=False, **options)
    emission, transition = reference_sgd(matrix, gold, len(vocabulary), len(labels), **options)
    np.testing.assert_allclose(model.weights, emission[:-2], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.start, emission[-2], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.end, emission[-1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.tau, transition, rtol=1e-9, atol=1e-12)
    assert np.abs(model.tau).max() > 1e-3  # the comparison is not between two zero matrices


def test_ssvm_objective_decreases_on_a_real_slice(wsj: dict[str, pd.DataFrame]) -> None:
    model, history = train_chain_model(
        wsj["train"].iloc[:150], epochs=5, track_objective=True, progress=False
    )
    objectives = [row["objective"] for row in history]
    assert all(b < a for a, b in itertools.pairwise(objectives)), objectives
    assert objectives[-1] < objectives[0] / 5
    # the tracked value is the objective of the returned model
    vocabulary_matrix = model.featurize(wsj["train"]["words"].iloc[:150])
    gold = model.encode_labels(sentence_labels(wsj["train"].iloc[:150]))
    assert ssvm_objective(model, vocabulary_matrix, gold, 0.1, 0.1) == pytest.approx(objectives[-1])


def test_training_is_deterministic_for_a_seed() -> None:
    sentences, tags = synthetic_task(40, seed=9)
    frame = pd.DataFrame({"words": sentences, "tags": tags})
    first, _ = train_chain_model(frame, epochs=3, seed=11, progress=False)
    again, _ = train_chain_model(frame, epochs=3, seed=11, progress=False)
    other, _ = train_chain_model(frame, epochs=3, seed=12, progress=False)
    np.testing.assert_array_equal(first.weights, again.weights)
    np.testing.assert_array_equal(first.tau, again.tau)
    assert not np.array_equal(first.weights, other.weights)
    perceptron, _ = train_chain_model(frame, method="perceptron", epochs=3, seed=11, progress=False)
    perceptron_again, _ = train_chain_model(frame, method="perceptron", epochs=3, seed=11, progress=False)
    np.testing.assert_array_equal(perceptron.weights, perceptron_again.weights)


def test_training_options_are_checked() -> None:
    sentences, tags = synthetic_task(10, seed=10)
    frame = pd.DataFrame({"words": sentences, "tags": tags})
    with pytest.raises(ConfigError, match="method"):
        train_chain_model(frame, method="crf")
    with pytest.raises(ConfigError, match="epochs"):
        train_chain_model(frame, epochs=0)
    with pytest.raises(ConfigError, match="lambda_t"):
        train_chain_model(frame, lambda_t=-1.0)
    with pytest.raises(ConfigError, match="min_count"):
        train_chain_model(frame, min_count=0)
    with pytest.raises(ConfigError, match="flip the weights"):
        train_chain_model(frame, lambda_t=100.0, learning_rate=1.0)
    vocabulary, matrix = fit_features(sentences)
    with pytest.raises(ValueError, match="one label id per token"):
        train_perceptron(matrix, np.zeros(3, dtype=np.int64), ["A"], vocabulary, progress=False)
    with pytest.raises(ValueError, match=r"label ids must lie in 0\.\.0"):
        train_perceptron(matrix, np.ones(matrix.n_tokens, dtype=np.int64), ["A"], vocabulary, progress=False)
