"""The ``human`` agent, driven through text streams."""

from __future__ import annotations

import io
import random
import re

import pytest

from durak.agents import GreedyAgent, HumanAgent, make_agent, registry
from durak.agents.human import shown_order
from durak.arena.play.game import play_game
from durak.rules import (
    Action,
    Attack,
    Card,
    Defend,
    GameState,
    Rules,
    Take,
    legal_actions,
    new_game,
    observe,
    position,
    step,
)

RULES = Rules(players=2)


def c(text: str) -> Card:
    return Card.parse(text)


def lead_state() -> GameState:
    """Player 0 leads holding 6H (a trump), 10C and AS; the talon holds 2 cards."""
    return position(RULES, [["6H", "10C", "AS"], ["7S", "8S", "9D", "JC"]], c("KH"), ["9C", "KH"])


def ask(state: GameState, text: str) -> tuple[Action, str]:
    out = io.StringIO()
    agent = HumanAgent(io.StringIO(text), out)
    action = agent.act(observe(state, state.turn), random.Random(0))
    return action, out.getvalue()


def test_it_shows_what_the_player_may_see() -> None:
    s = lead_state()
    _, shown = ask(s, "1\n")
    assert "Your hand: 10♣ A♠ 6♥" in shown  # by power: non-trumps first, the trump last
    discarded = len(s.discard)
    pile = "1 card" if discarded == 1 else f"{discarded} cards"
    assert f"Trump: ♥, trump card K♥. Talon: 2 cards. Discard pile: {pile}." in shown
    assert "player 1: 4 cards" in shown
    assert "Table: empty" in shown
    # The actions in the order the hand is shown: weakest first, the trump last.
    for i, action in enumerate([Attack(c("10C")), Attack(c("AS")), Attack(c("6H"))], 1):
        assert f"  {i}. {action}" in shown
    assert "7♠" not in shown and "J♣" not in shown  # nothing of the opponent's hand


def test_it_shows_the_table_to_the_defender() -> None:
    s = step(lead_state(), Attack(c("10C")))
    action, shown = ask(s, "Take\n")
    assert action == Take()
    assert "Table: 10♣/-" in shown
    assert "(defending)" in shown


def test_a_number_picks_from_the_list() -> None:
    s = lead_state()
    shown = shown_order(observe(s, s.turn))
    assert sorted(shown) == sorted(legal_actions(s))
    for k, expected in enumerate(shown, 1):
        assert ask(s, f"{k}\n")[0] == expected


def test_defences_are_listed_by_the_card_played_and_take_last() -> None:
    s = step(lead_state(), Attack(c("10C")))
    order = shown_order(observe(s, s.turn))
    assert order == (Defend(c("10C"), c("JC")), Take())


def test_minus_one_is_not_a_choice() -> None:
    action, shown = ask(lead_state(), "-1\n1\n")
    assert action == Attack(c("10C"))
    assert "-1 is not a choice: enter a number from 1 to 3" in shown


def test_a_forced_action_is_played_at_once_unless_asked_to_confirm() -> None:
    s = step(step(lead_state(), Attack(c("10C"))), Defend(c("10C"), c("JC")))
    if len(legal_actions(s)) != 1:  # the attacker holds no 10 or J: only Pass
        pytest.fail(f"expected a forced Pass, got {legal_actions(s)}")
    action, shown = ask(s, "")  # no input is read
    assert action == legal_actions(s)[0]
    assert "Only one action is legal: Pass (played for you)." in shown
    out = io.StringIO()
    asking = HumanAgent(io.StringIO("1\n"), out, confirm_forced=True)
    assert asking.act(observe(s, s.turn), random.Random(0)) == legal_actions(s)[0]
    assert "Your choice" in out.getvalue()


def test_bad_input_is_explained_and_asked_again() -> None:
    s = lead_state()
    lines = ["0", "4", "garbage", "", "Take", "Attack(7S)", "attack(10c)", "1"]
    action, shown = ask(s, "\n".join(lines) + "\n")
    assert action == Attack(c("10C"))
    assert shown.count("Your choice") == 7  # the last line is never read
    assert shown.count("is not a choice: enter a number from 1 to 3") == 2
    assert "Could not read 'garbage'" in shown
    assert "Please enter a number or an action." in shown
    assert "Take is not legal now" in shown
    assert "Attack(7♠) is not legal now" in shown


def test_a_typed_action_must_be_legal() -> None:
    s = step(lead_state(), Attack(c("10C")))
    action, shown = ask(s, "Defend(10C<-AS)\nDefend(10♣<-J♣)\n")
    assert action == Defend(c("10C"), c("JC"))
    assert "Defend(10♣<-A♠) is not legal now" in shown
    assert shown.count("Your choice") == 2


def test_end_of_input_raises() -> None:
    s = lead_state()
    with pytest.raises(EOFError, match="end of input"):
        ask(s, "")
    with pytest.raises(EOFError, match="end of input"):
        ask(s, "garbage\n9\n")


def test_it_defaults_to_the_standard_streams(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n"))
    s = lead_state()
    assert HumanAgent().act(observe(s, 0), random.Random(0)) == shown_order(observe(s, 0))[1]
    assert "Your hand:" in capsys.readouterr().out


def test_a_human_can_play_a_whole_game() -> None:
    agent = HumanAgent(io.StringIO("1\n" * 5000), io.StringIO())
    record = play_game(Rules(players=2, transfer=True), [agent, GreedyAgent()], seed=3)
    state = record.replay()  # every action was legal
    assert state.turn == -1
    assert record.decisions[0] > 0


def test_a_human_sees_the_other_players_actions_and_the_outcome() -> None:
    out = io.StringIO()
    agent = HumanAgent(io.StringIO("1\n" * 5000), out)
    record = play_game(Rules(players=2), [GreedyAgent(), agent], seed=5)
    text = out.getvalue()
    assert text.startswith("=== new game: you are player 1 of 2; trump ")
    shown = re.findall(r"player 0: (\S+)$", text, re.MULTILINE)  # no echo ends the prompt line
    state, moves = new_game(Rules(players=2), 5), []
    for action in record.actions:
        if state.turn == 0:
            moves.append(str(action))
        state = step(state, action)
    assert shown == moves  # every opponent action, in order; its own are not echoed
    verdict = {
        None: "a draw: nobody is the durak",
        1: "you are the durak",
        0: "player 0 is the durak",
    }[record.loser]
    assert text.rstrip().endswith(f"=== game over: {verdict} ===")


def test_human_is_registered() -> None:
    assert isinstance(make_agent("human"), HumanAgent)
    info = registry()["human"]
    assert info.params == ()
    assert info.description
