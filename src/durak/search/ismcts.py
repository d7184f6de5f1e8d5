"""Single-Observer Information Set Monte Carlo Tree Search (SO-ISMCTS).

After Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search" (IEEE TCIAIG
4(2), 2012), Algorithm 3.  One tree is grown over the *searching player's* information
sets: a node is keyed by ``observe(state, player)``, so states that player cannot tell
apart share statistics.  Every iteration draws a fresh determinization with
``sample_world``, descends the tree choosing only among actions legal in that
determinization, and scores each edge for the player who took it.  Because an action may be
legal in only some determinizations, UCB uses its *availability* count (how often it could
have been chosen) in place of the parent's visit count.

As in OpenSpiel's ``ismcts.py``, nodes live in a table keyed by information state, so
transpositions share a node; a key already on the current path ends the descent.  The
search reads nothing but the observation and the sampled worlds.

Optional *progressive bias* (Chaslot, Winands, van den Herik, Uiterwijk & Bouzy,
"Progressive strategies for Monte-Carlo tree search", New Math. and Nat. Comp. 4(3), 2008)
adds ``bias / (visits + 1)`` to the UCB score of the action a ``heuristic`` prefers in the
current determinization, and expands that action first: domain knowledge steers the early
visits and fades as the statistics grow.

Optional *PUCT* (Silver et al., Science 2018), as in :mod:`durak.search.mcts`: with a
``prior``, each step scores every action legal in the determinization, tried or not, by
``mean + c * P(a) * sqrt(N) / (1 + n(a))``, where ``P`` is the prior in this
determinization and ``N`` the visits of the actions available in it; an untried action's
mean is the mover's mean over the tried ones (0 before any).

Optional *leaf batches* (:class:`~durak.search.settings.LeafBatch`, the leaf-parallel
scheme of AlphaGo Zero and Leela Zero with the virtual loss of Chaslot, Winands & van den
Herik, CG 2008): several determinized descents in a row, each with a virtual loss on its
path and stopping at an information set made earlier in the batch, then one call values
all their leaves and every path is backed up with its own returns.  Without one, each
simulation is run and backed up alone, as above.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import partial
from typing import Generic, TypeAlias

from durak.search.arguments import SearchError, as_rng
from durak.search.budget import Budget, now
from durak.search.mcts import playout
from durak.search.protocol import A, ImperfectGame, O, S
from durak.search.result import SearchResult
from durak.search.settings import DEFAULTS, TreeSettings
from durak.search.simulation import Tally, prior_of, puct


class _Edge:
    """An action from an information set: who took it, visits, payoff sum, availability."""

    __slots__ = ("available", "mover", "value", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.value = 0.0
        self.available = 0


#: One descent of a batch: its path, its leaf state and the leaf's returns if terminal.
_Descent: TypeAlias = tuple[list[_Edge], S, Sequence[float] | None]


class _Search(Generic[S, A, O]):
    """One SO-ISMCTS run: the node table and the settings."""

    def __init__(
        self,
        game: ImperfectGame[S, A, O],
        player: int,
        settings: TreeSettings[S, A],
    ) -> None:
        self.game = game
        self.player = player
        self.settings = settings
        self.heuristic = settings.biased  # read every iteration: looked up once here
        self.nodes: dict[O, dict[A, _Edge]] = {}

    def iterate(self, root: O, rng: random.Random) -> tuple[Sequence[float], int, int]:
        """One determinized simulation; its returns, states visited and tree depth."""
        game, settings, heuristic = self.game, self.settings, self.heuristic
        c, bias, prior = settings.c, settings.bias, settings.prior
        state = game.sample_world(root, rng)
        edges = self.nodes[root]
        on_path = {id(edges)}
        path: list[_Edge] = []
        while True:
            actions = game.legal_actions(state)
            if not actions:
                payoff = game.returns(state)
                self.backup(path, payoff)
                return payoff, len(path) + 1, len(path)
            if prior is not None:
                action, edge, new = self.choose_puct(state, actions, edges)
            else:
                untried = [a for a in actions if a not in edges]
                new = bool(untried)
                preferred = None if heuristic is None else heuristic(state, actions)
                if untried:
                    if preferred is not None and preferred in untried:
                        action = preferred
                    else:
                        action = untried[rng.randrange(len(untried))]
                    edge = edges[action] = _Edge(game.current_player(state))
                    for a in actions:
                        if a in edges:
                            edges[a].available += 1
                else:
                    best_score = -math.inf
                    edge, action = edges[actions[0]], actions[0]
                    for a in actions:
                        e = edges[a]
                        e.available += 1
                        score = e.value / e.visits + c * math.sqrt(math.log(e.available) / e.visits)
                        if preferred is not None and a == preferred:
                            score += bias / (e.visits + 1)
                        if score > best_score:
                            best_score, edge, action = score, e, a
            path.append(edge)
            state = game.step(state, action)
            key = game.observe(state, self.player)
            child = self.nodes.get(key)
            if child is None:
                self.nodes[key] = {}
                break
            if new or id(child) in on_path:
                break
            on_path.add(id(child))
            edges = child
        payoff, steps = self.simulate(state, rng)
        self.backup(path, payoff)
        return payoff, len(path) + 1 + steps, len(path)

    def iterate_batch(
        self, root: O, rng: random.Random, k: int
    ) -> list[tuple[Sequence[float], int, int]]:
        """``k`` determinized simulations whose new leaves are valued in one call (the
        settings' :class:`LeafBatch`); the returns, states visited and depth of each."""
        batch = self.settings.batch
        assert batch is not None
        made: set[int] = set()  # the nodes this batch made: leaves until it is backed up
        descents = [self.descend(root, rng, made, batch.virtual_loss) for _ in range(k)]
        leaves = [state for _, state, payoff in descents if payoff is None]
        values = list(batch.evaluate(leaves)) if leaves else []
        if len(values) != len(leaves):
            raise SearchError(
                f"a batch evaluator must give one returns vector per state: {len(leaves)} "
                f"states, got {len(values)}"
            )
        valued = iter(values)
        out = []
        for path, _, payoff in descents:
            returns = next(valued) if payoff is None else payoff
            for edge in path:  # the real payoff in place of the virtual loss
                edge.value += returns[edge.mover] - batch.virtual_loss
            out.append((returns, len(path) + 1, len(path)))
        return out

    def descend(self, root: O, rng: random.Random, made: set[int], loss: float) -> _Descent[S]:
        """One descent of a batch from a new determinization of ``root``: as
        :meth:`iterate`'s, but each edge taken counts a visit scoring ``loss`` at once, and
        it also stops at a node of ``made`` (it adds the node it makes there)."""
        game, prior = self.game, self.settings.prior
        state = game.sample_world(root, rng)
        edges = self.nodes[root]
        on_path = {id(edges)}
        path: list[_Edge] = []
        while True:
            actions = game.legal_actions(state)
            if not actions:
                return path, state, game.returns(state)
            if prior is not None:
                action, edge, new = self.choose_puct(state, actions, edges)
            else:
                action, edge, new = self.choose_uct(state, actions, edges, rng)
            edge.visits += 1
            edge.value += loss
            path.append(edge)
            state = game.step(state, action)
            key = game.observe(state, self.player)
            child = self.nodes.get(key)
            if child is None:
                child = self.nodes[key] = {}
                made.add(id(child))
                break
            if new or id(child) in on_path or id(child) in made:
                break
            on_path.add(id(child))
            edges = child
        return path, state, game.returns(state) if game.is_terminal(state) else None

    def choose_uct(
        self, state: S, actions: Sequence[A], edges: dict[A, _Edge], rng: random.Random
    ) -> tuple[A, _Edge, bool]:
        """The UCB choice with availability counts and the progressive bias, as
        :meth:`iterate` makes it inline (kept there so one simulation costs no call)."""
        c, bias, heuristic = self.settings.c, self.settings.bias, self.heuristic
        untried = [a for a in actions if a not in edges]
        preferred = None if heuristic is None else heuristic(state, actions)
        if untried:
            if preferred is not None and preferred in untried:
                action = preferred
            else:
                action = untried[rng.randrange(len(untried))]
            edge = edges[action] = _Edge(self.game.current_player(state))
            for a in actions:
                if a in edges:
                    edges[a].available += 1
            return action, edge, True
        best_score = -math.inf
        edge, action = edges[actions[0]], actions[0]
        for a in actions:
            e = edges[a]
            e.available += 1
            score = e.value / e.visits + c * math.sqrt(math.log(e.available) / e.visits)
            if preferred is not None and a == preferred:
                score += bias / (e.visits + 1)
            if score > best_score:
                best_score, edge, action = score, e, a
        return action, edge, False

    def choose_puct(
        self, state: S, actions: Sequence[A], edges: dict[A, _Edge]
    ) -> tuple[A, _Edge, bool]:
        """The PUCT choice among ``actions`` (legal in this determinization): the action,
        its edge (created if new) and whether it is new."""
        c, prior = self.settings.c, self.settings.prior
        assert prior is not None
        priors = prior_of(prior, state, actions)
        n = 0  # visits of the actions available here; PUCT reads no availability counts
        total = 0.0
        for a in actions:
            e = edges.get(a)
            if e is not None:
                n += e.visits
                total += e.value
        first = total / max(n, 1)
        sqrt_n = math.sqrt(max(n, 1))  # 1 before any visit: the priors order
        best_score, best = -math.inf, actions[0]
        for a, p in zip(actions, priors, strict=True):
            e = edges.get(a)
            if e is None:  # an edge is backed up in the simulation that makes it
                score = puct(first, p, sqrt_n, 0, c)
            else:
                score = puct(e.value / e.visits, p, sqrt_n, e.visits, c)
            if score > best_score:
                best_score, best = score, a
        edge = edges.get(best)
        if edge is None:
            edge = edges[best] = _Edge(self.game.current_player(state))
            return best, edge, True
        return best, edge, False

    def simulate(self, state: S, rng: random.Random) -> tuple[Sequence[float], int]:
        """The returns of a rollout (or the value function) from a new leaf."""
        evaluate, rollout = self.settings.evaluate, self.settings.rollout
        if evaluate is not None and not self.game.is_terminal(state):
            return evaluate(state), 0
        return playout(self.game, state, self.game.legal_actions(state), rollout, rng)

    @staticmethod
    def backup(path: list[_Edge], payoff: Sequence[float]) -> None:
        """Score every edge of the simulation for the player who took it."""
        for edge in path:
            edge.visits += 1
            edge.value += payoff[edge.mover]


def ismcts(
    game: ImperfectGame[S, A, O],
    observation: O,
    *,
    player: int,
    budget: Budget,
    rng: random.Random | int,
    settings: TreeSettings[S, A] = DEFAULTS,
) -> SearchResult[A]:
    """The SO-ISMCTS decision for ``player``, whose information state is ``observation``.

    Settings:

    * ``player``: the searching player (the owner of ``observation``; it must be to move).
    * ``budget``: ``iterations`` (determinized simulations), ``nodes`` (states visited,
      tree and rollout) and/or ``seconds``; at least one.
    * ``settings`` (:class:`~durak.search.settings.TreeSettings`): the exploration
      constant, the simulation, the progressive bias (toward the action the heuristic
      prefers in each determinization), the prior (called at every tree step with the
      determinization and its legal actions), the early stop and the leaf batch
      (:class:`~durak.search.settings.LeafBatch`: its size of simulations valued in one
      call, each one iteration).

    Returns the most visited root action; ``visits`` per legal action, the mean value of
    each tried root action for ``player``, and ``vector``, the mean returns.  Deterministic
    for a fixed seed with an iteration or node budget.
    """
    budget.require_limit("ISMCTS")
    rng = as_rng(rng)
    start = now()
    first = game.sample_world(observation, rng)
    legal = game.legal_actions(first)
    if not legal:
        raise SearchError("cannot search from a terminal state: it has no legal actions")
    if game.current_player(first) != player:
        raise SearchError(f"player {player} is not to move in this observation")
    search = _Search(game, player, settings)
    search.nodes[observation] = {}
    root = search.nodes[observation]

    def root_visits() -> list[int]:
        return [root[a].visits if a in root else 0 for a in legal]

    stop_early = root_visits if settings.stop_early else None
    tally = Tally(game.num_players, start)
    if settings.batch is None:
        tally.run(lambda: search.iterate(observation, rng), budget, stop_early)
    else:
        batches = partial(search.iterate_batch, observation, rng)
        tally.run_batches(batches, settings.batch.size, budget, stop_early)
    visits = {a: edge.visits for a, edge in root.items()}
    sums = {a: edge.value for a, edge in root.items()}
    return tally.decide(legal, visits, sums, player, len(search.nodes))
