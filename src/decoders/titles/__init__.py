"""Title generation as selection and ordering (Deshpande et al. 2007): colour-coding, ILP, beam search, exhaustive."""
