"""Seeded random games, and :func:`check_random_game`: one whole game checked against
``docs/rules.md`` (OpenSpiel's ``random_sim_test`` for the Durak rules).

The search side's check of any game plugged into :mod:`durak.search` is
:func:`durak.search.testing.check_game` (the protocol's contract, for any game); this one is
for the Durak rules themselves, and reads the states.
"""

from __future__ import annotations

import random

import attrs

from durak.rules import (
    Action,
    GameState,
    Observation,
    Pass,
    Rules,
    Take,
    current_player,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    returns,
    step,
)
from durak.testing.invariants import InvariantError, check_state
from durak.testing.transitions import check_step

__all__ = [
    "MAX_STEPS",
    "GameReport",
    "check_random_game",
    "full_position",
    "is_bout_start",
    "play_random_game",
    "random_game",
    "random_game_observations",
]

#: A random game that needs more steps than this is reported as non-terminating.
MAX_STEPS = 200_000


def play_random_game(
    rules: Rules, seed: int, passive: float = 0.0, max_steps: int = MAX_STEPS
) -> tuple[list[GameState], list[Action]]:
    """Deal ``new_game(rules, seed)`` and play it to the end, choosing uniformly among the
    legal actions with ``random.Random(seed)``.

    With ``passive > 0`` the policy instead takes or passes with that probability whenever
    it may, which makes long stretches of takes (and draws by repetition) common.

    Returns every state (the first is the deal, the last is terminal) and the actions
    between them.  Raises :class:`~durak.testing.invariants.InvariantError` ("termination")
    if the game is not over after ``max_steps`` steps.
    """
    rng = random.Random(seed)
    state = new_game(rules, seed)
    states = [state]
    actions: list[Action] = []
    while not is_terminal(state):
        if len(actions) >= max_steps:
            raise InvariantError(
                "termination", f"not over after {max_steps} steps: {rules}, seed {seed}"
            )
        legal = legal_actions(state)
        action = legal[rng.randrange(len(legal))]
        if passive and isinstance(legal[-1], Take | Pass) and rng.random() < passive:
            action = legal[-1]
        state = step(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def random_game(rules: Rules, seed: int) -> list[GameState]:
    """The states of :func:`play_random_game`, deal first, terminal state last."""
    return play_random_game(rules, seed)[0]


def random_game_observations(rules: Rules, games: int, seed: int) -> list[Observation]:
    """Every decision point's observation (by the player to move) of ``games`` uniformly
    random games: game ``g`` deals ``seed + g`` and its moves are drawn from
    ``random.Random(seed)``, shared by the games."""
    rng = random.Random(seed)
    seen = []
    for g in range(games):
        state = new_game(rules, seed + g)
        while not is_terminal(state):
            o = observe(state, current_player(state))
            seen.append(o)
            state = step(state, rng.choice(o.legal_actions))
    return seen


def is_bout_start(state: GameState) -> bool:
    """Whether ``state`` starts a bout: the table is empty and the game is not over."""
    return not state.table and not is_terminal(state)


def full_position(state: GameState) -> tuple[object, ...]:
    """Everything of a bout start except the repetition record: what may not repeat."""
    return (
        state.hands,
        state.talon,
        state.discard,
        state.attacker,
        state.defender,
        state.players_out,
        state.known,
    )


@attrs.frozen
class GameReport:
    """What :func:`check_random_game` played: ``steps`` (actions), ``bouts`` (bout starts),
    the ``returns`` and the ``loser`` (``None``: a draw)."""

    steps: int
    bouts: int
    returns: tuple[float, ...]
    loser: int | None


def check_random_game(
    rules: Rules, seed: int, *, passive: float = 0.0, max_steps: int = MAX_STEPS
) -> GameReport:
    """Play the seeded random game of :func:`play_random_game` and raise
    :class:`~durak.testing.invariants.InvariantError` at the first broken invariant:

    * every state keeps :func:`~durak.testing.invariants.check_state`, and every step
      :func:`~durak.testing.transitions.check_transition`;
    * "termination": the game ends within ``max_steps`` steps; with two players and no
      transfer, the potential ``(talon, -discard, attacker's hand)`` falls at every bout
      start, so there are at most ``(T+1)(D+1)(H+1)`` bouts (``docs/rules.md``,
      "Termination");
    * "no repeated position": no bout-start position (hands, talon, discard, roles, players
      out, known cards) comes twice;
    * "outcome": the returns sum to zero, the durak gets -1 and the others +1/(n-1), a
      draw 0 (``docs/rules.md``, "Outcomes").
    """
    states, actions = play_random_game(rules, seed, passive, max_steps)
    check_state(states[0])
    for before, action, after in zip(states[:-1], actions, states[1:], strict=True):
        check_step(before, action, after)
    starts = [s for s in states if is_bout_start(s)]
    seen: set[tuple[object, ...]] = set()
    for s in starts:
        position = full_position(s)
        if position in seen:
            raise InvariantError("no repeated position", f"bout start repeats: {s}")
        seen.add(position)
    if not rules.can_repeat:
        _check_potential(rules, starts)
    r = returns(states[-1])
    if abs(sum(r)) > 1e-9:
        raise InvariantError("outcome", f"returns {r} do not sum to zero")
    return GameReport(len(actions), len(starts), r, loser(states[-1]))


def _check_potential(rules: Rules, starts: list[GameState]) -> None:
    """Two players, no transfer: the potential falls strictly from bout to bout."""
    potential = [(len(s.talon), -len(s.discard), len(s.hands[s.attacker])) for s in starts]
    for k in range(1, len(potential)):
        if not potential[k] < potential[k - 1]:
            raise InvariantError(
                "termination",
                f"potential did not fall at bout {k}: {potential[k - 1]} -> {potential[k]}",
            )
    size = rules.deck_size
    talon = size - rules.players * rules.hand_size
    if len(starts) > (talon + 1) * (size + 1) * (size + 1):
        raise InvariantError("termination", f"{len(starts)} bouts, past the bound")
