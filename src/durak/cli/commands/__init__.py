"""The ``durak`` commands, one module each (after Zarlykov's 2023 experiment CLI): ``match``
and ``tournament`` (:mod:`~durak.cli.commands.matches`), ``grid``, ``play``, ``replay``, ``review``,
``agents`` (:mod:`~durak.cli.commands.listing`), ``bench``, ``serve`` and ``exploit``, and
the package :mod:`~durak.cli.commands.train` (``train`` and ``learners``).  What they share (the
consoles, options and option groups, the run driver, the stop path, progress, tables,
errors) is beside this package, in :mod:`durak.cli`; :mod:`durak.cli.app` registers the
commands.
"""
