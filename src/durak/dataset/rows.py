"""The rows of one played game: one per decision, in the encodings of :mod:`durak.encoding`.

A game is played by :func:`~durak.arena.play.game.play_game` exactly as game ``g`` of a
``durak match`` with the same specs and seed (:class:`~durak.arena.play.match.MatchPlan`:
deal ``derive_seed(seed, g // n)``, seats rotated by ``g``), then stepped again through the
engine from its deal, so that each decision's row holds what the player to act saw
(``observe(state, player, visibility)``) as :func:`~durak.encoding.encode_observation`'s
vector, the legal actions as :meth:`~durak.encoding.ActionSpace.mask`, the action taken as
its :class:`~durak.encoding.ActionSpace` index, and the player's return at the game's end
(:func:`seat_returns`, as :func:`durak.rules.returns`); with ``policy``, also each
decision's policy (:mod:`durak.dataset.policy`).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from durak.extras import needs

with needs("durak dataset", "dataset"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import Agent
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.match import MatchPlan
from durak.dataset.policy import Journal, recording
from durak.encoding import ActionSpace, encode_observation, observation_size
from durak.rules import new_game, observe, step

__all__ = ["GameRows", "play_rows", "seat_returns"]


def seat_returns(players: int, loser: int | None) -> tuple[float, ...]:
    """Each seat's return at the end of a game whose durak is seat ``loser`` (``None``: a
    draw): -1 for the durak, ``1 / (players - 1)`` for every other seat, all 0 for a draw;
    the values of :func:`durak.rules.returns`, and of a forfeit, whose forfeiter is the
    durak."""
    if loser is None:
        return (0.0,) * players
    share = 1.0 / (players - 1)
    return tuple(-1.0 if p == loser else share for p in range(players))


@attrs.frozen(eq=False)
class GameRows:
    """Game ``game`` of a plan and its decisions, one per action of ``record``, in order.

    ``seats[s]`` is the agent (index into the plan's specs) in seat ``s``; row ``k`` was
    decided by seat ``players[k]``, saw ``observations[k]``, could play the actions of
    ``masks[k]`` and played ``actions[k]``; ``returns[s]`` is seat ``s``'s return;
    ``policies[k]`` is the acting agent's policy (``None`` where it cannot analyse), or
    ``policies`` is ``None`` when none were recorded.
    """

    game: int
    seats: tuple[int, ...]
    record: GameRecord
    players: NDArray[np.int32]
    observations: NDArray[np.float32]
    masks: NDArray[np.bool_]
    actions: NDArray[np.int32]
    returns: tuple[float, ...]
    policies: tuple[NDArray[np.float32] | None, ...] | None = None


def play_rows(
    plan: MatchPlan, game: int, agents: Sequence[Agent], policy: bool = False
) -> GameRows:
    """Play game ``game`` of ``plan`` with ``agents`` (one per spec, as
    :func:`~durak.arena.play.match.build_agents` makes them) and return its rows; with
    ``policy``, each decision's policy too (:mod:`durak.dataset.policy`).

    Promises: one row per recorded action (a forfeited game stops at its fault, which has
    no row); the rows depend only on the plan and ``game``; the game is the same with or
    without ``policy``.
    """
    rules, visibility = plan.rules, plan.open_world
    seats = plan.seats(game)
    space = ActionSpace(rules)
    journal: Journal = []
    seated: list[Agent] = [agents[a] for a in seats]
    if policy:
        seated = [recording(a, space, journal) for a in seated]
    record = play_game(rules, seated, plan.deal_seed(game), visibility, plan.referee)
    state = new_game(rules, record.seed)
    players: list[int] = []
    vectors: list[NDArray[np.float32]] = []
    masks: list[NDArray[np.bool_]] = []
    actions: list[int] = []
    for action in record.actions:
        seat = state.turn
        seen = observe(state, seat, visibility)
        players.append(seat)
        vectors.append(encode_observation(seen))
        masks.append(space.mask(seen.legal_actions))
        actions.append(space.encode(action))
        state = step(state, action)
    width = space.size
    return GameRows(
        game,
        seats,
        record,
        np.array(players, dtype=np.int32),
        np.stack(vectors) if vectors else np.zeros((0, observation_size(rules)), np.float32),
        np.stack(masks) if masks else np.zeros((0, width), np.bool_),
        np.array(actions, dtype=np.int32),
        seat_returns(rules.players, record.loser),
        # an illegal action (a forfeit) was decided, not played: it has no row
        tuple(journal[: len(record.actions)]) if policy else None,
    )
