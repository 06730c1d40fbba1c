"""Input checks of the chains package: score arrays (``theta``, ``tau``), label sequences, decoder parameters.

The numba kernels (:mod:`~decoders.chains.viterbi`, :mod:`~decoders.chains.colgen`, :mod:`~decoders.chains.beam`)
index without bounds checks and assume finite, feasible chains whose sums cannot overflow. Every public entry
point checks its arguments here once, with vectorised numpy, and then calls the private kernels;
:class:`~decoders.chains.instance.ChainScores` and :class:`~decoders.chains.instance.ChainInstance` run the same
checks at construction, so the decoders, which take an instance, add nothing per call. Each error is a ValueError
that names the argument (and, for an array, the first offending position and its value).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from decoders.checks import check_float, check_ids, check_int, check_range

#: The largest ``n x (max |theta| + 2 max finite |tau|)`` an instance may have: sums of a sequence's scores, the
#: decoders' bounds (sums of maxima and minima) and their differences then stay far from float overflow (~1.8e308).
MAX_MAGNITUDE = 2.0**1000

#: The most label sequences :func:`~decoders.chains.instance.brute_force` enumerates (``L ** n``).
MAX_ENUMERATION = 1 << 22

#: The widest beam: widths are int64 inside the kernel (a beam never holds more than ``L ** n`` prefixes anyway).
MAX_WIDTH = 1 << 62

#: ``reduced_cost`` codes of column generation: eq. 12, eq. 8, eq. 9.
REDUCED_COST_CODES = (0, 1, 2)


def real_array(values: Any, name: str) -> np.ndarray:
    """``values`` as a C-contiguous float64 array; a ValueError naming ``name`` for anything non-numeric."""
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float64)


def _refuse(array: np.ndarray, name: str, bad: np.ndarray, what: str) -> None:
    """Raise a ValueError naming ``name``, the first offending position and its value, if ``bad`` has any."""
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}{list(where)} = {array[where].item()!r} is {what}")


def check_tau(tau: Any, name: str = "tau") -> np.ndarray:
    """``tau`` as an L x L float array (L >= 1): finite or ``-inf`` (a forbidden transition); no NaN, no ``+inf``,
    and no finite magnitude past ``MAX_MAGNITUDE / 2`` (no instance could use it)."""
    tau = real_array(tau, name)
    if tau.ndim != 2 or tau.shape[0] != tau.shape[1]:
        raise ValueError(f"{name} must be L x L (L labels); got shape {tau.shape}")
    if tau.shape[0] < 1:
        raise ValueError(f"{name} must have at least one label; got shape {tau.shape}")
    _refuse(tau, name, np.isnan(tau), "NaN")
    _refuse(tau, name, tau == np.inf, "+inf (write a forbidden transition as -inf)")
    _refuse(
        tau,
        name,
        np.isfinite(tau) & (np.abs(tau) > MAX_MAGNITUDE / 2),
        f"a transition score so large that it could overflow a sequence's score (|tau| <= {MAX_MAGNITUDE / 2:.3g})",
    )
    return tau


def check_theta(theta: Any, n_labels: int, name: str = "theta") -> np.ndarray:
    """``theta`` as an n x L float array (n >= 1 tokens, L the labels of ``tau``) of finite scores."""
    theta = real_array(theta, name)
    if theta.ndim != 2 or theta.shape[1] != n_labels or theta.shape[0] < 1:
        raise ValueError(
            f"{name} must be n x {n_labels} (the labels of tau) with n >= 1 tokens; got shape {theta.shape}"
        )
    _refuse(theta, name, ~np.isfinite(theta), "a non-finite score")
    return theta


def _check_magnitude(theta: np.ndarray, tau: np.ndarray, names: str = "theta and tau") -> None:
    """Refuse scores so large that a sequence's score or a decoder's bound could overflow (:data:`MAX_MAGNITUDE`)."""
    theta_max = float(np.abs(theta).max())
    tau_max = float(np.abs(tau[np.isfinite(tau)]).max(initial=0.0))
    if theta.shape[0] * (theta_max + 2.0 * tau_max) > MAX_MAGNITUDE:
        raise ValueError(
            f"{names}: scores this large (max |theta| {theta_max:.3g}, max finite |tau| {tau_max:.3g}, "
            f"{theta.shape[0]} tokens) could overflow a sequence's score or the decoders' bounds; keep "
            f"n x (max |theta| + 2 max |tau|) <= {MAX_MAGNITUDE:.3g}"
        )


def _longest_walk(tau: np.ndarray) -> float:
    """The largest number of transitions a label sequence can make without a forbidden (``-inf``) one (``inf``
    when the allowed transitions have a cycle): ``n`` tokens are feasible iff ``n - 1 <= _longest_walk(tau)``."""
    allowed = np.isfinite(tau)
    if allowed.all():
        return np.inf
    n_labels = tau.shape[0]
    # Repeatedly drop labels that cannot be left: what remains lies on a cycle.
    alive = np.ones(n_labels, dtype=bool)
    length = np.zeros(n_labels)  # longest walk starting at each label, over dropped labels only
    while True:
        sub = allowed & alive[None, :]
        sinks = alive & ~sub.any(axis=1)
        if not sinks.any():
            break
        alive &= ~sinks
        # a label dropped now has every allowed successor dropped earlier, whose walks are final
        for x in np.flatnonzero(sinks):
            successors = np.flatnonzero(allowed[x])
            length[x] = 1 + length[successors].max() if successors.size else 0
    return np.inf if alive.any() else float(length.max())


def _check_feasible(n: int, walk: float, name: str = "theta") -> None:
    """Refuse ``n`` tokens when no label sequence that long avoids the forbidden transitions (``walk``: the
    :func:`_longest_walk` of ``tau``)."""
    if n - 1 > walk:
        raise ValueError(
            f"{name} has {n} tokens, but no label sequence longer than {int(walk) + 1} avoids the forbidden "
            f"(-inf) transitions of tau"
        )


def check_chain(theta: Any, tau: Any, *, feasible: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(theta, tau)`` checked as :class:`~decoders.chains.instance.ChainInstance` checks them, for the public
    functions that take raw arrays: shapes, dtypes, NaN and ``+inf``, magnitudes, and (``feasible``) that some
    label sequence avoids every forbidden transition."""
    tau = check_tau(tau, "tau")
    theta = check_theta(theta, tau.shape[0], "theta")
    _check_magnitude(theta, tau)
    if feasible:
        _check_feasible(theta.shape[0], _longest_walk(tau), "theta")
    return theta, tau


def check_labels(labels: Any, n: int, n_labels: int, name: str = "labels") -> np.ndarray:
    """``labels`` as int64 label ids, one per token (shape ``(n,)``), each in ``0..n_labels - 1``."""
    n = check_int(n, "n", minimum=0)
    n_labels = check_int(n_labels, "n_labels", minimum=0)
    labels = check_ids(labels, name, ndim=1)
    if labels.shape != (n,):
        raise ValueError(f"{name} must hold one label id per token ({n}); got shape {labels.shape}")
    return check_range(labels, name, 0, n_labels - 1)


def check_label_names(labels: Any, name: str) -> tuple[str, ...]:
    """``labels`` as a tuple of distinct strings (at least one)."""
    if isinstance(labels, str) or not isinstance(labels, list | tuple | np.ndarray):
        raise ValueError(f"{name} must be a sequence of label names; got {type(labels).__name__}")
    labels = tuple(labels)
    if len(labels) < 1:
        raise ValueError(f"{name} must name at least one label")
    for i, label in enumerate(labels):
        if not isinstance(label, str):
            raise ValueError(f"{name}[{i}] must be a string; got {label!r}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"{name}: label names must be unique")
    return labels


def check_width(width: Any, name: str = "width") -> int:
    """A beam width: an integer in ``1..MAX_WIDTH``."""
    width = check_int(width, name, minimum=1)
    if width > MAX_WIDTH:
        raise ValueError(f"{name} must be at most 2^62; got {width}")
    return width


def check_reduced_cost(reduced_cost: Any, name: str = "reduced_cost") -> int:
    """A reduced-cost code: 0 (eq. 12), 1 (eq. 8) or 2 (eq. 9)."""
    code = check_int(reduced_cost, name)
    if code not in REDUCED_COST_CODES:
        raise ValueError(f"{name} must be 0 (eq. 12), 1 (eq. 8) or 2 (eq. 9); got {reduced_cost!r}")
    return code


def check_gap(gap: Any, name: str = "gap") -> float:
    """CG-DG's relative duality gap: a fraction in [0, 1)."""
    gap = check_float(gap, name, minimum=0.0)
    if gap >= 1.0:
        raise ValueError(f"{name} must be a fraction in [0, 1); got {gap!r}")
    return gap


def check_flag(value: Any, name: str) -> bool:
    """A boolean option (Python or numpy bool)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)
