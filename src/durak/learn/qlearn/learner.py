"""Tabular Q-learning for Durak, after Crampton's study (Durham), and the ``qlearn`` agent.

Watkins' Q-learning (Watkins & Dayan, Machine Learning 1992) over an abstract state and
grouped actions (:mod:`durak.learn.qlearn.abstraction`): after each decision,
``Q(s, a) += step * (r + gamma * Q(s', g(s')) - Q(s, a))``, where ``s'`` is the learner's
next decision point (the opponents' moves are part of the environment) and ``g`` the
greedy choice there; at the end of the game the target is ``r``.  The step is
``max(alpha, 1/n)`` for the ``n``-th update of the entry: sample averages first, then a
constant floor.  Exploration is epsilon-greedy over the legal groups, with epsilon decayed
geometrically per episode from ``eps_start`` to ``eps_end``.  Rewards follow Crampton's
scheme (:class:`~durak.learn.rewards.RewardScheme`).

The greedy choice (:func:`greedy_group`) starts from the group of the weakest legal card
play (the ``lowest`` agent's move) and leaves it only for a group updated at least
``min_visits`` times with a higher value, so an untrained table plays like ``lowest`` and
a few lucky outcomes do not make a move look best (the maximisation bias).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import attrs

from durak.agents.base import SpecError
from durak.agents.heuristics.tactics import lowest_play
from durak.agents.specs import param
from durak.envs.solo import SoloStep
from durak.learn.online import Epsilon
from durak.learn.qlearn.abstraction import ABSTRACTIONS, GROUPINGS
from durak.learn.qlearn.qtable import QTable, QTableError
from durak.learn.rewards import RewardScheme
from durak.rules import Action, Observation, Rules

__all__ = ["QAgent", "QLearner", "QSettings", "greedy_group"]


def greedy_group(
    table: QTable, state: str, groups: dict[str, Action], o: Observation, min_visits: int
) -> str:
    """The legal group of ``state`` with the highest learned value.

    The default group is that of the weakest legal card play (the ``lowest`` agent's
    choice), else the first.  Another group replaces it only if it was updated at least
    ``min_visits`` times and its value is higher: a value from a few noisy +-1 outcomes is
    not yet knowledge, and taking the max over many such values would pick the luckiest
    (the maximisation bias of van Hasselt, NeurIPS 2010).  An unvisited default counts as
    the lowest value.
    """
    fallback = lowest_play(o.legal_actions, o.trump_suit)
    best_key = next((k for k, a in groups.items() if a is fallback), next(iter(groups)))
    q = table.q.get(state)
    if not q:
        return best_key
    visits = table.visits.get(state, {})
    best = q.get(best_key)
    for k in groups:
        v = q.get(k)
        if v is not None and visits.get(k, 0) >= min_visits and (best is None or v > best):
            best_key, best = k, v
    return best_key


@attrs.frozen
class QSettings:
    """The settings of :class:`QLearner`, each declared once (the ``qlearn`` spec's
    parameters derive from them).

    ``target`` is ``"td"`` for Q-learning's one-step bootstrap or ``"mc"`` for every-visit
    Monte Carlo control, which learns each decision from the game's actual return
    (unbiased when the abstract state aliases true states: Singh, Jaakkola & Jordan, ICML
    1994); ``init`` is a Q-table file of the same rules and abstraction to continue training
    from (its values, visits and episode count); ``min_visits`` counts the updates before a
    learned value may override the default move (:func:`greedy_group`).
    """

    abstraction: str = param("crampton", "the state abstraction", choices=tuple(ABSTRACTIONS))
    alpha: float = param(0.05, "floor of the step size 1/visits", low=1e-6, high=1)
    gamma: float = param(1.0, "discount", low=0, high=1)
    eps_start: float = param(0.3, "initial exploration rate", low=0, high=1)
    eps_end: float = param(0.01, "final exploration rate", low=0, high=1)
    eps_decay: float = param(0.99997, "per-episode epsilon factor", low=1e-6, high=1)
    shaping: float = param(0.05, "weight of the hand-strength shaping", low=0, high=10)
    defence_penalty: float = param(0.0, "penalty for an inefficient defence", low=0, high=10)
    min_visits: int = param(30, "updates before a learned value overrides", low=0)
    target: str = param(
        "td", "td: Q-learning's bootstrap; mc: the game's return", choices=("td", "mc")
    )
    init: str | None = param(None, "a Q-table file to continue training from")


class QLearner:
    """An epsilon-greedy tabular Q-learner (implements :class:`~durak.learn.online.Learner`).

    Settings (keyword-only) are those of :class:`QSettings`; a bad one raises
    :class:`~durak.agents.SpecError` naming it.
    """

    def __init__(self, rules: Rules, **settings: Any) -> None:
        try:
            s = QSettings(**settings)
        except SpecError as e:
            raise SpecError(f"qlearn: {e}") from None
        self.exploration = Epsilon(s.eps_start, s.eps_end, s.eps_decay, owner="qlearn")
        self.settings = {k: v for k, v in attrs.asdict(s).items() if k != "init"}
        self.table = QTable(rules, s.abstraction, settings=self.settings)
        if s.init:
            self.settings["init"] = s.init
            self._start_from(Path(s.init))
        self._key = ABSTRACTIONS[s.abstraction]
        self._groups = GROUPINGS[s.abstraction]
        self.alpha, self.gamma = s.alpha, s.gamma
        self.min_visits = s.min_visits
        self.target = s.target
        self._episode: list[tuple[str, str, float]] = []
        self._rewards = RewardScheme(
            shaping=s.shaping, defence_penalty=s.defence_penalty, gamma=s.gamma
        )
        self._chosen: tuple[str, str] | None = None

    def _start_from(self, path: Path) -> None:
        """Continue from the Q-table at ``path``: its values, visit counts and episodes."""
        try:
            start = QTable.load(path)
        except QTableError as e:
            raise SpecError(f"qlearn: init: {e}") from None
        table = self.table
        if start.rules != table.rules:
            raise SpecError(
                f"qlearn: init: {path} was trained for {start.rules}, not for {table.rules}"
            )
        if start.abstraction != table.abstraction:
            raise SpecError(
                f"qlearn: init: {path} uses abstraction {start.abstraction!r}, "
                f"not {table.abstraction!r}"
            )
        table.q, table.visits, table.episodes = start.q, start.visits, start.episodes

    @property
    def rewards(self) -> RewardScheme:
        """The reward scheme to train with (shares ``gamma``)."""
        return self._rewards

    def explore(self, observation: Observation, rng: random.Random) -> Action:
        """A random legal group with probability epsilon, else the greedy one; returns that
        group's action and remembers the choice for :meth:`update`."""
        groups = self._groups(observation)
        state = self._key(observation)
        if self.exploration.explores(rng):
            key = list(groups)[int(rng.random() * len(groups))]
        else:
            key = greedy_group(self.table, state, groups, observation, self.min_visits)
        self._chosen = (state, key)
        return groups[key]

    def update(
        self, observation: Observation, action: Action, reward: float, after: SoloStep
    ) -> None:
        """Learn from the decision :meth:`explore` just made: at once for ``target="td"``,
        at the end of the game for ``target="mc"``."""
        if self._chosen is None:
            raise RuntimeError("update() needs a preceding explore()")
        state, key = self._chosen
        self._chosen = None
        if self.target == "mc":
            self._episode.append((state, key, reward))
            return
        target = reward
        if not after.done:
            # Bootstrap from the greedy policy's own choice, with its trust threshold.
            o = after.observation
            nxt = self._key(o)
            target += self.gamma * self.table.q.get(nxt, {}).get(
                greedy_group(self.table, nxt, self._groups(o), o, self.min_visits), 0.0
            )
        self._learn(state, key, target)

    def end_episode(self) -> None:
        """Count the game, decay epsilon, and for ``target="mc"`` learn every decision of
        the game from its return."""
        ret = 0.0
        for state, key, reward in reversed(self._episode):
            ret = reward + self.gamma * ret
            self._learn(state, key, ret)
        self._episode.clear()
        self.table.episodes += 1
        self.exploration.step()

    def _learn(self, state: str, key: str, target: float) -> None:
        row = self.table.q.setdefault(state, {})
        counts = self.table.visits.setdefault(state, {})
        n = counts[key] = counts.get(key, 0) + 1
        old = row.get(key, 0.0)
        # Sample averages at first (step 1/n), then the constant floor ``alpha``: with
        # aliased abstract states and +-1 outcomes, a constant small step learns too slowly.
        row[key] = old + max(self.alpha, 1.0 / n) * (target - old)

    def policy(self) -> QAgent:
        """The greedy policy of the current table (shares it, so it follows learning)."""
        return QAgent(self.table, self.min_visits)

    def save(self, path: Path) -> None:
        """Write the Q-table to ``path`` (versioned JSON)."""
        self.table.save(path)


@attrs.frozen
class QAgent:
    """Plays the greedy group of a Q-table (see :func:`greedy_group`); never explores."""

    table: QTable
    min_visits: int = 30
    name: str = "qlearn"

    def check_rules(self, rules: Rules) -> None:
        """:class:`SpecError` unless the table was trained for ``rules``."""
        if rules != self.table.rules:
            raise SpecError(
                f"qlearn: this Q-table was trained for {self.table.rules}, "
                f"not for this game's {rules}"
            )

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The greedy action; ``ValueError`` if the game's rules are not the table's."""
        self.check_rules(observation.rules)
        groups = GROUPINGS[self.table.abstraction](observation)
        state = ABSTRACTIONS[self.table.abstraction](observation)
        return groups[greedy_group(self.table, state, groups, observation, self.min_visits)]
