"""MAP inference in linear chains (Belanger et al. 2012): Viterbi, pruning, column generation, beam, 2-best."""
