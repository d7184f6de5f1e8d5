"""Exhaustive model checking of small variants, perft style.

From fixed deals and endgame positions, every reachable state is visited (depth-first, with
a visited set keyed by the state itself: equal states are one state).  In every state the
invariants of ``invariants.check_invariants`` hold; every legal action steps, to a different
state; the transitions agree with the literal rules of ``rules_reference.py`` (all of them for the
first states, then a sample).  The graph of states is checked to be acyclic, which proves
that every game from that start ends.

The counts are pinned as golden numbers: any change to the rules engine that changes the
reachable game changes them.  A change that is *meant* to change the rules must update
them (and say why); an optimisation must not.  The number of distinct complete games and
the longest game depend only on the rules, not on how states are represented, so they are
the sharpest pins.  (Issue 22 replaced ``Knowledge.drawers``, which told apart states that
differ only in who has drawn, by ``origins``, kept only while a trump known to have been in
the talon is unseen: five decks and two depth-limited 12-card searches lost a few
hundred states, none lost a game.)

Size note.  The 12-card deck (``lowest_rank=12``) is out of reach: even two players with
``hand_size=1`` reach over three million states from one deal (takes let hands grow without
bound), and three players with two cards each and an empty talon over 300 000 (every order
of takes gives another repetition record).  The complete checks therefore use
the 8-card deck (kings and aces, ``lowest_rank=13``) for two players, 8-card endgames for
three and four players, the 4-card deck (aces) for full three- and four-player games and
the documented 36-card Perevodnoy endgame; the 12-card deals of two and three players are
checked completely up to a fixed depth instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import attrs
import pytest

from durak.rules import (
    Card,
    GameState,
    Rules,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    position,
    step,
)
from tests.support.invariants import check_invariants
from tests.support.rules_reference import check_step_matches_reference

#: Compare the transitions of the first states, then of every this many-th state, with the
#: reference model.
REFERENCE_FIRST = 2000
REFERENCE_EVERY = 5


@attrs.frozen
class Census:
    """What an exhaustive search found from one deal."""

    states: int
    terminals: int
    #: Distinct terminal states by outcome: ``"loser p"``, ``"draw"`` (every hand empty) or
    #: ``"repetition"`` (a draw by the repetition rule, with cards in hand).
    outcomes: dict[str, int]
    #: The number of distinct complete games (action sequences from the deal to the end).
    games: int
    #: The most decisions in any game.
    longest: int


def outcome(state: GameState) -> str:
    lost = loser(state)
    if lost is not None:
        return f"loser {lost}"
    return "draw" if not any(state.hands) else "repetition"


def explore(root: GameState) -> Census:
    """Visit every state reachable from ``root``; fail on any cycle."""
    # For each state: None while on the depth-first path (grey), then (games, longest).
    done: dict[GameState, tuple[int, int] | None] = {}
    outcomes: Counter[str] = Counter()
    visited = 0

    def expand(s: GameState) -> list[GameState]:
        nonlocal visited
        visited += 1
        check_invariants(s)
        children = []
        for a in legal_actions(s):
            t = step(s, a)
            assert t != s, f"{a} did not change the state"
            if visited <= REFERENCE_FIRST or visited % REFERENCE_EVERY == 0:
                check_step_matches_reference(s, a, t)
            children.append(t)
        if is_terminal(s):
            outcomes[outcome(s)] += 1
        return children

    done[root] = None
    stack: list[tuple[GameState, list[GameState], int]] = [(root, expand(root), 0)]
    while stack:
        s, children, i = stack[-1]
        if i < len(children):
            stack[-1] = (s, children, i + 1)
            t = children[i]
            if t in done:
                assert done[t] is not None, "a cycle: a game could go on forever"
                continue
            done[t] = None
            stack.append((t, expand(t), 0))
            continue
        stack.pop()
        if not children:
            done[s] = (1, 0)
        else:
            results = [done[t] for t in children]
            games = sum(r[0] for r in results if r is not None)
            longest = 1 + max(r[1] for r in results if r is not None)
            done[s] = (games, longest)
    top = done[root]
    assert top is not None
    return Census(len(done), sum(outcomes.values()), dict(outcomes), top[0], top[1])


def explore_to_depth(root: GameState, depth: int) -> tuple[int, ...]:
    """Visit every state within ``depth`` decisions of ``root`` (breadth first) and return
    how many distinct states are first reached at each depth 0..depth."""
    seen = {root}
    frontier = [root]
    counts = [1]
    for _ in range(depth):
        layer = []
        for s in frontier:
            check_invariants(s)
            for a in legal_actions(s):
                t = step(s, a)
                assert t != s, f"{a} did not change the state"
                if t not in seen:
                    seen.add(t)
                    layer.append(t)
        counts.append(len(layer))
        frontier = layer
    for s in frontier:
        check_invariants(s)
    return tuple(counts)


TWO = Rules(players=2, lowest_rank=13, hand_size=2)
TWO_TRANSFER = Rules(players=2, lowest_rank=13, hand_size=2, transfer=True)
#: The whole deck is dealt: the trump card is known in the last hand from the start.
TWO_WHOLE_DECK = Rules(players=2, lowest_rank=13, hand_size=4)
TWO_NO_TRUMPS = Rules(players=2, lowest_rank=13, hand_size=3, trumps=False)
TWO_CAPPED = Rules(
    players=2, lowest_rank=13, hand_size=2, bout_cap=2, first_bout_cap=1, transfer=True
)
THREE_ACES = Rules(players=3, lowest_rank=14, hand_size=1, transfer=True)
FOUR_ACES = Rules(players=4, lowest_rank=14, hand_size=1, throw_in="neighbours", transfer=True)
THREE = Rules(players=3, lowest_rank=13, hand_size=2)
THREE_TRANSFER = Rules(players=3, lowest_rank=13, hand_size=2, transfer=True, trumps=False)
FOUR = Rules(players=4, lowest_rank=13, hand_size=2)
FOUR_NEIGHBOURS = Rules(players=4, lowest_rank=13, hand_size=2, throw_in="neighbours")
#: The 36-card Perevodnoy endgame of docs/rules.md ("Transfer, even in 2 players"), which
#: can end in a draw by repetition.
PEREVODNOY = Rules(players=2, transfer=True)


def transfer_cycle() -> GameState:
    return position(PEREVODNOY, [["6S", "9C", "10C"], ["6H", "6D", "JC", "QC"]], Card.parse("AH"))


def three_player_endgame(rules: Rules) -> GameState:
    trump = Card.parse("AC") if rules.trumps else None
    return position(rules, [["KS", "AS"], ["KH", "AH"], ["KD"]], trump)


def deal(rules: Rules, seed: int) -> Callable[[], GameState]:
    return lambda: new_game(rules, seed)


def census(states: int, terminals: int, games: int, longest: int, **outcomes: int) -> Census:
    return Census(
        states, terminals, {k.replace("_", " "): v for k, v in outcomes.items()}, games, longest
    )


# (id, start, census): golden numbers computed once by this search and pinned.
def four_player_endgame(rules: Rules) -> GameState:
    """Player 1 defends against kings; players 2 and 3 each hold one more king."""
    return position(rules, [["KS", "KC"], ["AS", "AH"], ["KD"], ["KH"]], Card.parse("AD"))


CASES: list[tuple[str, Callable[[], GameState], Census]] = [
    (
        "2p-8c-h2-seed1",
        deal(TWO, 1),
        census(11035, 379, 607036, 33, draw=2, loser_0=178, loser_1=199),
    ),
    (
        "2p-8c-h2-seed2",
        deal(TWO, 2),
        census(11840, 402, 450820, 33, draw=2, loser_0=224, loser_1=176),
    ),
    (
        "2p-8c-h2-transfer-seed1",
        deal(TWO_TRANSFER, 1),
        census(67220, 18092, 1084309, 34, loser_0=7549, loser_1=10259, draw=284),
    ),
    (
        "2p-8c-h4-whole-deck-seed1",
        deal(TWO_WHOLE_DECK, 1),
        census(14638, 438, 278941, 27, draw=2, loser_0=277, loser_1=159),
    ),
    (
        "2p-8c-h3-no-trumps-seed0",
        deal(TWO_NO_TRUMPS, 0),
        census(6228, 125, 73031, 30, draw=2, loser_0=47, loser_1=76),
    ),
    (
        "2p-8c-h3-no-trumps-seed1",
        deal(TWO_NO_TRUMPS, 1),
        census(4286, 98, 83711, 30, draw=2, loser_0=38, loser_1=58),
    ),
    (
        "2p-8c-h2-capped-transfer-seed1",
        deal(TWO_CAPPED, 1),
        census(64157, 17769, 390557, 29, loser_0=7464, loser_1=10045, draw=260),
    ),
    ("3p-4c-h1-transfer-seed0", deal(THREE_ACES, 0), census(31, 9, 12, 9, loser_1=5, loser_2=4)),
    (
        "4p-4c-h1-neighbours-transfer-seed0",
        deal(FOUR_ACES, 0),
        census(21, 5, 8, 9, loser_0=1, loser_2=4),
    ),
    (
        "3p-8c-endgame",
        lambda: three_player_endgame(THREE),
        census(174, 44, 51, 16, loser_0=32, loser_1=12),
    ),
    (
        "3p-8c-endgame-transfer-no-trumps",
        lambda: three_player_endgame(THREE_TRANSFER),
        census(213, 56, 66, 16, loser_0=33, loser_1=23),
    ),
    (
        "4p-8c-endgame",
        lambda: four_player_endgame(FOUR),
        census(7178, 1933, 9708, 24, loser_0=737, loser_1=852, loser_3=319, draw=25),
    ),
    (
        "4p-8c-endgame-neighbours",
        lambda: four_player_endgame(FOUR_NEIGHBOURS),
        census(4274, 1155, 5639, 23, loser_0=274, loser_1=541, loser_3=319, draw=21),
    ),
    (
        "2p-36c-transfer-cycle",
        transfer_cycle,
        census(23417, 6122, 63503, 39, loser_0=3650, loser_1=2436, repetition=36),
    ),
]


@pytest.mark.parametrize(("make", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_reachable_state(make: Callable[[], GameState], expected: Census) -> None:
    root = make()
    census = explore(root)
    assert census == expected
    if root.rules.players == 2 and not root.rules.transfer:
        assert "repetition" not in census.outcomes


#: The 12-card variants, up to a depth that keeps each search near 20 000 states.
DEPTH_CASES: list[tuple[Rules, int, int, tuple[int, ...]]] = [
    (
        Rules(players=2, lowest_rank=12, hand_size=3),
        0,
        14,
        (1, 3, 6, 8, 20, 43, 63, 151, 261, 473, 985, 1691, 3046, 5731, 9740),
    ),
    (
        Rules(players=2, lowest_rank=12, hand_size=3),
        1,
        14,
        (1, 3, 3, 5, 10, 19, 24, 48, 103, 182, 383, 784, 1452, 3097, 5698),
    ),
    (
        Rules(players=2, lowest_rank=12, hand_size=3, transfer=True),
        0,
        12,
        (1, 3, 9, 16, 31, 103, 194, 453, 1043, 2022, 4287, 10318, 21483),
    ),
    (
        Rules(players=2, lowest_rank=12, hand_size=3, transfer=True),
        1,
        12,
        (1, 3, 5, 8, 17, 53, 101, 216, 538, 1083, 2291, 5778, 12633),
    ),
    (
        Rules(players=3, lowest_rank=12, hand_size=2),
        0,
        18,
        (1, 2, 2, 2, 4, 8, 12, 15, 33, 62, 102, 161, 307, 585, 935, 1478, 2738, 5554, 9929),
    ),
    (
        Rules(players=3, lowest_rank=12, hand_size=2),
        1,
        17,
        (1, 2, 3, 3, 5, 9, 13, 17, 32, 66, 132, 227, 408, 838, 1514, 2579, 4665, 9257),
    ),
]


@pytest.mark.parametrize(
    ("rules", "seed", "depth", "expected"),
    DEPTH_CASES,
    ids=[
        f"{r.players}p-12c-h{r.hand_size}{'-transfer' if r.transfer else ''}-seed{s}-depth{d}"
        for r, s, d, _ in DEPTH_CASES
    ],
)
def test_every_state_to_a_depth(
    rules: Rules, seed: int, depth: int, expected: tuple[int, ...]
) -> None:
    assert explore_to_depth(new_game(rules, seed), depth) == expected
