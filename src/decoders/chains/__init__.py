"""MAP inference in linear chains (Belanger et al. 2012): Viterbi, pruning, column generation, beam, 2-best.

Exports, imported on first use (:mod:`decoders.lazy`):
:func:`~decoders.chains.api.decode`, :func:`~decoders.chains.api.chain_instance`.
"""

from decoders.lazy import lazy_exports

_EXPORTS = {
    "decode": "decoders.chains.api:decode",
    "chain_instance": "decoders.chains.api:chain_instance",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
