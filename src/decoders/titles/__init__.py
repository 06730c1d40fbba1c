"""Title generation as selection and ordering (Deshpande et al. 2007): colour-coding, ILP, beam search, exhaustive.

Exports, imported on first use (:mod:`decoders.lazy`):
:func:`~decoders.titles.api.decode`, :func:`~decoders.titles.api.title_instance`.
"""

from decoders.lazy import lazy_exports

_EXPORTS = {
    "decode": "decoders.titles.api:decode",
    "title_instance": "decoders.titles.api:title_instance",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
