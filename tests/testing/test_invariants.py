"""The shipped invariant checks: they hold along random games of every variant, and each
fails, naming its invariant, on a planted fault (a wrong turn, a lost or doubled card, a
transition that loses a card or moves one where no action can, an engine that loses one)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from durak.rules import (
    Action,
    Attack,
    Card,
    CardSet,
    GameState,
    Rules,
    Take,
    legal_actions,
    new_game,
    step,
)
from durak.testing import (
    InvariantError,
    check_observation,
    check_random_game,
    check_state,
    check_transition,
    games,
)
from durak.testing.games import play_random_game
from durak.testing.worlds import rebuild

#: Every player count, with and without transfers; a passive game (long takes, draws by
#: repetition) for each too.
VARIANTS = [
    pytest.param(
        Rules(players=n, transfer=t), passive, id=f"{n}p-{'transfer' if t else 'plain'}-{passive}"
    )
    for n in range(2, 7)
    for t in (False, True)
    for passive in (0.0, 0.9)
]


@pytest.mark.parametrize(("rules", "passive"), VARIANTS)
def test_random_games_of_every_variant_keep_every_invariant(rules: Rules, passive: float) -> None:
    for seed in range(3):
        report = check_random_game(rules, seed, passive=passive)
        states, actions = play_random_game(rules, seed, passive)
        assert report.steps == len(actions) and report.bouts >= 1
        assert len(report.returns) == rules.players and abs(sum(report.returns)) < 1e-9
        for s in states[:: max(1, len(states) // 5)]:
            if s.turn >= 0:
                check_observation(s, s.turn, seed)


def _broken(call: object, invariant: str) -> InvariantError:
    """The :class:`InvariantError` of ``call()``, which must name ``invariant``."""
    with pytest.raises(InvariantError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.invariant == invariant, caught.value
    assert str(caught.value).startswith(f"{invariant}: ") and "\n" not in str(caught.value)
    return caught.value


def _mid_bout(rules: Rules, seed: int) -> GameState:
    """A state of a seeded random game with cards on the table and the talon not empty."""
    states, _ = play_random_game(rules, seed)
    return next(s for s in states if s.table and s.talon and s.turn >= 0)


def test_a_state_whose_turn_is_wrong_fails() -> None:
    start = new_game(Rules(), 3)
    check_state(start)
    _broken(lambda: check_state(rebuild(start, turn=start.defender)), "turn")
    _broken(lambda: check_state(rebuild(start, turn=7)), "turn")
    bout = _mid_bout(Rules(), 3)
    out = rebuild(bout, players_out=frozenset({bout.turn}))
    _broken(lambda: check_state(out), "players out")


def test_a_lost_or_doubled_card_fails() -> None:
    start = new_game(Rules(), 4)
    hands = list(start.hand_masks)
    lowest = hands[0] & -hands[0]
    hands[0] &= ~lowest
    error = _broken(lambda: check_state(rebuild(start, hand_masks=tuple(hands))), "cards conserved")
    assert str(Card.from_index(lowest.bit_length() - 1)) in error.detail
    doubled = rebuild(start, discard=CardSet(start.hand_masks[1] & -start.hand_masks[1]))
    _broken(lambda: check_state(doubled), "cards conserved")


def test_a_defence_that_does_not_beat_fails() -> None:
    states, _ = play_random_game(Rules(), 6)
    bout = next(s for s in states if any(d is not None for _, d in s.table))
    k, (attack, defence) = next((k, p) for k, p in enumerate(bout.table) if p[1] is not None)
    assert defence is not None
    table = list(bout.table)
    table[k] = (defence, attack)  # the attack card now "beats" the card that beat it
    _broken(lambda: check_state(rebuild(bout, table=tuple(table))), "table")


def _first_play(rules: Rules, seed: int) -> tuple[GameState, Action, GameState]:
    start = new_game(rules, seed)
    action = legal_actions(start)[0]
    return start, action, step(start, action)


def test_a_legal_step_passes_and_a_transition_that_loses_a_card_fails() -> None:
    start, action, after = _first_play(Rules(), 1)
    check_transition(start, action, after)
    assert isinstance(action, Attack)
    card = action.card
    lost = rebuild(after, table=())  # the attack card vanished from the table
    assert card not in lost.hands[start.turn]
    _broken(lambda: check_transition(start, action, lost), "cards conserved")


def test_a_transition_that_moves_a_card_no_action_can_fails() -> None:
    start, action, after = _first_play(Rules(), 2)
    hands = list(after.hand_masks)
    moved = hands[start.defender] & -hands[start.defender]
    hands[start.defender] &= ~moved  # a defender's card onto the attacker's hand
    hands[start.turn] |= moved
    swapped = rebuild(after, hand_masks=tuple(hands), knowledge=after.knowledge)
    _broken(lambda: check_transition(start, action, swapped), "cards move as the action says")
    _broken(lambda: check_transition(start, Take(), after), "action legal")


def test_an_engine_that_loses_a_card_fails_the_game_check(monkeypatch: pytest.MonkeyPatch) -> None:
    real_step = step

    def lossy(state: GameState, action: Action) -> GameState:
        after = real_step(state, action)
        if after.discard:  # from the first success on, a discarded card vanishes
            return rebuild(after, discard=CardSet(after.discard.mask & (after.discard.mask - 1)))
        return after

    monkeypatch.setattr(games, "step", lossy)
    _broken(lambda: check_random_game(Rules(), 5), "cards conserved")


def test_the_checks_raise_under_python_dash_o() -> None:
    # Plain assert statements would vanish under -O; the checks raise themselves.
    code = (
        "from durak.rules import Rules, new_game\n"
        "from durak.testing import check_state\n"
        "from durak.testing.worlds import rebuild\n"
        "s = new_game(Rules(), 1)\n"
        "check_state(rebuild(s, turn=9))\n"
    )
    done = subprocess.run(
        [sys.executable, "-O", "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].startswith(
        "durak.testing.invariants.InvariantError: turn: "
    )
