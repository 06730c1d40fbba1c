"""Reproducible benchmark of exact and approximate decoders for structured NLP problems."""

__version__ = "0.1.0"
