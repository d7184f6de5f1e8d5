"""The ``smart`` rule-based agent: greedy play with two refinements (Zarlykov 2023, 4.2.2).

See :class:`SmartAgent`.  The helpers it shares with the evaluation functions
(:func:`~durak.agents.heuristics.tactics.weaknesses`,
:func:`~durak.agents.heuristics.tactics.opponent_hand`) live
in :mod:`durak.agents.heuristics.tactics`.
"""

from __future__ import annotations

import random

import attrs

from durak.agents.base import register
from durak.agents.heuristics.simple import greedy_action
from durak.agents.heuristics.tactics import (
    attackers_of,
    lowest_play,
    opponent_hand,
    play_key,
    weaknesses,
)
from durak.agents.interface.policies import one_hot
from durak.rules import Action, Attack, Defend, Observation, Take


def held_ranks(observation: Observation) -> frozenset[int]:
    """The ranks the player knows some attacker (who may throw in against the current
    defender) to hold: publicly known cards in a closed world, whole hands in an open one."""
    o = observation
    return frozenset(c.rank for p in attackers_of(o) if p != o.player for c in o.known_cards(p))


def defend_action(observation: Observation) -> Action:
    """Smart's defence: the lowest-power beating card whose rank no attacker is known to
    hold, else the lowest-power beating card, else (no beating card, no transfer) Take."""
    o = observation
    legal = o.legal_actions
    plays = [a for a in legal if type(a) is not Take]
    if not plays:
        return legal[-1]
    ranks = held_ranks(o)
    trump = o.trump_suit
    return min(
        plays, key=lambda a: (isinstance(a, Defend) and a.card.rank in ranks, play_key(a, trump))
    )


def bonnet_action(observation: Observation) -> Action | None:
    """Bonnet's weakness rule for an attacker in a two-player endgame, or ``None`` when it
    does not apply (see :class:`SmartAgent`)."""
    o = observation
    if o.talon_size > 0 or o.player == o.defender:
        return None
    opp = opponent_hand(o)
    if opp is None:
        return None
    weak = weaknesses(o.hand, opp, o.trump_suit)
    if len(weak) > 1:
        return None
    strong = [a for a in o.legal_actions if type(a) is Attack and a.card not in weak]
    return lowest_play(strong, o.trump_suit)


def smart_action(observation: Observation) -> Action:
    """The smart policy (see :class:`SmartAgent`) for the player to act."""
    legal = observation.legal_actions
    if type(legal[-1]) is Take:
        return defend_action(observation)
    play = bonnet_action(observation)
    return greedy_action(observation) if play is None else play


@attrs.frozen
class SmartAgent:
    """Zarlykov's (2023, 4.2.2) smart agent: ``greedy`` with two refinements.  This is our
    reading of the thesis and of Bonnet's endgame analysis it cites.

    1. **Defence.** Among the cards that beat an undefended attack card, it prefers one
       whose rank no attacker is known to hold, because a rank an attacker holds invites a
       throw-in; among those (or, if there are none, among all beating cards) it plays the
       lowest-power card as greedy does.  "Attackers" are the players who may throw in
       against it; "known" means their publicly known cards in a closed world
       (:meth:`~durak.rules.Observation.known_cards`) and their whole hands in an open one.
       A transfer adds no new rank to the table, so transfers are never penalised; it is
       weighed against the Defend options by card power as in greedy.  With no beating card
       and no transfer it takes.
    2. **Bonnet's weakness rule** (two-player endgames).  A *weakness* of a player is a card
       in its hand that the opponent can beat with a card it holds
       (:func:`~durak.agents.heuristics.tactics.weaknesses`).  The rule applies when the talon is
       empty, smart is attacking (leading or throwing in) and the sole remaining opponent's hand is
       fully known (:func:`~durak.agents.heuristics.tactics.opponent_hand`): in an open world, or
       in a closed world by deduction, since once the talon is empty every hidden card must be
       the opponent's.  With at most one weakness, smart leads (and throws in) its non-weak
       cards first, lowest power first, and keeps the weakness for last.  When no legal
       attack uses a non-weak card (its hand holds only the weakness, or, throwing in, only
       the weakness matches the table) it falls back to greedy, as it does with two or more
       weaknesses or when the rule does not apply.

    Every other decision is greedy's (:class:`~durak.agents.heuristics.simple.GreedyAgent`).  It is
    deterministic and ignores ``rng``.
    """

    name: str = "smart"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The smart action (see :func:`smart_action`)."""
        return smart_action(observation)

    def policy(self, observation: Observation) -> list[float]:
        """One-hot on the smart action."""
        return one_hot(observation.legal_actions, smart_action(observation))


register(
    "smart",
    SmartAgent,
    "greedy, avoiding ranks attackers hold when defending, and Bonnet's weakness rule in "
    "2-player endgames (Zarlykov)",
)
