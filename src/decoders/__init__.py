"""Reproducible benchmark of exact and approximate decoders for structured NLP problems.

The decoders are also a library (README, "Using the decoders as a library"): one entry point per experiment
on one's own scores, each returning a :class:`~decoders.harness.protocol.Solution` with status, objective,
bound and certificate, and a batch helper. They are exported lazily (:mod:`decoders.lazy`): ``import decoders``
imports none of them, nor numba or OR-Tools, until a name is read.
"""

from decoders.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "Solution": "decoders.harness.protocol:Solution",
    "decode_chain": "decoders.chains.api:decode",
    "chain_instance": "decoders.chains.api:chain_instance",
    "decode_title": "decoders.titles.api:decode",
    "title_instance": "decoders.titles.api:title_instance",
    "link": "decoders.linking.api:decode",
    "linking_instance": "decoders.linking.api:linking_instance",
    "parse": "decoders.ppc.api:parse",
    "decode_batch": "decoders.harness.library:decode_batch",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
