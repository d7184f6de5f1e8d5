"""The depth-first searches of perfect-information games: alpha-beta with a transposition
table and the exact solve (:mod:`.minimax`), max^n with shallow pruning (:mod:`.maxn`), and
what they share, iterative deepening within a budget (:mod:`.base`)."""
