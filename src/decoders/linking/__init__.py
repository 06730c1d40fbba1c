"""Entity linking by graph-distance minimisation on a Wikipedia graph (Blanco, Boldi and Marino): MinDR heuristics.

Exports, imported on first use (:mod:`decoders.lazy`):
:func:`~decoders.linking.api.decode`, :func:`~decoders.linking.api.linking_instance`.
"""

from decoders.lazy import lazy_exports

_EXPORTS = {
    "decode": "decoders.linking.api:decode",
    "linking_instance": "decoders.linking.api:linking_instance",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
