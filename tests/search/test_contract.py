"""``durak.search.testing.check_game`` on every toy game and on Durak (closed and open
world, across the rules variants), and on broken games, each of which it must reject."""

from __future__ import annotations

import itertools
import math
import random
import re
from typing import Any

import attrs
import numpy as np
import pytest

from durak.rules import DurakGame, Rules, new_game
from durak.search.arguments import SearchError
from durak.search.testing import GameContractError, check_game
from tests.support.imperfect_games import CardState, HiddenCardGame
from tests.support.toygames import Nim, RandomTree, TicTacToe

VARIANTS = [
    Rules(),
    Rules(players=3, transfer=True),
    Rules(players=4, throw_in="neighbours", first_bout_cap=5),
    Rules(players=5, trumps=False, lowest_rank=9, hand_size=4),
    Rules(players=6, transfer=True, bout_cap=4),
    Rules(lowest_rank=12, hand_size=4, transfer=True),
]


@pytest.mark.parametrize(
    ("game", "starts", "zero_sum"),
    [
        (Nim((3, 4, 5)), [Nim((3, 4, 5)).initial()], True),
        (TicTacToe(), [TicTacToe().initial()], True),
        (RandomTree(7, players=3, width=4), [RandomTree(7, players=3, width=4).initial()], False),
        (RandomTree(3, zero_sum=True), [RandomTree(3, zero_sum=True).initial()], True),
        (HiddenCardGame(), [HiddenCardGame().deal(s) for s in range(3)], True),
    ],
    ids=["nim", "tic-tac-toe", "3-player random tree", "zero-sum random tree", "hidden cards"],
)
def test_every_toy_game_keeps_the_contract(game: Any, starts: list[Any], zero_sum: bool) -> None:
    report = check_game(game, starts, random.Random(1), games=3, zero_sum=zero_sum)
    assert report.games == 3 * len(starts) and report.states > report.games


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
@pytest.mark.parametrize("open_world", [False, True], ids=["closed", "open"])
def test_durak_keeps_the_contract(rules: Rules, open_world: bool) -> None:
    game = DurakGame(rules, open_world)
    report = check_game(
        game, [new_game(rules, s) for s in range(2)], random.Random(2), games=1, zero_sum=True
    )
    assert report.observations == report.states * rules.players


# Broken games: each breaks one rule of the contract.


@attrs.define(eq=False)
class Box:
    """A state that compares by value but can be changed in place."""

    value: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class Count:
    """Add 1 or 2 until 5 or more; one player.  States are ``box`` instances."""

    num_players = 1
    box: type[Box] = Box

    def legal_actions(self, s: Box) -> tuple[int, ...]:
        return () if s.value >= 5 else (1, 2)

    def step(self, s: Box, a: int) -> Box:
        return self.box(s.value + a)

    def current_player(self, s: Box) -> int:
        return 0

    def is_terminal(self, s: Box) -> bool:
        return s.value >= 5

    def returns(self, s: Box) -> tuple[float, ...]:
        return (0.0,)


class Mutating(Count):
    def step(self, s: Box, a: int) -> Box:
        s.value += a
        return self.box(s.value)


class Shuffled(Count):
    """Alternates the order of its actions from one call to the next."""

    calls = itertools.count()

    def legal_actions(self, s: Box) -> tuple[int, ...]:
        if s.value >= 5:
            return ()
        return (1, 2) if next(self.calls) % 2 else (2, 1)


class Random(Count):
    """Each call of ``step`` adds one more than the last call did (never the same twice)."""

    calls = itertools.count()

    def step(self, s: Box, a: int) -> Box:
        return self.box(s.value + a + next(self.calls) % 2)


class ActsAfterTheEnd(Count):
    def legal_actions(self, s: Box) -> tuple[int, ...]:
        return (1,) if s.value >= 5 else (1, 2)


class NoOne(Count):
    def current_player(self, s: Box) -> int:
        return 1


class NotZeroSum(Count):
    num_players = 2

    def returns(self, s: Box) -> tuple[float, ...]:
        return (1.0, 1.0)


class WrongWorlds(HiddenCardGame):
    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        return self.deal(rng.randrange(10**6))


class Endless(Count):
    def is_terminal(self, s: Box) -> bool:
        return False

    def legal_actions(self, s: Box) -> tuple[int, ...]:
        return (1,)


class ListStates(Count):
    """Its states are lists, which cannot be hashed."""

    def legal_actions(self, s: Any) -> tuple[int, ...]:
        return () if s[0] >= 5 else (1, 2)


class NoPayoff(Count):
    def returns(self, s: Box) -> tuple[float, ...]:
        return ()


class NanPayoff(Count):
    def returns(self, s: Box) -> tuple[float, ...]:
        return (math.nan,)


class OutOfBounds(Count):
    num_players = 2
    payoff_bounds = (0.0, 0.0)

    def returns(self, s: Box) -> tuple[float, ...]:
        return (-1.0, 1.0)


class ListObservations(HiddenCardGame):
    def observe(self, state: Any, player: int) -> Any:
        return list(super().observe(state, player))


class FlipFlopWorlds(HiddenCardGame):
    """Alternates between the first and last consistent world, whatever the generator."""

    turns = itertools.cycle((0, -1))  # back at 0 after the two calls that catch it

    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        return self.worlds(obs)[next(self.turns)]


class HiddenLeader(HiddenCardGame):
    """Its observation leaves out who led first, and its worlds always have player 1 lead."""

    def observe(self, state: Any, player: int) -> Any:
        return super().observe(state, player)[:3]

    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        return super().sample_world((*obs, 1), rng)


class ReorderedWorlds(HiddenCardGame):
    """Its worlds hold the observer's hand in reverse order, which its observation hides."""

    def observe(self, state: Any, player: int) -> Any:
        p, hand, plays, leader = super().observe(state, player)
        return (p, tuple(sorted(hand)), plays, leader)

    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        world = super().sample_world(obs, rng)
        hands = list(world.hands)
        hands[obs[0]] = hands[obs[0]][::-1]
        return CardState((hands[0], hands[1]), world.plays, world.leader)


class HalfZeroSum(Count):
    num_players = 2

    def returns(self, s: Box) -> tuple[float, ...]:
        return (0.5, 0.0)


class OverTheSum(Count):
    num_players = 2
    payoff_bounds = (-1.0, -0.5)

    def returns(self, s: Box) -> tuple[float, ...]:
        return (0.25, -0.25)


@attrs.define(eq=False)
class Bag:
    """A state holding a list, compared and hashed by its contents."""

    items: list[int]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bag) and other.items == self.items

    def __hash__(self) -> int:
        return hash(tuple(self.items))


class MutatingDeep:
    """Changes the list inside its input state (a shallow copy would not see it)."""

    num_players = 1

    def legal_actions(self, s: Bag) -> tuple[int, ...]:
        return () if len(s.items) >= 3 else (1,)

    def step(self, s: Bag, a: int) -> Bag:
        s.items.append(a)
        return Bag(list(s.items))

    def current_player(self, s: Bag) -> int:
        return 0

    def is_terminal(self, s: Bag) -> bool:
        return len(s.items) >= 3

    def returns(self, s: Bag) -> tuple[float, ...]:
        return (0.0,)


AT_START = "start state 0, step 0"
AT_SOME_STEP = r"start state 0, step \d+"
BROKEN = [
    (Mutating(), Box(0), AT_START, "step changed its input state (action {1 or 2})"),
    (Shuffled(), Box(0), AT_START, "legal_actions gives a different sequence when asked again"),
    (Random(), Box(0), AT_START, "step is not deterministic (action {1 or 2})"),
    (
        ActsAfterTheEnd(),
        Box(0),
        AT_SOME_STEP,
        "legal_actions must be empty exactly at terminal states (terminal: True, 1 legal actions)",
    ),
    (NoOne(), Box(0), AT_START, "current_player 1 is not in range(1)"),
    (NotZeroSum(), Box(0), AT_SOME_STEP, "returns [1.0, 1.0] do not sum to zero"),
    (
        WrongWorlds(),
        HiddenCardGame().deal(1),
        AT_START,
        "a world sampled from player 0's observation does not give that observation back",
    ),
    (ListStates(), [0], AT_START, "the state is not hashable (unhashable type: 'list')"),
    (NoPayoff(), Box(0), AT_SOME_STEP, "returns [] must be 1 finite payoffs"),
    (NanPayoff(), Box(0), AT_SOME_STEP, "returns [nan] must be 1 finite payoffs"),
    (OutOfBounds(), Box(0), AT_SOME_STEP, "returns [-1.0, 1.0] break payoff_bounds (0.0, 0.0)"),
    (HalfZeroSum(), Box(0), AT_SOME_STEP, "returns [0.5, 0.0] do not sum to zero"),
    (OverTheSum(), Box(0), AT_SOME_STEP, "returns [0.25, -0.25] break payoff_bounds (-1.0, -0.5)"),
    (MutatingDeep(), Bag([]), AT_START, "step changed its input state (action 1)"),
    (
        ListObservations(),
        HiddenCardGame().deal(1),
        AT_START,
        "player 0's observation is not hashable (unhashable type: 'list')",
    ),
    (
        FlipFlopWorlds(),
        HiddenCardGame().deal(1),
        AT_START,
        "sample_world for player 0 is not a function of its generator's state",
    ),
    (
        HiddenLeader(),
        HiddenCardGame().deal(1),
        AT_START,
        "a world sampled for player 0 disagrees on whose turn it is or whether the game is over",
    ),
    (
        ReorderedWorlds(),
        HiddenCardGame().deal(1),
        AT_START,
        "a world sampled for player 0, the player to move, has other legal actions",
    ),
]


@pytest.mark.parametrize(
    ("game", "start", "where", "what"), BROKEN, ids=[type(b[0]).__name__ for b in BROKEN]
)
def test_a_broken_game_is_rejected_saying_where_and_what(
    game: Any, start: Any, where: str, what: str
) -> None:
    name = type(game).__name__
    # Which action a random game takes first is the generator's choice.
    said = re.escape(what).replace(re.escape("{1 or 2}"), "[12]")
    pattern = rf"{name}, {where}: {said}"
    with pytest.raises(GameContractError) as raised:
        check_game(game, [start], random.Random(3), games=3, zero_sum=True, max_steps=50)
    assert re.fullmatch(pattern, str(raised.value)), str(raised.value)


def test_a_game_that_never_ends_is_rejected_saying_after_how_many_steps() -> None:
    with pytest.raises(GameContractError) as raised:
        check_game(Endless(), [Box(0)], random.Random(3), max_steps=50)
    assert str(raised.value) == "Endless: a game from start state 0 did not end within 50 steps"


class FiveSteps(Count):
    """Adds 1 until 5: every game takes exactly five steps."""

    def legal_actions(self, s: Box) -> tuple[int, ...]:
        return () if s.value >= 5 else (1,)


class ObservedOnly(Count):
    """Has ``observe`` but no ``sample_world``: not an imperfect-information game."""

    def observe(self, s: Box, player: int) -> int:
        return s.value


def test_a_game_may_take_exactly_max_steps() -> None:
    assert check_game(FiveSteps(), [Box(0)], random.Random(0), games=1, max_steps=5).states == 6
    with pytest.raises(GameContractError) as raised:
        check_game(FiveSteps(), [Box(0)], random.Random(0), max_steps=4)
    assert str(raised.value) == "FiveSteps: a game from start state 0 did not end within 4 steps"


def test_the_defaults_play_two_games_and_allow_any_sum() -> None:
    game = RandomTree(7, players=3, width=4)
    report = check_game(game, [game.initial(), game.initial()], random.Random(0))
    assert report.games == 4 and report.observations == 0
    perfect = check_game(ObservedOnly(), [Box(0)], random.Random(0))
    assert perfect.games == 2 and perfect.observations == 0


@attrs.define(eq=False)
class SameHash(Box):
    """A ``Box`` whose hash never changes, so only equality can tell two apart."""

    def __hash__(self) -> int:
        return 0


class MutatingSameHash(Mutating):
    box = SameHash


class RandomSameHash(Random):
    box = SameHash


def test_a_change_that_keeps_the_hash_is_caught_by_equality() -> None:
    with pytest.raises(GameContractError) as raised:
        check_game(MutatingSameHash(), [SameHash(0)], random.Random(0))
    assert re.search(r"step changed its input state \(action [12]\)$", str(raised.value))
    with pytest.raises(GameContractError) as raised:
        check_game(RandomSameHash(), [SameHash(0)], random.Random(0))
    assert re.search(r"step is not deterministic \(action [12]\)$", str(raised.value))


class OnTheEdges(Count):
    """Payoffs summing to exactly 1e-9: the tolerance above zero and above ``max_sum``."""

    num_players = 3
    payoff_bounds = (-1.0, 0.0)

    def returns(self, s: Box) -> tuple[float, ...]:
        return (1e-9, 0.0, 0.0)


class LowestOnTheEdge(Count):
    """A payoff exactly 1e-9 (the tolerance) below ``min_value``."""

    num_players = 2
    payoff_bounds = (-1.0, 1.0)

    def returns(self, s: Box) -> tuple[float, ...]:
        return (-1.0 - 1e-9, 0.5)


def test_payoffs_exactly_at_the_tolerance_are_accepted() -> None:
    for game in (OnTheEdges(), LowestOnTheEdge()):
        assert check_game(game, [Box(0)], random.Random(0), games=1).states >= 4
    assert check_game(OnTheEdges(), [Box(0)], random.Random(0), games=1, zero_sum=True).games == 1


class NoMoverAtTheEnd(Count):
    """An imperfect-information game whose ``current_player`` refuses a finished game (the
    protocol asks it only of a game in play)."""

    def current_player(self, s: Box) -> int:
        if s.value >= 5:
            raise ValueError("nobody moves in a finished game")
        return 0

    def observe(self, s: Box, player: int) -> int:
        return s.value

    def sample_world(self, obs: int, rng: random.Random) -> Box:
        return Box(obs)


def test_check_game_never_asks_who_moves_in_a_finished_game() -> None:
    report = check_game(NoMoverAtTheEnd(), [Box(0)], random.Random(0), games=3)
    assert report.games == 3 and report.observations == report.states


# Issue 36: a game's own errors, and what it gives of the wrong kind, are findings naming
# the method, the start state and the step; bad arguments are refused.


class StepRaises(Count):
    def step(self, s: Box, a: int) -> Box:
        raise ValueError("no such move")


class ActionsNone(Count):
    def legal_actions(self, s: Box) -> Any:
        return None


class ReturnsNone(Count):
    def returns(self, s: Box) -> Any:
        return None


class ReturnsText(Count):
    def returns(self, s: Box) -> Any:
        return ("1",)


class TerminalRaises(Count):
    def is_terminal(self, s: Box) -> bool:
        raise RuntimeError


class MoverRaises(Count):
    def current_player(self, s: Box) -> int:
        raise KeyError(s.value)


@attrs.define(eq=False)
class Uncopyable(Box):
    def __deepcopy__(self, memo: object) -> Uncopyable:
        raise TypeError("cannot copy a live handle")


class UncopyableStates(Count):
    box = Uncopyable


@attrs.define(eq=False)
class Incomparable(Box):
    def __eq__(self, other: object) -> bool:
        raise ValueError("ambiguous")

    def __hash__(self) -> int:
        return 0


class IncomparableStates(Count):
    box = Incomparable


@attrs.define(eq=False)
class BadHash(Box):
    def __hash__(self) -> int:
        raise ValueError("no hash today")


class ObserveRaises(HiddenCardGame):
    def observe(self, state: Any, player: int) -> Any:
        raise IndexError(player)


class SampleRaises(HiddenCardGame):
    def sample_world(self, obs: Any, rng: random.Random) -> Any:
        raise ValueError("no world fits")


class BoolMover(Count):
    def current_player(self, s: Box) -> int:
        return False


GAME_ERRORS = [
    (StepRaises(), Box(0), AT_START, "step raised ValueError: no such move"),
    (ActionsNone(), Box(0), AT_START, "legal_actions gave None, not a sequence of actions"),
    (ReturnsNone(), Box(0), AT_SOME_STEP, "returns gave None, not a sequence of payoffs"),
    (ReturnsText(), Box(0), AT_SOME_STEP, "returns ['1'] must be 1 finite payoffs"),
    (TerminalRaises(), Box(0), AT_START, "is_terminal raised RuntimeError"),
    (MoverRaises(), Box(0), AT_START, "current_player raised KeyError: 0"),
    (
        UncopyableStates(),
        Uncopyable(0),
        AT_START,
        "the state cannot be deep-copied (TypeError: cannot copy a live handle)",
    ),
    (
        IncomparableStates(),
        Incomparable(0),
        AT_START,
        "comparing or hashing states raised ValueError: ambiguous",
    ),
    (Count(), BadHash(0), AT_START, "the state is not hashable (no hash today)"),
    (ObserveRaises(), HiddenCardGame().deal(1), AT_START, "observe raised IndexError: 0"),
    (
        SampleRaises(),
        HiddenCardGame().deal(1),
        AT_START,
        "sample_world raised ValueError: no world fits",
    ),
    (BoolMover(), Box(0), AT_START, "current_player False is not in range(1)"),
]


@pytest.mark.parametrize(
    ("game", "start", "where", "what"), GAME_ERRORS, ids=[type(b[0]).__name__ for b in GAME_ERRORS]
)
def test_a_games_own_error_is_a_finding_saying_where_and_what(
    game: Any, start: Any, where: str, what: str
) -> None:
    pattern = rf"{type(game).__name__}, {where}: {re.escape(what)}"
    with pytest.raises(GameContractError) as raised:
        check_game(game, [start], random.Random(3), games=3, max_steps=50)
    assert re.fullmatch(pattern, str(raised.value)), str(raised.value)


class JunkBounds(Count):
    payoff_bounds: Any = "(0, 1)"


class NoPlayers(Count):
    num_players: Any = "1"


@pytest.mark.parametrize(
    ("bounds", "shown"),
    [("(0, 1)", "'(0, 1)'"), ((0.0,), "(0.0,)"), ((0.0, math.nan), "(0.0, nan)"),
     ((False, 1.0), "(False, 1.0)"), ([0.0, 1.0], "[0.0, 1.0]")],
)  # fmt: skip
def test_junk_payoff_bounds_are_a_finding_naming_the_game(bounds: object, shown: str) -> None:
    game = JunkBounds()
    game.payoff_bounds = bounds
    with pytest.raises(GameContractError) as raised:
        check_game(game, [Box(0)], random.Random(0))
    assert str(raised.value) == (
        "JunkBounds: payoff_bounds must be (min_value, max_sum), two finite numbers, or None; "
        f"got {shown}"
    )


def test_a_player_count_that_is_not_a_positive_int_is_a_finding() -> None:
    for count, shown in (("1", "'1'"), (0, "0"), (True, "True")):
        game = NoPlayers()
        game.num_players = count
        with pytest.raises(GameContractError) as raised:
            check_game(game, [Box(0)], random.Random(0))
        assert str(raised.value) == f"NoPlayers: num_players must be a positive int, got {shown}"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"max_steps": -1}, "max_steps must be an int >= 0, got -1"),
        ({"max_steps": 2.5}, "max_steps must be an int >= 0, got 2.5"),
        ({"max_steps": True}, "max_steps must be an int >= 0, got True"),
        ({"games": 0}, "games must be an int >= 1, got 0"),
        ({"states": []}, "states must hold at least one start state"),
        ({"rng": "seed"}, "rng must be a random.Random or an int seed, got 'seed'"),
    ],
)
def test_bad_arguments_are_refused_saying_which(arguments: dict[str, Any], message: str) -> None:
    call: dict[str, Any] = {"states": [Box(0)], "rng": random.Random(0), **arguments}
    with pytest.raises(SearchError) as raised:
        check_game(Count(), **call)
    assert str(raised.value) == message


class NumpyMover(Count):
    """Says whose turn it is with a numpy integer, as a game built on arrays may."""

    def current_player(self, s: Box) -> int:
        return np.int64(0)  # type: ignore[return-value]


def test_a_numpy_integer_is_accepted_as_a_player_and_an_int_as_a_seed() -> None:
    report = check_game(NumpyMover(), [Box(0)], random.Random(0), games=2)
    assert report.games == 2 and report.states >= 6
    seeded = check_game(FiveSteps(), [Box(0)], 5, games=1)
    assert seeded.states == 6
