"""Running games between agents and measuring them, in five subpackages by job.

* :mod:`durak.arena.play`: one game and one match: ``play_game`` and ``GameRecord``
  (``game``; seeds come from :mod:`durak.seeding`), the ``Referee`` (faults, forfeits and
  the move timer), ``MatchPlan`` (duplicate matches game by game) and a person's game
  (``person``).
* :mod:`durak.arena.runs`: runs of many games, logged and resumable (``Run``,
  ``run_match``), and the backends that play them: the ``Backend`` interface
  (``interface``), the list of backends and ``open_backend`` (``backends``), this
  machine's pool, Ray, and the stop signals.
* :mod:`durak.arena.gamelog`: the JSON Lines game log (``entry``, ``files``), its
  re-validation through the engine (``replay``) and a logged game's review by an
  analysing agent (``review``).
* :mod:`durak.arena.scores`: Zarlykov's (2023) statistics block (``MatchResult``) with
  Wilson (1927) intervals.
* :mod:`durak.arena.experiments`: round robins, grid search, their JSON and CSV reports,
  and engine and search speed (``bench``).

The names below are the arena's public interface; the old flat module paths
(``durak.arena.match``, ...) are gone (see ``docs/architecture.md``).
"""

from durak.arena.experiments.grid import Grid, GridParam, GridResult
from durak.arena.experiments.report import grid_report, match_report, tournament_report
from durak.arena.experiments.tournament import Tournament, TournamentResult
from durak.arena.gamelog.entry import LogEntry, LogError
from durak.arena.gamelog.files import LogWriter, read_log
from durak.arena.gamelog.replay import replay_entry
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.match import GameOutcome, MatchPlan, PlayedGame
from durak.arena.play.referee import Forfeit, Referee
from durak.arena.runs.backends import BackendName, open_backend
from durak.arena.runs.interface import Backend, BackendError
from durak.arena.runs.run import Run, run_match
from durak.arena.scores.result import MatchResult
from durak.arena.scores.wilson import wilson

__all__ = [
    "Backend",
    "BackendError",
    "BackendName",
    "Forfeit",
    "GameOutcome",
    "GameRecord",
    "Grid",
    "GridParam",
    "GridResult",
    "LogEntry",
    "LogError",
    "LogWriter",
    "MatchPlan",
    "MatchResult",
    "PlayedGame",
    "Referee",
    "Run",
    "Tournament",
    "TournamentResult",
    "grid_report",
    "match_report",
    "open_backend",
    "play_game",
    "read_log",
    "replay_entry",
    "run_match",
    "tournament_report",
    "wilson",
]
