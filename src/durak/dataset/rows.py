"""The rows of one played game: one per decision, in the encodings of :mod:`durak.encoding`.

A game is played by :func:`~durak.arena.play.game.play_game` exactly as game ``g`` of a
``durak match`` with the same specs and seed (:class:`~durak.arena.play.match.MatchPlan`:
deal ``derive_seed(seed, g // n)``, seats rotated by ``g``), each agent behind a recorder
that notes the observation it is asked to act on (``observe(state, player, visibility)``,
made by ``play_game`` anyway), so that no second pass through the engine is needed.  Each
decision's row holds that observation as :func:`~durak.encoding.encode_observation`'s
vector, its legal actions as :meth:`~durak.encoding.ActionSpace.mask`, the action taken as
its :class:`~durak.encoding.ActionSpace` index, and the player's return at the game's end
(:func:`seat_returns`, as :func:`durak.rules.returns`); with ``policy``, also each
decision's policy (:mod:`durak.dataset.recorder`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import attrs

from durak.extras import needs

with needs("durak dataset", "dataset"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import Agent
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.match import MatchPlan
from durak.dataset.recorder import Journal, recorder
from durak.encoding import ActionSpace, encode_observation, observation_size
from durak.rules import Action, Observation, Rules

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


@functools.cache
def _space(rules: Rules) -> tuple[ActionSpace, dict[Action, int]]:
    """The :class:`~durak.encoding.ActionSpace` of ``rules`` and every action's index in
    it, as a dictionary."""
    space = ActionSpace(rules)
    return space, {a: i for i, a in enumerate(space.actions)}


def play_rows(
    plan: MatchPlan, game: int, agents: Sequence[Agent], policy: bool = False
) -> GameRows:
    """Play game ``game`` of ``plan`` with ``agents`` (one per spec, as
    :func:`~durak.arena.play.match.build_agents` makes them) and return its rows; with
    ``policy``, each decision's policy too (:mod:`durak.dataset.recorder`).

    Promises: one row per recorded action (a forfeited game stops at its fault, which has
    no row); the rows depend only on the plan and ``game``; the game is the same with or
    without ``policy``.
    """
    rules, visibility = plan.rules, plan.open_world
    seats = plan.seats(game)
    space, index = _space(rules)
    seen: list[Observation] = []
    journal: Journal | None = [] if policy else None
    recorders = [recorder(agents[a], seen, journal, space) for a in seats]
    record = play_game(rules, recorders, plan.deal_seed(game), visibility, plan.referee)
    played = len(record.actions)  # a decision that faulted was noted, not played
    del seen[played:]
    masks = np.zeros((len(seen), space.size), np.bool_)
    for k, observation in enumerate(seen):
        masks[k, [index[a] for a in observation.legal_actions]] = True
    return GameRows(
        game,
        seats,
        record,
        np.array([o.player for o in seen], dtype=np.int32),
        np.stack([encode_observation(o) for o in seen])
        if seen
        else np.zeros((0, observation_size(rules)), np.float32),
        masks,
        np.array([index[a] for a in record.actions], dtype=np.int32),
        seat_returns(rules.players, record.loser),
        None if journal is None else tuple(journal[:played]),
    )
