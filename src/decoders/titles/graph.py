"""The title word graph of one section (Deshpande et al. 2007, sec. 6), built from the two scorers.

Vertices are the body's unique content words (lower-cased, in order of first occurrence); the words with one
Porter stem form an equivalence class. Vertex ``u``'s selection score ``log P_sel(stem(u))`` is shifted onto
every edge into ``u`` (sec. 2.1), and the ordering score is the bigram model's:

- ``start[u] = log P_sel(u) + max(log P(u | <s>), max_x log P(x | <s>) + log P(u | x))``;
- ``edge[v, u] = log P_sel(u) + max(log P(u | v), max_x log P(x | v) + log P(u | x))``;
- ``end[v] = max(log P(</s> | v), max_x log P(x | v) + log P(</s> | x))``,

where ``x`` runs over the auxiliary words (prepositions and articles that are not vertices); the paper adds
one edge per auxiliary word, and since a decoder maximises only the best of the parallel edges matters, so
the instance keeps that one and the word it went through. ``edge`` is ``-inf`` on the diagonal and between
two words of one class.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from decoders.checks import check_int, check_text, check_texts
from decoders.corpora.textbooks import content_words
from decoders.titles.checks import check_mapping
from decoders.titles.instance import TitleInstance
from decoders.titles.language_model import BOS, EOS, BigramLM, lm_tokens
from decoders.titles.selection import SelectionModel

__all__ = ["AUXILIARY_CLASS", "auxiliary_words", "build_instance", "title_length"]

# The closed class the auxiliary words are drawn from: English articles and single-word prepositions (not the
# participles and comparatives sometimes counted as prepositions: given, following, including, than, like, ...).
AUXILIARY_CLASS = frozenset([
    "a", "an", "the",
    "aboard", "about", "above", "across", "after", "against", "along", "alongside", "amid", "among", "amongst",
    "around", "as", "at", "atop", "before", "behind", "below", "beneath", "beside", "besides", "between",
    "beyond", "by", "despite", "down", "during", "except", "for", "from", "in", "inside", "into", "near", "of",
    "off", "on", "onto", "out", "outside", "over", "past", "per", "since", "through", "throughout", "till",
    "to", "toward", "towards", "under", "underneath", "unlike", "until", "up", "upon", "versus", "via", "with",
    "within", "without",
])  # fmt: skip


def auxiliary_words(titles: Sequence[str], bodies: Sequence[str], count: int = 24) -> tuple[str, ...]:
    """The ``count`` most frequent words of :data:`AUXILIARY_CLASS` in ``titles`` (the training titles).

    Ties, and the places left when fewer than ``count`` of them occur in the titles, go by frequency in
    ``bodies`` (then alphabetically), so the set is always ``count`` words drawn from the corpus when the
    corpus has that many. ``titles`` and ``bodies`` are sequences of strings, ``count`` an integer >= 0.
    """
    titles, bodies = check_texts(titles, "titles"), check_texts(bodies, "bodies")
    count = check_int(count, "count", minimum=0)
    in_titles = Counter(token for title in titles for token in lm_tokens(title) if token in AUXILIARY_CLASS)
    in_bodies = Counter(token for body in bodies for token in lm_tokens(body) if token in AUXILIARY_CLASS)
    ranked = sorted(set(in_titles) | set(in_bodies), key=lambda w: (-in_titles[w], -in_bodies[w], w))
    return tuple(ranked[:count])


def title_length(title: str) -> int:
    """``k`` for a title: its number of content words (the paper gives the decoder the true length)."""
    return len(content_words(check_text(title, "title")))


def _best_route(direct: np.ndarray, via: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise max of a direct score and the best auxiliary route (``via`` has the aux axis first), with the
    index of the auxiliary word (-1 when the direct transition is at least as good)."""
    if via.shape[0] == 0:
        return direct, np.full(direct.shape, -1, dtype=np.int32)
    best = via.argmax(axis=0)
    best_score = via.max(axis=0)
    use_aux = best_score > direct
    return np.where(use_aux, best_score, direct), np.where(use_aux, best, -1).astype(np.int32)


def build_instance(
    unit: Mapping[str, Any],
    selection_model: SelectionModel,
    lm: BigramLM,
    aux_words: Sequence[str],
    k: int,
    *,
    selection_scores: Mapping[str, float] | None = None,
) -> TitleInstance:
    """The scored word graph of one section (``unit`` has ``body`` and ``title``) for titles of ``k`` words.

    ``selection_scores`` (stem -> log P(stem in the title)) may be passed when they were computed for many
    sections at once (see :func:`decoders.titles.pipeline.build_instances`); else they are computed here.
    Every argument is checked first, a ValueError naming it: ``unit`` a mapping (or a frame's row) with the strings ``body`` and
    ``title``, the two scorers of their types, ``aux_words`` strings, ``k`` an integer >= 1, and each selection
    score a log probability (``-inf`` allowed; NaN and ``+inf`` are not).
    """
    _check_arguments(unit, selection_model, lm)
    aux_words = check_texts(aux_words, "aux_words")
    k = check_int(k, "k", minimum=1)
    if selection_scores is not None:
        check_mapping(selection_scores, "selection_scores")
    if selection_scores is None:
        scored = selection_model.log_probabilities([unit["body"]])
        selection_scores = dict(zip(scored["stem"], scored["log_prob"], strict=True))
    vertices = list(dict.fromkeys(content_words(unit["body"])))
    if not vertices:
        raise ValueError(f"section {unit.get('section_id', '?')!r}: the body has no content words")
    stems = selection_model.stemmer.stems(vertices)
    klass, _ = pd.factorize(pd.Series(stems, dtype=object))
    if k > klass.max() + 1:
        raise ValueError(
            f"section {unit.get('section_id', '?')!r}: k = {k} but the body has only {klass.max() + 1} stems"
        )
    selection = _selection_vector(unit, stems, selection_scores)
    aux = list(aux_words)
    edge, edge_aux, start, start_route, end, end_route = _ordering_scores(lm, vertices, aux)
    edge = edge + selection[None, :]
    start = start + selection
    same_class = klass[:, None] == klass[None, :]  # includes the diagonal
    edge[same_class] = -np.inf
    edge_aux[same_class] = -1
    return TitleInstance(
        words=tuple(vertices),
        klass=klass,
        start=start,
        edge=edge,
        end=end,
        k=k,
        start_aux=start_route,
        edge_aux=edge_aux,
        end_aux=end_route,
        aux_words=tuple(aux),
        reference=str(unit["title"]),
    )


def _check_arguments(unit: Mapping[str, Any], selection_model: SelectionModel, lm: BigramLM) -> None:
    """Check that ``unit`` has the strings ``body`` and ``title`` and that the two scorers are of their types."""
    if not isinstance(unit, Mapping | pd.Series):
        raise ValueError(f"unit must be a mapping (or a row of a frame); got {type(unit).__name__}")
    for key in ("body", "title"):
        if key not in unit:
            raise ValueError(f"unit lacks {key!r}")
        check_text(unit[key], f"unit[{key!r}]")
    if not isinstance(selection_model, SelectionModel):
        raise ValueError(f"selection_model must be a SelectionModel; got {type(selection_model).__name__}")
    if not isinstance(lm, BigramLM):
        raise ValueError(f"lm must be a BigramLM; got {type(lm).__name__}")


def _selection_vector(
    unit: Mapping[str, Any], stems: Sequence[str], selection_scores: Mapping[str, float]
) -> np.ndarray:
    """Each vertex's selection score ``log P_sel(stem)``, checked to be a log probability."""
    try:
        selection = np.array([selection_scores[stem] for stem in stems], dtype=np.float64)
    except KeyError as error:
        raise ValueError(f"section {unit.get('section_id', '?')!r}: no selection score for {error}") from None
    except (TypeError, ValueError):
        raise ValueError(f"selection_scores must map stems to numbers; got {selection_scores!r}") from None
    bad = np.isnan(selection) | (selection == np.inf)
    if bad.any():
        stem = stems[int(np.flatnonzero(bad)[0])]
        raise ValueError(
            f"selection_scores[{stem!r}] is {selection_scores[stem]!r}; a log probability is not"
        )
    return selection


def _ordering_scores(
    lm: BigramLM, vertices: Sequence[str], aux: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bigram ordering scores of the edges, the starts and the ends, each with its best auxiliary route:
    ``(edge, edge_aux, start, start_route, end, end_route)``."""
    # Log bigram probabilities between words, auxiliary words (x) and the title's start and end.
    word = lm.ids(vertices)
    via = lm.ids(aux)
    start_id, end_id = lm.ids([BOS, EOS])
    word_word = lm.log_prob_ids(word[:, None], word[None, :])  # (n, n)
    aux_word = lm.log_prob_ids(via[:, None], word[None, :])  # (m, n): log P(u | x)
    word_aux = lm.log_prob_ids(word[None, :], via[:, None])  # (m, n): log P(x | v)
    aux_end = lm.log_prob_ids(via, end_id)  # (m,)
    start_aux = lm.log_prob_ids(start_id, via)  # (m,)

    edge, edge_aux = _best_route(word_word, word_aux[:, :, None] + aux_word[:, None, :])
    start, start_route = _best_route(lm.log_prob_ids(start_id, word), start_aux[:, None] + aux_word)
    end, end_route = _best_route(lm.log_prob_ids(word, end_id), word_aux + aux_end[:, None])
    return edge, edge_aux, start, start_route, end, end_route
