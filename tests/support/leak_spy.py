"""A spy for imperfect-information searches: :class:`SpyGame` wraps an ``ImperfectGame`` and
raises :class:`LeakError` when a search passes it a state it did not sample or step to, or
asks ``sample_world`` about an observation it was not given.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

from durak.search.protocol import ImperfectGame
from tests.support.imperfect_games import CardObs, CardState, HiddenCardGame

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")
O = TypeVar("O", bound=Hashable)  # noqa: E741

# --------------------------------------------------------------------------------------
# A spy for imperfect-information searches


class LeakError(AssertionError):
    """A search passed the game a state it did not get from ``sample_world`` or ``step``."""


class SpyGame(Generic[S, A, O]):
    """Wraps an :class:`ImperfectGame` and checks that every state a search passes to it was
    produced by this wrapper's own ``sample_world`` or ``step`` (by identity), and that
    ``sample_world`` is only asked about ``allowed`` observations.

    It keeps every state it produced alive, so identities are never reused.  ``true_state``
    is the real state, which the search must never see except as an equal sampled world.
    """

    def __init__(self, game: ImperfectGame[S, A, O], true_state: S, allowed: Sequence[O]) -> None:
        self.game = game
        self.true_state = true_state
        self.allowed = list(allowed)
        self.produced: dict[int, S] = {}
        self.sampled: list[S] = []
        self.calls = 0

    def _check(self, state: S) -> None:
        self.calls += 1
        if self.produced.get(id(state)) is not state:
            same = " (it equals the true state)" if state == self.true_state else ""
            raise LeakError(f"a state not produced by sample_world or step: {state!r}{same}")

    def _keep(self, state: S) -> S:
        self.produced[id(state)] = state
        return state

    @property
    def num_players(self) -> int:
        """As the wrapped game."""
        return self.game.num_players

    def legal_actions(self, state: S) -> Sequence[A]:
        """As the wrapped game, after the check."""
        self._check(state)
        return self.game.legal_actions(state)

    def step(self, state: S, action: A) -> S:
        """As the wrapped game, after the check; the successor is recorded."""
        self._check(state)
        return self._keep(self.game.step(state, action))

    def current_player(self, state: S) -> int:
        """As the wrapped game, after the check."""
        self._check(state)
        return self.game.current_player(state)

    def is_terminal(self, state: S) -> bool:
        """As the wrapped game, after the check."""
        self._check(state)
        return self.game.is_terminal(state)

    def returns(self, state: S) -> Sequence[float]:
        """As the wrapped game, after the check."""
        self._check(state)
        return self.game.returns(state)

    def observe(self, state: S, player: int) -> O:
        """As the wrapped game, after the check."""
        self._check(state)
        return self.game.observe(state, player)

    def sample_world(self, observation: O, rng: random.Random) -> S:
        """As the wrapped game for an allowed observation; the world is recorded."""
        if observation not in self.allowed:
            raise LeakError(f"sample_world asked about an unexpected observation {observation!r}")
        world = self.game.sample_world(observation, rng)
        if world is self.true_state:
            raise LeakError("sample_world returned the true state object")
        self.sampled.append(world)
        return self._keep(world)


# Structural check of the protocol (mypy).
_spy: ImperfectGame[CardState, int, CardObs] = SpyGame(
    HiddenCardGame(), HiddenCardGame().deal(0), []
)
