"""ISMCTS's leaf batches (:class:`~durak.search.LeafBatch`) against a reference written here.

The reference is the SO-ISMCTS of ``test_reference`` made leaf-parallel as AlphaGo Zero and
Leela Zero batch their network: ``size`` descents in a row, each counting a virtual loss
(one visit scoring the loss for the edge's mover) on its path as it goes and stopping at an
information set an earlier descent of the batch made; then one call values every
non-terminal leaf and each path gets its returns in place of its loss.  With the same
scripted draws both must report the same visits, values, counts and tree.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pytest

from durak.search import MCTS, Budget, LeafBatch, SearchError, SearchResult, TreeSettings, ismcts
from tests.search.test_reference import (
    Figures,
    RefEdge,
    RefISMCTS,
    Returns,
    Scripted,
    distinct_prior,
    first_card,
)
from tests.support.imperfect_games import HiddenCardGame
from tests.support.toygames import random_evaluator

LOSS = -1.0


class Evaluations:
    """A batch evaluator from a one-state value function that records each call's size."""

    def __init__(self, evaluate: Callable[[Hashable], Returns]) -> None:
        self.evaluate = evaluate
        self.sizes: list[int] = []

    def __call__(self, states: Sequence[Hashable]) -> list[Returns]:
        self.sizes.append(len(states))
        return [self.evaluate(s) for s in states]


class RefBatched(RefISMCTS):
    """The reference SO-ISMCTS, ``size`` descents with a virtual loss per leaf batch; it
    notes how many leaves each batch values (none is called for when all are terminal)."""

    sizes: list[int]

    def descend(
        self, root: Hashable, rng: random.Random, made: list[dict[int, RefEdge]]
    ) -> tuple[list[RefEdge], Hashable]:
        game = self.game
        state = game.sample_world(root, rng)
        edges = self.tree[root]
        seen = [edges]
        path: list[RefEdge] = []
        while game.legal_actions(state):
            actions = list(game.legal_actions(state))
            if self.prior is not None:
                action, new = self.puct(state, actions, edges)
            else:
                action, new = self.ucb(state, actions, edges, rng)
            edge = edges[action]
            edge.visits += 1  # the virtual loss, at once
            edge.value += LOSS
            path.append(edge)
            state = game.step(state, action)
            key = game.observe(state, self.player)
            if key not in self.tree:
                self.tree[key] = {}
                made.append(self.tree[key])
                break
            child = self.tree[key]
            if new or any(child is s for s in seen + made):
                break
            seen.append(child)
            edges = child
        return path, state

    def batch(self, root: Hashable, rng: random.Random, size: int, figures: Figures) -> None:
        made: list[dict[int, RefEdge]] = []
        descents = [self.descend(root, rng, made) for _ in range(size)]
        leaves = [s for _, s in descents if not self.game.is_terminal(s)]
        self.sizes += [len(leaves)] if leaves else []
        assert self.evaluate is not None
        values = iter([self.evaluate(s) for s in leaves])
        for path, state in descents:
            payoff = self.game.returns(state) if self.game.is_terminal(state) else next(values)
            for edge in path:
                edge.value += payoff[edge.mover] - LOSS
            figures.add(payoff, len(path) + 1, len(path))


def batched(
    game: Any, observation: Hashable, iterations: int, size: int, seed: int, **guides: Any
) -> tuple[SearchResult[Any], Evaluations]:
    """The library's batched ISMCTS from ``observation`` with a recorded batch evaluator."""
    player = game.current_player(game.sample_world(observation, random.Random(0)))
    evaluations = Evaluations(random_evaluator(5))
    settings = TreeSettings(c=0.7, batch=LeafBatch(size=size, evaluate=evaluations), **guides)
    result = ismcts(
        game,
        observation,
        player=player,
        budget=Budget(iterations=iterations),
        rng=Scripted(seed),
        settings=settings,
    )
    return result, evaluations


def position(seed: int, hand: int = 4) -> tuple[HiddenCardGame, Any]:
    """A deal of the hidden-card game and the observation of the player to move."""
    game = HiddenCardGame(suits=3, ranks=4, hand_size=hand)
    state = game.deal(seed, leader=seed % 2)
    return game, game.observe(state, game.current_player(state))


GUIDES: dict[str, dict[str, Any]] = {
    "puct": {"prior": distinct_prior},
    "ucb": {},
    "progressive bias": {"heuristic": first_card, "bias": 0.6},
}


@pytest.mark.parametrize("guides", list(GUIDES.values()), ids=list(GUIDES))
@pytest.mark.parametrize("seed", [0, 3, 6])
@pytest.mark.parametrize(("size", "iterations"), [(1, 30), (4, 45), (8, 150), (32, 40)])
def test_batched_ismcts_reports_what_a_reference_leaf_parallel_search_computes(
    seed: int, size: int, iterations: int, guides: dict[str, Any]
) -> None:
    game, observation = position(seed)
    result, evaluations = batched(game, observation, iterations, size, seed, **guides)
    prior = guides.get("prior")
    rest = {k: v for k, v in guides.items() if k != "prior"}
    reference = RefBatched(game, result.player, 0.7, prior, evaluate=random_evaluator(5), **rest)
    reference.tree[observation], reference.sizes = {}, []
    rng = Scripted(seed)
    game.sample_world(observation, rng)  # the library's first world, which checks the mover
    figures = Figures(2)
    while figures.iterations < iterations:
        reference.batch(observation, rng, min(size, iterations - figures.iterations), figures)
    root = reference.tree[observation]
    legal = [a for a, _ in result.visits]
    visits = {a: e.visits for a, e in root.items()}
    sums = {a: e.value for a, e in root.items()}
    figures.check(result, legal, visits, sums, len(reference.tree))
    # Every simulation is one iteration and passes through the root; one call per batch
    # with a leaf to value.
    assert result.stats.iterations == sum(visits.values()) == iterations
    assert evaluations.sizes == reference.sizes
    assert len(evaluations.sizes) <= math.ceil(iterations / size)
    assert max(evaluations.sizes) <= size


def test_batches_spread_out_under_the_virtual_loss() -> None:
    # Without a virtual loss every descent of a batch would take the prior's favourite at
    # the root; with it, a batch of 8 from a fresh root tries several root actions.
    game, observation = position(2, hand=6)
    result, _ = batched(game, observation, 8, 8, 2, prior=distinct_prior)
    assert sum(1 for _, n in result.visits if n) > 1


@pytest.mark.parametrize("seed", [1, 4])
def test_a_batched_search_is_reproducible_and_legal_for_a_seed(seed: int) -> None:
    game, observation = position(seed)
    first, _ = batched(game, observation, 60, 8, seed, prior=distinct_prior)
    again, _ = batched(game, observation, 60, 8, seed, prior=distinct_prior)
    assert (first.action, first.visits, first.action_values, first.vector) == (
        again.action,
        again.visits,
        again.action_values,
        again.vector,
    )
    assert first.stats.nodes == again.stats.nodes and first.stats.tree_size == again.stats.tree_size
    assert first.action in game.legal_actions(game.sample_world(observation, random.Random(0)))


def test_the_early_stop_ends_a_batched_search_with_the_decision_it_would_make() -> None:
    game, observation = position(0)
    kwargs: dict[str, Any] = {"prior": distinct_prior}
    full, _ = batched(game, observation, 400, 8, 0, **kwargs)
    player = full.player
    evaluations = Evaluations(random_evaluator(5))
    stopped = ismcts(
        game,
        observation,
        player=player,
        budget=Budget(iterations=400),
        rng=Scripted(0),
        settings=TreeSettings[Any, Any](
            c=0.7,
            prior=distinct_prior,
            stop_early=True,
            batch=LeafBatch(size=8, evaluate=evaluations),
        ),
    )
    assert stopped.action == full.action
    assert stopped.stats.iterations < 400
    assert stopped.stats.iterations % 8 == 0  # it stops between whole batches
    assert all(n <= 8 for n in evaluations.sizes)


def wrong_count(states: Sequence[Hashable]) -> list[Returns]:
    return [(0.0, 0.0)] * (len(states) + 1)


def test_bad_leaf_batches_are_refused_with_one_search_error() -> None:
    evaluate = Evaluations(random_evaluator(5))
    with pytest.raises(SearchError, match="size must be an integer >= 1"):
        LeafBatch(size=0, evaluate=evaluate)
    with pytest.raises(SearchError, match="virtual loss must be finite"):
        LeafBatch(size=4, evaluate=evaluate, virtual_loss=math.nan)
    batch = LeafBatch(size=4, evaluate=evaluate)
    with pytest.raises(SearchError, match="give no rollout or value function"):
        TreeSettings(batch=batch, evaluate=random_evaluator(5))
    with pytest.raises(SearchError, match="a leaf batch is for ISMCTS"):
        MCTS(HiddenCardGame(), settings=TreeSettings[Any, Any](batch=batch))
    game, observation = position(0)
    with pytest.raises(SearchError, match="one returns vector per state: 4 states, got 5"):
        ismcts(
            game,
            observation,
            player=game.current_player(game.sample_world(observation, random.Random(0))),
            budget=Budget(iterations=4),
            rng=0,
            settings=TreeSettings[Any, Any](batch=LeafBatch(size=4, evaluate=wrong_count)),
        )
