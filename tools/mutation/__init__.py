"""A second mutation pass over ``durak.rules`` with operators mutmut 3.8.1 lacks.

mutmut (``make mutation``) never drops an operand of ``and``/``or``, forces a condition,
removes a ``raise`` or a statement, swaps ``min``/``max`` or ``any``/``all``, or mutates
code run at import; this pass does.  Its parts:

- :mod:`mutation.operators`: the mutator, every mutant of a source and its id;
- :mod:`mutation.runner`: the snapshot, the traced baseline and each mutant's run;
- :mod:`mutation.trace` and :mod:`mutation.plugin`: which tests reach which function;
- :mod:`mutation.results`: the verdicts file, and which mutants a rerun judges;
- :mod:`mutation.equivalents` and ``equivalents.toml``: the survivors named equivalent;
- :mod:`mutation.report`: the table of ``docs/verification.md``;
- :mod:`mutation.cli`: ``run``, ``count``, ``show``, ``report``.

Verdicts go to a JSON-lines file, one per mutant id with a fingerprint of its function's
source: a rerun skips every mutant already judged whose function is unchanged.
``make mutation-extra`` runs it; ``PYTHONPATH=tools python -m mutation count`` lists the
mutants and ``report`` prints the table of ``docs/verification.md``.
"""
