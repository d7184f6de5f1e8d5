"""The ``durak`` commands, one module each (after Zarlykov's 2023 experiment CLI): ``match``
and ``tournament`` (:mod:`~durak.cli.commands.matches`), ``grid``, ``play``, ``replay``,
``agents`` (:mod:`~durak.cli.commands.listing`), ``bench`` and ``serve``.  What they share
(options, the run driver, progress, rendering, errors) is beside this package, in
:mod:`durak.cli`; :mod:`durak.cli.app` registers the commands.
"""
