"""bnb: branch-and-bound dependency parsing with non-local features (Qian and Liu 2013)."""
