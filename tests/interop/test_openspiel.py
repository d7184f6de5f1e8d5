"""``python_durak``: OpenSpiel's own checks, the same game as the engine, leak-free views."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.support.extras import require_extra

pyspiel = require_extra("pyspiel")

import numpy as np  # noqa: E402

from durak.encoding import ActionSpace, encode_observation, observation_size  # noqa: E402
from durak.interop.openspiel import (  # noqa: E402
    DurakOpenSpielGame,
    DurakOpenSpielState,
    ParameterError,
    game_string,
    params_of,
    rules_of,
)
from durak.interop.openspiel.game import GAME_TYPE  # noqa: E402
from durak.interop.openspiel.observers import describe, information_state_size  # noqa: E402
from durak.rules import (  # noqa: E402
    GameState,
    IllegalActionError,
    Rules,
    RulesError,
    deal,
    deck_cards,
    legal_actions,
    new_game,
    observe,
    returns,
    step,
)

#: 2-6 players, both variants, 24/36/52-card decks, both throw-in rules, no trumps, caps,
#: and the small decks of the tree-size study, of four suits and fewer.
CONFIGS = [
    Rules(),
    Rules(transfer=True),
    Rules(players=3, throw_in="neighbours"),
    Rules(players=3, lowest_rank=9, hand_size=4, transfer=True),
    Rules(players=4, lowest_rank=2, throw_in="neighbours"),
    Rules(players=4, transfer=True, throw_in="neighbours"),
    Rules(players=5, lowest_rank=9, hand_size=4),
    Rules(players=5, lowest_rank=2, transfer=True),
    Rules(players=6),  # every card dealt: the trump card is the last one dealt
    Rules(players=6, lowest_rank=2, transfer=True, throw_in="neighbours"),
    Rules(lowest_rank=9, trumps=False),  # the leader is a chance node
    Rules(players=3, lowest_rank=12, hand_size=2, bout_cap=3, first_bout_cap=2, transfer=True),
    Rules(lowest_rank=13, hand_size=2),
    Rules(lowest_rank=14, hand_size=2),
    Rules(lowest_rank=12, suits=2, hand_size=2),  # 6 cards: Q, K, A of spades and hearts
    Rules(players=3, lowest_rank=11, suits=3, hand_size=3, transfer=True),
]
IDS = [game_string(r).removeprefix("python_durak") for r in CONFIGS]


def load(rules: Rules) -> DurakOpenSpielGame:
    game: DurakOpenSpielGame = pyspiel.load_game(game_string(rules))
    return game


def durak(state: DurakOpenSpielState) -> GameState:
    """The durak state after the deal."""
    now = state.durak_state
    assert now is not None
    return now


def random_play(game: DurakOpenSpielGame, seed: int) -> Iterator[DurakOpenSpielState]:
    """Every state of one uniformly random game (the same for the same seed)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        yield state


# --- OpenSpiel's own checks -------------------------------------------------------------------


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_random_sim_test_passes(rules: Rules) -> None:
    pyspiel.random_sim_test(load(rules), num_sims=2, serialize=True, verbose=False)


def test_the_game_type_is_consistent() -> None:
    game = load(Rules(players=4))
    kind = game.get_type()
    assert kind.short_name == "python_durak" and kind == GAME_TYPE
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.provides_information_state_string and kind.provides_observation_tensor
    assert (kind.min_num_players, kind.max_num_players) == (2, 6)
    assert set(kind.parameter_specification) == set(params_of(Rules()))
    assert game.num_players() == 4
    assert game.num_distinct_actions() == ActionSpace(Rules()).size
    assert game.max_chance_outcomes() == 36
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    # A loaded game and one built from the parameters are the same game.
    assert str(DurakOpenSpielGame(params_of(Rules(players=4)))) == str(game)
    assert pickle.loads(pickle.dumps(game)).rules == game.rules


@pytest.mark.parametrize("rules", CONFIGS[::3], ids=IDS[::3])
def test_tensor_shapes_and_chance_outcomes(rules: Rules) -> None:
    game = load(rules)
    n, size = rules.players, observation_size(rules)
    assert game.observation_tensor_shape() == [size]
    assert game.information_state_tensor_shape() == [information_state_size(rules)]
    chance_nodes = 0
    for state in random_play(game, 7):
        for p in range(n):
            assert len(state.observation_tensor(p)) == size
            assert len(state.information_state_tensor(p)) == information_state_size(rules)
        if state.is_chance_node():
            chance_nodes += 1
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
            assert [a for a, _ in outcomes] == state.legal_actions()
    assert chance_nodes >= rules.deck_size


# --- parameters -------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_parameters_round_trip(rules: Rules) -> None:
    assert rules_of(params_of(rules)) == rules
    assert load(rules).rules == rules


def test_a_loaded_game_plays_the_deal_of_rules() -> None:
    game = pyspiel.load_game(
        "python_durak(players=3,transfer=True,lowest_rank=9,hand_size=5,throw_in=neighbours)"
    )
    rules = Rules(players=3, transfer=True, lowest_rank=9, hand_size=5, throw_in="neighbours")
    assert game.rules == rules
    deck = list(deck_cards(9))
    random.Random(4).shuffle(deck)
    state = game.new_initial_state()
    for card in deck:
        state.apply_action(deck_cards(9).index(card))
    assert state.durak_state == deal(rules, deck)


def test_a_loaded_game_of_two_suits_plays_the_deal_of_rules() -> None:
    game = pyspiel.load_game("python_durak(suits=2,lowest_rank=12,hand_size=2)")
    rules = Rules(suits=2, lowest_rank=12, hand_size=2)
    assert game.rules == rules and game.max_chance_outcomes() == 6
    assert game.num_distinct_actions() == ActionSpace(rules).size == 44
    cards = deck_cards(12, 2)
    assert [str(c) for c in cards] == ["Q♠", "Q♥", "K♠", "K♥", "A♠", "A♥"]
    deck = [cards[i] for i in (5, 0, 3, 1, 4, 2)]
    state = game.new_initial_state()
    for card in deck:
        assert state.chance_outcomes() == [
            (i, pytest.approx(1 / (6 - len(state.history())))) for i in state.legal_actions()
        ]
        state.apply_action(cards.index(card))
    assert state.durak_state == deal(rules, deck)
    assert str(durak(state).trump_card) == "K♠"


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_the_chance_nodes_draw_what_new_game_draws(rules: Rules) -> None:
    """new_game shuffles the deck with random.Random(seed), then draws the fallback leader:
    those outcomes, played as chance actions, give new_game's state."""
    game = load(rules)
    cards = deck_cards(rules.lowest_rank, rules.suits)
    for seed in range(6):
        rng = random.Random(seed)
        deck = list(cards)
        rng.shuffle(deck)
        leader = rng.randrange(rules.players)
        state = game.new_initial_state()
        for card in deck:
            state.apply_action(cards.index(card))
        if state.is_chance_node():  # nobody holds a trump
            assert state.chance_outcomes() == [(p, 1 / rules.players) for p in range(rules.players)]
            state.apply_action(leader)
        assert state.durak_state == new_game(rules, seed)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("python_durak(players=9)", "Rules.players must be 2..6, got 9"),
        ("python_durak(players=6,hand_size=7)", "more than the 36-card deck"),
        ("python_durak(throw_in=some)", "Rules.throw_in must be one of all, neighbours"),
        ("python_durak(colour=1)", "Unknown parameter 'colour'"),
        ("python_durak(transfer=1)", "Wrong type for parameter transfer"),
        ("python_durak(suits=5)", "Rules.suits must be 1..4, got 5"),
        ("python_durak(suits=2,hand_size=6,lowest_rank=12)", "more than the 6-card deck"),
    ],
)
def test_bad_parameters_raise_one_line(text: str, words: str) -> None:
    with pytest.raises(pyspiel.SpielError) as caught:
        pyspiel.load_game(text)
    message = str(caught.value)
    assert words in message and "\n" not in message.strip()


def test_rules_of_names_the_bad_parameter() -> None:
    with pytest.raises(ParameterError, match="unknown python_durak parameter 'deck'"):
        rules_of({"deck": 36})
    with pytest.raises(RulesError, match="hand_size must be a int, got '6'"):
        rules_of({"hand_size": "6"})
    with pytest.raises(ParameterError, match=r"^Rules\.suits must be 1\.\.4, got 0$"):
        rules_of({"suits": 0})
    assert rules_of({"first_bout_cap": 0}).first_bout_cap is None
    assert rules_of({"first_bout_cap": 3}).first_bout_cap == 3


def test_bad_actions_raise_one_line() -> None:
    state = load(Rules()).new_initial_state()
    with pytest.raises(RulesError, match="chance outcome 36 is not a deck position"):
        state.apply_action(36)
    state.apply_action(0)
    with pytest.raises(RulesError, match="chance outcome 0 is not a deck position"):
        state.apply_action(0)
    for pos in range(1, 36):
        state.apply_action(pos)
    illegal = next(a for a in range(ActionSpace(Rules()).size) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError, match="illegal action"):
        state.apply_action(illegal)


# --- the same game as the engine ----------------------------------------------------------


@pytest.mark.parametrize("rules", CONFIGS, ids=IDS)
def test_openspiel_and_the_engine_play_the_same_game(rules: Rules) -> None:
    """Random games through OpenSpiel, and the same actions through ``durak.rules.step``:
    the same states, returns, players to act, legal actions and observations."""
    game, space = load(rules), ActionSpace(rules)
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            assert state.returns() == [0.0] * rules.players
            state.apply_action(rng.choice(state.legal_actions()))
        deck = list(state.dealt_cards())
        history = state.history()
        engine = deal(rules, deck, history[-1] if len(history) > rules.deck_size else 0)
        while True:
            assert state.durak_state == engine
            assert state.returns() == list(returns(engine))
            assert state.is_terminal() == (engine.turn < 0)
            for p in range(rules.players):
                seen = observe(engine, p)
                assert state.observation_string(p) == describe(seen)
                assert np.array_equal(state.observation_tensor(p), encode_observation(seen))
            if state.is_terminal():
                break
            assert state.current_player() == engine.turn
            assert state.legal_actions() == space.encode_all(legal_actions(engine))
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            engine = step(engine, space.decode(action))


def test_serialization_restores_the_same_state() -> None:
    game = load(Rules(players=3, transfer=True))
    for state in random_play(game, 2):
        if len(state.history()) % 17 == 5:
            text = pyspiel.serialize_game_and_state(game, state)
            _, again = pyspiel.deserialize_game_and_state(text)
            assert again.durak_state == state.durak_state and again.history() == state.history()
            for p in range(3):
                assert again.information_state_string(p) == state.information_state_string(p)


# --- what a player is shown ----------------------------------------------------------------


def views(state: DurakOpenSpielState, p: int) -> tuple[object, ...]:
    return (
        state.information_state_string(p),
        tuple(state.information_state_tensor(p)),
        state.observation_string(p),
        tuple(state.observation_tensor(p)),
    )


def twin(
    game: DurakOpenSpielGame, history: list[int], deck: list[int], p: int, rng: random.Random
) -> DurakOpenSpielState | None:
    """The game of ``history`` with the cards hidden from ``p`` at its end permuted in the
    deck, or ``None`` if the permuted deck cannot play the same actions (say a hidden low
    trump would have changed the first attacker)."""
    rules = game.rules
    cards = deck_cards(rules.lowest_rank, rules.suits)
    state = game.new_initial_state()
    for a in history:
        state.apply_action(a)
    hidden = {cards.index(c) for c in observe(durak(state), p).hidden_cards()}
    slots = [i for i, pos in enumerate(deck) if pos in hidden]
    moved = [deck[i] for i in slots]
    rng.shuffle(moved)
    other = list(deck)
    for i, pos in zip(slots, moved, strict=True):
        other[i] = pos
    if other == deck:
        return None
    copy = game.new_initial_state()
    for a in other:
        copy.apply_action(a)
    first, dealt = copy.durak_state, game.new_initial_state()
    for a in deck:
        dealt.apply_action(a)
    if first is None or dealt.durak_state is None:
        return None  # the first attacker is a chance node: not a twin test case
    if (first.attacker, first.knowledge) != (
        dealt.durak_state.attacker,
        dealt.durak_state.knowledge,
    ):
        return None  # the lowest trump shown would differ: another public history
    try:
        for a in history[len(deck) :]:
            copy.apply_action(a)
    except IllegalActionError:
        return None
    if durak(copy).hand_masks == durak(state).hand_masks:
        return None
    return copy


@pytest.mark.parametrize("rules", CONFIGS[:6], ids=IDS[:6])
def test_views_never_depend_on_hidden_cards(rules: Rules) -> None:
    """Permuting the cards a player cannot see (in the deck, replaying the same actions)
    changes none of its four views, though the other players' hands differ."""
    game = load(rules)
    rng = random.Random(11)
    twins = 0
    for seed in range(4):
        states = list(random_play(game, seed))
        final = states[-1]
        history = final.history()
        deck = history[: rules.deck_size]
        for cut in range(rules.deck_size + 1, len(history), 9):
            prefix = history[:cut]
            p = rng.randrange(rules.players)
            other = twin(game, prefix, deck, p, rng)
            if other is None:
                continue
            state = game.new_initial_state()
            for a in prefix:
                state.apply_action(a)
            assert views(other, p) == views(state, p)
            twins += 1
    assert twins >= 8


def test_views_show_the_own_hand() -> None:
    """The leak test's views can tell states apart: another hand changes them."""
    rules = Rules()
    game = load(rules)
    a, b = game.new_initial_state(), game.new_initial_state()
    for pos in range(36):
        a.apply_action(pos)
    for pos in [1, 0, *range(2, 36)]:  # 6♠ and 6♥ change hands
        b.apply_action(pos)
    for p in range(2):
        assert all(x != y for x, y in zip(views(a, p), views(b, p), strict=True))
        assert f"hand [{durak(a).hands[p]}]" in a.observation_string(p)


def test_resampling_keeps_the_information_state() -> None:
    game = load(Rules(players=3, lowest_rank=9, hand_size=4, transfer=True))
    rng = random.Random(3)
    differs = 0
    for state in random_play(game, 5):
        if state.is_terminal():
            break
        p = state.current_player() if not state.is_chance_node() else rng.randrange(3)
        other = state.resample_from_infostate(p, rng.random)
        assert views(other, p) == views(state, p)
        if not state.is_chance_node():  # during the deal, other cards are left to deal
            assert other.legal_actions() == state.legal_actions()
        differs += str(other) != str(state)
    assert differs > 10


def test_the_python_ismcts_runs_on_the_game_without_a_crash() -> None:
    """OpenSpiel's C++ ISMCTS and MCTS bots crash the process on Python games; the Python
    ISMCTS, with OpenSpiel's own default resampling, must run (in a child process, so that a
    crash cannot take pytest down)."""
    code = (
        "import numpy as np, pyspiel, durak.interop.openspiel.game\n"
        "from open_spiel.python.algorithms import ismcts, mcts\n"
        "g = pyspiel.load_game('python_durak(lowest_rank=10,hand_size=4)')\n"
        "s = g.new_initial_state()\n"
        "while s.is_chance_node(): s.apply_action(s.legal_actions()[0])\n"
        "r = np.random.RandomState(1)\n"
        "bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, r), 2.0, 20, random_state=r)\n"
        "a = bot.step(s)\n"
        "assert a in s.legal_actions(), a\n"
        "print('ok', a)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
