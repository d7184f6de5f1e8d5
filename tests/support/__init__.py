"""Helpers shared by the tests (the strategies and invariants are shipped in
:mod:`durak.testing`): the invariants plus the reference comparison, the fingerprints of
states, the literal reference model of the rules, the toy games and brute-force solvers of
the search tests, deliberately faulty agents, the doc blocks, CLI checks, optional extras
and the install venvs."""
