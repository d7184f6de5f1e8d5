"""What an agent thinks of one decision: every legal action with its value, and its choice.

An :class:`Analysis` is built from an :class:`~durak.rules.Observation` only (never a
``GameState``), like a move, so it tells its reader nothing the deciding seat could not
see: the same observation and seed give the same analysis, whatever the hidden cards are.
It is what a hint shows and what a review compares a played move with.

* ``search`` (``ismcts``): each root action's visit share and mean return; the agent
  plays the most visited action (SO-ISMCTS, Cowling, Powley & Whitehouse, IEEE TCIAIG
  2012);
* ``solve`` (``ismcts:endgame=N`` once every card is known): the exact alpha-beta value of
  the move played (Knuth & Moore 1975), the other moves unvalued;
* ``network`` (``dmc``): the network's Q of each action; the agent plays the highest.

Every value lies within the game's payoffs (:func:`payoff_bounds`): an estimate outside
them (a network's Q is an unbounded regression, a search's mean may average such
values) is clamped to them where it becomes an assessment, in :func:`searched` and
:func:`valued`.  The true expected return lies within the bounds, so the clamped value is
never further from it than the estimate; the choice is the agent's own, made before.

An agent offers an analysis by being an :class:`Analyst`; :func:`analyse` asks it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

import attrs

from durak.agents.base import SpecError, registry
from durak.agents.naming import canonical_spec
from durak.agents.specs import ParamValue, format_spec, format_value
from durak.rules import Action, Observation
from durak.search import SearchResult

__all__ = [
    "ActionAssessment",
    "Analysis",
    "AnalysisKind",
    "Analyst",
    "analyse",
    "forced",
    "not_an_analyst",
    "payoff_bounds",
    "searched",
    "spec_of",
    "valued",
]

#: How the values were found: a search's visits, an exact solve, a network's scores.
AnalysisKind = Literal["search", "solve", "network"]


@attrs.frozen
class ActionAssessment:
    """One legal action as the analysing agent sees it.

    * ``value``: the expected return of the player to move after this action, in the
      game's payoff scale (the durak gets -1, every other player ``1/(players-1)``, a
      draw 0): a search's mean return over its simulations through the action, an exact
      solve's value, a network's Q.  ``None`` when the agent did not value it: a search
      that never tried it, a solve's other moves, a forced decision (nothing searched).
    * ``share``: the fraction of the search's root visits that went through it (``None``
      for a network or a solve); ``visits``: their number (``None`` likewise).
    """

    action: Action
    value: float | None
    share: float | None = None
    visits: int | None = None


def _check_actions(analysis: Analysis, _: object, actions: tuple[ActionAssessment, ...]) -> None:
    listed = [a.action for a in actions]
    if len(set(listed)) != len(listed):
        raise ValueError("an analysis lists an action twice")
    if analysis.chosen not in listed:
        raise ValueError(f"the chosen action {analysis.chosen} is not among the listed ones")


@attrs.frozen
class Analysis:
    """An agent's view of ``player``'s decision: ``actions``, one :class:`ActionAssessment`
    per legal action in legal-action order (every one listed), ``chosen``, the one the
    agent plays, ``spec``, the agent's spec as it resolved (``strongest`` names the spec
    it plays), and ``kind``, how the values were found (see the module docstring)."""

    player: int
    spec: str
    chosen: Action
    actions: tuple[ActionAssessment, ...] = attrs.field(validator=_check_actions)
    kind: AnalysisKind

    def of(self, action: Action) -> ActionAssessment:
        """The assessment of ``action``; ``KeyError`` if it is not a listed (legal) one."""
        for a in self.actions:
            if a.action == action:
                return a
        raise KeyError(f"{action} is not a legal action of this decision")

    def loss(self, action: Action) -> float | None:
        """The value lost by playing ``action`` instead of the agent's choice:
        ``value(chosen) - value(action)`` floored at 0, so never negative (a search's
        less visited action whose mean is higher lost nothing by the agent's judgement).
        0.0 for the chosen action itself; ``None`` when either value is unknown (see
        :class:`ActionAssessment`).  ``KeyError`` for an action not listed."""
        mine = self.of(action)
        if action == self.chosen:
            return 0.0
        best = self.of(self.chosen).value
        if best is None or mine.value is None:
            return None
        return max(0.0, best - mine.value)

    def ranked(self) -> tuple[ActionAssessment, ...]:
        """Every assessment, best first: the chosen action, then by visits (a search),
        then by value (unvalued last), ties in legal-action order."""

        def key(a: ActionAssessment) -> tuple[bool, int, float]:
            value = -math.inf if a.value is None else a.value
            return (a.action != self.chosen, -(a.visits or 0), -value)

        return tuple(sorted(self.actions, key=key))


@runtime_checkable
class Analyst(Protocol):
    """An agent that can say what it thinks of a decision."""

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The analysis of ``observation``'s decision; its ``chosen`` is the action
        ``act(observation, rng)`` returns for an equal generator."""
        ...


def analyse(agent: object, observation: Observation, rng: random.Random) -> Analysis:
    """``agent``'s analysis of the decision in ``observation``, drawing from ``rng``;
    :class:`SpecError` (one line) if the agent cannot analyse, ``ValueError`` if the
    observation's player has no decision to make."""
    if not isinstance(agent, Analyst):
        raise not_an_analyst(getattr(agent, "name", type(agent).__name__))
    if observation.turn != observation.player or not observation.legal_actions:
        raise ValueError(f"player {observation.player} has no decision to analyse")
    return agent.analyse(observation, rng)


def not_an_analyst(name: str) -> SpecError:
    """The one-line error for agent ``name``, which cannot analyse, naming the registered
    agents that can (:attr:`~durak.agents.base.AgentInfo.analyses`), plugins' included."""
    able = [n for n, info in registry().items() if info.analyses]
    if len(able) > 1:
        can = f"{', '.join(able[:-1])} and {able[-1]} can"
    else:
        can = f"{able[0]} can" if able else "no registered agent can"
    return SpecError(f"agent {name!r} cannot analyse a decision ({can})")


def forced(observation: Observation, spec: str, kind: AnalysisKind) -> Analysis:
    """The analysis of a decision with one legal action: that action, with share 1.0 (the
    search's whole attention), unvalued (nothing was searched)."""
    (action,) = observation.legal_actions
    only = ActionAssessment(action, None, share=1.0, visits=None)
    return Analysis(observation.player, spec, action, (only,), kind)


def payoff_bounds(players: int) -> tuple[float, float]:
    """The lowest and highest return of a player in a game of ``players``
    (:func:`durak.rules.returns`): -1 as the durak, ``1 / (players - 1)`` otherwise."""
    return -1.0, 1.0 / (players - 1)


def _bounded(value: float | None, bounds: tuple[float, float]) -> float | None:
    return None if value is None else min(max(value, bounds[0]), bounds[1])


def valued(
    observation: Observation,
    spec: str,
    kind: AnalysisKind,
    chosen: Action,
    values: Sequence[float | None],
) -> Analysis:
    """The analysis of ``observation``'s decision from ``values``, one per legal action in
    their order, each clamped to :func:`payoff_bounds`; ``chosen`` is the agent's action
    (chosen from the values before clamping: two actions clamped to the top are not
    tied in the agent's judgement)."""
    bounds = payoff_bounds(observation.rules.players)
    actions = tuple(
        ActionAssessment(a, _bounded(v, bounds))
        for a, v in zip(observation.legal_actions, values, strict=True)
    )
    return Analysis(observation.player, spec, chosen, actions, kind)


def searched(
    observation: Observation, spec: str, kind: AnalysisKind, result: SearchResult[Action]
) -> Analysis:
    """The analysis of a search's (or solve's) ``result`` at ``observation``'s decision:
    each legal action's listed value (clamped to :func:`payoff_bounds`), and its visit
    share where the search counts visits; ``chosen`` is the result's action."""
    bounds = payoff_bounds(observation.rules.players)
    values = dict(result.action_values)
    visits = dict(result.visits)
    total = sum(visits.values())
    actions = tuple(
        ActionAssessment(
            a,
            _bounded(values.get(a), bounds),
            share=visits.get(a, 0) / total if total else None,
            visits=visits.get(a, 0) if total else None,
        )
        for a in observation.legal_actions
    )
    return Analysis(observation.player, spec, result.action, actions, kind)


def spec_of(agent: object) -> str:
    """The canonical spec (:func:`~durak.agents.naming.canonical_spec`) of a registered
    agent: its name and every spec parameter it holds at a value other than the default;
    the name alone for an agent the registry does not know."""
    name = str(getattr(agent, "name", type(agent).__name__))
    info = registry().get(name)
    if info is None:
        return name
    raw = {
        p.name: format_value(value)
        for p in info.params
        if isinstance(value := getattr(agent, p.name, p.default), ParamValue)
    }
    return canonical_spec(format_spec(name, raw))  # which leaves out the defaults
