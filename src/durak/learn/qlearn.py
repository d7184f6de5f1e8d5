"""Tabular Q-learning for Durak, after Crampton's study (Durham), and the ``qlearn`` agent.

Watkins' Q-learning (Watkins & Dayan, Machine Learning 1992) over an abstract state and
grouped actions (:mod:`durak.learn.abstraction`): after each decision,
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

Importing this module registers the ``qlearn`` learner (``durak train qlearn``) and the
``qlearn`` agent (``qlearn:path=q.json``).
"""

from __future__ import annotations

import random
from pathlib import Path

import attrs

from durak.agents.base import Param, SpecError, register
from durak.agents.tactics import lowest_play
from durak.envs.solo import SoloStep
from durak.learn.abstraction import ABSTRACTIONS, GROUPINGS
from durak.learn.qtable import QTable, QTableError
from durak.learn.registry import register_learner
from durak.learn.rewards import RewardScheme
from durak.learn.train import Epsilon
from durak.rules import Action, Observation, Rules

__all__ = ["QAgent", "QLearner", "greedy_group"]


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


class QLearner:
    """An epsilon-greedy tabular Q-learner (implements :class:`~durak.learn.train.Learner`).

    Settings (keyword-only): ``abstraction`` (a key of ``ABSTRACTIONS``); ``alpha`` in
    (0, 1], the floor of the step size ``max(alpha, 1/visits)``; ``gamma`` in [0, 1];
    ``eps_start`` >= ``eps_end`` in [0, 1]; ``eps_decay`` in (0, 1], the per-episode
    factor; ``shaping`` and ``defence_penalty`` for the :class:`RewardScheme`;
    ``min_visits``, the updates before a learned value may override the default move
    (:func:`greedy_group`); ``target``, ``"td"`` for Q-learning's one-step bootstrap or
    ``"mc"`` for every-visit Monte Carlo control, which learns each decision from the
    game's actual return (unbiased when the abstract state aliases true states: Singh,
    Jaakkola & Jordan, ICML 1994); ``init``, a Q-table file of the same rules and
    abstraction to continue training from (its values, visits and episode count).
    """

    def __init__(
        self,
        rules: Rules,
        *,
        abstraction: str = "crampton",
        alpha: float = 0.05,
        gamma: float = 1.0,
        eps_start: float = 0.3,
        eps_end: float = 0.01,
        eps_decay: float = 0.99997,
        shaping: float = 0.05,
        defence_penalty: float = 0.0,
        min_visits: int = 30,
        target: str = "td",
        init: str | None = None,
    ) -> None:
        if abstraction not in ABSTRACTIONS:
            raise SpecError(f"qlearn: abstraction must be one of {', '.join(ABSTRACTIONS)}, "
                            f"got {abstraction!r}")  # fmt: skip
        if target not in ("td", "mc"):
            raise SpecError(f"qlearn: target must be td or mc, got {target!r}")
        if not 0 < alpha <= 1:
            raise SpecError(f"qlearn: need 0 < alpha <= 1, got {alpha}")
        self.exploration = Epsilon(eps_start, eps_end, eps_decay, owner="qlearn")
        self.settings = {"abstraction": abstraction, "alpha": alpha, "gamma": gamma,
                         "eps_start": eps_start, "eps_end": eps_end, "eps_decay": eps_decay,
                         "shaping": shaping, "defence_penalty": defence_penalty,
                         "min_visits": min_visits, "target": target}  # fmt: skip
        self.table = QTable(rules, abstraction, settings=self.settings)
        if init:
            self.settings["init"] = init
            self._start_from(Path(init))
        self._key = ABSTRACTIONS[abstraction]
        self._groups = GROUPINGS[abstraction]
        self.alpha, self.gamma = alpha, gamma
        self.min_visits = min_visits
        self.target = target
        self._episode: list[tuple[str, str, float]] = []
        self._rewards = RewardScheme(shaping=shaping, defence_penalty=defence_penalty,
                                     gamma=gamma)  # fmt: skip
        self._chosen: tuple[str, str] | None = None

    def _start_from(self, path: Path) -> None:
        """Continue from the Q-table at ``path``: its values, visit counts and episodes."""
        try:
            start = QTable.load(path)
        except QTableError as e:
            raise SpecError(f"qlearn: init: {e}") from None
        table = self.table
        if start.rules != table.rules:
            raise SpecError(f"qlearn: init: {path} was trained for {start.rules}, "
                            f"not for {table.rules}")  # fmt: skip
        if start.abstraction != table.abstraction:
            raise SpecError(f"qlearn: init: {path} uses abstraction {start.abstraction!r}, "
                            f"not {table.abstraction!r}")  # fmt: skip
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
                greedy_group(self.table, nxt, self._groups(o), o, self.min_visits), 0.0)
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
            raise SpecError(f"qlearn: this Q-table was trained for {self.table.rules}, "
                            f"not for this game's {rules}")  # fmt: skip

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The greedy action; ``ValueError`` if the game's rules are not the table's."""
        self.check_rules(observation.rules)
        groups = GROUPINGS[self.table.abstraction](observation)
        state = ABSTRACTIONS[self.table.abstraction](observation)
        return groups[greedy_group(self.table, state, groups, observation, self.min_visits)]


def _agent(path: str | None, min_visits: int) -> QAgent:
    if not path:
        raise SpecError("qlearn: give the Q-table file, e.g. qlearn:path=q.json")
    try:
        return QAgent(QTable.load(Path(path)), min_visits)
    except QTableError as e:
        raise SpecError(f"qlearn: {e}") from None


register("qlearn", _agent, "greedy play of a trained Q-table (durak train qlearn)",
         (Param("path", str, None, "the Q-table JSON file written by durak train"),
          Param("min_visits", int, 30, "updates before a learned value overrides", 0)))  # fmt: skip

register_learner(
    "qlearn",
    QLearner,
    "tabular Q-learning over Crampton's abstract state (or 'plus')",
    (
        Param("abstraction", str, "crampton", "the state abstraction",
              choices=tuple(ABSTRACTIONS)),
        Param("alpha", float, 0.05, "floor of the step size 1/visits", 1e-6, 1),
        Param("gamma", float, 1.0, "discount", 0, 1),
        Param("eps_start", float, 0.3, "initial exploration rate", 0, 1),
        Param("eps_end", float, 0.01, "final exploration rate", 0, 1),
        Param("eps_decay", float, 0.99997, "per-episode epsilon factor", 1e-6, 1),
        Param("shaping", float, 0.05, "weight of the hand-strength shaping", 0, 10),
        Param("defence_penalty", float, 0.0, "penalty for an inefficient defence", 0, 10),
        Param("min_visits", int, 30, "updates before a learned value overrides", 0),
        Param("target", str, "td", "td: Q-learning's bootstrap; mc: the game's return",
              choices=("td", "mc")),
        Param("init", str, None, "a Q-table file to continue training from"),
    ),
)  # fmt: skip
