"""Entity linking by graph-distance minimisation on a Wikipedia graph (Blanco, Boldi and Marino): MinDR heuristics."""
