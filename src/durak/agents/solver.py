"""The exact endgame solver: the ``solver`` agent and the solve it shares.

Once every card is known the position is a perfect-information game, and its exact
alpha-beta value (Knuth & Moore, "An analysis of alpha-beta pruning", Artificial
Intelligence 6, 1975; :func:`durak.search.solve`) gives the move.  That holds in a
two-player game once the talon is empty (or shown), and in a game of three or more once the
talon is empty and only two players still hold cards (:func:`two_left`): the others are out
and never move again (:func:`solvable` says why alpha-beta is then exact).
:class:`SolverAgent` plays it and defers to another agent before that and in lost
positions; :class:`ExactEndgame` keeps one transposition table through a game and is also
the learner's autopilot in ``durak train --solve-endgame``; the ``ismcts`` agent calls
:func:`solved_result` with ``endgame=N``.
"""

from __future__ import annotations

import random
from typing import Any

import attrs

from durak.agents.base import (
    Agent,
    Relay,
    Watcher,
    check_bound,
    make_agent,
    register,
    watchers_among,
)
from durak.agents.heuristics import evals
from durak.agents.specs import AGENT_SPEC, Param, nested_spec, param, params_of
from durak.rules import Action, DurakGame, GameState, Observation, Rules
from durak.search import Budget, BudgetExhausted, SearchResult, TranspositionTable, solve


def determined(observation: Observation) -> bool:
    """Whether only one state fits ``observation``: no hidden card in the talon (or the
    talon's order shown), and at most one opponent with cards its owner cannot see (it
    must hold all of the hidden ones)."""
    o = observation
    hidden_talon = 0 if o.talon_order is not None else o.talon_size - o.trump_in_talon
    unseen = [p for p in range(o.rules.players) if p != o.player and o.unknown_count(p)]
    return hidden_talon == 0 and len(unseen) <= 1


def two_left(observation: Observation) -> bool:
    """Whether ``observation`` is of a game of any size in which the talon is empty and at
    most two players still hold cards: only they can still move or be the durak (a player
    with no cards is never asked to move, and leaves when the bout ends, ``docs/rules.md``).
    """
    o = observation
    return o.talon_size == 0 and sum(1 for size in o.hand_sizes if size) <= 2


def solvable(observation: Observation) -> bool:
    """Whether alpha-beta on the mover's return gives both players' best play from
    ``observation``'s position, and the position is the only one it fits.

    :func:`durak.search.solve` maximises the return of the player to move at the root and
    minimises it at every other player's turn (the paranoid reduction beyond two players).
    Every card must be known (:func:`determined`).  With two players the game is zero-sum,
    so that is exact.  With more, it is exact once only two players hold cards
    (:func:`two_left`): the mover's return is +1/(n-1) when the other is the durak, 0 for
    a draw and -1 when the mover is, and the other's return is -1, 0 and +1/(n-1) for the
    same outcomes, a strictly decreasing function of the mover's.  So the two-player game
    left is strictly competitive (Luce & Raiffa, "Games and Decisions", 1957): what the
    other player prefers is exactly what lowers the mover's return, and the minimax value
    of the mover's return, which alpha-beta computes (Knuth & Moore, 1975), is both
    players' best play, as in a zero-sum game.  With three players holding cards the
    paranoid value is not the game's, so it is refused.
    """
    if not determined(observation):
        return False
    return observation.rules.players == 2 or two_left(observation)


def solve_endgame(
    game: DurakGame, state: GameState, *, nodes: int, table: TranspositionTable | None = None
) -> SearchResult[Action]:
    """The exact solve of ``state`` as the ``solver`` agent runs it: the weakest cards first
    (:func:`~durak.agents.heuristics.evals.cheap_first`), from the game's value range, so a proven
    win ends a node's search at once, within ``nodes`` nodes (else :class:`BudgetExhausted`);
    a ``table`` carries solved positions over to the next solve."""
    return solve(
        game,
        state,
        order=evals.cheap_first,
        budget=Budget(nodes=nodes),
        value_range=game.value_range,
        transpositions=True if table is None else table,
    )


def solved_result(
    observation: Observation,
    rng: random.Random,
    *,
    nodes: int,
    table: TranspositionTable | None = None,
) -> SearchResult[Action] | None:
    """The exact solve of a position in which every card is known and only two players can
    still move (:func:`solvable`: a two-player game, or a larger one with two left), solved
    within ``nodes`` nodes and not lost against perfect play (its value, the mover's
    return, at least 0: a draw or a win); else ``None``.

    The solve is :func:`solve_endgame`'s; a ``table`` carries solved positions over to the
    next decision.  It reads only the observation (the one world consistent with it).
    """
    if not solvable(observation):
        return None
    game = DurakGame(observation.rules, observation.visibility)
    world = game.sample_world(observation, rng)
    try:
        solved = solve_endgame(game, world, nodes=nodes, table=table)
    except BudgetExhausted:
        return None
    return solved if solved.value >= 0 else None


def solved_move(
    observation: Observation,
    rng: random.Random,
    *,
    nodes: int,
    table: TranspositionTable | None = None,
) -> Action | None:
    """The move of :func:`solved_result`, or ``None`` where it has none."""
    solved = solved_result(observation, rng, nodes=nodes, table=table)
    return None if solved is None else solved.action


@attrs.frozen
class ExactEndgame:
    """:func:`solved_move` with one transposition table kept through a game, so each
    decision of an endgame reuses the positions the earlier ones solved.

    It is a :class:`~durak.agents.Watcher`: the table is cleared when a game starts and
    ends, so a game's moves depend only on that game.
    Used by ``solver`` and as the learner's autopilot in ``durak train --solve-endgame``.
    """

    nodes: int
    table: TranspositionTable = attrs.field(factory=TranspositionTable, eq=False, repr=False)

    def __call__(self, observation: Observation, rng: random.Random) -> Action | None:
        """:func:`solved_move` with the kept table (cleared once it holds more than twice
        ``nodes`` entries, which bounds memory when solves keep running out of budget)."""
        move = solved_move(observation, rng, nodes=self.nodes, table=self.table)
        if len(self.table) > 2 * self.nodes:
            self.table.clear()
        return move

    def game_started(self, observation: Observation) -> None:
        """Forget the previous game's solves."""
        self.table.clear()

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Nothing: the table is keyed by full states."""

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Free the table."""
        self.table.clear()


@attrs.frozen
class SolverAgent(Relay):
    """The exact alpha-beta move once every card is known; ``fallback`` before that, when
    the solve needs more than ``nodes`` nodes, and in a position lost against perfect play
    (every move loses, so the fallback's move keeps the chances an opponent's mistake
    offers).  ``fallback`` is the agent itself; the ``solver`` spec builds it from a spec
    with ``;`` between its parameters (``solver:fallback=mcts:limit=100;samples=2``).  The
    solve is :class:`ExactEndgame`'s: it keeps its
    table through a game, and it hears the game's progress (as the fallback does, if it is
    a :class:`~durak.agents.Watcher`): a fresh table when a game starts, freed when it
    ends."""

    fallback: Agent
    nodes: int = param(200_000, "node budget of one solve", low=1, high=10**9)
    name: str = "solver"
    endgame: ExactEndgame = attrs.field(init=False, eq=False, repr=False)
    watchers: tuple[Watcher, ...] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        endgame = ExactEndgame(self.nodes)
        object.__setattr__(self, "endgame", endgame)
        object.__setattr__(self, "watchers", watchers_among(endgame, self.fallback))

    def check_rules(self, rules: Rules) -> None:
        """:class:`SpecError` unless the fallback agent can play ``rules``."""
        check_bound(self.fallback, rules, "solver: fallback")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The solved move, or the fallback agent's."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        solved = self.endgame(observation, rng)
        return self.fallback.act(observation, rng) if solved is None else solved


_FALLBACK = Param(
    "fallback", str, "mcts", "other positions' agent spec, ';' for ','", holds=AGENT_SPEC
)


def _solver(fallback: str, **settings: Any) -> SolverAgent:
    return SolverAgent(make_agent(nested_spec(fallback)), **settings)


register(
    "solver",
    _solver,
    "exact endgame moves once all cards are known",
    (*params_of(SolverAgent), _FALLBACK),
)
