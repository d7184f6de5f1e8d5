"""The exact endgame solve at tables of three or more, once only two players hold cards.

The solve's value is checked against a plain exhaustive search over the engine in which
every player maximises its own return (no paranoid assumption), so the argument of
:func:`durak.agents.solver.solvable` is tested, not assumed.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable

import pytest

from durak.agents import make_agent, solver
from durak.agents.searchers import ismcts as ismcts_agent
from durak.arena.play.game import play_game
from durak.rules import (
    Attack,
    Card,
    Defend,
    DurakGame,
    GameState,
    Observation,
    Rules,
    Suit,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    position,
    returns,
    sample_world,
    step,
)
from durak.search import BudgetExhausted

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

NODES = 10**7


def _solved(observation: Observation) -> object:
    return solver.solved_result(observation, random.Random(0), nodes=NODES)


# --------------------------------------------------------------------------------------
# A position solved by hand


def _lead_position(players: int) -> tuple[GameState, int, int]:
    """Two players left, the rest out: the attacker holds 6S and AC, the defender 7S and
    KD, hearts are trumps (nobody holds one).  Seated so that roles rotate past out seats.

    By hand: leading AC wins (the defender cannot beat it and takes; the attacker leads
    6S, the defender beats it, and the attacker, out of cards, leaves the defender the
    durak).  Leading 6S loses (the defender beats it with 7S, nothing can be thrown in,
    the defender leads KD, which the attacker cannot beat: it takes and is the durak; had
    the defender taken 6S instead, AC would have ended it the other way)."""
    attacker, defender = (0, 1) if players == 3 else (3, 1)  # 4 players: seats 0 and 2 out
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[attacker], hands[defender] = ["6S", "AC"], ["7S", "KD"]
    state = position(Rules(players=players), hands, Suit.H, attacker=attacker)
    assert (state.turn, state.defender) == (attacker, defender)
    return state, attacker, defender


@pytest.mark.parametrize("players", [3, 4])
def test_the_attacker_leads_the_card_that_wins_with_two_left(players: int) -> None:
    state, attacker, _ = _lead_position(players)
    solved = solver.solved_result(observe(state, attacker), random.Random(0), nodes=NODES)
    assert solved is not None
    assert solved.action == Attack(Card.parse("AC"))  # the weakest card first would lose
    assert solved.value == pytest.approx(1 / (players - 1))
    agent = make_agent(f"solver:nodes={NODES},fallback=lowest")
    assert agent.act(observe(state, attacker), random.Random(0)) == Attack(Card.parse("AC"))


@pytest.mark.parametrize("players", [3, 4])
def test_the_defender_beats_rather_than_takes_and_a_lost_lead_gives_none(players: int) -> None:
    state, attacker, defender = _lead_position(players)
    after = step(state, Attack(Card.parse("6S")))
    solved = solver.solved_result(observe(after, defender), random.Random(0), nodes=NODES)
    assert solved is not None
    assert solved.action == Defend(Card.parse("6S"), Card.parse("7S"))
    assert solved.value == pytest.approx(1 / (players - 1))
    beaten = step(after, solved.action)
    assert beaten.turn == attacker and len(legal_actions(beaten)) == 1  # only Pass
    assert _solved(observe(beaten, attacker)) is None  # lost for the attacker: no solve


# --------------------------------------------------------------------------------------
# Agreement with an exhaustive search in which each player maximises its own return


def _best_returns(state: GameState, memo: dict[GameState, tuple[float, ...]]) -> tuple[float, ...]:
    """The returns when every mover picks a move best for itself (the first of equals)."""
    if state in memo:
        return memo[state]
    if is_terminal(state):
        found = tuple(returns(state))
    else:
        mover = state.turn
        assert state.hand_masks[mover], "a player with no cards was asked to move"
        children = [_best_returns(step(state, a), memo) for a in legal_actions(state)]
        found = max(children, key=lambda r: r[mover])
    memo[state] = found
    return found


def _two_left(state: GameState) -> bool:
    return not state.talon and sum(1 for m in state.hand_masks if m) <= 2


def _small_endgame(rules: Rules, seed: int, cards: int) -> GameState | None:
    """Random play from ``seed``'s deal up to the first position with an empty talon, two
    players (or one) holding cards and at most ``cards`` cards in hands and on the table;
    ``None`` if the game ends first."""
    rng = random.Random(seed)
    state = new_game(rules, seed)
    while not is_terminal(state):
        held = sum(m.bit_count() for m in state.hand_masks) + len(state.table)
        if _two_left(state) and held <= cards:
            return state
        state = step(state, rng.choice(legal_actions(state)))
    return None


@pytest.mark.parametrize(
    ("players", "lowest", "hand"), [(3, 12, 4), (3, 10, 6), (4, 11, 4), (4, 10, 5)]
)
def test_the_solve_equals_exhaustive_best_play(players: int, lowest: int, hand: int) -> None:
    rules = Rules(players=players, lowest_rank=lowest, hand_size=hand)
    memo: dict[GameState, tuple[float, ...]] = {}
    outcomes: list[float] = []
    for seed in range(200):
        state = _small_endgame(rules, seed, cards=5)
        if state is None:
            continue
        mover = state.turn
        exact = _best_returns(state, memo)[mover]
        obs = observe(state, mover)
        assert solver.solvable(obs)
        solved = solver.solved_result(obs, random.Random(seed), nodes=NODES)
        if exact < 0:
            assert solved is None, seed  # lost against best play: no solve
        else:
            assert solved is not None, seed
            assert solved.value == exact, seed
            assert _best_returns(step(state, solved.action), memo)[mover] == exact, seed
        outcomes.append(exact)
    assert len(outcomes) >= 10, outcomes
    assert {-1.0, 1 / (players - 1)} <= set(outcomes), outcomes  # won and lost positions met


# --------------------------------------------------------------------------------------
# What is refused


def _late_position(rules: Rules, seed: int, fits: Callable[[GameState], bool]) -> GameState:
    """The first decision with a choice of moves that ``fits``, in random play from the
    deals of ``seed`` on."""
    rng = random.Random(seed)
    for attempt in range(200):
        state = new_game(rules, seed * 1000 + attempt)
        while not is_terminal(state):
            if len(legal_actions(state)) > 1 and fits(state):
                return state
            state = step(state, rng.choice(legal_actions(state)))
    raise AssertionError("no such position")


def _holding(count: int) -> Callable[[GameState], bool]:
    """Whether the talon is empty and ``count`` players hold cards."""
    return lambda s: not s.talon and sum(1 for m in s.hand_masks if m) == count


def _paranoid_value(state: GameState) -> float:
    """The paranoid solve's value for the mover (``-inf`` beyond 100,000 nodes)."""
    try:
        return solver.solve_endgame(DurakGame(state.rules), state, nodes=100_000).value
    except BudgetExhausted:
        return -math.inf


def test_three_players_holding_cards_or_a_hidden_card_give_none() -> None:
    # Three hold cards, every hand shown: one world, and a paranoid value that is not lost,
    # so only the count of players left refuses it (that value is not the game's).
    hands = [["AS", "AC"], ["7S", "8D"], ["KD", "9C"]]
    three = position(Rules(players=3), hands, Suit.H)
    assert _paranoid_value(three) >= 0
    seen = observe(three, three.turn, True)
    assert solver.determined(seen) and not solver.two_left(seen)
    assert not solver.solvable(seen) and _solved(seen) is None
    assert _solved(observe(three, three.turn)) is None  # two hands unknown
    # A player out of cards in mid-bout while the talon lasts draws again: not out.  The
    # defender's paranoid value is a win here, so only the talon refuses the solve.
    lead = position(
        Rules(players=3), [["6S"], ["7S", "8S"], ["9C"]], Card.parse("KH"), ["AD", "KH"]
    )
    drawing = step(lead, Attack(Card.parse("6S")))
    assert drawing.hand_masks[0] == 0 and drawing.talon and _paranoid_value(drawing) >= 0
    shown = observe(drawing, drawing.turn, "full")  # the talon's order shown too
    assert solver.determined(shown) and not solver.two_left(shown)
    assert _solved(shown) is None


# --------------------------------------------------------------------------------------
# Leak-free, legal and reproducible play at three players

ENDGAME_SPECS = ["solver:nodes=20000,fallback=ismcts:limit=10", "ismcts:limit=20,endgame=20000"]


@pytest.mark.parametrize("spec", ENDGAME_SPECS)
@pytest.mark.parametrize("holding", [2, 3])
def test_endgame_agents_at_three_players_see_only_the_observation(spec: str, holding: int) -> None:
    """A state and another that its mover cannot tell apart get the same decision."""
    rules = Rules(players=3, lowest_rank=11, hand_size=4)
    state = _late_position(rules, 3, _holding(holding))
    obs = observe(state, state.turn)
    worlds = [sample_world(obs, random.Random(k)) for k in range(40)]
    assert all(observe(w, state.turn) == obs for w in worlds)
    twins = [w for w in worlds if w != state]
    # With two left every card is known; with three the hidden cards can lie otherwise.
    assert bool(twins) == (holding == 3)
    agent = make_agent(spec)
    decisions = {agent.act(observe(s, s.turn), random.Random(9)) for s in [state, *twins[:3]]}
    assert len(decisions) == 1


def _counting(calls: list[bool], solve: Callable[..., object]) -> Callable[..., object]:
    def counted(*args: object, **kwargs: object) -> object:
        result = solve(*args, **kwargs)
        calls.append(result is not None)
        return result

    return counted


def test_ismcts_endgame_plays_legal_reproducible_three_player_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(ismcts_agent, "solved_result", _counting(calls, solver.solved_result))
    rules = Rules(players=3, lowest_rank=10, hand_size=5)
    for seed in range(5, 8):  # the searcher reaches a won two-left endgame in each
        specs = ["ismcts:limit=20,endgame=20000", "greedy", "greedy"]
        first = play_game(rules, [make_agent(s) for s in specs], seed)
        again = play_game(rules, [make_agent(s) for s in specs], seed)
        assert first.actions == again.actions
    assert any(calls), "no endgame was solved in these games: the test would prove nothing"
