"""``python_durak`` states as data: serialization that runs nothing and checks every
action, resampled states whose history is a past of their own world, and one-line errors
for bad players, samplers and action ids."""

from __future__ import annotations

import base64
import pickle
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.extras import require_extra

pyspiel = require_extra("pyspiel")

from durak.interop.openspiel import (  # noqa: E402
    DurakOpenSpielGame,
    DurakOpenSpielState,
    StateStringError,
    game_string,
)
from durak.rules import (  # noqa: E402
    GameState,
    IllegalActionError,
    Rules,
    RulesError,
    deck_cards,
    new_game,
    observe,
)

#: 2 and 3 players, a leader drawn by chance (no trumps), every card dealt (6 players).
CONFIGS = [
    Rules(lowest_rank=10, hand_size=4),
    Rules(),
    Rules(players=3, lowest_rank=9, hand_size=4, transfer=True),
    Rules(players=3, throw_in="neighbours"),
    Rules(lowest_rank=9, trumps=False),
    Rules(players=6, lowest_rank=9, hand_size=4),
]
IDS = [game_string(r).removeprefix("python_durak") for r in CONFIGS]


def load(rules: Rules) -> DurakOpenSpielGame:
    game: DurakOpenSpielGame = pyspiel.load_game(game_string(rules))
    return game


def random_play(game: DurakOpenSpielGame, seed: int) -> Iterator[DurakOpenSpielState]:
    """Every state of one uniformly random game (the same object, moved on)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        yield state


def replayed(game: DurakOpenSpielGame, history: list[int]) -> DurakOpenSpielState:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def one_line(error: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(error.value)
    assert text and "\n" not in text
    return text


def old_format(history: list[tuple[int, int]], attributes: object) -> str:
    """A string in OpenSpiel's default format for Python games: the history, the move
    number and a base64 pickle of the state's attributes."""
    moves = ",".join(f"{p}:{a}" for p, a in history)
    blob = base64.b64encode(pickle.dumps(attributes)).decode()
    return f"history={moves}\nmove_number={len(history)}\n__dict__={blob}"


class Marker:
    """Unpickling this creates the file ``path``: what a forged string's payload does."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Callable[..., object], tuple[str, str]]:
        return open, (str(self.path), "w")


# --- serialization: data only, replayed and checked ----------------------------------------


def attempt(read: Callable[[str], object], text: str) -> Exception | None:
    """The error ``read(text)`` raises, if any (caught, so that its side effects are
    checked first)."""
    try:
        read(text)
    except Exception as error:  # whatever it is, it is checked after
        return error
    return None


@pytest.mark.parametrize("via", ["game", "load_game"])
def test_a_forged_pickle_in_a_state_string_runs_nothing(tmp_path: Path, via: str) -> None:
    rules = Rules(lowest_rank=12, hand_size=2)
    game = load(rules) if via == "game" else pyspiel.load_game("python_durak(lowest_rank=12)")
    marker = tmp_path / "ran"
    error = attempt(game.deserialize_state, old_format([(-1, 0)], {"_payload": Marker(marker)}))
    assert not marker.exists(), "the forged string's pickle ran"
    assert isinstance(error, StateStringError), error
    assert isinstance(error, pyspiel.SpielError) and isinstance(error, RulesError)
    assert "not a python_durak state" in str(error) and "\n" not in str(error)
    # The payload hidden in a field of our own format is not read either.
    blob = base64.b64encode(pickle.dumps(Marker(marker))).decode()
    error = attempt(game.deserialize_state, f"game={game_string(game.rules)}\nhistory={blob}")
    assert not marker.exists(), "the forged string's pickle ran"
    assert isinstance(error, StateStringError), error


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_a_serialized_state_is_data_replayed_to_the_same_state(rules: Rules) -> None:
    game, again_game = load(rules), load(rules)
    for seed in range(2):
        for k, state in enumerate(random_play(game, seed)):
            if k % 11 != 3 and not state.is_terminal() and k:
                continue
            text = state.serialize()
            assert "__dict__" not in text and text.count("\n") == 1
            assert text.startswith(f"game={game_string(rules)}\nhistory=")
            again = again_game.deserialize_state(text)
            assert isinstance(again, DurakOpenSpielState)
            assert again.history() == state.history()
            assert again.durak_state == state.durak_state
            assert again.dealt_cards() == state.dealt_cards()
            assert again.current_player() == state.current_player()
            for p in range(rules.players):
                assert again.information_state_string(p) == state.information_state_string(p)
            assert again.serialize() == text
    empty = game.deserialize_state(game.new_initial_state().serialize())
    assert empty.history() == [] and empty.is_chance_node()


def test_the_cpp_round_trip_of_openspiel_still_works() -> None:
    """OpenSpiel's own C++ helpers (used by ``random_sim_test``) are left as they are."""
    game = load(CONFIGS[0])
    state = list(random_play(game, 1))[-1]
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again.durak_state == state.durak_state and again.history() == state.history()


def _legit(game: DurakOpenSpielGame) -> DurakOpenSpielState:
    state = game.new_initial_state()
    for position in range(game.rules.deck_size):
        state.apply_action(position)
    return state


def _bad_strings() -> list[tuple[str, str, str]]:
    """(case, text for the 2-player 12-card game, message expected)."""
    rules = Rules(lowest_rank=12, hand_size=2)
    head = f"game={game_string(rules)}\nhistory="
    deal = ",".join(f"-1:{i}" for i in range(12))
    three = game_string(Rules(players=3, lowest_rank=12, hand_size=2))
    leader = _legit(load(rules)).current_player()  # the holder of the lowest trump
    return [
        ("repeated chance outcome", head + "-1:0,-1:0", "move 2 of the history, 0 by chance"),
        ("outcome out of range", head + "-1:12", "move 1 of the history, 12 by chance"),
        ("player move in the deal", head + "-1:0,0:1", "by player 0, but chance acts"),
        (
            "illegal decision",  # Pass (the last id) before the first attack
            head + deal + f",{leader}:157",
            f"13 of the history, 157 by player {leader}",
        ),
        ("wrong player", head + deal + f",{1 - leader}:0", f"but player {leader} acts"),
        ("empty string", "", "not a python_durak state"),
        ("no history line", f"game={game_string(rules)}", "not a python_durak state"),
        ("three lines", head + "\n\n", "not a python_durak state"),
        ("malformed move", head + "-1:x", "move 1 of the history is not player:action"),
        ("empty move", head + "-1:0,,-1:1", "move 2 of the history is not player:action"),
        ("negative action", head + "-1:-3", "move 1 of the history is not player:action"),
        ("unicode digits", head + "-1:\u0663", "move 1 of the history is not player:action"),
        ("another game", f"game={three}\nhistory=-1:0", "is not a state of this game"),
        ("another game's name", "game=kuhn_poker()\nhistory=", "is not a state of this game"),
    ]


@pytest.mark.parametrize("case", _bad_strings(), ids=[c[0] for c in _bad_strings()])
def test_a_bad_state_string_is_refused_in_one_line(case: tuple[str, str, str]) -> None:
    _, text, message = case
    game = load(Rules(lowest_rank=12, hand_size=2))
    with pytest.raises(StateStringError) as error:
        game.deserialize_state(text)
    assert message in one_line(error)


def test_openspiel_default_strings_that_were_never_checked_are_refused(tmp_path: Path) -> None:
    """The default format's history and pickle were never checked against each other: a
    repeated chance outcome, an empty history, or a 3-player state in a 2-player game."""
    game = load(Rules(lowest_rank=12, hand_size=2))
    three = load(Rules(players=3, lowest_rank=12, hand_size=2))
    cases = [
        old_format([(-1, 0), (-1, 0)], dict(_legit(game).__dict__)),
        old_format([], dict(_legit(game).__dict__)),
        old_format([(-1, i) for i in range(12)], dict(_legit(three).__dict__)),
    ]
    for text in cases:
        with pytest.raises(StateStringError) as error:
            game.deserialize_state(text)
        assert "not a python_durak state" in one_line(error)
    # Our own format, from a 3-player game, into the 2-player one.
    with pytest.raises(StateStringError, match="not a state of this game"):
        game.deserialize_state(_legit(three).serialize())
    not_text: Any = b"history="
    with pytest.raises(StateStringError, match="must be a str"):
        game.deserialize_state(not_text)


def test_moves_after_the_end_are_refused() -> None:
    game = load(CONFIGS[0])
    final = list(random_play(game, 3))[-1]
    text = final.serialize()
    with pytest.raises(StateStringError) as error:
        game.deserialize_state(text + ",0:0")
    assert "but nobody acts" in one_line(error)


def test_a_state_drawn_from_an_observation_cannot_be_serialized() -> None:
    rules = CONFIGS[0]
    game = load(rules)
    state = game.sampled_state(observe(new_game(rules, 1), 0), random.Random(1))
    with pytest.raises(StateStringError) as error:
        state.serialize()
    assert "sampled_state" in one_line(error)


# --- resampling: the history is a past of the resampled world ------------------------------


def durak(state: DurakOpenSpielState) -> GameState:
    now = state.durak_state
    assert now is not None
    return now


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_a_resampled_history_replays_to_the_resampled_state(rules: Rules) -> None:
    """In many positions (seeds, depths, players): replaying ``history()`` gives exactly the
    resampled state, its hidden hands are the resampled ones (not the true ones), and
    ``history_str`` and ``serialize`` carry the same resampled deal."""
    game = load(rules)
    rng = random.Random(7)
    checked = other_hands = 0
    for seed in range(3):
        for k, state in enumerate(random_play(game, seed)):
            if k % 7 != 2 or state.is_terminal():
                continue
            p = rng.randrange(rules.players)
            other = state.resample_from_infostate(p, rng.random)
            again = replayed(game, other.history())
            assert again.durak_state == other.durak_state
            assert again.dealt_cards() == other.dealt_cards()
            assert again.current_player() == other.current_player()
            assert other.history_str() == ", ".join(map(str, other.history()))
            assert game.deserialize_state(other.serialize()).durak_state == other.durak_state
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_string(p) == state.observation_string(p)
            for q in range(rules.players):
                assert again.information_state_string(q) == other.information_state_string(q)
            if state.durak_state is not None:
                hands = durak(other).hand_masks
                assert durak(again).hand_masks == hands
                if hands != durak(state).hand_masks:
                    other_hands += 1
                    assert other.history()[: rules.deck_size] != state.history()[: rules.deck_size]
            checked += 1
    assert checked >= 20 and other_hands >= 5


def test_a_resampled_state_does_not_tell_the_true_deal() -> None:
    """The issue's case: 3 players, 25 actions in, 20 resamples for player 1."""
    rules = Rules(players=3)
    game = load(rules)
    rng = random.Random(1)
    state = game.new_initial_state()
    while len(state.history()) < rules.deck_size + 25:
        state.apply_action(rng.choice(state.legal_actions()))
    true_deal = state.history()[: rules.deck_size]
    for _ in range(20):
        other = state.resample_from_infostate(1, rng.random)
        again = replayed(game, other.history())
        assert durak(again).hand_masks == durak(other).hand_masks
        if durak(other).hand_masks != durak(state).hand_masks:
            assert other.history()[: rules.deck_size] != true_deal
            assert str(true_deal)[1:-1] not in other.history_str()


def test_resampling_at_the_leader_draw_keeps_the_trumps_in_the_talon() -> None:
    """Dealt with no trump in any hand, the first attacker is a chance node: every
    resample is such a deal too (the trumps the player cannot see stay in the talon)."""
    rules = Rules(lowest_rank=12, hand_size=2)  # 12 cards, 4 dealt, the trump card last
    game = load(rules)
    cards = deck_cards(rules.lowest_rank, rules.suits)
    trump = cards[-1]
    plain = [i for i, c in enumerate(cards) if c.suit != trump.suit][:4]
    rest = [i for i in range(len(cards) - 1) if i not in plain]
    state = replayed(game, [*plain, *rest, len(cards) - 1])
    assert state.is_chance_node() and state.durak_state is None  # the leader's draw
    rng = random.Random(2)
    moved = 0
    for _ in range(40):
        for p in range(2):
            other = state.resample_from_infostate(p, rng.random)
            assert other.is_chance_node() and other.durak_state is None
            dealt = other.dealt_cards()
            assert all(c.suit != trump.suit for c in dealt[:4]) and dealt[-1] == trump
            assert [dealt[i] for i in range(p, 4, 2)] == [cards[i] for i in plain[p::2]]
            moved += other.history() != state.history()
    assert moved > 40


def _phases() -> list[DurakOpenSpielState]:
    """A state in the deal, at a decision and at the end of a 3-player game."""
    game = load(CONFIGS[2])
    states = [s.clone() for s in random_play(game, 4)]
    return [states[5], states[game.rules.deck_size + 3], states[-1]]


def refused(state: DurakOpenSpielState, player: Any, sampler: Any, kind: type[Exception]) -> str:
    """The one-line message of ``kind`` that ``resample_from_infostate`` raises."""
    with pytest.raises(kind) as error:
        state.resample_from_infostate(player, sampler)
    return one_line(error)


@pytest.mark.parametrize("phase", ["deal", "decision", "end"])
def test_resampling_refuses_a_bad_player_or_sampler_in_one_line(phase: str) -> None:
    state = _phases()[["deal", "decision", "end"].index(phase)]
    draw = random.Random(0).random
    for player in (-1, 3, 99):
        assert "player must be 0..2" in refused(state, player, draw, RulesError)
    for player_of_another_type in ("0", True, 1.0):
        assert "player must be an int" in refused(state, player_of_another_type, draw, TypeError)
    message = "the sampler must return a float in [0, 1)"
    for value in ("x", None, b"\x00", [0.5]):
        assert message in refused(state, 0, lambda value=value: value, TypeError)
    for number in (float("nan"), 1.5, -0.25, float("inf")):
        assert message in refused(state, 0, lambda number=number: number, RulesError)


def test_action_to_string_refuses_ids_out_of_range_in_one_line() -> None:
    deal, decision, _ = _phases()
    size = decision.get_game().num_distinct_actions()
    for action in (-1, -5, size, 10**6):
        with pytest.raises(IllegalActionError) as error:
            decision.action_to_string(decision.current_player(), action)
        assert f"action id {action} out of range 0..{size - 1}" == one_line(error)
    for action in (-1, 24, 10**6):
        with pytest.raises(IllegalActionError) as error:
            deal.action_to_string(pyspiel.PlayerId.CHANCE, action)
        assert f"chance outcome {action} out of range 0..23" == one_line(error)
    assert decision.action_to_string(0, 0) == "Attack(9♠)"
    assert deal.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "Deal 9♠"
