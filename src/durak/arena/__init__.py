"""Running games between agents and measuring them.

* :mod:`~durak.arena.game`: one game (``play_game``, ``GameRecord``); seeds come from
  :mod:`durak.seeding`.
* :mod:`~durak.arena.referee`: faults, forfeits and the move timer (``Referee``).
* :mod:`~durak.arena.match`: duplicate matches game by game (``MatchPlan``).
* :mod:`~durak.arena.run` and :mod:`~durak.arena.pool`: runs of many games in one or
  many processes, logged and resumable (``Run``, ``run_match``).
* :mod:`~durak.arena.entry`, :mod:`~durak.arena.logs`, :mod:`~durak.arena.replay`: the
  JSON Lines game log, and its re-validation through the engine.
* :mod:`~durak.arena.results`, :mod:`~durak.arena.stats`, :mod:`~durak.arena.report`:
  Zarlykov's (2023) statistics block with Wilson (1927) intervals, as tables' data,
  JSON and CSV.
* :mod:`~durak.arena.tournament`, :mod:`~durak.arena.grid`: round robins and grid search.
* :mod:`~durak.arena.bench`: engine and search speed.
"""
