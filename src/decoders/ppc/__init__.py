"""ppc: grandparent parsing LPs by delayed column and row generation (Riedel et al. 2012)."""
