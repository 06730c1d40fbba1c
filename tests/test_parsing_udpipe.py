"""UDPipe 1 peer: CoNLL-U writing, training only the parser, parsing a toy grammar, and the errors."""

from __future__ import annotations

import hashlib
import random

import conllu
import pytest

from decoders.corpora.sentences import sentence_frame
from decoders.parsing.udpipe import (
    UDPipeError,
    load_model,
    parse_udpipe,
    parse_udpipe_each,
    to_conllu,
    train_udpipe,
)

# small network and few iterations: a few seconds per training on two cores
OPTIONS = "iterations=8;hidden_layer=64;embedding_form=16;embedding_xpostag=8"

DETS = ["the", "a", "every"]
ADJS = ["big", "old", "red"]
NOUNS = ["dog", "cat", "bird", "man", "child", "tree"]
INTRANSITIVE = ["barks", "sleeps", "runs"]
TRANSITIVE = ["sees", "likes", "chases"]
TAG = {"DET": "DT", "ADJ": "JJ", "NOUN": "NN", "VERB": "VBZ", "PUNCT": "."}


def _noun_phrase(rng: random.Random, first: int) -> list[tuple[str, str, int | None, str]]:
    """(word, coarse tag, head or None for the phrase's head noun, deprel); determiners and adjectives attach
    to the noun that follows them."""
    words: list[tuple[str, str, int | None, str]] = []
    if rng.random() < 0.8:
        words.append((rng.choice(DETS), "DET", None, "det"))
    if rng.random() < 0.4:
        words.append((rng.choice(ADJS), "ADJ", None, "amod"))
    noun_position = first + len(words)
    words = [(w, t, noun_position, d) for w, t, _, d in words]
    words.append((rng.choice(NOUNS), "NOUN", None, ""))
    return words


def toy_sentences(count: int, seed: int) -> list[dict]:
    """Sentences of the toy grammar: [NP] verb [NP] [.], the subject and object nouns attach to the verb,
    the verb to the root, the full stop to the verb."""
    rng = random.Random(seed)
    rows = []
    for number in range(count):
        subject = _noun_phrase(rng, 1)
        verb_position = len(subject) + 1
        transitive = rng.random() < 0.6
        verb = (rng.choice(TRANSITIVE if transitive else INTRANSITIVE), "VERB", 0, "root")
        words = [(w, t, verb_position if h is None else h, d or "nsubj") for w, t, h, d in subject]
        words.append(verb)
        if transitive:
            obj = _noun_phrase(rng, verb_position + 1)
            words += [(w, t, verb_position if h is None else h, d or "obj") for w, t, h, d in obj]
        if rng.random() < 0.5:
            words.append((".", "PUNCT", verb_position, "punct"))
        rows.append(
            {
                "sent_id": f"toy-{number:03d}",
                "doc_id": "toy",
                "words": [w for w, _, _, _ in words],
                "coarse_tags": [t for _, t, _, _ in words],
                "tags": [TAG[t] for _, t, _, _ in words],
                "heads": [h for _, _, h, _ in words],
                "deprels": [d for _, _, _, d in words],
            }
        )
    return rows


@pytest.fixture(scope="module")
def treebank():
    return sentence_frame(toy_sentences(48, seed=3))


@pytest.fixture(scope="module")
def trained(treebank, tmp_path_factory):
    path = tmp_path_factory.mktemp("udpipe") / "toy.udpipe"
    info = train_udpipe(treebank, path, parser_options=OPTIONS, seed=7)
    return path, info


def _uas(predicted, gold):
    correct = sum(p == g for ps, gs in zip(predicted, gold, strict=True) for p, g in zip(ps, gs, strict=True))
    return correct / sum(len(gs) for gs in gold)


def test_the_toy_grammar_is_what_the_docstring_says(treebank):
    for tags, heads in zip(treebank["coarse_tags"], treebank["heads"], strict=True):
        verb = tags.index("VERB") + 1
        assert heads.count(0) == 1 and heads[verb - 1] == 0
        for position, (tag, head) in enumerate(zip(tags, heads, strict=True), start=1):
            if tag in ("DET", "ADJ"):
                assert tags[head - 1] == "NOUN" and head > position
            elif tag in ("NOUN", "PUNCT"):
                assert head == verb


def test_training_writes_the_model_and_reports_what_it_did(trained, treebank):
    path, info = trained
    assert path.is_file() and path.stat().st_size == info["model_bytes"] > 0
    assert not list(path.parent.glob(".*.part"))  # the atomic write left no temporary file
    assert info["sentences"] == len(treebank) == 48
    assert info["words"] == sum(map(len, treebank["words"]))
    assert info["parser_options"] == OPTIONS and info["tokenizer"] == info["tagger"] == "none"
    assert info["labels"] == "gold" and info["seconds"] > 0
    assert info["udpipe_version"].startswith("1.")


def test_parsing_the_training_sentences_recovers_the_toy_grammar(trained, treebank):
    path, _ = trained
    heads, seconds = parse_udpipe(path, treebank)
    assert seconds > 0
    for predicted, words in zip(heads, treebank["words"], strict=True):
        assert len(predicted) == len(words)
        assert all(0 <= head <= len(words) for head in predicted)
    assert _uas(heads, list(treebank["heads"])) >= 0.95


def test_each_sentence_is_timed_on_its_own(trained, treebank):
    heads, seconds = parse_udpipe_each(trained[0], treebank)
    assert heads == parse_udpipe(trained[0], treebank)[0]
    assert len(seconds) == len(treebank) and all(s > 0 for s in seconds)


def test_parsing_new_sentences_of_the_grammar(trained):
    fresh = sentence_frame(toy_sentences(30, seed=11))
    heads, _ = parse_udpipe(trained[0], fresh)
    assert _uas(heads, list(fresh["heads"])) >= 0.9


def test_the_parser_does_not_see_the_gold_heads(trained, treebank):
    path, _ = trained
    reference, _ = parse_udpipe(path, treebank)
    scrambled = treebank.copy()
    # every word attached to the last word (or, for it, to the root): a valid but wrong table
    scrambled["heads"] = [[len(h)] * (len(h) - 1) + [0] for h in treebank["heads"]]
    scrambled["deprels"] = [["dep"] * len(h) for h in treebank["heads"]]
    assert parse_udpipe(path, scrambled)[0] == reference


def test_the_given_tags_replace_the_frame_tags(trained, treebank):
    path, _ = trained
    # with every word tagged as a noun the parser has only forms to go by; the answer must change
    nouns = [["NOUN"] * len(w) for w in treebank["words"]]
    fine = [["NN"] * len(w) for w in treebank["words"]]
    changed, _ = parse_udpipe(path, treebank, tags=fine, coarse_tags=nouns)
    reference, _ = parse_udpipe(path, treebank)
    assert changed != reference


def test_to_conllu_round_trips_through_the_conllu_package(treebank):
    fine = [[f"X{i}" for i in range(len(w))] for w in treebank["words"]]
    text = to_conllu(treebank, tags=fine)
    assert text.endswith("\n\n") and text.count("\n\n") == len(treebank)
    parsed = conllu.parse(text)
    assert len(parsed) == len(treebank)
    for sentence, row, row_fine in zip(parsed, treebank.itertuples(), fine, strict=True):
        assert sentence.metadata["sent_id"] == row.sent_id
        assert [t["id"] for t in sentence] == list(range(1, len(row.words) + 1))
        assert [t["form"] for t in sentence] == row.words
        assert [t["upos"] for t in sentence] == row.coarse_tags
        assert [t["xpos"] for t in sentence] == row_fine
        assert [t["head"] for t in sentence] == row.heads
        assert [t["deprel"] for t in sentence] == row.deprels
        assert all(t["lemma"] == "_" and t["feats"] is t["deps"] is t["misc"] is None for t in sentence)


def test_to_conllu_names_the_sentence_whose_tags_do_not_fit(treebank):
    tags = [list(t) for t in treebank["tags"]]
    tags[5] = tags[5][:-1]
    with pytest.raises(ValueError, match="toy-005"):
        to_conllu(treebank, tags=tags)
    with pytest.raises(ValueError, match="3 sentences"):
        to_conllu(treebank, coarse_tags=tags[:3])


def test_parsing_names_the_sentence_whose_tags_do_not_fit(trained, treebank):
    coarse = [list(t) for t in treebank["coarse_tags"]]
    coarse[9] = [*coarse[9], "NOUN"]
    with pytest.raises(ValueError, match="toy-009"):
        parse_udpipe(trained[0], treebank, coarse_tags=coarse)


def test_a_missing_or_broken_model_file_is_named(tmp_path, treebank):
    missing = tmp_path / "nowhere.udpipe"
    with pytest.raises(FileNotFoundError, match="nowhere.udpipe"):
        parse_udpipe(missing, treebank)
    broken = tmp_path / "broken.udpipe"
    broken.write_bytes(b"not a model")
    with pytest.raises(UDPipeError, match="broken.udpipe"):
        load_model(broken)


def test_udpipe_training_errors_carry_its_message_and_leave_no_file(tmp_path, treebank):
    path = tmp_path / "bad.udpipe"
    with pytest.raises(UDPipeError, match="iterations"):
        train_udpipe(treebank, path, parser_options="iterations=many", seed=0)
    wrong_root = treebank.copy()
    wrong_root["deprels"] = [["ROOT" if d == "root" else d for d in ds] for ds in treebank["deprels"]]
    with pytest.raises(UDPipeError, match="'root' deprel"):
        train_udpipe(wrong_root, path, parser_options="iterations=1", seed=0)
    with pytest.raises(ValueError, match="no parser"):
        train_udpipe(treebank, path, parser_options="none", seed=0)
    assert not path.exists() and not list(tmp_path.iterdir())


def test_a_table_without_labels_trains_with_uniform_labels_and_seeds_are_reproducible(tmp_path, treebank):
    unlabeled = treebank.copy()
    unlabeled["deprels"] = [["_"] * len(w) for w in treebank["words"]]
    options = "iterations=2;hidden_layer=16;embedding_form=8;structured_interval=0"
    digests = []
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        info = train_udpipe(unlabeled, tmp_path / f"{name}.udpipe", parser_options=options, seed=seed)
        assert info["labels"].startswith("uniform")
        digests.append(hashlib.sha256((tmp_path / f"{name}.udpipe").read_bytes()).hexdigest())
    assert digests[0] == digests[1] != digests[2]
    heads, _ = parse_udpipe(tmp_path / "a.udpipe", unlabeled)
    assert [len(h) for h in heads] == [len(w) for w in unlabeled["words"]]
