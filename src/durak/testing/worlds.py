"""Worlds a player cannot tell apart: the hidden slots of a state, refilled with other
cards (:func:`hidden_slots`, :func:`fill`), and a whole game dealt differently where a
player sees the same at every step (:func:`twin_game`), the twin worlds of
:func:`~durak.testing.check_agent`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from durak.agents.inference.record import GameLog, PublicRecord
from durak.rules import (
    Action,
    Card,
    GameState,
    Rules,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)

__all__ = ["describe", "fill", "hidden_slots", "rebuild", "twin_game"]


def rebuild(state: GameState, **changes: object) -> GameState:
    """A new state through the positional constructor, field by field, with ``changes``
    (field names of :class:`~durak.rules.GameState`); ``TypeError`` for an unknown one."""
    values: list[Any] = []
    for f in attrs.fields(GameState):
        values.append(changes.pop(f.name) if f.name in changes else getattr(state, f.name))
    if changes:
        raise TypeError(f"GameState has no fields {sorted(changes)}")
    return GameState(*values)


def hidden_slots(state: GameState, player: int) -> tuple[list[int], list[Card]]:
    """The slots of the cards ``player`` cannot see, and the cards in them: each opponent's
    unknown cards (owner = the opponent) and the talon above the face-up trump card (owner
    -1, top first)."""
    owners: list[int] = []
    cards: list[Card] = []
    known = state.known
    for q, hand in enumerate(state.hands):
        if q != player:
            for c in hand - known[q]:
                owners.append(q)
                cards.append(c)
    talon = state.talon
    face_up = bool(talon) and state.trump_card is not None
    for c in talon[:-1] if face_up else talon:
        owners.append(-1)
        cards.append(c)
    return owners, cards


def fill(state: GameState, player: int, owners: Sequence[int], cards: Sequence[Card]) -> GameState:
    """``state`` with the hidden slots of ``player`` (:func:`hidden_slots`) refilled with
    ``cards``: a world that ``player`` observes exactly as ``state`` (closed world)."""
    known = state.known
    masks = [h.mask if q == player else known[q].mask for q, h in enumerate(state.hands)]
    talon: list[Card] = []
    for owner, c in zip(owners, cards, strict=True):
        if owner < 0:
            talon.append(c)
        else:
            masks[owner] |= 1 << c.index
    if state.talon and state.trump_card is not None:
        talon.append(state.trump_card)
    return rebuild(state, hand_masks=tuple(masks), talon=tuple(talon))


def describe(state: GameState) -> str:
    """A one-line picture of a world: every hand, the talon (top first) and the table."""
    hands = " | ".join(f"{p}: {h}" for p, h in enumerate(state.hands))
    talon = " ".join(map(str, state.talon))
    table = " ".join(f"{a}/{d or '-'}" for a, d in state.table)
    return f"hands {hands}; talon {talon or '-'}; table {table or '-'}"


def twin_game(
    rules: Rules, seed: int, actions: Sequence[Action], player: int, rng: random.Random
) -> GameState | None:
    """Another deal than ``new_game(rules, seed)`` from which ``actions`` are legal and
    ``player`` observes (closed world) exactly what it observes in the real game after
    every action, but whose state after the last action differs from the real one.
    ``None`` if ``rng`` draws no such deal in a few tries (say, every card hidden from
    ``player`` is in one place).

    The deal is drawn from a world sampled from ``player``'s last observation
    (:func:`~durak.rules.sample_world`) and the past that the public actions allow in it
    (:class:`~durak.agents.inference.record.PublicRecord`, after Rebstock et al. 2019).
    """
    state = new_game(rules, seed)
    real = [state]
    log = GameLog(observe(state, player))
    for action in actions:
        mover = state.turn
        state = step(state, action)
        real.append(state)
        log.moves.append((mover, action, observe(state, player)))
    record = PublicRecord.of(log)
    for _ in range(TRIES):
        try:
            start = record.past(sample_world(log.latest, rng), rng)
        except RuntimeError:  # the inference found no past in its tries: draw again
            continue
        twin = _replay(start, actions, real, player)
        if twin is not None and twin[-1] != real[-1]:
            return start
    return None


#: How many deals :func:`twin_game` draws before it gives up.
TRIES = 20


def _replay(
    start: GameState, actions: Sequence[Action], real: list[GameState], player: int
) -> list[GameState] | None:
    """The states after each action from ``start``, if every action is legal there and
    ``player`` observes each state as in ``real``."""
    states, state = [start], start
    if observe(start, player) != observe(real[0], player):
        return None
    for action, seen in zip(actions, real[1:], strict=True):
        if action not in legal_actions(state):
            return None
        state = step(state, action)
        if observe(state, player) != observe(seen, player):
            return None
        states.append(state)
    return states
