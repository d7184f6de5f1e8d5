"""``check_game`` on games that give values of the wrong kind (issue 47): a string for
``is_terminal``, a payoff past the float range, a property that raises, numpy arrays of
states or actions.  Each is a :class:`GameContractError` naming the game (and, for what a
state gives, the start state and the step), or a :class:`SearchError` for a bad argument;
never a raw error."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest

from durak.search.arguments import SearchError
from durak.search.testing import GameContractError, check_game


class Count:
    """Add 1 or 2 until 5 or more; one player.  States are ints."""

    num_players = 1

    def legal_actions(self, s: int) -> tuple[int, ...]:
        return () if s >= 5 else (1, 2)

    def step(self, s: int, a: int) -> int:
        return s + a

    def current_player(self, s: int) -> int:
        return 0

    def is_terminal(self, s: int) -> bool:
        return s >= 5

    def returns(self, s: int) -> tuple[Any, ...]:
        return (1.0,)


class Words(Count):
    def is_terminal(self, s: int) -> Any:
        return "yes" if s >= 5 else "no"


class NumpyTerminal(Count):
    """Says whether the game is over with a numpy bool, as a game built on arrays may."""

    def is_terminal(self, s: int) -> Any:
        return np.bool_(s >= 5)


class Huge(Count):
    def returns(self, s: int) -> tuple[Any, ...]:
        return (10**400,)


class Enormous(Count):
    """A payoff whose decimal digits are more than Python will print."""

    def returns(self, s: int) -> tuple[Any, ...]:
        return (-(10**5000),)


class HugeBounds(Count):
    payoff_bounds = (0.0, 10**400)


class PlayersRaise(Count):
    @property
    def num_players(self) -> int:  # type: ignore[override]
        raise RuntimeError("not connected")


class BoundsRaise(Count):
    @property
    def payoff_bounds(self) -> tuple[float, float]:
        raise ValueError("bounds unknown")


class ObserveRaisesOnRead(Count):
    """An ``observe`` property that raises: reading it is the game's own error."""

    @property
    def observe(self) -> Any:
        raise RuntimeError("no observer")

    def sample_world(self, o: Any, rng: random.Random) -> int:
        return 0


class ArrayActions(Count):
    """Its actions are numpy arrays, which do not compare to a single truth value."""

    def legal_actions(self, s: int) -> tuple[Any, ...]:
        return () if s >= 5 else (np.array([1, 0]), np.array([2, 0]))

    def step(self, s: int, a: Any) -> int:
        return s + int(a[0])


def contract_error(game: Any, states: Any) -> str:
    with pytest.raises(GameContractError) as raised:
        check_game(game, states, random.Random(3), games=2, max_steps=50)
    return str(raised.value)


def test_an_is_terminal_that_is_not_a_bool_is_a_finding() -> None:
    assert (
        contract_error(Words(), [0])
        == "Words, start state 0, step 0: is_terminal gave 'no', not a bool"
    )
    # At the end too: "yes" is not True.
    said = contract_error(Words(), [7])
    assert said == "Words, start state 0, step 0: is_terminal gave 'yes', not a bool"


def test_a_numpy_bool_is_accepted_from_is_terminal() -> None:
    assert check_game(NumpyTerminal(), [0, 3], random.Random(0), games=2).games == 4


@pytest.mark.parametrize(
    ("game", "shown"),
    [(Huge(), "<an int of 1329 bits>"), (Enormous(), "<a negative int of 16610 bits>")],
    ids=["10**400", "-10**5000"],
)
def test_a_payoff_past_the_float_range_is_a_finding(game: Any, shown: str) -> None:
    said = contract_error(game, [0])
    pattern = rf"{type(game).__name__}, start state 0, step \d: returns \[{shown}\] "
    assert re.fullmatch(pattern + "must be 1 finite payoffs", said), said


def test_a_bound_past_the_float_range_is_a_finding() -> None:
    assert contract_error(HugeBounds(), [0]) == (
        "HugeBounds: payoff_bounds must be (min_value, max_sum), two finite numbers, or None; "
        "got (0.0, <an int of 1329 bits>)"
    )


@pytest.mark.parametrize(
    ("game", "said"),
    [
        (PlayersRaise(), "PlayersRaise: reading num_players raised RuntimeError: not connected"),
        (BoundsRaise(), "BoundsRaise: reading payoff_bounds raised ValueError: bounds unknown"),
        (
            ObserveRaisesOnRead(),
            "ObserveRaisesOnRead: reading observe raised RuntimeError: no observer",
        ),
    ],
    ids=["num_players", "payoff_bounds", "observe"],
)
def test_a_property_that_raises_is_a_finding_naming_it(game: Any, said: str) -> None:
    assert contract_error(game, [0]) == said


def test_a_numpy_array_of_states_is_read_as_its_rows() -> None:
    report = check_game(Count(), np.array([0, 3]), random.Random(1), games=2)
    assert report.games == 4 and report.states > 4
    # One start state is not none: the array's truth value is not asked.
    assert check_game(Count(), np.array([0]), random.Random(1), games=1).games == 1


def test_a_numpy_array_of_unhashable_states_is_a_finding() -> None:
    said = contract_error(Count(), np.array([[0], [3]]))
    assert said == (
        "Count, start state 0, step 0: the state is not hashable (unhashable type: 'numpy.ndarray')"
    )


@pytest.mark.parametrize(
    ("states", "said"),
    [
        (
            np.array(0),
            "states could not be read as a sequence: TypeError: iteration over a 0-d array",
        ),
        ("03", "states must be a sequence of start states, got '03'"),
        ({0, 3}, "states must be a sequence of start states, got {0, 3}"),
        ({0: 3}, "states must be a sequence of start states, got {0: 3}"),
        (7, "states must be a sequence of start states, got 7"),
        (np.array([], dtype=int), "states must hold at least one start state"),
    ],
    ids=["0-d array", "text", "set", "mapping", "int", "empty array"],
)
def test_states_that_are_no_sequence_are_refused(states: Any, said: str) -> None:
    with pytest.raises(SearchError) as raised:
        check_game(Count(), states, random.Random(0))
    assert str(raised.value) == said


def test_actions_that_do_not_compare_are_a_finding() -> None:
    said = contract_error(ArrayActions(), [0])
    assert re.fullmatch(
        r"ArrayActions, start state 0, step 0: comparing legal actions raised ValueError: "
        r"The truth value of an array with more than one element is ambiguous.*",
        said,
    ), said
