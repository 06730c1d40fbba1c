"""The titles experiment as a library: the best title of one's own word and edge scores.

:func:`decode` takes raw scores (a start score per word, an edge score per ordered pair of words, an end
score per word: Deshpande et al.'s path ``s -> p_0 -> ... -> p_{k-1} -> t`` through ``k`` words of pairwise
distinct classes), builds a :class:`~decoders.titles.instance.TitleInstance` and runs the registered decoder the
method names (the one the benchmark times), then checks an ``optimal`` answer's certificate with the
experiment's ``verify``. Every registered titles decoder takes scores alone, so every one is a method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from decoders.checks import check_ids, check_texts
from decoders.harness.library import Method, decode_instance, experiment_methods, method_of
from decoders.harness.protocol import Solution
from decoders.titles.instance import TitleInstance

EXPERIMENT = "titles"

#: Method -> (registered decoder, default parameters): every decoder of the experiment's module.
METHODS: dict[str, Method] = experiment_methods(EXPERIMENT)


def title_instance(
    start: Any,
    edge: Any,
    end: Any,
    k: int,
    classes: Any = None,
    words: Sequence[str] | None = None,
    reference: str = "",
) -> TitleInstance:
    """The :class:`~decoders.titles.instance.TitleInstance` of ``n`` words: ``start`` (n,) the score of a title
    that begins with each word, ``edge`` (n, n) the score of word ``u`` right after word ``v`` at ``[v, u]``,
    ``end`` (n,) the score of a title that ends with each word; ``-inf`` where a word cannot begin, follow or
    end (the diagonal of ``edge`` is never used). ``k``: the title's length in words. ``classes`` (n,) integer
    class ids, two words of one class never both in a title (default: every word its own class); ``words``: the
    n words (default ``"0"`` .. ``"n-1"``); ``reference``: a true title, for
    :func:`decoders.titles.decoders.evaluate`. ValueError naming the argument (``TitleInstance.<field>``) for a
    wrong shape, NaN or ``+inf``, a non-integer class id or ``k``."""
    n = np.shape(start)[0] if np.ndim(start) == 1 else None
    if n is None:
        raise ValueError(f"start must be a 1-d array of one score per word; got shape {np.shape(start)}")
    if classes is None:
        classes = np.arange(n)
    else:
        classes = check_ids(classes, "classes", ndim=1)
        if classes.shape != (n,):
            raise ValueError(f"classes must hold one class id per word ({n}); got shape {classes.shape}")
    words = [str(i) for i in range(n)] if words is None else check_texts(words, "words")
    if len(words) != n:
        raise ValueError(f"words must hold one string per word ({n}); got {len(words)}")
    direct = np.full(n, -1, dtype=np.int32)
    return TitleInstance(
        words, classes, start, edge, end, k, direct, np.full((n, n), -1, np.int32), direct, (), reference
    )


def decode(
    start: Any,
    edge: Any,
    end: Any,
    k: int,
    method: str = "ilp",
    classes: Any = None,
    words: Sequence[str] | None = None,
    *,
    time_limit: float | None = None,
    verify: bool = True,
    **options: Any,
) -> Solution:
    """The highest-scoring title of ``k`` words: ``structure`` the word ids in title order, ``objective``
    ``start[p_0] + sum_i edge[p_i, p_i+1] + end[p_k-1]``. ``status``: ``optimal`` when certified (the ILP
    proved optimal, certified colour-coding met its bound, exhaustive search), else ``feasible`` (colour-coding,
    beam search; no bound). No title at all (``k`` above the words or classes, no path over finite scores):
    ``structure`` None, objective and bound ``-inf``, ``optimal`` when certified; a heuristic that finds none
    says ``error``.

    ``start``, ``edge``, ``end``, ``k``, ``classes``, ``words``: as :func:`title_instance`. ``method``: one of
    :data:`METHODS`; ``options``: the decoder's parameters (``ilp``: ``solver`` cp-sat, scip or highs,
    ``hint_width``; ``beam``: ``width``; ``colour-coding``: ``failure_probability``, ``seed``, ``colours``,
    ``iterations``; ``exhaustive``: ``max_paths``), a ConfigError naming one the method does not take. With
    ``words`` given, ``stats["title"]`` is the title's words joined by spaces. ``time_limit``, ``verify``: as
    :func:`decoders.harness.library.decode_instance`.

    >>> import numpy as np
    >>> start = np.array([0.0, 1.0, 0.5])
    >>> edge = np.array([[-np.inf, 2.0, 0.0], [1.0, -np.inf, 0.0], [3.0, 0.0, -np.inf]])
    >>> end = np.zeros(3)
    >>> solution = decode(start, edge, end, 2, method="ilp", words=["graph", "search", "tree"])
    >>> solution.status, solution.structure.tolist(), solution.objective, solution.stats["title"]
    ('optimal', [2, 0], 3.5, 'tree graph')
    """
    decoder, defaults = method_of(METHODS, method, EXPERIMENT)
    instance = title_instance(start, edge, end, k, classes, words)
    solution = decode_instance(
        EXPERIMENT, decoder, instance, {**defaults, **options}, time_limit=time_limit, verify=verify
    )
    if words is not None and solution.structure is not None:
        solution.stats["title"] = " ".join(instance.words[v] for v in np.asarray(solution.structure).tolist())
    return solution
