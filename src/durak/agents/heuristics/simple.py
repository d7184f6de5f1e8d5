"""Simple baseline agents.

* ``random`` is Zarlykov's (2023) random agent: it passes or takes with probability
  ``stop_chance`` when it could play a card, and otherwise plays a uniformly random card
  action.
* ``greedy`` is Zarlykov's (2023, Fig. 4.2) greedy agent: the lowest-power card that works,
  saving trumps from throw-ins while the talon lasts.
* ``lowest`` is Crampton's LowestValueBot (the "lowest" agent of Van Khan 2024): the
  lowest-power legal card, always.

Card power is :func:`durak.agents.heuristics.tactics.power` (non-trumps below trumps, then by rank).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from durak.agents.base import register
from durak.agents.heuristics.tactics import lowest_play
from durak.agents.interface.policies import one_hot
from durak.agents.specs import param
from durak.rules import Action, Observation, Pass, Suit, Take


def random_choice(legal: Sequence[Action], rand: Callable[[], float], stop_chance: float) -> Action:
    """Zarlykov's random policy over ``legal`` (canonical order, Take/Pass last).

    With several options and a Take or Pass among them, it returns that Take/Pass with
    probability ``stop_chance`` and otherwise a uniform card action; else a uniform action.
    """
    k = len(legal)
    last = legal[-1]
    if k > 1 and (type(last) is Pass or type(last) is Take):
        if rand() < stop_chance:
            return last
        return legal[int(rand() * (k - 1))]
    return legal[int(rand() * k)]


def random_policy(legal: Sequence[Action], stop_chance: float) -> list[float]:
    """The distribution of :func:`random_choice` over ``legal`` for a uniform ``rand``."""
    k = len(legal)
    last = legal[-1]
    if k > 1 and (type(last) is Pass or type(last) is Take):
        return [(1 - stop_chance) / (k - 1)] * (k - 1) + [stop_chance]
    return [1 / k] * k


@attrs.frozen
class RandomAgent:
    """Random play with a ``stop_chance`` (default 0.2) of passing or taking early."""

    stop_chance: float = param(
        0.2, "chance to pass/take when a card could be played", low=0, high=1
    )
    name: str = "random"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """A random legal action (see :func:`random_choice`)."""
        return random_choice(observation.legal_actions, rng.random, self.stop_chance)

    def policy(self, observation: Observation) -> list[float]:
        """The exact distribution of :meth:`act` (see :func:`random_policy`)."""
        return random_policy(observation.legal_actions, self.stop_chance)


register(
    "random",
    RandomAgent,
    "uniform card play; passes or takes early with probability stop_chance (Zarlykov)",
)


def greedy_action(observation: Observation) -> Action:
    """Zarlykov's greedy policy (see :class:`GreedyAgent`) for the player to act."""
    o = observation
    return greedy_choice(o.legal_actions, o.trump_suit, o.talon_size)


def greedy_choice(legal: Sequence[Action], trump: Suit | None, talon_size: int) -> Action:
    """The greedy choice among ``legal`` (canonical order), which is all it needs besides the
    trump suit and whether the talon still holds cards; also the rollout policy of search."""
    last = legal[-1]
    if type(last) is Take:  # defending: Defend/Transfer options, then Take
        play = lowest_play(legal, trump)
        return last if play is None else play
    if type(last) is Pass:  # throwing in (the table is not empty)
        plays = legal[:-1]  # the attacks (canonical order: Pass is last)
        if talon_size > 0 and trump is not None:  # saving trumps while the talon lasts
            plays = [a for a in plays if a.card.suit is not trump]  # type: ignore[union-attr]
        play = lowest_play(plays, trump)
        return last if play is None else play
    play = lowest_play(legal, trump)  # leading: every card in hand may open
    return last if play is None else play


@attrs.frozen
class GreedyAgent:
    """Zarlykov's (2023, Fig. 4.2) greedy agent: it always plays the lowest-power card that
    works (power: :func:`~durak.agents.heuristics.tactics.power`, every non-trump below every
    trump).

    * Leading: the lowest-power card in hand, so non-trumps go first.
    * Defending: the lowest-power card that beats an undefended attack card.  A transfer
      (Perevodnoy) is a card play too, so the choice is the lowest-power card over every
      Defend and Transfer option; a card that could do either beats (ties go to Defend), and
      a card that beats several attack cards goes on the strongest of them.  If nothing
      beats and no transfer is legal, it takes.
    * Throwing in (the table is not empty): the lowest-power card of a rank on the table,
      but while the talon still holds cards it never throws in a trump (it passes instead).
      It passes if nothing fits.

    This is our reading of the thesis's flow chart; it is deterministic and ignores ``rng``.
    """

    name: str = "greedy"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The greedy action (see :func:`greedy_action`)."""
        return greedy_action(observation)

    def policy(self, observation: Observation) -> list[float]:
        """One-hot on the greedy action."""
        return one_hot(observation.legal_actions, greedy_action(observation))


def lowest_action(observation: Observation) -> Action:
    """The lowest-power legal card action, else Take or Pass (see :class:`LowestAgent`)."""
    legal = observation.legal_actions
    play = lowest_play(legal, observation.trump_suit)
    return legal[-1] if play is None else play


@attrs.frozen
class LowestAgent:
    """Crampton's LowestValueBot, the "lowest" agent of Van Khan (2024): it always plays its
    lowest-power legal card action (Attack, Defend or Transfer; power:
    :func:`~durak.agents.heuristics.tactics.power`), and takes or passes only when no card action is
    legal.

    Unlike ``greedy`` it throws in trumps while the talon lasts and never passes or takes
    while it could play a card.  Ties between plays of one card are broken as in
    :func:`~durak.agents.heuristics.tactics.play_key`.  It is deterministic and ignores ``rng``.
    """

    name: str = "lowest"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The lowest-power card action (see :func:`lowest_action`)."""
        return lowest_action(observation)

    def policy(self, observation: Observation) -> list[float]:
        """One-hot on the lowest-power card action."""
        return one_hot(observation.legal_actions, lowest_action(observation))


register(
    "greedy",
    GreedyAgent,
    "lowest-power card that works; no trump throw-ins while the talon lasts (Zarlykov)",
)
register(
    "lowest",
    LowestAgent,
    "always the lowest-power legal card; takes/passes only when it must (Crampton, Van Khan)",
)
