"""Benchmarks: engine speed, and the speed of the searches of :mod:`durak.search` on Durak.

Engine games are played with the unchecked fast path and Zarlykov's random policy
(:func:`durak.agents.heuristics.simple.random_choice`, ``stop_chance=0.2``), in one process, as
search and training drive the engine.  Search figures are MCTS and ISMCTS iterations per second
from the opening and alpha-beta nodes per second on endgames.  Times are this thread's CPU
time (:func:`clock`): on an idle machine the same as the wall clock, and on a machine
shared with other jobs not slowed by them (every benchmark here runs in one thread).
"""

from __future__ import annotations

import random
import time

import attrs

from durak.agents.heuristics import evals
from durak.agents.heuristics.simple import random_choice
from durak.rules import (
    DurakGame,
    GameState,
    Pass,
    Rules,
    Take,
    legal_actions,
    new_game,
    observe,
    step,
    step_unchecked,
)
from durak.search import Budget, TreeSettings, alphabeta, ismcts, mcts

#: The benchmarks' clock: this thread's CPU time.
clock = time.thread_time


@attrs.frozen
class EngineBench:
    """One benchmark run: ``games`` complete games with ``players`` players."""

    players: int
    games: int
    seconds: float
    decisions: int

    @property
    def games_per_second(self) -> float:
        """Complete games per second, deal included."""
        return self.games / self.seconds

    @property
    def us_per_decision(self) -> float:
        """Microseconds per ``legal_actions`` + ``step`` pair (deal time included)."""
        return self.seconds / self.decisions * 1e6


def bench_engine(rules: Rules, games: int, seed: int = 0) -> EngineBench:
    """Play ``games`` random-vs-random games from seeds ``seed..seed+games-1``."""
    rand = random.Random(seed).random
    decisions = 0
    start = clock()
    for g in range(games):
        state = new_game(rules, seed + g)
        while state.turn >= 0:
            state = step_unchecked(state, random_choice(legal_actions(state), rand, 0.2))
            decisions += 1
    return EngineBench(rules.players, games, clock() - start, decisions)


@attrs.frozen
class ApiBench:
    """The README's loop, ``step(state, rng.choice(legal_actions(state)))``, against the same
    loop with ``step_unchecked``, run interleaved on the same deals and choices."""

    games: int
    checked_seconds: float
    unchecked_seconds: float

    @property
    def ratio(self) -> float:
        """Checked speed over unchecked speed (1.0: the check is free)."""
        return self.unchecked_seconds / self.checked_seconds


def bench_api(rules: Rules, games: int, seed: int = 0, rounds: int = 4) -> ApiBench:
    """Play ``games`` uniformly random games through the public, checked :func:`step` and
    through :func:`step_unchecked`, alternating in ``rounds`` slices so that both see the
    same machine load.  Each goes first in half the rounds: the second to play a slice's
    deals finds the engine's small caches (``origins.after_play``) warm."""
    times = {step: 0.0, step_unchecked: 0.0}
    per_round = max(1, games // rounds)
    for r in range(rounds):
        for fn in (step, step_unchecked) if r % 2 == 0 else (step_unchecked, step):
            first = seed + r * per_round
            rng = random.Random(first)
            start = clock()
            for g in range(first, first + per_round):
                state = new_game(rules, g)
                while state.turn >= 0:
                    state = fn(state, rng.choice(legal_actions(state)))
            times[fn] += clock() - start
    return ApiBench(per_round * rounds, times[step], times[step_unchecked])


def bench_passive(rules: Rules, decisions: int, seed: int = 0) -> EngineBench:
    """One long passive game: every defender takes, every asked attacker passes, leads are
    random; ``decisions`` decisions (or fewer if it ends).  Its bout starts pile up in the
    repetition record, so this shows what recording one costs in a long game."""
    rand = random.Random(seed).random
    state = new_game(rules, seed)
    done = 0
    start = clock()
    while state.turn >= 0 and done < decisions:
        legal = legal_actions(state)
        last = legal[-1]
        state = step_unchecked(
            state,
            last if type(last) is Take or type(last) is Pass else legal[int(rand() * len(legal))],
        )
        done += 1
    return EngineBench(rules.players, 1, clock() - start, done)


@attrs.frozen
class SearchBench:
    """One search benchmark: ``count`` units (iterations or nodes) in ``seconds``.

    ``positions`` searched; ``exact`` of them solved to their game-theoretic value.
    """

    name: str
    unit: str
    count: int
    seconds: float
    positions: int
    exact: int = 0

    @property
    def per_second(self) -> float:
        """Units per second."""
        return self.count / self.seconds


def bench_mcts(rules: Rules, positions: int, iterations: int, seed: int = 0) -> SearchBench:
    """UCT with uniformly random rollouts from the openings of deals ``seed, seed+1, ...``."""
    game = DurakGame(rules)
    done = 0
    start = clock()
    for k in range(positions):
        result = mcts(game, new_game(rules, seed + k), budget=Budget(iterations=iterations), rng=k)
        done += result.stats.iterations
    return SearchBench("MCTS, random rollouts", "iterations", done, clock() - start, positions)


def bench_ismcts(rules: Rules, positions: int, iterations: int, seed: int = 0) -> SearchBench:
    """SO-ISMCTS as the ``ismcts`` agent runs it (greedy rollouts, progressive bias 20
    toward the greedy move) from the first player's observation of deals ``seed, seed+1,
    ...``, ``iterations`` each."""
    game = DurakGame(rules)
    done = 0
    start = clock()
    for k in range(positions):
        state = new_game(rules, seed + k)
        result = ismcts(
            game,
            observe(state, state.turn),
            player=state.turn,
            budget=Budget(iterations=iterations),
            rng=k,
            settings=TreeSettings(
                rollout=evals.greedy_rollout, heuristic=evals.greedy_heuristic, bias=20.0
            ),
        )
        done += result.stats.iterations
    return SearchBench("ISMCTS, greedy rollouts", "iterations", done, clock() - start, positions)


def endgames(rules: Rules, count: int, seed: int = 0) -> list[GameState]:
    """Positions where the talon has just run out, from seeded random-vs-random games."""
    rand = random.Random(seed).random
    found: list[GameState] = []
    g = seed
    while len(found) < count:
        state = new_game(rules, g)
        g += 1
        while state.turn >= 0 and state.talon:
            state = step_unchecked(state, random_choice(legal_actions(state), rand, 0.2))
        if state.turn >= 0:
            found.append(state)
    return found


def bench_alphabeta(rules: Rules, positions: int, nodes: int, seed: int = 0) -> SearchBench:
    """Iterative-deepening alpha-beta (transposition table, ``evals.basic`` at the frontier)
    on two-player endgames with an empty talon, ``nodes`` nodes per position."""
    game = DurakGame(rules)
    states = endgames(rules, positions, seed)
    visited = exact = 0
    start = clock()
    for state in states:
        result = alphabeta(game, state, evaluate=evals.basic, budget=Budget(nodes=nodes))
        visited += result.stats.nodes
        exact += result.exact
    return SearchBench("alpha-beta + TT", "nodes", visited, clock() - start, positions, exact)
