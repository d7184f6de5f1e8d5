"""The agent protocols: what an agent is (:class:`Agent`), the hooks of one that follows the
whole game (:class:`Watcher`, passed on by a :class:`Relay`) and of one made for a single
variant (:class:`RulesBound`) or that plays what the game's rules choose (:class:`Resolving`).

An agent sees only an :class:`~durak.rules.Observation` (never the ``GameState``) and draws
all its randomness from the ``random.Random`` it is handed, so a game is reproducible from
its seed: OpenSpiel's ``Bot.step`` (Lanctot et al. 2019), handed the player's observation
rather than the game's state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from durak.agents.specs import SpecError
from durak.rules import Action, Observation, Rules

__all__ = [
    "Agent",
    "Relay",
    "Resolving",
    "RulesBound",
    "Watcher",
    "check_bound",
    "resolutions",
    "watchers_among",
]


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(observation, rng) -> Action`` returning a legal action."""

    @property
    def name(self) -> str:
        """A short display name."""
        ...

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """Choose one of ``observation.legal_actions``."""
        ...


@runtime_checkable
class Watcher(Protocol):
    """Optional hooks for an agent that follows the game between its own decisions.

    :func:`~durak.arena.play_game` calls them on every agent that has all three, each time
    with that agent's own :class:`~durak.rules.Observation`, so a watcher learns nothing a
    player at the table would not: every action in Durak is played face up.
    """

    def game_started(self, observation: Observation) -> None:
        """Called once, with the observation of the dealt game, before any action."""
        ...

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Called after every action of every player (this one's too), with the observation
        of the state it led to."""
        ...

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Called once at the end, with the final observation and the durak (``None``: draw)."""
        ...


@runtime_checkable
class RulesBound(Protocol):
    """An agent made for one variant (say a model trained for some :class:`Rules`).

    :func:`make_agent` calls :meth:`check_rules` when it builds the agent for a game, so
    that a model made for other rules is refused before the first game.
    """

    def check_rules(self, rules: Rules) -> None:
        """Raise :class:`SpecError` naming both rules if this agent cannot play ``rules``."""
        ...


@runtime_checkable
class Resolving(Protocol):
    """An agent that plays what each game's rules choose (``dmc``'s shipped model of those
    rules, ``strongest``'s spec), so a run can say what it plays."""

    def resolution(self, rules: Rules) -> str:
        """What it plays under ``rules``, in words (``SpecError`` if nothing fits)."""
        ...


def resolutions(specs: Sequence[str], agents: Sequence[object], rules: Rules) -> list[str]:
    """``SPEC plays WHAT`` for each :class:`Resolving` agent among ``agents`` (built from
    ``specs`` for ``rules``), each spec once, in seat order."""
    found = (
        f"{spec} plays {agent.resolution(rules)}"
        for spec, agent in zip(specs, agents, strict=True)
        if isinstance(agent, Resolving)
    )
    return list(dict.fromkeys(found))


def check_bound(part: object, rules: Rules, context: str) -> None:
    """``part.check_rules(rules)`` if ``part`` is made for one variant, its
    :class:`SpecError` prefixed with ``context``."""
    if isinstance(part, RulesBound):
        try:
            part.check_rules(rules)
        except SpecError as e:
            raise SpecError(f"{context}: {e}") from None


def watchers_among(*agents: object) -> tuple[Watcher, ...]:
    """Those of ``agents`` that are :class:`Watcher`\\ s, in order: find them once, since the
    Protocol check is slow and a relay would otherwise repeat it at every action."""
    return tuple(a for a in agents if isinstance(a, Watcher))


class Relay:
    """A :class:`Watcher` that passes each hook on to ``watchers``, in order: for an agent
    built from other agents (say a search with a fallback), so each hears the whole game."""

    watchers: tuple[Watcher, ...]

    def game_started(self, observation: Observation) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Passes the hook on to every watcher."""
        for w in self.watchers:
            w.game_ended(observation, loser)
