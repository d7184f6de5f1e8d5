"""Hypothesis strategies for Durak: rules, reachable states, observations and actions.

Needs the ``testing`` extra (``pip install 'durak-lab[testing]'``, which brings
hypothesis); without it, importing this module raises one line naming the extra.

Every strategy shrinks towards a small, plain example: two players, a 12-card deck of four
suits, one-card hands, the first legal action at every step and as few steps as the
failure allows.  A state is reached by playing from a seeded deal, each move drawn by
hypothesis among the legal actions, so a failing state shrinks move by move (and its deal
seed towards 0) instead of jumping to an unrelated game.

>>> from hypothesis import given, settings
>>> from durak.testing import check_state
>>> from durak.testing.strategies import states
>>> @settings(max_examples=20, deadline=None)
... @given(states())
... def test_states_are_valid(state):
...     check_state(state)
>>> test_states_are_valid()
"""

from __future__ import annotations

import functools
from typing import Any

from durak.extras import needs
from durak.rules import (
    VISIBILITIES,
    Action,
    GameState,
    Observation,
    Rules,
    Visibility,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    step,
)

with needs("durak.testing.strategies", "testing"):
    from hypothesis import strategies as st

__all__ = [
    "DEFAULT_DEPTH",
    "LOWEST_RANKS",
    "SUITS",
    "actions",
    "observations",
    "rules",
    "seeds",
    "states",
]

#: The ranks a deck may start from, the smallest deck first (12, 20, 24, 32, 36 and 52
#: cards), so that hypothesis shrinks towards a small deck.
LOWEST_RANKS: tuple[int, ...] = (12, 10, 9, 7, 6, 2)
#: The suit counts a deck may have; four (the usual decks) first, what hypothesis shrinks
#: towards.
SUITS: tuple[int, ...] = (4, 2, 3, 1)
#: The most moves :func:`states` plays from the deal when no ``depth`` is given: more than
#: most random games last, so that late states and (on request) terminal ones come up.
DEFAULT_DEPTH = 400
#: The fields of :class:`~durak.rules.Rules` that :func:`rules` draws, and may pin.
FIELDS = (
    "players",
    "lowest_rank",
    "suits",
    "hand_size",
    "bout_cap",
    "first_bout_cap",
    "throw_in",
    "transfer",
    "trumps",
)


def seeds() -> st.SearchStrategy[int]:
    """Seeds for :func:`~durak.rules.new_game` and random generators (shrinking to 0)."""
    return _SEEDS


_SEEDS = st.integers(0, 2**32 - 1)


@functools.cache
def _depths(depth: int) -> st.SearchStrategy[int]:
    return st.integers(0, depth)


def rules(**pins: Any) -> st.SearchStrategy[Rules]:
    """Any valid :class:`~durak.rules.Rules`: 2-6 players, any deck of :data:`LOWEST_RANKS`
    in 1-4 suits with room for every hand, hand size 1-6, caps 1-6, every throw-in,
    transfer and trump option.  Keyword arguments pin fields
    (``rules(players=3, transfer=True)``); the others are drawn to fit them.  ``TypeError``
    for a field that is not one of :data:`FIELDS`.
    """
    unknown = sorted(set(pins) - set(FIELDS))
    if unknown:
        raise TypeError(
            f"rules() has no field {', '.join(unknown)}; pin any of {', '.join(FIELDS)}"
        )
    return _rules(pins)


# The strategies of the fields, made once (building a strategy costs more than a draw).
_PLAYERS = st.integers(2, 6)
_CAPS = st.integers(1, 6)
_FIRST_CAP = st.none() | _CAPS
_THROW_IN = st.sampled_from(("all", "neighbours"))
_FLAG = st.booleans()


@functools.cache
def _among(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


@functools.cache
def _up_to(high: int) -> st.SearchStrategy[int]:
    return st.integers(1, high)


@st.composite
def _rules(draw: st.DrawFn, pins: dict[str, Any]) -> Rules:
    def pick(name: str, options: st.SearchStrategy[Any]) -> Any:
        return pins[name] if name in pins else draw(options)

    n = pick("players", _PLAYERS)
    least = n * pins.get("hand_size", 1)
    suits = pick("suits", _among(tuple(s for s in SUITS if s * 13 >= least) or SUITS))
    ranks = tuple(r for r in LOWEST_RANKS if suits * (15 - r) >= least)
    lowest = pick("lowest_rank", _among(ranks or LOWEST_RANKS))
    deck = suits * (15 - lowest)
    return Rules(
        players=n,
        lowest_rank=lowest,
        suits=suits,
        hand_size=pick("hand_size", _up_to(max(1, min(6, deck // n)))),
        bout_cap=pick("bout_cap", _CAPS),
        first_bout_cap=pick("first_bout_cap", _FIRST_CAP),
        throw_in=pick("throw_in", _THROW_IN),
        transfer=pick("transfer", _FLAG),
        trumps=pick("trumps", _FLAG),
    )


def states(
    rules: Rules | st.SearchStrategy[Rules] | None = None,
    *,
    depth: int | None = None,
    terminal: bool = False,
) -> st.SearchStrategy[GameState]:
    """States reachable in a game of ``rules`` (a :class:`~durak.rules.Rules`, a strategy
    of them, or ``None`` for any :func:`rules`): a seeded deal, then up to ``depth`` moves
    (:data:`DEFAULT_DEPTH` if ``None``; 0: the deal), each drawn among the legal actions.

    A game that ends before the drawn number of moves gives its terminal state if
    ``terminal``, else the state before the last move, so that without ``terminal`` every
    state has a player to move.  ``ValueError`` for a negative ``depth``.
    """
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    drawn = _rules({}) if rules is None else rules
    given = drawn if isinstance(drawn, st.SearchStrategy) else st.just(drawn)
    return _states(given, DEFAULT_DEPTH if depth is None else depth, terminal)


@st.composite
def _states(
    draw: st.DrawFn, rules: st.SearchStrategy[Rules], depth: int, terminal: bool
) -> GameState:
    state = new_game(draw(rules), draw(_SEEDS))
    moves = draw(_depths(depth))
    # Two bytes choose each move (shrinking to 0, the first legal action): one draw for
    # the whole walk, which costs a fraction of a draw per move.
    choices = draw(_walk(moves))
    for k in range(moves):
        legal = legal_actions(state)
        after = step(state, legal[(choices[2 * k] << 8 | choices[2 * k + 1]) % len(legal)])
        if is_terminal(after) and not terminal:
            break
        state = after
        if is_terminal(state):
            break
    return state


@functools.cache
def _walk(moves: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=2 * moves, max_size=2 * moves)


def observations(
    rules: Rules | st.SearchStrategy[Rules] | None = None,
    *,
    player: int | None = None,
    visibility: Visibility | None = False,
    depth: int | None = None,
) -> st.SearchStrategy[Observation]:
    """Observations of :func:`states` of ``rules`` (never terminal): by ``player`` if
    given (it must be a seat of every drawn rules), else by the player to move, with
    ``visibility`` (``False``: closed world, ``True``: open, ``"full"``; ``None``: any).
    """
    see: st.SearchStrategy[Visibility] = (
        st.sampled_from(VISIBILITIES) if visibility is None else st.just(visibility)
    )
    return _observations(states(rules, depth=depth), player, see)


@st.composite
def _observations(
    draw: st.DrawFn,
    drawn: st.SearchStrategy[GameState],
    player: int | None,
    visibility: st.SearchStrategy[Visibility],
) -> Observation:
    state = draw(drawn)
    who = state.turn if player is None else player
    return observe(state, who, open_world=draw(visibility))


def actions(state: GameState) -> st.SearchStrategy[Action]:
    """A legal action of ``state`` (shrinking to the first in canonical order);
    ``ValueError`` for a terminal state, which has none."""
    legal = legal_actions(state)
    if not legal:
        raise ValueError("a terminal state has no legal actions")
    return st.sampled_from(legal)
