"""A conformance check for games plugged into :mod:`durak.search`.

After OpenSpiel's ``random_sim_test`` and pgx's ``api_test`` (shipped as a library
function, so a new game is checked the same way as ours): :func:`check_game` plays random
games from the given states and checks, at every state reached, the contract of
:mod:`durak.search.protocol` that the searches rely on:

* ``legal_actions`` is empty exactly at terminal states, and gives the same sequence when
  asked twice;
* ``current_player`` is in ``range(num_players)`` at a non-terminal state;
* ``returns`` at a terminal state has ``num_players`` finite entries, within the game's
  ``payoff_bounds`` (``(min_value, max_sum)``) if it has them, summing to zero if
  ``zero_sum``;
* states are hashable, and ``step`` is deterministic (equal results, equal hashes) and never
  changes its input (compared with a deep copy taken before);
* with imperfect information (``observe`` and ``sample_world``): every observation is
  hashable, ``observe(sample_world(o, rng), p) == o``, the same generator state gives the
  same world, and a sampled world agrees with the true state on whose turn it is, whether
  the game is over and, for the player to move, its legal actions (what an
  information-set search reads from a world).

A failure raises :class:`GameContractError` naming the check, the game, the start state's
index and the step.

>>> import random
>>> class Count:  # a one-player game: add 1 or 2 until 5 or more
...     num_players = 1
...     def legal_actions(self, s): return () if s >= 5 else (1, 2)
...     def step(self, s, a): return s + a
...     def current_player(self, s): return 0
...     def is_terminal(self, s): return s >= 5
...     def returns(self, s): return (1.0 if s == 5 else -1.0,)
>>> check_game(Count(), [0, 3], random.Random(1), games=3).states > 0
True
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = ["ContractReport", "GameContractError", "check_game"]


class GameContractError(AssertionError):
    """A game that breaks the search protocol's contract; the message names the check."""


@attrs.frozen
class ContractReport:
    """What :func:`check_game` covered: ``games`` played, ``states`` checked and
    ``observations`` checked (with imperfect information)."""

    games: int
    states: int
    observations: int


def check_game(
    game: Any,
    states: Sequence[Any],
    rng: random.Random,
    *,
    games: int = 2,
    zero_sum: bool = False,
    max_steps: int = 100_000,
) -> ContractReport:
    """Play ``games`` random games from each of ``states`` and check the protocol's
    contract at every state reached (see the module docstring).

    Raises :class:`GameContractError` at the first violation, or if a game does not end
    within ``max_steps`` steps.  Draws only from ``rng``.
    """
    imperfect = hasattr(game, "observe") and hasattr(game, "sample_world")
    bounds = getattr(game, "payoff_bounds", None)
    checked = observed = played = 0
    for index, start in enumerate(states):
        for _ in range(games):
            state = start
            for steps in range(max_steps + 1):
                where = f"{type(game).__name__}, start state {index}, step {steps}"
                _check_state(game, state, where, bounds, zero_sum)
                if imperfect:
                    observed += _check_observations(game, state, rng, where)
                checked += 1
                if game.is_terminal(state):
                    break
                state = _check_step(game, state, rng.choice(list(game.legal_actions(state))), where)
            else:
                name = type(game).__name__
                raise GameContractError(
                    f"{name}: a game from start state {index} did not end within {max_steps} steps"
                )
            played += 1
    return ContractReport(played, checked, observed)


def _fail(where: str, what: str) -> GameContractError:
    return GameContractError(f"{where}: {what}")


def _check_state(game: Any, state: Any, where: str, bounds: Any, zero_sum: bool) -> None:
    try:
        hash(state)
    except TypeError as e:
        raise _fail(where, f"the state is not hashable ({e})") from None
    legal = list(game.legal_actions(state))
    if list(game.legal_actions(state)) != legal:
        raise _fail(where, "legal_actions gives a different sequence when asked again")
    terminal = game.is_terminal(state)
    if bool(legal) == terminal:
        raise _fail(
            where,
            "legal_actions must be empty exactly at terminal states "
            f"(terminal: {terminal}, {len(legal)} legal actions)",
        )
    n = game.num_players
    if not terminal:
        player = game.current_player(state)
        if not (isinstance(player, int) and 0 <= player < n):
            raise _fail(where, f"current_player {player!r} is not in range({n})")
        return
    payoff = list(game.returns(state))
    if len(payoff) != n or not all(math.isfinite(x) for x in payoff):
        raise _fail(where, f"returns {payoff} must be {n} finite payoffs")
    if zero_sum and abs(sum(payoff)) > 1e-9:
        raise _fail(where, f"returns {payoff} do not sum to zero")
    if bounds is not None:
        low, max_sum = bounds
        if min(payoff) < low - 1e-9 or sum(payoff) > max_sum + 1e-9:
            raise _fail(where, f"returns {payoff} break payoff_bounds {bounds}")


def _check_step(game: Any, state: Any, action: Any, where: str) -> Any:
    before = copy.deepcopy(state)
    after = game.step(state, action)
    if state != before or hash(state) != hash(before):
        raise _fail(where, f"step changed its input state (action {action!r})")
    again = game.step(state, action)
    if again != after or hash(again) != hash(after):
        raise _fail(where, f"step is not deterministic (action {action!r})")
    return after


def _check_observations(game: Any, state: Any, rng: random.Random, where: str) -> int:
    terminal = game.is_terminal(state)
    mover = None if terminal else game.current_player(state)
    legal = list(game.legal_actions(state))
    for p in range(game.num_players):
        o = game.observe(state, p)
        try:
            hash(o)
        except TypeError as e:
            raise _fail(where, f"player {p}'s observation is not hashable ({e})") from None
        seed = rng.getrandbits(64)
        world = game.sample_world(o, random.Random(seed))
        if game.observe(world, p) != o:
            raise _fail(
                where,
                f"a world sampled from player {p}'s observation does not "
                "give that observation back",
            )
        if game.sample_world(o, random.Random(seed)) != world:
            raise _fail(
                where, f"sample_world for player {p} is not a function of its generator's state"
            )
        if game.is_terminal(world) != terminal or (
            not terminal and game.current_player(world) != mover
        ):
            raise _fail(
                where,
                f"a world sampled for player {p} disagrees on whose turn it "
                "is or whether the game is over",
            )
        if p == mover and list(game.legal_actions(world)) != legal:
            raise _fail(
                where,
                f"a world sampled for player {p}, the player to move, has other legal actions",
            )
    players: int = game.num_players
    return players
