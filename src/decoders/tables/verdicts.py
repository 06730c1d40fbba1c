"""Did a paper's claim hold? The scoreboard's verdict on one claim, from our number (with its interval where the
table has one) and the paper's.

One rule per kind of claim (:data:`RULES` states them; the scoreboard prints that text as its caption):

- ``effect``: a speed-up (a ratio, judged on a log scale so that 2x and 0.5x are equally far from 1) or an
  accuracy gain (a difference, in its unit) of one method over another; "better" is up (faster, more accurate).
- ``measure``: a share, count or value, with the direction that is better (higher, lower or none).
- ``bound``: a number the paper gives as a bound ("over 90%").

Where our number has no interval it is judged as the band of its unit's tolerance around it, and the reason says
"no interval".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from decoders.tables.writers import shown_number

REPRODUCED, EXCEEDED, NOT_REPRODUCED, NOT_COMPARABLE = (
    "reproduced",
    "exceeded",
    "not reproduced",
    "not comparable",
)
VERDICTS = (REPRODUCED, EXCEEDED, NOT_REPRODUCED, NOT_COMPARABLE)
KINDS = ("effect", "measure", "bound")
SCALES = ("ratio", "percent", "difference")
BETTER = ("higher", "lower", "none")
#: Units whose tolerance is relative to our number (the rest are absolute, in the unit).
RELATIVE_UNITS = ("times", "relative")

#: The rules as the scoreboard's caption states them (one line each).
RULES = (
    "Verdicts are computed from the tables, never typed: ours with its 95% interval [lo, hi] against the paper's"
    " number p. Where a table has no interval, [lo, hi] is ours within the tolerance of its unit (the reason"
    " says 'no interval').",
    "Speed-ups and accuracy gains (better: faster, more accurate; ratios on a log scale): reproduced when p is in"
    " [lo, hi] and the interval lies on p's side of no effect (1x, 0 points), unless p itself is within the"
    " tolerance of no effect; exceeded when lo > p; otherwise not reproduced.",
    "Shares, counts and values: reproduced when p is in [lo, hi]; exceeded when the interval lies beyond p on the"
    " better side (never for a fact with no better side); otherwise not reproduced.",
    'Bounds the paper states ("over 90%"): reproduced when ours, its whole interval where it has one, is on the'
    " stated side of p; otherwise not reproduced.",
    "Not comparable: the table lacks the row, or a fact of our run that the claim's metric depends on (e.g. the"
    " length of a title) differs from the paper's by more than the stated share.",
)


@dataclass(frozen=True)
class Verdict:
    """A verdict and its measured reason, in a few words."""

    verdict: str
    reason: str


def band(value: float, unit: str, tolerance: float) -> tuple[float, float]:
    """The interval a point estimate without one is judged as: ``value`` within ``tolerance`` of ``unit``
    (relative for :data:`RELATIVE_UNITS`, times meaning ``value / (1 + t) .. value x (1 + t)``)."""
    if unit == "times":
        return value / (1 + tolerance), value * (1 + tolerance)
    if unit in RELATIVE_UNITS:
        return value - abs(value) * tolerance, value + abs(value) * tolerance
    return value - tolerance, value + tolerance


def _n(value: float) -> str:
    return shown_number(float(value))


def judge_effect(
    paper: float, low: float, high: float, *, scale: str, tolerance: float, unit: str
) -> Verdict:
    """The rule for an effect: ``low``/``high`` is our interval, ``scale`` ratio or percent (of the other method,
    100 = no effect) or difference; ``tolerance`` (of ``unit``) sets how near no effect the paper's value may be
    and still claim none. A ratio that is not positive is a ValueError naming it."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}; got {scale!r}")
    null = {"ratio": 1.0, "percent": 100.0, "difference": 0.0}[scale]
    if scale == "difference":
        t = {"paper": paper, "low": low, "high": high}
        near = tolerance
    else:
        if min(paper, low, high) <= 0:
            raise ValueError(f"a {scale} must be positive; got paper {paper}, interval [{low}, {high}]")
        t = {"paper": math.log(paper / null), "low": math.log(low / null), "high": math.log(high / null)}
        near = math.log(1 + tolerance) if unit in RELATIVE_UNITS else tolerance
    inside = t["low"] <= t["paper"] <= t["high"]
    if inside:
        if abs(t["paper"]) <= near or (t["low"] > 0) == (t["paper"] > 0) == (t["high"] > 0):
            return Verdict(REPRODUCED, f"{_n(paper)} in [{_n(low)}, {_n(high)}]")
        return Verdict(NOT_REPRODUCED, f"[{_n(low)}, {_n(high)}] includes no effect ({_n(null)})")
    if t["low"] > t["paper"]:
        return Verdict(EXCEEDED, f"low end {_n(low)} > {_n(paper)}")
    return Verdict(NOT_REPRODUCED, f"high end {_n(high)} < {_n(paper)}")


def judge_measure(paper: float, low: float, high: float, *, better: str) -> Verdict:
    """The rule for a measure whose ``better`` side is higher, lower or none."""
    if better not in BETTER:
        raise ValueError(f"better must be one of {BETTER}; got {better!r}")
    if low <= paper <= high:
        return Verdict(REPRODUCED, f"{_n(paper)} in [{_n(low)}, {_n(high)}]")
    above = low > paper
    if (better == "higher" and above) or (better == "lower" and not above):
        end = low if above else high
        return Verdict(
            EXCEEDED, f"{'low' if above else 'high'} end {_n(end)} {'>' if above else '<'} {_n(paper)}"
        )
    end = low if above else high
    return Verdict(
        NOT_REPRODUCED, f"{'low' if above else 'high'} end {_n(end)} {'>' if above else '<'} {_n(paper)}"
    )


def judge_bound(paper: float, value: float, low: float, high: float, *, better: str) -> Verdict:
    """The rule for a bound: ``better`` higher means the paper's number is a lower bound ("over"), lower an upper
    bound ("at most"); ``low``/``high`` equal ``value`` when ours has no interval."""
    if better not in ("higher", "lower"):
        raise ValueError(f"a bound's better must be higher or lower; got {better!r}")
    held = low >= paper if better == "higher" else high <= paper
    sign = ">=" if better == "higher" else "<="
    shown = _n(value) if low == high else f"[{_n(low)}, {_n(high)}]"
    if held:
        return Verdict(REPRODUCED, f"{shown} {sign} {_n(paper)}")
    return Verdict(NOT_REPRODUCED, f"{shown} not {sign} {_n(paper)}")
