"""ppc: grandparent parsing LPs by delayed column and row generation (Riedel et al. 2012).

Exports, imported on first use (:mod:`decoders.lazy`):
:func:`~decoders.ppc.api.parse`.
"""

from decoders.lazy import lazy_exports

_EXPORTS = {
    "parse": "decoders.ppc.api:parse",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
