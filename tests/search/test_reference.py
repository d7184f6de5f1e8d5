"""UCT and SO-ISMCTS against reference searches written here from their papers.

* UCT: Kocsis & Szepesvári (ECML 2006) in the four phases of Browne et al. (IEEE TCIAIG 4,
  2012), with Sturtevant's vector backup (CG 2008), Chaslot et al.'s progressive bias and
  AlphaZero's PUCT (Silver et al., Science 2018) as :mod:`durak.search.mcts` documents them.
* SO-ISMCTS: Cowling, Powley & Whitehouse, "Information set Monte Carlo tree search"
  (IEEE TCIAIG 4, 2012), Algorithm 3: one tree of the searcher's information sets, a
  determinization per iteration, UCB over the actions legal in it with availability counts.

The references share only the game and a :class:`Scripted` generator with the library: its
draws are fixed, so both sides expand the same actions and roll out the same moves, and
every figure a search reports (visits, values, mean returns, states visited, depth, tree
size) must agree exactly.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pytest

from durak.search import MCTS, Budget, SearchResult, TreeSettings, ismcts
from durak.search.testing import check_game
from tests.support.imperfect_games import HiddenCardGame, SecretGame
from tests.support.toygames import RandomTree, random_evaluator

Returns = Sequence[float]


class Scripted(random.Random):
    """A generator with fixed draws: ``randrange(n)`` is ``n - 1`` (the last of the choices)
    and ``random()`` cycles through 97 seeded fractions (``sample`` and ``shuffle`` use it
    too)."""

    def __init__(self, seed: int) -> None:
        fractions = [random.Random(f"scripted/{seed}").random() for _ in range(97)]
        self._draws = itertools.cycle(fractions)
        super().__init__(seed)

    def random(self) -> float:
        return next(self._draws)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None and step == 1, "the searches draw an index below a length"
        return start - 1


class Figures:
    """What a search reports, counted by a reference."""

    def __init__(self, players: int) -> None:
        self.totals = [0.0] * players
        self.iterations = self.nodes = self.depth = 0

    def add(self, payoff: Returns, visited: int, depth: int) -> None:
        for p, x in enumerate(payoff):
            self.totals[p] += x
        self.iterations += 1
        self.nodes += visited
        self.depth = max(self.depth, depth)

    def check(
        self,
        result: SearchResult[Any],
        legal: Sequence[Any],
        visits: dict[Any, int],
        sums: dict[Any, float],
        tree_size: int,
    ) -> None:
        assert list(result.visits) == [(a, visits.get(a, 0)) for a in legal]
        assert list(result.action_values) == [
            (a, sums[a] / visits[a]) for a in legal if a in visits
        ]
        assert result.vector == pytest.approx([t / self.iterations for t in self.totals], abs=1e-12)
        stats = result.stats
        assert (stats.iterations, stats.nodes, stats.depth, stats.tree_size) == (
            self.iterations,
            self.nodes,
            self.depth,
            tree_size,
        )


def rollout_returns(game: Any, state: Hashable, rng: random.Random) -> tuple[Returns, int]:
    """A uniformly random playout: each move ``actions[int(random() * len)]``."""
    steps = 0
    actions = game.legal_actions(state)
    while actions:
        state = game.step(state, actions[int(rng.random() * len(actions))])
        actions = game.legal_actions(state)
        steps += 1
    return game.returns(state), steps


def policy_returns(
    game: Any, state: Hashable, policy: Callable[[Any, random.Random], Any], rng: random.Random
) -> tuple[Returns, int]:
    """A playout by ``policy(state, rng)``."""
    steps = 0
    while not game.is_terminal(state):
        state = game.step(state, policy(state, rng))
        steps += 1
    return game.returns(state), steps


def last_move_policy(game: Any) -> Callable[[Any, random.Random], Any]:
    """A rollout policy that draws its move from the generator (the last, when scripted)."""

    def policy(state: Any, rng: random.Random) -> Any:
        actions = game.legal_actions(state)
        return actions[rng.randrange(len(actions))]

    return policy


# --------------------------------------------------------------------------------------
# UCT


class RefNode:
    def __init__(self, state: Hashable, mover: int, actions: Sequence[int]) -> None:
        self.state, self.mover = state, mover
        self.untried = list(actions)
        self.children: dict[int, RefNode] = {}
        self.visits, self.value = 0, 0.0
        self.preferred: int | None = None
        self.bonus = self.p = 0.0
        self.priors: dict[int, float] = {}


class RefUCT:
    """UCT, written from the papers: select by UCB1 (plus ``bonus / (n + 1)``) or PUCT,
    expand one untried action (the preferred one first), simulate, back up each node's
    payoff for the player who moved into it."""

    def __init__(
        self,
        game: RandomTree,
        c: float,
        *,
        evaluate: Callable[[Hashable], Returns] | None = None,
        heuristic: Callable[[Hashable, Sequence[int]], int] | None = None,
        bias: float = 0.0,
        prior: Callable[[Hashable, Sequence[int]], Sequence[float]] | None = None,
        rollout: Callable[[Any, random.Random], Any] | None = None,
    ) -> None:
        self.game, self.c, self.evaluate = game, c, evaluate
        self.heuristic, self.bias, self.prior = heuristic, bias, prior
        self.rollout = rollout

    def node(self, state: Hashable, mover: int) -> RefNode:
        actions = self.game.legal_actions(state)  # type: ignore[arg-type]
        node = RefNode(state, mover, actions)
        if actions and self.heuristic is not None:
            node.preferred = self.heuristic(state, actions)
        if actions and self.prior is not None:
            node.priors = dict(zip(actions, self.prior(state, actions), strict=True))
        return node

    def expand(self, node: RefNode, action: int) -> RefNode:
        node.untried.remove(action)
        game = self.game
        child = self.node(game.step(node.state, action), game.current_player(node.state))  # type: ignore[arg-type]
        child.bonus = self.bias if action == node.preferred else 0.0
        child.p = node.priors.get(action, 0.0)
        node.children[action] = child
        return child

    def select(self, root: RefNode, rng: random.Random) -> list[RefNode]:
        node, path = root, [root]
        while True:
            if self.prior is not None:
                n = sum(ch.visits for ch in node.children.values())
                first = sum(ch.value for ch in node.children.values()) / n if n else 0.0
                scale = math.sqrt(node.visits) if node.visits else 1.0
                scores = [(first + self.c * node.priors[a] * scale, a) for a in node.untried]
                scores += [
                    (ch.value / ch.visits + self.c * ch.p * scale / (1 + ch.visits), a)
                    for a, ch in node.children.items()
                ]
                if not scores:
                    return path
                action = max(scores)[1]
                if action in node.untried:
                    path.append(self.expand(node, action))
                    return path
                node = node.children[action]
            elif node.untried:
                pick = node.preferred if node.preferred in node.untried else None
                action = node.untried[rng.randrange(len(node.untried))] if pick is None else pick
                path.append(self.expand(node, action))
                return path
            elif not node.children:
                return path
            else:
                log_n = math.log(node.visits)
                node = max(
                    node.children.values(),
                    key=lambda ch: (
                        ch.value / ch.visits
                        + self.c * math.sqrt(log_n / ch.visits)
                        + ch.bonus / (ch.visits + 1)
                    ),
                )
            path.append(node)

    def search(self, root: RefNode, iterations: int, rng: random.Random, figures: Figures) -> None:
        game = self.game
        for _ in range(iterations):
            path = self.select(root, rng)
            leaf = path[-1].state
            payoff: Returns
            steps: int
            if game.is_terminal(leaf):  # type: ignore[arg-type]
                payoff, steps = game.returns(leaf), 0  # type: ignore[arg-type]
            elif self.evaluate is not None:
                payoff, steps = self.evaluate(leaf), 0
            elif self.rollout is not None:
                payoff, steps = policy_returns(game, leaf, self.rollout, rng)
            else:
                payoff, steps = rollout_returns(game, leaf, rng)
            for node in path:
                node.visits += 1
            for node in path[1:]:
                node.value += payoff[node.mover]
            figures.add(payoff, len(path) + steps, len(path) - 1)


def size(node: RefNode) -> int:
    return 1 + sum(size(child) for child in node.children.values())


def check_uct(result: SearchResult[int], game: RandomTree, root: RefNode, figures: Figures) -> None:
    visits = {a: ch.visits for a, ch in root.children.items()}
    sums = {a: ch.value for a, ch in root.children.items()}
    figures.check(result, game.legal_actions(root.state), visits, sums, size(root))  # type: ignore[arg-type]


def distinct_prior(state: Hashable, actions: Sequence[int]) -> list[float]:
    """Seeded probabilities, all different (so no PUCT score ties)."""
    weights = [random.Random(f"prior/{state!r}/{a}").random() + 0.01 for a in actions]
    return [w / sum(weights) for w in weights]


def middle_preference(state: Hashable, actions: Sequence[int]) -> int:
    """The middle action: neither the first nor the last, where ties and draws fall.  (With
    at most three actions, expanding it first leaves the rest in order, as the reference
    assumes.)"""
    return actions[len(actions) // 2]


UCT_CASES: list[tuple[str, dict[str, Any]]] = [
    ("rollouts", {}),
    ("value function", {"evaluate": None}),  # a random_evaluator of the game's shape
    ("progressive bias", {"heuristic": middle_preference, "bias": 0.8}),
    ("prior", {"prior": distinct_prior}),
]


#: ``(players, depth, branching, zero-sum, c, iterations)``: three players on a narrow
#: tree, and two on a wide zero-sum one (where PUCT expands more).
SHAPES = [(3, 5, 3, False, 0.9, 60), (2, 6, 4, True, 1.5, 120)]


@pytest.mark.parametrize("shape", SHAPES, ids=["3p-narrow", "2p-wide"])
@pytest.mark.parametrize("seed", [1, 2, 5])
@pytest.mark.parametrize(("name", "settings"), UCT_CASES, ids=[n for n, _ in UCT_CASES])
def test_mcts_reports_what_a_reference_uct_computes(
    seed: int, name: str, settings: dict[str, Any], shape: tuple[int, int, int, bool, float, int]
) -> None:
    players, depth, branching, zero_sum, c, iterations = shape
    game = RandomTree(seed, players, depth, branching, zero_sum, early_stop=0.1)
    state = game.initial()
    if "evaluate" in settings:
        settings = {"evaluate": random_evaluator(3, players, zero_sum)}
    reference = RefUCT(game, c, **settings)
    root = reference.node(state, -1)
    figures = Figures(players)
    reference.search(root, iterations, Scripted(seed), figures)
    budget = Budget(iterations=iterations)
    searcher = MCTS(game, settings=TreeSettings(c=c, **settings))
    result = searcher.search(state, budget=budget, rng=Scripted(seed))
    check_uct(result, game, root, figures)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_mcts_rolls_out_with_the_policy_it_is_given(seed: int) -> None:
    game = RandomTree(seed, players=3, depth=6, branching=3, early_stop=0.1)
    policy = last_move_policy(game)
    reference = RefUCT(game, 0.9, rollout=policy)
    root = reference.node(game.initial(), -1)
    figures = Figures(3)
    reference.search(root, 50, Scripted(seed), figures)
    searcher = MCTS(game, settings=TreeSettings(c=0.9, rollout=policy))
    result = searcher.search(game.initial(), budget=Budget(iterations=50), rng=Scripted(seed))
    check_uct(result, game, root, figures)


@pytest.mark.parametrize("seed", [1, 4])
def test_mcts_on_a_node_budget_stops_at_the_first_simulation_reaching_it(seed: int) -> None:
    game = RandomTree(seed, players=2, depth=6, branching=2, early_stop=0.05)
    reference = RefUCT(game, 1.2)
    root = reference.node(game.initial(), -1)
    figures = Figures(2)
    rng = Scripted(seed)
    while figures.nodes < 150:
        reference.search(root, 1, rng, figures)
    result = MCTS(game, settings=TreeSettings(c=1.2)).search(
        game.initial(), budget=Budget(nodes=150), rng=Scripted(seed)
    )
    check_uct(result, game, root, figures)


def kept_subtree(root: RefNode, state: Hashable, depth: int) -> RefNode | None:
    """The node of ``state`` at most ``depth`` plies below ``root``, if the tree has it."""
    level = [root]
    for _ in range(depth + 1):
        for node in level:
            if node.state == state:
                return node
        level = [child for node in level for child in node.children.values()]
    return None


@pytest.mark.parametrize("reuse_depth", [0, 1, 2])
@pytest.mark.parametrize("plies", [0, 1, 2])
def test_mcts_continues_from_a_kept_subtree_within_its_reuse_depth(
    reuse_depth: int, plies: int
) -> None:
    game = RandomTree(8, players=3, depth=6, branching=2, early_stop=0.0)
    reference = RefUCT(game, 1.0)
    searcher = MCTS(game, reuse_depth=reuse_depth, settings=TreeSettings(c=1.0))
    root = reference.node(game.initial(), -1)
    reference.search(root, 40, Scripted(1), Figures(3))
    searcher.search(game.initial(), budget=Budget(iterations=40), rng=Scripted(1))
    state = game.initial()
    for _ in range(plies):
        state = game.step(state, game.legal_actions(state)[-1])  # expanded first
    kept = kept_subtree(root, state, reuse_depth) if reuse_depth > 0 else None  # 0: no reuse
    assert (kept is not None) == (reuse_depth > 0 and plies <= reuse_depth), "not the case meant"
    new_root = kept if kept is not None else reference.node(state, -1)
    figures = Figures(3)
    reference.search(new_root, 30, Scripted(2), figures)
    # The kept root's earlier visits count in its UCB; the figures count this search only.
    result = searcher.search(state, budget=Budget(iterations=30), rng=Scripted(2))
    check_uct(result, game, new_root, figures)


# --------------------------------------------------------------------------------------
# SO-ISMCTS


class RefEdge:
    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = self.available = 0
        self.value = 0.0


class RefISMCTS:
    """SO-ISMCTS (Cowling et al. 2012, Algorithm 3) over the searcher's observations: each
    iteration samples a world, descends by UCB with availability counts (or PUCT) over the
    actions legal in it, stops after a new action, at a new information set or at one
    already on the path, simulates and backs up."""

    def __init__(
        self,
        game: Any,
        player: int,
        c: float,
        prior: Callable[[Hashable, Sequence[int]], Sequence[float]] | None = None,
        *,
        evaluate: Callable[[Hashable], Returns] | None = None,
        heuristic: Callable[[Hashable, Sequence[int]], int] | None = None,
        bias: float = 0.0,
    ) -> None:
        self.game, self.player, self.c, self.prior = game, player, c, prior
        self.evaluate, self.heuristic, self.bias = evaluate, heuristic, bias
        self.tree: dict[Hashable, dict[int, RefEdge]] = {}

    def ucb(
        self, state: Hashable, actions: list[int], edges: dict[int, RefEdge], rng: random.Random
    ) -> tuple[int, bool]:
        """UCB1 with availability counts (plus ``bias / (n + 1)`` for the action the
        heuristic prefers in this world); an untried action first (the preferred one, else
        drawn), then new."""
        for a in actions:
            if a in edges:
                edges[a].available += 1
        preferred = None if self.heuristic is None else self.heuristic(state, actions)
        untried = [a for a in actions if a not in edges]
        if untried:
            drawn = untried[rng.randrange(len(untried))] if preferred not in untried else None
            action = preferred if drawn is None else drawn
            assert action is not None
            edges[action] = RefEdge(self.game.current_player(state))
            edges[action].available = 1
            return action, True
        c, bias = self.c, self.bias

        def score(a: int) -> float:
            e = edges[a]
            bonus = bias / (e.visits + 1) if a == preferred else 0.0
            return e.value / e.visits + c * math.sqrt(math.log(e.available) / e.visits) + bonus

        return max(actions, key=score), False

    def puct(
        self, state: Hashable, actions: list[int], edges: dict[int, RefEdge]
    ) -> tuple[int, bool]:
        """PUCT over the actions legal here: N and an untried action's mean from the edges
        of these actions alone; a new edge for the best one if it has none."""
        assert self.prior is not None
        known = [edges[a] for a in actions if a in edges]
        n = sum(e.visits for e in known)
        first = sum(e.value for e in known) / n if n else 0.0
        scale = math.sqrt(n) if n else 1.0

        def score(a: int, p: float) -> float:
            e = edges.get(a)
            if e is None or not e.visits:
                return first + self.c * p * scale
            return e.value / e.visits + self.c * p * scale / (1 + e.visits)

        priors = self.prior(state, actions)
        action = max(zip(actions, priors, strict=True), key=lambda ap: score(*ap))[0]
        if action in edges:
            return action, False
        edges[action] = RefEdge(self.game.current_player(state))
        return action, True

    def iterate(self, root: Hashable, rng: random.Random, figures: Figures) -> None:
        game = self.game
        state = game.sample_world(root, rng)
        edges = self.tree[root]
        seen = [edges]
        path: list[RefEdge] = []
        payoff: Returns
        steps: int
        while True:
            actions = list(game.legal_actions(state))
            if not actions:
                payoff, steps = game.returns(state), 0
                break
            if self.prior is not None:
                action, new = self.puct(state, actions, edges)
            else:
                action, new = self.ucb(state, actions, edges, rng)
            edge = edges[action]
            path.append(edge)
            state = game.step(state, action)
            key = game.observe(state, self.player)
            fresh = key not in self.tree
            child = self.tree.setdefault(key, {})
            if fresh or new or any(child is s for s in seen):
                if self.evaluate is not None and not game.is_terminal(state):
                    payoff, steps = self.evaluate(state), 0
                else:
                    payoff, steps = rollout_returns(game, state, rng)
                break
            seen.append(child)
            edges = child
        for edge in path:
            edge.visits += 1
            edge.value += payoff[edge.mover]
        figures.add(payoff, len(path) + 1 + steps, len(path))


def check_ismcts(
    game: Any,
    observation: Hashable,
    iterations: int,
    seed: int,
    prior: Callable[[Hashable, Sequence[int]], Sequence[float]] | None = None,
    **guides: Any,
) -> None:
    """ISMCTS and the reference, from ``observation`` of the player to move, agree (with
    the same ``prior`` and ``guides``: ``evaluate``, or ``heuristic`` and ``bias``)."""
    legal = game.legal_actions(game.sample_world(observation, random.Random(0)))
    player = game.current_player(game.sample_world(observation, random.Random(0)))
    reference = RefISMCTS(game, player, 0.7, prior, **guides)
    reference.tree[observation] = {}
    rng = Scripted(seed)
    game.sample_world(observation, rng)  # the library's first world, which checks the mover
    figures = Figures(2)
    for _ in range(iterations):
        reference.iterate(observation, rng, figures)
    budget = Budget(iterations=iterations)
    result = ismcts(
        game,
        observation,
        player=player,
        budget=budget,
        rng=Scripted(seed),
        settings=TreeSettings(c=0.7, prior=prior, **guides),
    )
    root = reference.tree[observation]
    visits = {a: e.visits for a, e in root.items()}
    sums = {a: e.value for a, e in root.items()}
    figures.check(result, legal, visits, sums, len(reference.tree))


@pytest.mark.parametrize("prior", [None, distinct_prior], ids=["ucb", "puct"])
@pytest.mark.parametrize("seed", [0, 3, 6, 11])
@pytest.mark.parametrize(("hand", "iterations"), [(3, 1), (3, 45), (4, 150)])
def test_ismcts_reports_what_a_reference_so_ismcts_computes(
    seed: int, hand: int, iterations: int, prior: Any
) -> None:
    game = HiddenCardGame(suits=3, ranks=4, hand_size=hand)
    true_state = game.deal(seed, leader=seed % 2)
    observation = game.observe(true_state, game.current_player(true_state))
    check_ismcts(game, observation, iterations, seed, prior)


@pytest.mark.parametrize("prior", [None, distinct_prior], ids=["ucb", "puct"])
@pytest.mark.parametrize("mark", [True, False], ids=["merged", "repeated"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ismcts_stops_at_an_information_set_it_meets_again(
    mark: bool, seed: int, prior: Any
) -> None:
    # Marked, the three secrets lead to one information set (a new action into a known
    # set); unmarked, the set after the secret is the one before it (a set on the path).
    game = SecretGame(seed, mark=mark)
    check_ismcts(game, game.observe(game.initial(), 0), 40, seed, prior)


def test_the_secret_game_passes_the_contract() -> None:
    for mark in (True, False):
        game = SecretGame(0, mark=mark)
        report = check_game(game, [game.initial()], random.Random(0), games=20, zero_sum=True)
        assert (report.games, report.states, report.observations) == (20, 100, 200)


def first_card(state: Hashable, actions: Sequence[int]) -> int:
    """The lowest card: a fixed preference that is often neither first drawn nor best."""
    return min(actions)


@pytest.mark.parametrize("seed", [0, 3, 6, 11])
@pytest.mark.parametrize(
    "guides",
    [{"evaluate": random_evaluator(5)}, {"heuristic": first_card, "bias": 0.6}],
    ids=["value function", "progressive bias"],
)
def test_ismcts_follows_the_guides_it_is_given_as_the_reference_does(
    seed: int, guides: dict[str, Any]
) -> None:
    game = HiddenCardGame(suits=3, ranks=4, hand_size=4)
    true_state = game.deal(seed, leader=seed % 2)
    observation = game.observe(true_state, game.current_player(true_state))
    check_ismcts(game, observation, 120, seed, **guides)
