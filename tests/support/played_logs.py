"""A player's log of a game played with the first legal action each time, for the tests
of the inference's parts (tests/agents/test_model_parts.py, test_inferring_parts.py)."""

from __future__ import annotations

from durak.agents.inference.record import GameLog
from durak.rules import GameState, Rules, legal_actions, new_game, observe, step


def played_log(
    seed: int = 3, moves: int = 2, me: int = 0, players: int = 2, open_world: bool = False
) -> tuple[GameLog, GameState]:
    """Player ``me``'s log of a game ``moves`` moves in (each the first legal action), and
    the state it has reached."""
    state = new_game(Rules(players=players), seed)
    log = GameLog(observe(state, me, open_world))
    for _ in range(moves):
        mover, action = state.turn, legal_actions(state)[0]
        state = step(state, action)
        log.moves.append((mover, action, observe(state, me, open_world)))
    return log, state
