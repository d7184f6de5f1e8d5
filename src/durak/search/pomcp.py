"""A best response by search: POMCP against fixed other players.

After Silver & Veness, "Monte-Carlo Planning in Large POMDPs" (NIPS 2010): with every other
player's policy fixed, the game is a POMDP for the searching player, and POMCP plans in it
by UCT over the searcher's own *histories*.  A node is the sequence of the searcher's
actions and of the observations that followed them; every simulation draws a world from
the belief at the root (``sample_world``), and from there the other players move as their
fixed policy (``respond``) moves in that world.  A world reaches a node only if it gives
the observations of its history, so the worlds that pass a node are drawn from the belief
conditioned on that history (the "particles" of POMCP), and the search never fuses
choices across worlds the searcher cannot tell apart: its node is the same in all of them.
As the budget grows, UCT at every history converges to the best reply to the fixed
policies (Kocsis & Szepesvári, ECML 2006), so the decision converges to a best response
given the root belief.  This is the search half of the approximate best response of
Timbers et al., "Approximate Exploitability: Learning a Best Response" (IJCAI 2022).

Unlike :mod:`durak.search.ismcts`, the other players never choose by the tree's
statistics: their move is always ``respond``'s, so the tree's values are the searcher's
values against those policies, not against a searching adversary.

A new node is valued by ``settings.evaluate`` if given, else by a playout in which the
searcher follows ``settings.rollout`` (uniform without one) and the others ``respond``.
At the searcher's nodes ``settings.prior`` (PUCT) or the progressive bias toward
``settings.heuristic`` steer the early visits as in the other tree searches.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Generic

from durak.search.arguments import SearchError, as_rng
from durak.search.budget import Budget, now
from durak.search.protocol import A, ImperfectGame, O, S
from durak.search.result import SearchResult
from durak.search.settings import DEFAULTS, TreeSettings
from durak.search.simulation import Tally, prior_of, puct

__all__ = ["Respond", "best_response"]

#: The fixed policy of the other players: the move of the player to move at a state where
#: the searcher is not, drawing only from the generator given.
Respond = Callable[[S, random.Random], A]


class _Edge(Generic[A, O]):
    """An action of the searcher at a history: visits, payoff sum, and the histories it
    leads to, by the searcher's next observation."""

    __slots__ = ("children", "value", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.value = 0.0
        self.children: dict[O, _Node[A, O]] = {}


class _Node(Generic[A, O]):
    """A history of the searcher: its actions' edges and its visits."""

    __slots__ = ("edges", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.edges: dict[A, _Edge[A, O]] = {}


class _Search(Generic[S, A, O]):
    """One POMCP run against fixed other players."""

    def __init__(
        self,
        game: ImperfectGame[S, A, O],
        player: int,
        respond: Respond[S, A],
        settings: TreeSettings[S, A],
    ) -> None:
        self.game = game
        self.player = player
        self.respond = respond
        self.settings = settings
        self.heuristic = settings.biased
        self.size = 1

    def advance(self, state: S, rng: random.Random) -> tuple[S, int]:
        """``state`` after the others' moves up to the searcher's turn or the end; the
        moves made."""
        game, me, respond = self.game, self.player, self.respond
        moves = 0
        while not game.is_terminal(state) and game.current_player(state) != me:
            state = game.step(state, respond(state, rng))
            moves += 1
        return state, moves

    def iterate(
        self, root: O, node: _Node[A, O], rng: random.Random
    ) -> tuple[Sequence[float], int, int]:
        """One simulation from a world drawn at ``root``; its returns, states visited and
        depth."""
        game, me = self.game, self.player
        state = game.sample_world(root, rng)
        path: list[tuple[_Node[A, O], _Edge[A, O]]] = []
        visited = 1
        while True:
            actions = game.legal_actions(state)
            if not actions:
                payoff = game.returns(state)
                break
            edge, action = self.choose(node, state, actions, rng)
            path.append((node, edge))
            state, moves = self.advance(game.step(state, action), rng)
            visited += 1 + moves
            if game.is_terminal(state):
                payoff = game.returns(state)
                break
            key = game.observe(state, me)
            child = edge.children.get(key)
            if child is None:
                edge.children[key] = _Node()
                self.size += 1
                payoff, steps = self.simulate(state, rng)
                visited += steps
                break
            node = child
        mine = payoff[me]
        for n, e in path:
            n.visits += 1
            e.visits += 1
            e.value += mine
        return payoff, visited, len(path)

    def choose(
        self, node: _Node[A, O], state: S, actions: Sequence[A], rng: random.Random
    ) -> tuple[_Edge[A, O], A]:
        """The searcher's action at ``node``: PUCT with a prior; else an untried action
        (the heuristic's first), then UCB1 with the progressive bias."""
        edges = node.edges
        settings = self.settings
        if settings.prior is not None:
            return self.choose_puct(node, state, actions)
        untried = [a for a in actions if a not in edges]
        preferred = None if self.heuristic is None else self.heuristic(state, actions)
        if untried:
            if preferred is not None and preferred in untried:
                action = preferred
            else:
                action = untried[rng.randrange(len(untried))]
            edge = edges[action] = _Edge()
            return edge, action
        c, bias = settings.c, settings.bias
        log_n = math.log(max(node.visits, 1))
        best_score, best = -math.inf, actions[0]
        for a in actions:
            e = edges[a]
            score = e.value / e.visits + c * math.sqrt(log_n / e.visits)
            if preferred is not None and a == preferred:
                score += bias / (e.visits + 1)
            if score > best_score:
                best_score, best = score, a
        return edges[best], best

    def choose_puct(
        self, node: _Node[A, O], state: S, actions: Sequence[A]
    ) -> tuple[_Edge[A, O], A]:
        """The PUCT choice (Silver et al., Science 2018); an untried action's mean is the
        node's mean so far."""
        assert self.settings.prior is not None
        priors = prior_of(self.settings.prior, state, actions)
        edges = node.edges
        total = sum(e.value for e in edges.values())
        first = total / max(node.visits, 1)
        sqrt_n = math.sqrt(max(node.visits, 1))
        best_score, best = -math.inf, actions[0]
        for a, p in zip(actions, priors, strict=True):
            e = edges.get(a)
            if e is None or not e.visits:
                score = puct(first, p, sqrt_n, 0, self.settings.c)
            else:
                score = puct(e.value / e.visits, p, sqrt_n, e.visits, self.settings.c)
            if score > best_score:
                best_score, best = score, a
        edge = edges.get(best)
        if edge is None:
            edge = edges[best] = _Edge()
        return edge, best

    def simulate(self, state: S, rng: random.Random) -> tuple[Sequence[float], int]:
        """The value of a new node: ``evaluate``'s, or a playout of the searcher's rollout
        policy against ``respond``."""
        game, me = self.game, self.player
        evaluate, rollout = self.settings.evaluate, self.settings.rollout
        if evaluate is not None:
            return evaluate(state), 0
        steps = 0
        while True:
            actions = game.legal_actions(state)
            if not actions:
                return game.returns(state), steps
            if game.current_player(state) != me:
                action = self.respond(state, rng)
            elif rollout is not None:
                action = rollout(state, rng)
            else:
                action = actions[int(rng.random() * len(actions))]
            state = game.step(state, action)
            steps += 1


def best_response(
    game: ImperfectGame[S, A, O],
    observation: O,
    *,
    player: int,
    respond: Respond[S, A],
    budget: Budget,
    rng: random.Random | int,
    settings: TreeSettings[S, A] = DEFAULTS,
) -> SearchResult[A]:
    """The POMCP decision of ``player`` (to move at ``observation``) against the other
    players moving as ``respond`` (the module doc).

    ``game.sample_world`` is the belief at the root: the decision is a best response to
    ``respond`` given that belief in the limit of the budget.  ``budget``: iterations
    (simulations), nodes (states visited) and/or seconds, at least one.  ``settings``:
    ``c``, ``bias`` with ``heuristic``, ``prior``, ``evaluate``, ``rollout`` (the
    searcher's own playout policy) and ``stop_early`` as for :func:`~durak.search.ismcts`;
    a leaf ``batch`` is refused (:class:`SearchError`).

    Returns the most visited root action with each tried action's mean payoff for
    ``player``; deterministic for a fixed seed with an iteration or node budget (and a
    ``respond`` that draws only from the generator it is given).
    """
    budget.require_limit("POMCP")
    if settings.batch is not None:
        raise SearchError("the best-response search values one leaf at a time: no batch")
    rng = as_rng(rng)
    start = now()
    first = game.sample_world(observation, rng)
    legal = game.legal_actions(first)
    if not legal:
        raise SearchError("cannot search from a terminal state: it has no legal actions")
    if game.current_player(first) != player:
        raise SearchError(f"player {player} is not to move in this observation")
    search = _Search(game, player, respond, settings)
    root: _Node[A, O] = _Node()

    def root_visits() -> list[int]:
        return [root.edges[a].visits if a in root.edges else 0 for a in legal]

    stop_early = root_visits if settings.stop_early else None
    tally = Tally(game.num_players, start)
    tally.run(lambda: search.iterate(observation, root, rng), budget, stop_early)
    visits = {a: e.visits for a, e in root.edges.items()}
    sums = {a: e.value for a, e in root.edges.items()}
    return tally.decide(legal, visits, sums, player, search.size)
