"""Checks any agent must pass: legal, reproducible games, and decisions that read only the
observation (the cards hidden from the mover, permuted, change nothing)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from durak.agents.base import Agent
from durak.arena.play.game import play_game
from durak.rules import GameState, Rules, is_terminal, legal_actions, new_game, observe, step
from durak.testing.worlds import fill, hidden_slots


def check_legal_reproducible_games(
    seat: Callable[[], Agent], others: Sequence[str], rules: Rules, seed: int
) -> None:
    """``seat()`` in seat 0 against the agents of ``others`` (specs): ``play_game``
    (without a referee, it raises on an illegal action) finishes without a forfeit, the
    same seed gives the same game with fresh agents, another seed another."""
    from durak.agents import make_agent  # noqa: PLC0415 - the registry, plugins loaded

    def actions(s: int) -> list[object]:
        agents = [seat(), *(make_agent(spec, rules) for spec in others)]
        record = play_game(rules, agents, s)
        assert record.forfeit is None and record.decisions[0] > 0
        return list(record.actions)

    first = actions(seed)
    assert first == actions(seed)
    assert first != actions(seed + 1)


def check_decisions_ignore_hidden_cards(agent: Agent, rules: Rules, seed: int) -> int:
    """Along a seeded random game of ``rules``, every decision of ``agent`` with a choice
    is legal and the same in a twin state whose hidden cards (to the mover) are permuted;
    the number of decisions checked (some states have nothing to permute)."""
    rng = random.Random(seed)
    state, checked = new_game(rules, seed), 0
    while not is_terminal(state):
        legal = legal_actions(state)
        if len(legal) > 1:
            checked += _same_in_twin(agent, state, rng, checked)
        state = step(state, rng.choice(legal))
    return checked


def _same_in_twin(agent: Agent, state: GameState, rng: random.Random, k: int) -> int:
    p = state.turn
    owners, cards = hidden_slots(state, p)
    twins = (fill(state, p, owners, rng.sample(cards, len(cards))) for _ in range(20))
    twin = next((t for t in twins if t != state), None)
    if twin is None:
        return 0  # every hidden card in one place: nothing to permute
    assert observe(twin, p) == observe(state, p)
    decide = [agent.act(observe(s, p), random.Random(k)) for s in (state, twin)]
    assert decide[0] == decide[1] and decide[0] in legal_actions(state)
    return 1
