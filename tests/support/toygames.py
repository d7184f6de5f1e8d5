"""Small perfect-information games for testing the generic searches of :mod:`durak.search`.

Every game here satisfies ``durak.search.protocol.Game`` (checked by mypy through the
annotated module-level assignments at the bottom):

* :class:`Nim`: two players, take 1..``max_take`` from one heap, the last to take wins.  The
  same position is reached at different ply depths (a transposition-table trap).
* :class:`TicTacToe`: the usual 3×3 game, a draw is worth 0.
* :class:`RandomTree`: a seeded random game of n players whose mover is drawn per node (so
  a player may move twice in a row), with vector payoffs ``>= 0`` summing to at most 1, or a
  zero-sum two-player variant ``(x, -x)``; optionally a DAG with skip edges, so one state can
  be reached at several ply depths.

Helpers: :func:`random_payoff` (the payoffs of :class:`RandomTree`), :func:`random_evaluator`
(a seeded, deliberately arbitrary value function) and :func:`shuffled_order` (a seeded
move-ordering hook).  All are deterministic functions of their seeds.  The
imperfect-information games are in :mod:`tests.support.imperfect_games`, and the spy that
checks what such a search sees in :mod:`tests.support.leak_spy`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple, TypeVar

import attrs

from durak.search.protocol import Game

A = TypeVar("A")

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


# Structural checks of the protocol (mypy).
_nim: Game[NimState, NimAction] = Nim((1, 2))
_ttt: Game[TTTState, int] = TicTacToe()
_tree: Game[RTState, int] = RandomTree(0)
