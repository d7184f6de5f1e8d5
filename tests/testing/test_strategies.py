"""``durak.testing.strategies``: its examples are valid states of every variant (10,000 of
them under the default profile), the same hypothesis seed gives the same examples, a
failing example shrinks small, pins hold, and without hypothesis the import is one line
naming the extra (the checks need no hypothesis at all)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import Phase, find, given, seed, settings
from hypothesis import strategies as st

from durak.rules import GameState, Observation, Rules, is_terminal, legal_actions, observe
from durak.testing import check_state
from durak.testing.strategies import actions, observations, rules, states

#: Every player count, with and without transfers.
VARIANTS = [(n, t) for n in range(2, 7) for t in (False, True)]
#: Examples per variant: five times the profile's count (conftest.py), so 10,000 in all
#: under the default profile (about 45 s on the two-core development machine), 75 in all
#: under the mutation profile.
PER_VARIANT = 5 * settings().max_examples
#: For a test that needs an example, not the smallest one: shrinking depends on the seed
#: and took up to 27 s per search on the development machine (a whole CI run once hung in
#: it), so it is skipped, and the draw is derandomized.
FIRST = settings(database=None, derandomize=True, phases=[Phase.generate])


@pytest.mark.parametrize(("players", "transfer"), VARIANTS)
def test_every_example_is_a_valid_state(players: int, transfer: bool) -> None:
    seen = []

    @settings(max_examples=PER_VARIANT)
    @given(states(rules(players=players, transfer=transfer), terminal=True))
    def valid(state: GameState) -> None:
        assert state.rules.players == players and state.rules.transfer == transfer
        check_state(state)
        seen.append(state)

    valid()
    assert len(seen) >= PER_VARIANT * 9 // 10  # hypothesis may stop a little short
    assert any(is_terminal(s) for s in seen) and any(s.discard for s in seen)


@given(st.data())
def test_observations_and_actions_fit_their_state(data: st.DataObject) -> None:
    obs = data.draw(observations(rules(players=3), visibility=None))
    assert isinstance(obs, Observation) and obs.legal_actions
    state = data.draw(states(Rules(lowest_rank=10, hand_size=3)))
    assert not is_terminal(state)
    assert data.draw(actions(state)) in legal_actions(state)
    assert data.draw(observations(Rules(players=4), player=2)).player == 2


def test_a_terminal_state_has_no_actions_to_draw() -> None:
    end = find(
        states(Rules(lowest_rank=12, hand_size=1), terminal=True), is_terminal, settings=FIRST
    )
    with pytest.raises(ValueError, match="no legal actions"):
        actions(end)


def _examples(hypothesis_seed: int) -> list[tuple[object, ...]]:
    """The first 30 states (as deal seed, rules and move count) hypothesis draws under
    ``hypothesis_seed``, with no example database."""
    found: list[tuple[object, ...]] = []

    @seed(hypothesis_seed)
    @settings(max_examples=30, database=None)
    @given(states())
    def collect(state: GameState) -> None:
        found.append((state.rules, state.hand_masks, state.talon, state.table, state.turn))

    collect()
    return found


def test_the_same_hypothesis_seed_gives_the_same_examples() -> None:
    first = _examples(7)
    assert len(first) == 30
    assert first == _examples(7)
    assert first != _examples(8)


SMALLEST = Rules(
    players=2, lowest_rank=12, suits=4, hand_size=1, bout_cap=1, trumps=False, transfer=False
)


def test_a_failing_example_shrinks_to_a_small_game() -> None:
    # In a fresh interpreter: within a long session the shrinker was seen to run past the
    # suite's time limit on this search, whose shrinking alone takes about 5 s.
    subprocess.run(
        [sys.executable, "-c", "from tests.testing.test_strategies import shrinks; shrinks()"],
        cwd=Path(__file__).resolve().parents[2],
        check=True,
        timeout=480,
    )


def shrinks() -> None:
    """The smallest game with a discarded bout, with and without pinned fields."""
    plain = settings(database=None, max_examples=500, derandomize=True)
    first_success = find(states(), lambda s: bool(s.discard), settings=plain)
    assert first_success.rules == SMALLEST
    assert len(first_success.discard) == 2  # one attack beaten: one bout
    # Pinned fields stay pinned while the others shrink.
    pinned = find(
        states(rules(players=4, transfer=True)), lambda s: bool(s.discard), settings=plain
    )
    assert pinned.rules == attrs.evolve(SMALLEST, players=4, transfer=True)
    assert len(pinned.discard) == 2


def test_pins_hold_and_an_unknown_field_is_refused() -> None:
    drawn = find(
        rules(players=5, throw_in="neighbours", trumps=True), lambda r: r.suits == 4, settings=FIRST
    )
    assert (drawn.players, drawn.throw_in, drawn.trumps) == (5, "neighbours", True)
    assert drawn.players * drawn.hand_size <= drawn.deck_size
    with pytest.raises(TypeError, match="no field colour"):
        rules(colour="red")
    with pytest.raises(ValueError, match="depth must be >= 0"):
        states(depth=-1)


@given(states(Rules(players=3), depth=0))
def test_depth_zero_is_the_deal(state: GameState) -> None:
    assert not state.table and not state.discard and len(state.talon) == 36 - 3 * 6


NO_HYPOTHESIS = """
import sys
sys.modules["hypothesis"] = None  # as if not installed
from durak.rules import Rules
from durak.testing import check_agent, check_random_game
report = check_agent("greedy", Rules(lowest_rank=12, hand_size=2))
print(report.games, check_random_game(Rules(), 1).steps > 0)
import durak.testing.strategies
"""


def test_without_hypothesis_the_checks_run_and_the_strategies_name_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_HYPOTHESIS],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.stdout == "2 True\n", done.stderr
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "durak.extras.MissingExtraError: durak.testing.strategies needs hypothesis: "
        "pip install 'durak-lab[testing]'"
    )


def test_an_observation_strategy_uses_the_player_to_move_by_default() -> None:
    obs = find(observations(Rules(players=3)), lambda o: o.player == 2, settings=FIRST)
    assert obs.player == 2
    state = find(states(Rules(players=3)), lambda s: s.turn == 2, settings=FIRST)
    assert observe(state, state.turn).legal_actions == legal_actions(state)
