"""Job parameters that print as a short label in Snakemake's report, and hash as their value.

Snakemake's HTML report lists, under every result's caption, the parameters of the job that made it, formatted as
``f"{name}={value}"``: an experiment's whole settings and 64-digit code hashes, in one run-on line. The rules that
make report items wrap such parameters in :func:`labelled`: the report then prints the label. Everything else
sees the value: Snakemake hashes ``repr(value)`` (unchanged, so wrapping a parameter reruns no job), the job's
script reads the value (a ``dict`` or ``str``), and ``str()`` and JSON give what they gave before.
"""

from __future__ import annotations

from typing import Any


class LabelledDict(dict):
    """A dict whose ``format()`` (an f-string) is its label."""

    def __init__(self, value: dict, label: str) -> None:
        super().__init__(value)
        self.label = label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)

    def __reduce__(self):  # pickled into the job's script: rebuilt with its label
        return (LabelledDict, (dict(self), self.label))


class LabelledStr(str):
    """A str whose ``format()`` (an f-string) is its label; ``str()`` is the value."""

    label: str

    def __new__(cls, value: str, label: str) -> LabelledStr:
        made = super().__new__(cls, value)
        made.label = label
        return made

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)

    def __reduce__(self):
        return (LabelledStr, (str.__str__(self), self.label))


def labelled(value: Any, label: str) -> LabelledDict | LabelledStr:
    """``value`` (a dict or a str) printing as ``label`` in f-strings (the report's job parameters)."""
    if not isinstance(label, str) or not label:
        raise ValueError(f"labelled: the label must be a non-empty string; got {label!r}")
    if isinstance(value, dict):
        return LabelledDict(value, label)
    if isinstance(value, str):
        return LabelledStr(value, label)
    raise TypeError(f"labelled: the value must be a dict or a str; got {type(value).__name__}")
