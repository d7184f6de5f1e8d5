"""Tabular Q-learning after Crampton's study (Durham): the ``qlearn`` learner and agent.

* :mod:`durak.learn.qlearn.abstraction`: the abstract states and action groups;
* :mod:`durak.learn.qlearn.qtable`: the Q-table and its JSON file;
* :mod:`durak.learn.qlearn.learner`: Watkins' Q-learning (:class:`QLearner`) and the
  greedy agent (:class:`QAgent`); trained online by :func:`durak.learn.online.train`.

Importing this package registers the ``qlearn`` learner (``durak train qlearn``) and the
``qlearn`` agent (``qlearn:path=q.json``).
"""

from __future__ import annotations

from pathlib import Path

from durak.agents.base import Param, SpecError, register
from durak.agents.specs import MODEL_FILE, params_of
from durak.learn.qlearn.learner import QAgent, QLearner, QSettings, greedy_group
from durak.learn.qlearn.qtable import QTable, QTableError
from durak.learn.registry import register_learner

__all__ = ["QAgent", "QLearner", "QSettings", "QTable", "QTableError", "greedy_group"]


def _agent(path: str | None, min_visits: int) -> QAgent:
    if not path:
        raise SpecError("qlearn: give the Q-table file, e.g. qlearn:path=q.json")
    try:
        return QAgent(QTable.load(Path(path)), min_visits)
    except QTableError as e:
        raise SpecError(f"qlearn: {e}") from None


_MIN_VISITS = next(p for p in params_of(QSettings) if p.name == "min_visits")
register(
    "qlearn",
    _agent,
    "greedy play of a trained Q-table (durak train qlearn)",
    (
        Param("path", str, None, "the Q-table JSON file written by durak train", holds=MODEL_FILE),
        _MIN_VISITS,
    ),
)

register_learner(
    "qlearn",
    QLearner,
    "tabular Q-learning over Crampton's abstract state (or 'plus')",
    params_of(QSettings),
)
