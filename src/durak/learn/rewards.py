"""Crampton's reward scheme for learning Durak (Crampton, Durham), as a value object.

* The game's outcome: ``win`` times the learner's share of :func:`~durak.rules.returns`
  (+1 for a 2-player win, -1 for the durak, 0 for a draw).
* A small hand-strength shaping.  We make it potential-based (Ng, Harada & Russell, ICML
  1999): ``shaping * (gamma * phi(next) - phi(current))`` with ``phi`` the mean strength of
  the learner's own cards minus its share of the cards in play, so the shaping cannot
  change which policy is optimal; ``phi`` is 0 at the end of the game.
* An optional penalty for an inefficient defence: beating a card with a stronger card than
  the weakest one that would have beaten it.
"""

from __future__ import annotations

import attrs

from durak.agents.heuristics.tactics import power
from durak.envs.solo import SoloStep
from durak.rules import Action, Defend, Observation

__all__ = ["RewardScheme", "hand_potential"]


def hand_potential(observation: Observation) -> float:
    """``phi``: the mean strength in [0, 1] of the observer's hand (trumps strongest) minus
    the fraction of the cards in hands that are its own; 0 once the game is over."""
    if observation.is_terminal or not observation.hand:
        return 0.0
    trump = observation.trump_suit
    ranks = 15 - observation.rules.lowest_rank
    strength = sum(
        (c.rank - observation.rules.lowest_rank + (ranks if c.suit is trump else 0)) / (2 * ranks)
        for c in observation.hand
    )
    held = sum(observation.hand_sizes)
    return strength / len(observation.hand) - len(observation.hand) / held


def _inefficient(observation: Observation, action: Action) -> bool:
    """Whether ``action`` beats its target with a stronger card than another legal defence
    of the same target would use."""
    if type(action) is not Defend:
        return False
    trump = observation.trump_suit
    weakest = min(
        power(a.card, trump)
        for a in observation.legal_actions
        if type(a) is Defend and a.target is action.target
    )
    return power(action.card, trump) > weakest


@attrs.frozen
class RewardScheme:
    """How a learner is rewarded for one of its decisions.

    Fields (all finite): ``win`` > 0 scales the outcome; ``shaping`` >= 0 weights the
    hand-strength potential (0 turns it off); ``defence_penalty`` >= 0 is subtracted for an
    inefficient defence (0, the default, turns it off); ``gamma`` in [0, 1] is the learner's
    discount, which potential-based shaping must share.
    """

    win: float = 1.0
    shaping: float = 0.05
    defence_penalty: float = 0.0
    gamma: float = 1.0

    def __attrs_post_init__(self) -> None:
        if not self.win > 0:
            raise ValueError(f"win must be > 0, got {self.win}")
        if not self.shaping >= 0 or not self.defence_penalty >= 0:
            raise ValueError("shaping and defence_penalty must be >= 0")
        if not 0 <= self.gamma <= 1:
            raise ValueError(f"gamma must be in [0, 1], got {self.gamma}")

    def reward(self, before: Observation, action: Action, after: SoloStep) -> float:
        """The reward for playing ``action`` from ``before`` and reaching ``after``."""
        r = self.win * after.reward
        if self.shaping:
            r += self.shaping * (
                self.gamma * hand_potential(after.observation) - hand_potential(before)
            )
        if self.defence_penalty and _inefficient(before, action):
            r -= self.defence_penalty
        return r
