"""Small games for testing the generic searches of :mod:`durak.search`.

Every game here satisfies ``durak.search.protocol.Game`` (checked by mypy through the
annotated module-level assignments at the bottom):

* :class:`Nim`: two players, take 1..``max_take`` from one heap, the last to take wins.  The
  same position is reached at different ply depths (a transposition-table trap).
* :class:`TicTacToe`: the usual 3×3 game, a draw is worth 0.
* :class:`RandomTree`: a seeded random game of n players whose mover is drawn per node (so
  a player may move twice in a row), with vector payoffs ``>= 0`` summing to at most 1, or a
  zero-sum two-player variant ``(x, -x)``; optionally a DAG with skip edges, so one state can
  be reached at several ply depths.
* :class:`HiddenCardGame`: a two-player trick game with hidden hands where suit must be
  followed, an ``ImperfectGame``.
* :class:`OneShot`: one choice among fixed payoffs, where a search's root statistics
  follow from its selection rule alone.
* :class:`SecretGame`: a move one player never sees, so the other's information sets merge
  (or repeat along a path), an ``ImperfectGame``.

Helpers: :func:`random_evaluator` (a seeded, deliberately arbitrary value function),
:func:`shuffled_order` (a seeded move-ordering hook) and :class:`SpyGame` (a wrapper that
checks an imperfect-information search only sees states it got from ``sample_world``).
All are deterministic functions of their seeds.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, NamedTuple, TypeVar

import attrs

from durak.search.protocol import Game, ImperfectGame

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")
O = TypeVar("O", bound=Hashable)  # noqa: E741

#: The denominator of every random payoff: payoffs are multiples of 1/8, exact in binary.
GRAIN = 8

# --------------------------------------------------------------------------------------
# Nim

#: ``(heaps, player to move)``.
NimState = tuple[tuple[int, ...], int]
#: ``(heap index, how many to take)``.
NimAction = tuple[int, int]


@attrs.frozen
class Nim:
    """Normal-play Nim: take 1..``max_take`` objects from one heap; whoever takes the last
    object wins (+1, the other -1)."""

    heaps: tuple[int, ...]
    max_take: int = 3

    @property
    def num_players(self) -> int:
        """Two."""
        return 2

    def initial(self) -> NimState:
        """The start position, player 0 to move."""
        return (self.heaps, 0)

    def legal_actions(self, state: NimState) -> list[NimAction]:
        """Every ``(heap, take)`` with ``1 <= take <= min(heap, max_take)``."""
        heaps, _ = state
        return [(i, t) for i, h in enumerate(heaps) for t in range(1, min(h, self.max_take) + 1)]

    def step(self, state: NimState, action: NimAction) -> NimState:
        """Take ``action[1]`` from heap ``action[0]``."""
        heaps, player = state
        i, t = action
        return ((*heaps[:i], heaps[i] - t, *heaps[i + 1 :]), 1 - player)

    def current_player(self, state: NimState) -> int:
        """The player to move."""
        return state[1]

    def is_terminal(self, state: NimState) -> bool:
        """Every heap is empty."""
        return not any(state[0])

    def returns(self, state: NimState) -> tuple[float, float]:
        """The player to move at the end has lost (the other took the last object)."""
        if not self.is_terminal(state):
            return (0.0, 0.0)
        return (-1.0, 1.0) if state[1] == 0 else (1.0, -1.0)


# --------------------------------------------------------------------------------------
# Tic-tac-toe

#: Nine cells, row by row: 0 empty, 1 player 0's mark, 2 player 1's mark.
TTTState = tuple[int, ...]
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)


@attrs.frozen
class TicTacToe:
    """Tic-tac-toe; player 0 starts; a win is +1/-1, a draw 0."""

    @property
    def num_players(self) -> int:
        """Two."""
        return 2

    def initial(self) -> TTTState:
        """The empty board."""
        return (0,) * 9

    def winner(self, state: TTTState) -> int | None:
        """The player with three in a row, if any."""
        for a, b, c in LINES:
            if state[a] and state[a] == state[b] == state[c]:
                return state[a] - 1
        return None

    def legal_actions(self, state: TTTState) -> list[int]:
        """The empty cells, unless the game is over."""
        if self.winner(state) is not None:
            return []
        return [i for i, v in enumerate(state) if v == 0]

    def step(self, state: TTTState, action: int) -> TTTState:
        """Mark cell ``action`` for the player to move."""
        mark = self.current_player(state) + 1
        return (*state[:action], mark, *state[action + 1 :])

    def current_player(self, state: TTTState) -> int:
        """Player 0 when both have as many marks, else player 1."""
        return sum(1 for v in state if v) % 2

    def is_terminal(self, state: TTTState) -> bool:
        """A line is complete or the board is full."""
        return self.winner(state) is not None or all(state)

    def returns(self, state: TTTState) -> tuple[float, float]:
        """+1 for the winner, -1 for the loser, 0 each for a draw (or a game in progress)."""
        w = self.winner(state)
        if w is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)


# --------------------------------------------------------------------------------------
# Random game trees

#: A tree node is its action path; a DAG node is ``(level, id)``.
RTState = tuple[int, ...]


class _Node(NamedTuple):
    mover: int
    children: tuple[RTState, ...]
    payoff: tuple[float, ...] | None


def random_payoff(rng: random.Random, players: int, zero_sum: bool) -> tuple[float, ...]:
    """A payoff vector: ``(x, -x)`` with ``x`` in ``{-1, -3/4, ..., 1}`` if ``zero_sum``, else
    multiples of ``1/GRAIN``, each ``>= 0``, summing to at most 1 (often exactly 1, often
    with ties)."""
    if zero_sum:
        x = rng.randint(-4, 4) / 4
        return (x, 0.0 - x)
    cuts = sorted(rng.randint(0, GRAIN) for _ in range(players))
    parts = [b - a for a, b in itertools.pairwise([0, *cuts])]
    return tuple(p / GRAIN for p in parts)


@attrs.frozen
class RandomTree:
    """A seeded random game.

    Every node's properties are drawn from ``random.Random`` seeded with the game's
    parameters and the node: a node at level ``depth`` (or, with probability
    ``early_stop``, any non-root node) is terminal with a :func:`random_payoff`; otherwise it
    has 1..``branching`` children and a random mover among ``players``.

    With ``width=None`` the game is a tree whose states are action paths.  With a ``width``
    it is a DAG: states are ``(level, id)`` with ``id < width``, and a child is one or (with
    skip edges) two levels down, so transpositions are common and a state can be reached at
    several ply depths.  Actions are ``0 .. k-1``.
    """

    seed: int
    players: int = 2
    depth: int = 4
    branching: int = 3
    zero_sum: bool = False
    width: int | None = None
    early_stop: float = 0.15
    _cache: dict[RTState, _Node] = attrs.field(factory=dict, eq=False, repr=False, init=False)

    def __attrs_post_init__(self) -> None:
        if self.zero_sum and self.players != 2:
            raise ValueError("a zero-sum RandomTree has two players")

    @property
    def num_players(self) -> int:
        """``players``."""
        return self.players

    def initial(self) -> RTState:
        """The root."""
        return () if self.width is None else (0, 0)

    def level(self, state: RTState) -> int:
        """How far below the root a state lies (its number of plies on the longest path)."""
        return len(state) if self.width is None else state[0]

    def _node(self, state: RTState) -> _Node:
        node = self._cache.get(state)
        if node is None:
            node = self._make(state)
            self._cache[state] = node
        return node

    def _make(self, state: RTState) -> _Node:
        key = (self.seed, self.players, self.depth, self.branching, self.zero_sum, self.width)
        rng = random.Random(f"{key}/{state}")
        level = self.level(state)
        if level >= self.depth or (level > 0 and rng.random() < self.early_stop):
            return _Node(0, (), random_payoff(rng, self.players, self.zero_sum))
        mover = rng.randrange(self.players)
        k = rng.randint(1, self.branching)
        if self.width is None:
            children = tuple((*state, i) for i in range(k))
        else:
            kids = []
            for _ in range(k):
                skip = 2 if level + 2 <= self.depth and rng.random() < 0.3 else 1
                kids.append((level + skip, rng.randrange(self.width)))
            children = tuple(kids)
        return _Node(mover, children, None)

    def legal_actions(self, state: RTState) -> list[int]:
        """``0 .. k-1`` for a node with ``k`` children; empty at a leaf."""
        return list(range(len(self._node(state).children)))

    def step(self, state: RTState, action: int) -> RTState:
        """The ``action``-th child."""
        return self._node(state).children[action]

    def current_player(self, state: RTState) -> int:
        """The node's mover (0 at a leaf)."""
        return self._node(state).mover

    def is_terminal(self, state: RTState) -> bool:
        """Whether the node is a leaf."""
        return self._node(state).payoff is not None

    def returns(self, state: RTState) -> tuple[float, ...]:
        """The leaf's payoff (zeros inside the tree)."""
        payoff = self._node(state).payoff
        return (0.0,) * self.players if payoff is None else payoff


def random_evaluator(
    seed: int, players: int = 2, zero_sum: bool = True
) -> Callable[[Hashable], tuple[float, ...]]:
    """A value function that is a seeded pseudo-random function of the state's ``repr``,
    shaped like :func:`random_payoff` (so it respects the same bounds)."""

    def evaluate(state: Hashable) -> tuple[float, ...]:
        return random_payoff(random.Random(f"eval/{seed}/{state!r}"), players, zero_sum)

    return evaluate


def shuffled_order(seed: int) -> Callable[[Hashable, Sequence[A]], list[A]]:
    """A move-ordering hook: a seeded pseudo-random permutation of the actions that is a
    fixed function of the state (so every call at one state gives the same order)."""

    def order(state: Hashable, actions: Sequence[A]) -> list[A]:
        out = list(actions)
        random.Random(f"order/{seed}/{state!r}").shuffle(out)
        return out

    return order


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


# Structural checks of the protocols (mypy).
_nim: Game[NimState, NimAction] = Nim((1, 2))
_ttt: Game[TTTState, int] = TicTacToe()
_tree: Game[RTState, int] = RandomTree(0)
_cards: ImperfectGame[CardState, int, CardObs] = HiddenCardGame()
_oneshot: ImperfectGame[int, int, int] = OneShot((0.0,))
_secret: ImperfectGame[SecretState, int, SecretObs] = SecretGame(0)
_spy: ImperfectGame[CardState, int, CardObs] = SpyGame(
    HiddenCardGame(), HiddenCardGame().deal(0), []
)
