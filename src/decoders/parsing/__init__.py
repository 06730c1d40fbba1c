"""Dependency parsing shared by the bnb and ppc experiments: trees, features, scoring, exact decoders, UAS."""
