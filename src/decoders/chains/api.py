"""The chains experiment as a library: the best label sequence of one's own emission and transition scores.

:func:`decode` takes raw scores, builds a :class:`~decoders.chains.instance.ChainInstance` and runs the
registered decoder the method names (the one the benchmark times), then checks an ``optimal`` answer's
certificate with the experiment's ``verify``. The decoders that take a trained model rather than scores
(``viterbi+scoring``, ``cg+scoring``, ``crfsuite``: a :class:`~decoders.chains.instance.FeatureInstance`) and the
profiling runs ``cg-profile`` and ``viterbi-peak`` are not methods here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from decoders.chains.instance import ChainInstance, ChainScores
from decoders.harness.library import Method, decode_instance, method_of
from decoders.harness.protocol import Solution

EXPERIMENT = "chains"

#: CG-DG's duality gap in the paper (0.15%), the ``cg-dg`` method's default.
PAPER_GAP = 0.0015

#: Method -> (registered decoder, default parameters). ``viterbi-pruned`` and ``cg-dg`` are the paper's names
#: of ``viterbi+p`` and of ``cg`` with a gap.
METHODS: dict[str, Method] = {
    "viterbi": ("viterbi", {}),
    "viterbi+p": ("viterbi+p", {}),
    "viterbi-pruned": ("viterbi+p", {}),
    "cg": ("cg", {}),
    "cg-dg": ("cg", {"gap": PAPER_GAP}),
    "beam": ("beam", {}),
    "viterbi-2best": ("viterbi-2best", {}),
    "viterbi+p-2best": ("viterbi+p-2best", {}),
    "cg-2best": ("cg-2best", {}),
}

#: Registered chains decoders that are not methods of :func:`decode`, and why.
NOT_ON_SCORES = {
    "viterbi+scoring": "scores a FeatureInstance with a trained model",
    "cg+scoring": "scores a FeatureInstance with a trained model",
    "crfsuite": "tags feature strings with a trained CRFsuite model",
    "cg-profile": "a profiling run of cg (cycle counts), not a decoder of its own",
    "viterbi-peak": "a profiling run of viterbi (beside this CPU's measured peaks), not a decoder of its own",
}


def chain_instance(
    theta: Any,
    tau: Any,
    labels: Sequence[str] | None = None,
    gold: Any = None,
) -> ChainInstance:
    """The :class:`~decoders.chains.instance.ChainInstance` of ``theta`` (n x L emission scores, finite; any
    start and end transition scores already added to its first and last rows) and ``tau`` (L x L transition
    scores, finite or ``-inf`` for a forbidden transition; or a :class:`ChainScores`, which keeps its labels and
    is best shared by every sentence scored with it, since its bounds and CG's tables are computed once per
    ChainScores). ``labels``: the L label names (default ``"0"`` .. ``"L-1"``); ``gold``: label ids, for
    :func:`decoders.chains.decoders.evaluate`. ValueError naming the argument for a wrong shape, NaN, ``+inf``,
    an empty sentence or one no sequence can tag without a forbidden transition."""
    if isinstance(tau, ChainScores):
        if labels is not None:
            raise ValueError("labels: tau is a ChainScores, which names its labels already")
        scores = tau
    else:
        scores = ChainScores(tau, None if labels is None else tuple(labels))
    return ChainInstance(theta, scores, gold)


def decode(
    theta: Any,
    tau: Any,
    method: str = "viterbi",
    labels: Sequence[str] | None = None,
    *,
    time_limit: float | None = None,
    verify: bool = True,
    **options: Any,
) -> Solution:
    """The highest-scoring label sequence of one sentence: ``structure`` one label id per token, ``objective``
    its score ``sum_i theta[i, y_i] + sum_i tau[y_i, y_i+1]``, ``status`` ``optimal`` with ``bound`` equal to
    the objective when certified (Viterbi's dynamic program, CG's dual bound), ``feasible`` otherwise (beam
    search, no bound; CG-DG stopped at its gap, with its bound).

    ``theta``, ``tau``, ``labels``: as :func:`chain_instance`. ``method``: one of :data:`METHODS`; ``options``
    are the decoder's parameters (``cg``/``cg-dg``: ``reduced_cost`` in eq12/eq8/eq9, ``gap``; ``beam``:
    ``width``; ``cg-2best``: ``delta``); a parameter the method does not take is a ConfigError naming it.
    With label names given, ``stats["label_names"]`` holds the names of the decoded labels. ``time_limit``
    (seconds, None: none) and ``verify`` (check an ``optimal`` claim with the experiment's ``verify``; a rejected
    certificate gives an ``error`` Solution with the reason): :func:`decoders.harness.library.decode_instance`.

    >>> import numpy as np
    >>> theta = np.array([[1.0, 0.0], [0.0, 2.0], [0.5, 0.0]])
    >>> tau = np.array([[0.0, -1.0], [-np.inf, 0.5]])  # label 1 may not be followed by label 0
    >>> solution = decode(theta, tau, method="cg", labels=["A", "B"])
    >>> solution.status, solution.structure.tolist(), solution.objective, solution.stats["label_names"]
    ('optimal', [1, 1, 1], 3.0, ['B', 'B', 'B'])
    """
    decoder, defaults = method_of(METHODS, method, EXPERIMENT)
    instance = chain_instance(theta, tau, labels)
    solution = decode_instance(
        EXPERIMENT, decoder, instance, {**defaults, **options}, time_limit=time_limit, verify=verify
    )
    if labels is not None and solution.structure is not None:
        names = instance.scores.labels
        solution.stats["label_names"] = [names[i] for i in np.asarray(solution.structure).tolist()]
    return solution
