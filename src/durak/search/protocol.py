"""The game interface every search in :mod:`durak.search` is written against.

After the ``Game`` abstraction of OpenSpiel (Lanctot et al., 2019) and the pure
``init``/``step`` functions of pgx (Koyamada et al., 2023): a game is a handful of pure
functions over immutable state values.  Nothing here knows Durak; ``durak.rules.DurakGame``
is one implementation, and the tests use Nim, tic-tac-toe and other toys.

Contract (what the algorithms rely on):

* States are immutable and hashable; equal states have equal futures (so a transposition
  table may key on them).  A state that must not repeat (a cycle) carries its history.
* ``step`` is deterministic and is only called with an action from ``legal_actions`` of the
  same state, so an implementation may skip legality checks there.  Chance is part of the
  state (a shuffled deck), or enters through ``sample_world``.
* ``legal_actions`` is empty exactly at terminal states, and its order is deterministic
  (ties between equal moves are broken by it).
* ``current_player`` is in ``range(num_players)`` at a non-terminal state.
* ``returns`` gives one payoff per player at terminal states.
* For imperfect information, ``observe(state, player)`` is a hashable key of ``player``'s
  information state; it must not depend on what ``player`` cannot see, and it decides whose
  turn it is.  ``sample_world(observation, rng)`` returns a state ``s`` with
  ``observe(s, player) == observation``, drawing only from ``rng``.
* Optionally, ``simulation_state(state)`` gives the state a simulation (a rollout) plays on
  in place of ``state``: the same position, with the same legal actions, steps and returns
  whatever is played, but without records that only observations read and that cost time
  to keep up to date.  The rollout policy is called with the states that follow it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, TypeVar

S = TypeVar("S")
A = TypeVar("A")
O = TypeVar("O", bound=Hashable)  # noqa: E741
S_co = TypeVar("S_co", covariant=True)
A_co = TypeVar("A_co", covariant=True)

#: A value function: one estimated payoff per player, like ``returns`` at a terminal.
Evaluator = Callable[[S], Sequence[float]]
#: A batched value function: one returns vector per state given, in order (one network
#: pass over many leaves).
BatchEvaluator = Callable[[Sequence[S]], Sequence[Sequence[float]]]
#: A rollout policy: a legal action of the player to move, drawing only from the ``rng``.
RolloutPolicy = Callable[[S, random.Random], A]
#: Move ordering: the same actions, best-first guess first (e.g. ``sorted(..., key=...)``).
MoveOrder = Callable[[S, Sequence[A]], Sequence[A]]
#: Domain knowledge for progressive bias: the preferred one of the legal actions given.
Heuristic = Callable[[S, Sequence[A]], A]
#: A policy prior for PUCT: one probability per action given, in their order (a network's
#: policy head, or a softmax of its action values).
Prior = Callable[[S, Sequence[A]], Sequence[float]]


class Game(Protocol[S, A]):
    """A deterministic perfect-information game of ``num_players`` players."""

    @property
    def num_players(self) -> int:
        """The number of players; player ids are ``0 .. num_players - 1``."""
        ...

    def legal_actions(self, state: S, /) -> Sequence[A]:
        """The actions of the player to move; empty exactly when the game is over."""
        ...

    def step(self, state: S, action: A, /) -> S:
        """The successor state; ``action`` is always one of ``legal_actions(state)``."""
        ...

    def current_player(self, state: S, /) -> int:
        """The player to move (any value at a terminal state)."""
        ...

    def is_terminal(self, state: S, /) -> bool:
        """Whether the game is over."""
        ...

    def returns(self, state: S, /) -> Sequence[float]:
        """One payoff per player at a terminal state."""
        ...


class ImperfectGame(Game[S, A], Protocol[S, A, O]):
    """A :class:`Game` whose players see only observations ``O`` of the state."""

    def observe(self, state: S, player: int, /) -> O:
        """``player``'s information-state key: equal exactly for states it cannot tell apart."""
        ...

    def sample_world(self, observation: O, rng: random.Random, /) -> S:
        """A full state consistent with ``observation``, drawn using only ``rng``."""
        ...
