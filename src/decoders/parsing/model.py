"""A trained parser on disk: averaged hashed weights (integer numerator and denominator), the vocabulary, the
structure it was trained with (order, factor groups, ...) and the perceptron's running weights at the kept
epoch (another model's training can start from them), as one compressed .npz file."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from decoders.checks import check_finite, check_path
from decoders.errors import CorpusFormatError
from decoders.io import load_npz, save_npz
from decoders.parsing.features import Vocabulary

_ARRAYS = ("numerator", "denominator", "vocabulary", "structure", "meta")

#: Real-valued weights (a head classifier's) are stored in fixed point, as integer multiples of
#: 2^-FIXED_POINT_BITS: every model file holds integer numerators; ranking heads and trees keeps to within 2^-24
#: per feature.
FIXED_POINT_BITS = 24


def fixed_point(weights: np.ndarray, what: str) -> tuple[np.ndarray, int]:
    """(integer numerator, denominator 2^FIXED_POINT_BITS) of real-valued weights; ValueError naming ``what``
    when they cannot be held (not finite, or past 2^(52 - FIXED_POINT_BITS))."""
    scale = float(1 << FIXED_POINT_BITS)
    weights = np.asarray(weights)
    if weights.ndim != 1 or not np.issubdtype(weights.dtype, np.number):
        raise ValueError(
            f"{what}'s weights must be a 1-d numeric vector, got shape {weights.shape}, {weights.dtype}"
        )
    weights = weights.astype(np.float64, copy=False)
    if not np.isfinite(weights).all():
        check_finite(weights, f"{what}'s weights")
    if np.abs(weights).max(initial=0.0) * scale >= 2.0**52:
        raise ValueError(f"{what}'s weights grew past 2^{52 - FIXED_POINT_BITS}: lower learning_rate")
    return np.rint(weights * scale), 1 << FIXED_POINT_BITS


@dataclass
class ParserModel:
    """``numerator / denominator`` are the averaged weights (a power-of-two vector); decoders use the numerator
    (integer-valued, so tree scores are exact integers) and report scores in its units. ``running``: the
    perceptron's (integer) weights at the end of the kept epoch, or None."""

    numerator: np.ndarray
    denominator: int
    vocabulary: Vocabulary
    structure: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    running: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.numerator, np.ndarray) or not np.issubdtype(self.numerator.dtype, np.floating):
            raise ValueError("the weight numerator must be a float array")
        size = self.numerator.shape[0] if self.numerator.ndim == 1 else 0
        if size == 0 or size & (size - 1):
            raise ValueError(
                f"the weight numerator must be a vector of power-of-two size, got shape {self.numerator.shape}"
            )
        if not np.isfinite(self.numerator).all():
            raise ValueError(
                "the weight numerator must be finite (a NaN or infinite weight would decide every tree): "
                f"numerator[{int(np.flatnonzero(~np.isfinite(self.numerator))[0])}] is not"
            )
        if (
            not np.array_equal(self.numerator, np.rint(self.numerator))
            or np.abs(self.numerator).max() >= 2.0**52
        ):
            raise ValueError("the weight numerator must hold integers below 2^52 (perceptron sums)")
        if isinstance(self.denominator, bool) or not isinstance(self.denominator, int | np.integer):
            raise ValueError(f"denominator must be a positive integer, got {self.denominator!r}")
        if self.denominator < 1:
            raise ValueError(f"denominator must be a positive integer, got {self.denominator}")
        if not isinstance(self.vocabulary, Vocabulary):
            raise ValueError(f"vocabulary must be a Vocabulary, got {type(self.vocabulary).__name__}")
        for name in ("structure", "meta"):
            if not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")
        if self.running is not None and (
            not isinstance(self.running, np.ndarray)
            or not np.issubdtype(self.running.dtype, np.number)
            or self.running.shape != self.numerator.shape
            or not np.isfinite(self.running).all()
            or not np.array_equal(self.running, np.rint(self.running))
        ):
            raise ValueError("running weights must be integers of the numerator's shape, all finite")

    def save(self, path: str | Path) -> None:
        save_npz(
            path,
            {
                "numerator": self.numerator,
                "denominator": np.asarray(self.denominator, dtype=np.int64),
                "vocabulary": np.asarray(json.dumps(self.vocabulary.ids)),
                "structure": np.asarray(json.dumps(self.structure, sort_keys=True)),
                "meta": np.asarray(json.dumps(self.meta, sort_keys=True)),
                **({} if self.running is None else {"running": self.running}),
            },
        )

    @classmethod
    def load(cls, path: str | Path) -> ParserModel:
        """Read a model written by :meth:`save`; CorpusFormatError names a missing, bad or inconsistent file."""
        path = check_path(path, "path")
        if not Path(path).is_file():
            raise CorpusFormatError(path, None, "no parser model at this path")
        arrays = load_npz(path, _ARRAYS)
        try:
            return cls(
                arrays["numerator"].astype(np.float64),
                int(arrays["denominator"]),
                Vocabulary(json.loads(str(arrays["vocabulary"]))),
                json.loads(str(arrays["structure"])),
                json.loads(str(arrays["meta"])),
                arrays["running"].astype(np.float64) if "running" in arrays else None,
            )
        except (ValueError, TypeError) as exc:
            raise CorpusFormatError(path, None, f"not a parser model: {exc}") from exc
