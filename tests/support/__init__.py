"""Helpers shared by the tests: hypothesis strategies and invariants of random games, the
literal reference model of the rules, the toy games and brute-force solvers of the search
tests, deliberately faulty agents, the doc blocks, CLI checks, optional extras and the
install venvs."""
