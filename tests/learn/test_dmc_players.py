"""Deep Monte-Carlo at 3 and 4 players (issue 51): the rows see the table from the deciding
player's seat, and the actors pair every sample with the return of the player who made it
(every seat's in self-play, only the learner's against a fixed opponent)."""

from __future__ import annotations

import random
from typing import TypeVar

import numpy as np
import pytest

from durak.testing.games import play_random_game
from durak.testing.worlds import rebuild
from tests.support.extras import require_extra

torch = require_extra("torch")

from durak.agents import make_agent  # noqa: E402
from durak.learn.dmc.actor import ActorTask, collect  # noqa: E402
from durak.learn.dmc.features import decision_rows  # noqa: E402
from durak.learn.dmc.net import build_network  # noqa: E402
from durak.rules import (  # noqa: E402
    GameState,
    Knowledge,
    Rules,
    is_terminal,
    new_game,
    observe,
    returns,
    step,
)
from durak.seeding import derive_seed  # noqa: E402

torch.set_num_threads(1)
T = TypeVar("T")


def seats_turned(state: GameState, k: int) -> GameState:
    """``state`` with every player moved ``k`` seats clockwise: the same position."""
    n = state.rules.players

    def turned(values: tuple[T, ...]) -> tuple[T, ...]:
        return tuple(values[(p - k) % n] for p in range(n))

    known = state.knowledge
    if known.origins:
        known = Knowledge(known.exposed, known.from_talon, turned(known.origins))
    return rebuild(
        state,
        hand_masks=turned(state.hand_masks),
        attacker=(state.attacker + k) % n,
        defender=(state.defender + k) % n,
        turn=(state.turn + k) % n,
        players_out=frozenset((p + k) % n for p in state.players_out),
        knowledge=known,
    )


@pytest.mark.parametrize("players", [3, 4])
def test_rows_are_the_same_from_every_seat_of_one_position(players: int) -> None:
    # Opponents, roles, hand sizes, known cards and who is out are seen relative to the
    # player: the position with the seats renumbered gives the player the same rows.
    rules = Rules(players=players)
    checked = 0
    for seed in range(2):
        states, _ = play_random_game(rules, seed)
        rng = random.Random(seed)
        for state in states[:-1]:
            k = rng.randrange(1, players)
            moved = seats_turned(state, k)
            mine, theirs = observe(state, state.turn), observe(moved, moved.turn)
            assert mine.legal_actions == theirs.legal_actions
            rows = decision_rows(mine, mine.legal_actions)
            np.testing.assert_array_equal(rows, decision_rows(theirs, theirs.legal_actions))
            checked += bool(state.players_out) + bool(mine.known_cards((mine.player + 1) % players))
    assert checked > 10  # positions with players out and known cards were among them


@pytest.mark.parametrize("players", [3, 4])
def test_samples_carry_the_return_of_the_seat_that_decided(players: int) -> None:
    # The network's seats play greedy's moves (a warm start, no exploring), so the games can
    # be replayed here: self-play gives every seat's decisions, each with that seat's own
    # return; against lowest only the learner's seat is sampled.
    rules = Rules(players=players)
    net = build_network(rules, (16,))
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    opponents = ("self", "lowest")
    episodes = 2 * players  # the learner sits in every seat once
    task = ActorTask(
        rules=rules,
        hidden=(16,),
        weights=weights,
        seed=5,
        first=0,
        count=episodes,
        epsilon=0.0,
        opponents=opponents,
        warm="greedy",
        warm_episodes=episodes,
    )
    got = collect(task)
    greedy, lowest = make_agent("greedy", rules), make_agent("lowest", rules)
    expected = []
    for e in range(episodes):
        state = new_game(rules, derive_seed(5, e))
        learner = None if e % 2 == 0 else (e // 2) % players
        made = []
        while not is_terminal(state):
            o = observe(state, state.turn)
            sampled = learner is None or o.player == learner
            action = (greedy if sampled else lowest).act(o, random.Random(0))
            if sampled and len(o.legal_actions) > 1:
                row = decision_rows(o, o.legal_actions)[o.legal_actions.index(action)]
                made.append((o.player, row))
            state = step(state, action)
        result = returns(state)
        # Targets are float32 (1/3 at 4 players is rounded to it).
        expected += [
            (row.astype(np.float16).tobytes(), float(np.float32(result[p]))) for p, row in made
        ]
    pairs = [(r.tobytes(), float(t)) for r, t in zip(got.rows, got.targets, strict=True)]
    assert sorted(pairs) == sorted(expected)
    share = float(np.float32(1 / (players - 1)))
    assert {t for _, t in expected} == {-1.0, share}  # no draw in these deals
    assert got.games == {"lowest": players}
