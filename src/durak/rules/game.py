"""Durak as a game for the generic searches of :mod:`durak.search`.

:class:`DurakGame` satisfies ``durak.search.protocol.ImperfectGame`` structurally (this
module imports nothing from ``durak.search``; the dependency points one way).  Its ``step``
is the engine's unchecked fast path, because searches only step with actions taken from
``legal_actions`` of the same state; use :func:`durak.rules.step` for untrusted input.
"""

from __future__ import annotations

import random

import attrs

from durak.rules.builders import build_state
from durak.rules.config import Rules
from durak.rules.engine import current_player, is_terminal, legal_actions, returns, step_unchecked
from durak.rules.knowledge.observation import Observation, Visibility, observe
from durak.rules.knowledge.sampler import sample_world
from durak.rules.state import GameState, Knowledge


@attrs.frozen
class DurakGame:
    """The game protocol for one :class:`Rules` variant.

    ``open_world=True`` makes ``observe`` show every hand (the open-world match setting), and
    ``"full"`` the talon's order too (:data:`~durak.rules.Visibility`), so information-set
    searches key on what such a player sees.  ``payoff_bounds`` gives the
    ``(min_value, max_sum)`` pair max^n's shallow pruning needs: every payoff is at least -1
    and the payoffs sum to 0.
    """

    rules: Rules
    open_world: Visibility = False

    legal_actions = staticmethod(legal_actions)
    step = staticmethod(step_unchecked)
    current_player = staticmethod(current_player)
    is_terminal = staticmethod(is_terminal)
    returns = staticmethod(returns)

    @property
    def num_players(self) -> int:
        """``rules.players``."""
        return self.rules.players

    @property
    def payoff_bounds(self) -> tuple[float, float]:
        """``(min_value, max_sum)``: the durak gets -1 and payoffs always sum to 0."""
        return (-1.0, 0.0)

    @property
    def value_range(self) -> tuple[float, float]:
        """``(lo, hi)`` for :func:`durak.search.alphabeta`: a player's payoff is -1 (the
        durak), 0 (a draw) or ``1 / (players - 1)``."""
        return (-1.0, 1.0 / (self.rules.players - 1))

    @staticmethod
    def simulation_state(state: GameState) -> GameState:
        """``state`` for a rollout (``durak.search.protocol``): the same position without
        the trumps known to have been in the talon and the origins record that goes with
        them (``Knowledge.from_talon`` and ``origins``).  Only observations read them and
        nothing in the rules depends on them, so every action, step and return is the
        same, and a rollout does not keep the record up to date (``docs/search.md``)."""
        k = state.knowledge
        if not k.from_talon:
            return state
        s = state
        return build_state(
            s.rules, s.hand_masks, s.talon, s.trump_suit, s.trump_card, s.table, s.discard,
            s.attacker, s.defender, s.turn, s.taking, s.cap, s.players_out,
            Knowledge(k.exposed), s.history,
        )  # fmt: skip

    def observe(self, state: GameState, player: int) -> Observation:
        """``player``'s :class:`Observation`, a hashable information-state key."""
        return observe(state, player, self.open_world)

    @staticmethod
    def sample_world(observation: Observation, rng: random.Random) -> GameState:
        """A state uniformly drawn from those consistent with ``observation``."""
        return sample_world(observation, rng)
