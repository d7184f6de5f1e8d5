"""Small imperfect-information games for testing the searches of :mod:`durak.search`.

Every game here satisfies ``durak.search.protocol.ImperfectGame`` (checked by mypy through
the annotated module-level assignments at the bottom):

* :class:`HiddenCardGame`: a two-player trick game with hidden hands where suit must be
  followed.
* :class:`OneShot`: one public choice among fixed payoffs, where a search's root statistics
  follow from its selection rule alone.
* :class:`SecretGame`: a move one player never sees, so the other's information sets merge
  (or repeat along a path).

All are deterministic functions of their seeds.  The perfect-information toys are in
:mod:`tests.support.toygames`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import NamedTuple

import attrs

from durak.search.protocol import ImperfectGame

# --------------------------------------------------------------------------------------
# A hidden-card trick game


class CardState(NamedTuple):
    """``hands``: each player's unplayed cards, sorted; ``plays``: ``(player, card)`` in
    order of play; ``leader``: who leads the first trick."""

    hands: tuple[tuple[int, ...], tuple[int, ...]]
    plays: tuple[tuple[int, int], ...]
    leader: int


#: ``(player, own hand, plays, first leader)``: everything the player sees.
CardObs = tuple[int, tuple[int, ...], tuple[tuple[int, int], ...], int]


@attrs.frozen
class HiddenCardGame:
    """A two-player trick game with hidden hands.

    The deck has ``suits`` suits of ``ranks`` ranks; card ``c`` has suit ``c // ranks`` and
    rank ``c % ranks``.  Each player is dealt ``hand_size`` cards (the rest are not dealt);
    nobody sees the other's hand.  In each trick the leader plays any card face up, then the
    other player must follow suit if able (else plays any card); the higher card of the led
    suit wins the trick and its player leads the next.  When the hands are empty, the player
    with more tricks gets +1 and the other -1 (equal tricks: 0 each).

    A player who did not follow suit is known to hold no more cards of that suit, so
    :meth:`sample_world` and :meth:`worlds` keep those cards out of its hand.
    """

    suits: int = 3
    ranks: int = 4
    hand_size: int = 3

    @property
    def num_players(self) -> int:
        """Two."""
        return 2

    def deal(self, seed: int, leader: int = 0) -> CardState:
        """A seeded random deal."""
        cards = random.Random(seed).sample(range(self.suits * self.ranks), 2 * self.hand_size)
        hands = (tuple(sorted(cards[: self.hand_size])), tuple(sorted(cards[self.hand_size :])))
        return CardState(hands, (), leader)

    def suit(self, card: int) -> int:
        """The suit of ``card``."""
        return card // self.ranks

    def trick_winner(self, first: tuple[int, int], second: tuple[int, int]) -> int:
        """The player of the higher card of the led suit."""
        if self.suit(second[1]) == self.suit(first[1]) and second[1] > first[1]:
            return second[0]
        return first[0]

    def tricks(self, state: CardState) -> tuple[int, int]:
        """Tricks won so far by each player."""
        won = [0, 0]
        plays = state.plays
        for i in range(0, len(plays) - 1, 2):
            won[self.trick_winner(plays[i], plays[i + 1])] += 1
        return (won[0], won[1])

    def legal_actions(self, state: CardState) -> tuple[int, ...]:
        """The cards the player to move may play (empty at the end)."""
        if self.is_terminal(state):
            return ()
        hand = state.hands[self.current_player(state)]
        if len(state.plays) % 2:
            led = self.suit(state.plays[-1][1])
            follow = tuple(c for c in hand if self.suit(c) == led)
            if follow:
                return follow
        return hand

    def step(self, state: CardState, action: int) -> CardState:
        """Play the card ``action``."""
        p = self.current_player(state)
        hand = tuple(c for c in state.hands[p] if c != action)
        hands = (hand, state.hands[1]) if p == 0 else (state.hands[0], hand)
        return CardState(hands, (*state.plays, (p, action)), state.leader)

    def current_player(self, state: CardState) -> int:
        """The second player of an open trick, else the last trick's winner (or the first
        leader)."""
        plays = state.plays
        if len(plays) % 2:
            return 1 - plays[-1][0]
        if not plays:
            return state.leader
        return self.trick_winner(plays[-2], plays[-1])

    def is_terminal(self, state: CardState) -> bool:
        """Both hands are empty."""
        return not state.hands[0] and not state.hands[1]

    def returns(self, state: CardState) -> tuple[float, float]:
        """+1 to the player with more tricks, -1 to the other; 0 each when equal."""
        if not self.is_terminal(state):
            return (0.0, 0.0)
        t0, t1 = self.tricks(state)
        if t0 == t1:
            return (0.0, 0.0)
        return (1.0, -1.0) if t0 > t1 else (-1.0, 1.0)

    def observe(self, state: CardState, player: int) -> CardObs:
        """The player's own hand and everything played."""
        return (player, state.hands[player], state.plays, state.leader)

    def _candidates(self, obs: CardObs) -> tuple[list[int], int]:
        """The cards the opponent may hold, and how many it holds."""
        player, hand, plays, _ = obs
        seen = set(hand) | {c for _, c in plays}
        void = set()
        for i in range(0, len(plays) - 1, 2):
            (_, led), (q, card) = plays[i], plays[i + 1]
            if q != player and self.suit(card) != self.suit(led):
                void.add(self.suit(led))
        cards = [
            c for c in range(self.suits * self.ranks) if c not in seen and self.suit(c) not in void
        ]
        opponent_left = self.hand_size - sum(1 for q, _ in plays if q != player)
        return cards, opponent_left

    def _world(self, obs: CardObs, opponent: Sequence[int]) -> CardState:
        player, hand, plays, leader = obs
        other = tuple(sorted(opponent))
        hands = (hand, other) if player == 0 else (other, hand)
        return CardState(hands, plays, leader)

    def sample_world(self, obs: CardObs, rng: random.Random) -> CardState:
        """The opponent's unplayed cards drawn uniformly from the cards it may hold."""
        cards, k = self._candidates(obs)
        return self._world(obs, rng.sample(cards, k))

    def worlds(self, obs: CardObs) -> list[CardState]:
        """Every state consistent with ``obs`` (each equally likely under ``sample_world``)."""
        cards, k = self._candidates(obs)
        return [self._world(obs, combo) for combo in itertools.combinations(cards, k)]


# --------------------------------------------------------------------------------------
# One choice


@attrs.frozen
class OneShot:
    """Player 0 picks action ``a`` once and gets ``payoffs[a]`` (player 1 the negative).

    The state is ``-1`` before the choice and ``a`` after it.  Public, so it is also an
    ``ImperfectGame`` whose only world is the state itself: the root statistics of MCTS and
    ISMCTS on it follow from their selection rule alone.
    """

    payoffs: tuple[float, ...]

    @property
    def num_players(self) -> int:
        """Two."""
        return 2

    def initial(self) -> int:
        """Before the choice."""
        return -1

    def legal_actions(self, state: int) -> list[int]:
        """Every action before the choice, none after."""
        return list(range(len(self.payoffs))) if state < 0 else []

    def step(self, state: int, action: int) -> int:
        """The choice made."""
        return action

    def current_player(self, state: int) -> int:
        """Player 0."""
        return 0

    def is_terminal(self, state: int) -> bool:
        """After the choice."""
        return state >= 0

    def returns(self, state: int) -> tuple[float, float]:
        """``payoffs[state]`` to player 0, its negative to player 1 (0 before the end)."""
        p = self.payoffs[state] if state >= 0 else 0.0
        return (p, -p)

    def observe(self, state: int, player: int) -> int:
        """The state (nothing is hidden)."""
        return state

    def sample_world(self, obs: int, rng: random.Random) -> int:
        """The observed state."""
        return obs


# --------------------------------------------------------------------------------------
# Secret moves


#: ``(announce, secret, secret, guess)`` so far: player 0 announces ``0`` or ``1``, player 1
#: picks two secrets from ``SECRETS``, player 0 guesses ``5..7`` (numbers apart, so one
#: information set can hold both players' actions without a clash).
SecretState = tuple[int, ...]
#: ``(player, *view)``; player 0's view shows secrets as ``HIDDEN``.
SecretObs = tuple[int, ...]
HIDDEN = -1
SECRETS = (2, 3, 4)


@attrs.frozen
class SecretGame:
    """Player 0 announces, player 1 picks two secrets, player 0 guesses; a seeded zero-sum
    payoff of the four.

    Player 0 never sees a secret.  With ``mark`` it sees each one picked (``HIDDEN`` in its
    place), so the three secrets lead to one information set; without it, it sees one
    ``HIDDEN`` once both are picked, so the information set after the first secret is the
    one before it.  These are the two places where SO-ISMCTS (Cowling et al. 2012) stops a
    descent: a new action into an information set already in the tree, and an information
    set already on the path.  Both keep the contract: a view fixes whose turn it is.
    """

    seed: int
    mark: bool = True

    @property
    def num_players(self) -> int:
        """Two."""
        return 2

    def initial(self) -> SecretState:
        """Nothing done."""
        return ()

    def legal_actions(self, state: SecretState) -> list[int]:
        """``0, 1``, then ``SECRETS`` twice, then ``5, 6, 7``, then none."""
        return [[0, 1], list(SECRETS), list(SECRETS), [5, 6, 7], []][len(state)]

    def step(self, state: SecretState, action: int) -> SecretState:
        """The action appended."""
        return (*state, action)

    def current_player(self, state: SecretState) -> int:
        """Player 1 picks the secrets; player 0 does the rest."""
        return 1 if len(state) in (1, 2) else 0

    def is_terminal(self, state: SecretState) -> bool:
        """After the guess."""
        return len(state) == 4

    def returns(self, state: SecretState) -> tuple[float, float]:
        """A seeded payoff ``(x, -x)`` at the end (multiples of 1/4), zeros before."""
        if len(state) < 4:
            return (0.0, 0.0)
        x = random.Random(f"secret/{self.seed}/{state}").randint(-4, 4) / 4
        return (x, 0.0 - x)

    def observe(self, state: SecretState, player: int) -> SecretObs:
        """``(player, *view)``: player 1 sees the state; player 0 sees each secret as
        ``HIDDEN`` (``mark``), or one ``HIDDEN`` once both are picked."""
        if player == 1 or len(state) < 2:
            return (player, *state)
        picked = len(state[1:3])
        shown = picked if self.mark else picked // 2
        return (player, state[0], *(HIDDEN,) * shown, *state[3:])

    def sample_world(self, obs: SecretObs, rng: random.Random) -> SecretState:
        """Player 1's view is the state; for player 0 the picked secrets are drawn
        uniformly (an unmarked view without ``HIDDEN`` is before the first secret)."""
        player, view = obs[0], obs[1:]
        shown = view.count(HIDDEN)
        if player == 1 or not shown:
            return view
        picked = shown if self.mark else 2
        secrets = tuple(rng.choice(SECRETS) for _ in range(picked))
        return (view[0], *secrets, *view[1 + shown :])


# Structural checks of the protocol (mypy).
_cards: ImperfectGame[CardState, int, CardObs] = HiddenCardGame()
_oneshot: ImperfectGame[int, int, int] = OneShot((0.0,))
_secret: ImperfectGame[SecretState, int, SecretObs] = SecretGame(0)
