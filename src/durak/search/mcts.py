"""Monte Carlo tree search with UCT, for any number of players.

UCT after Kocsis & Szepesvári, "Bandit based Monte-Carlo planning" (ECML 2006), in the
four-phase form of Browne et al., "A survey of Monte Carlo tree search methods" (IEEE
TCIAIG 4, 2012): select by UCB1, expand one untried action, simulate (a rollout policy, or
a value function), back up.  Returns are vectors; each node keeps the payoff of the player
who moved into it, so the same tree serves n players (the "max^n-style" backup of
Sturtevant, "An analysis of UCT in multi-player games", CG 2008).  The decision is the most
visited root action.

:class:`MCTS` keeps its tree between searches: when asked about a state already in the
tree (a few plies below the old root), it continues from that subtree.

Optional *progressive bias* (Chaslot et al., "Progressive strategies for Monte-Carlo tree
search", New Math. and Nat. Comp. 4(3), 2008): the action a ``heuristic`` prefers at a node
is expanded first and gets ``bias / (visits + 1)`` added to its UCB score.

Optional *PUCT* (Silver et al., "A general reinforcement learning algorithm that masters
chess, shogi, and Go through self-play", Science 2018): with a ``prior``, every node scores
all its actions, tried or not, by ``mean + c * P(a) * sqrt(N) / (1 + n(a))``; an untried
action's mean is the node's mean for the player to move so far (0 before any), and the
best-scoring action is expanded or descended.  With ``evaluate`` as the value function this
is AlphaZero's search without its noise.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Sequence
from typing import Generic

from durak.search.arguments import SearchError, as_rng
from durak.search.budget import Budget, now
from durak.search.protocol import A, Game, RolloutPolicy, S
from durak.search.result import SearchResult
from durak.search.settings import DEFAULTS, TreeSettings
from durak.search.simulation import Tally, prior_of, puct


class Node(Generic[S, A]):
    """One tree node: a state, its untried actions and its expanded children.

    ``mover`` is the player who moved into this node (-1 at a new root); ``value`` sums that
    player's payoffs over the ``visits`` simulations through the node (unused at a root).
    With progressive bias, ``preferred`` is the heuristic's action here and ``bonus`` the
    bias of the action into this node (0 unless the parent preferred it).  With a prior,
    ``priors`` maps each legal action to its probability and ``p`` is that of the action
    into this node.
    """

    __slots__ = (
        "bonus",
        "children",
        "mover",
        "p",
        "payoff",
        "preferred",
        "priors",
        "state",
        "untried",
        "value",
        "visits",
    )

    def __init__(self, state: S, mover: int, actions: Sequence[A]) -> None:
        self.state = state
        self.mover = mover
        self.untried: list[A] = list(actions)
        self.children: list[tuple[A, Node[S, A]]] = []
        self.visits = 0
        self.value = 0.0
        self.preferred: A | None = None
        self.bonus = 0.0
        self.priors: dict[A, float] | None = None
        self.p = 0.0
        self.payoff: Sequence[float] | None = None  # the returns, once known terminal

    def mean(self) -> float:
        """The mean payoff of ``mover`` through this node (0 before any visit)."""
        return self.value / self.visits if self.visits else 0.0


class MCTS(Generic[S, A]):
    """UCT search over ``game``, keeping the tree for the next search.

    ``settings`` (:class:`~durak.search.settings.TreeSettings`) say how it chooses,
    simulates and stops; the heuristic of a progressive bias is called at each new node,
    a ``prior`` once per new node (a leaf batch is refused: that is ISMCTS's).
    ``reuse_depth``: how many plies below the previous root a new root state is looked for
    (0 disables tree reuse).
    """

    def __init__(
        self,
        game: Game[S, A],
        *,
        settings: TreeSettings[S, A] = DEFAULTS,
        reuse_depth: int = 8,
    ) -> None:
        if settings.batch is not None:
            raise SearchError("MCTS values one leaf at a time: a leaf batch is for ISMCTS")
        self.game = game
        self.settings = settings
        # Read at every new node: kept as attributes (the heuristic only with a bias).
        self.heuristic = settings.biased
        self.prior = settings.prior
        self.reuse_depth = reuse_depth
        self.root: Node[S, A] | None = None

    def search(self, state: S, *, budget: Budget, rng: random.Random | int) -> SearchResult[A]:
        """Run simulations from ``state`` until ``budget`` is spent; return the decision.

        ``budget.iterations`` counts simulations, ``budget.nodes`` states visited (tree
        paths and rollouts).  The result lists root visits per legal action, the mean value
        of each visited action for the player to move, and ``vector``, the mean returns at
        the root.
        """
        game = self.game
        if game.is_terminal(state):
            raise SearchError("cannot search from a terminal state: it has no legal actions")
        budget.require_limit("MCTS")
        rng = as_rng(rng)
        start = now()
        root = self._root_for(state)
        player = game.current_player(state)

        def root_visits() -> list[int]:
            return [child.visits for _, child in root.children] + [0] * len(root.untried)

        stop_early = root_visits if self.settings.stop_early else None
        tally = Tally(game.num_players, start).run(
            lambda: self._iterate(root, rng), budget, stop_early
        )
        visits = {a: child.visits for a, child in root.children}
        sums = {a: child.value for a, child in root.children}
        return tally.decide(game.legal_actions(state), visits, sums, player, _size(root))

    def _iterate(self, root: Node[S, A], rng: random.Random) -> tuple[Sequence[float], int, int]:
        """One simulation: its returns, the states it visited and its tree depth."""
        path = self._select_expand(root, rng)
        payoff, steps = self._simulate(path[-1], rng)
        root.visits += 1  # a root's value is never read
        for node in path[1:]:
            node.visits += 1
            node.value += payoff[node.mover]
        return payoff, len(path) + steps, len(path) - 1

    def _root_for(self, state: S) -> Node[S, A]:
        """The node of ``state`` in the kept tree, or a new root."""
        old = self.root
        if old is not None and self.reuse_depth > 0:
            queue: deque[tuple[Node[S, A], int]] = deque([(old, 0)])
            while queue:
                node, d = queue.popleft()
                if node.state == state:
                    self.root = node
                    return node
                if d < self.reuse_depth:
                    queue.extend((child, d + 1) for _, child in node.children)
        self.root = self._node(state, -1)
        return self.root

    def _node(self, state: S, mover: int) -> Node[S, A]:
        """A new node; the heuristic sees the legal actions in ``legal_actions`` order."""
        actions = self.game.legal_actions(state)
        node = Node(state, mover, actions)
        if self.heuristic is not None and actions:
            node.preferred = self.heuristic(state, actions)
        if self.prior is not None and actions:
            node.priors = dict(zip(actions, prior_of(self.prior, state, actions), strict=True))
        return node

    def _select_expand(self, root: Node[S, A], rng: random.Random) -> list[Node[S, A]]:
        """The path of one simulation: UCB1 (or PUCT) down the tree, then one new node (if
        any)."""
        if self.prior is not None:
            return self._select_expand_puct(root)
        c = self.settings.c
        node = root
        path = [node]
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            best_score = -math.inf
            best = node
            for _, child in node.children:
                n = child.visits
                score = child.value / n + c * math.sqrt(log_n / n) + child.bonus / (n + 1)
                if score > best_score:
                    best_score, best = score, child
            node = best
            path.append(node)
        if not node.untried:
            return path  # ends at a terminal node
        untried = node.untried
        preferred = node.preferred
        if preferred is not None and preferred in untried:
            i = untried.index(preferred)
        else:
            i = rng.randrange(len(untried))
        path.append(self._expand(node, i))
        return path

    def _select_expand_puct(self, root: Node[S, A]) -> list[Node[S, A]]:
        """PUCT down the tree until an untried action scores best (it is expanded) or a
        terminal node is reached."""
        c = self.settings.c
        node = root
        path = [node]
        while node.untried or node.children:
            priors = node.priors
            assert priors is not None
            sqrt_n = math.sqrt(max(node.visits, 1))  # 1 before any visit: the priors order
            tried = sum(child.visits for _, child in node.children)
            first = sum(child.value for _, child in node.children) / max(tried, 1)
            best_score, best, untried_at = -math.inf, node, -1
            for i, a in enumerate(node.untried):
                score = puct(first, priors[a], sqrt_n, 0, c)
                if score > best_score:
                    best_score, untried_at = score, i
            for _, child in node.children:
                score = puct(child.value / child.visits, child.p, sqrt_n, child.visits, c)
                if score > best_score:
                    best_score, best, untried_at = score, child, -1
            if untried_at >= 0:
                path.append(self._expand(node, untried_at))
                return path
            node = best
            path.append(node)
        return path

    def _expand(self, node: Node[S, A], i: int) -> Node[S, A]:
        """The child of ``node``'s ``i``-th untried action (removed from ``untried``)."""
        untried = node.untried
        untried[i], untried[-1] = untried[-1], untried[i]
        action = untried.pop()
        game = self.game
        child = self._node(game.step(node.state, action), game.current_player(node.state))
        if node.preferred is not None and action == node.preferred:
            child.bonus = self.settings.bias
        if node.priors is not None:
            child.p = node.priors[action]
        node.children.append((action, child))
        return child

    def _simulate(self, leaf: Node[S, A], rng: random.Random) -> tuple[Sequence[float], int]:
        """The returns of one simulation from ``leaf`` and the states it visited beyond it."""
        if leaf.payoff is not None:
            return leaf.payoff, 0
        if not leaf.untried and not leaf.children:
            leaf.payoff = self.game.returns(leaf.state)
            return leaf.payoff, 0
        settings = self.settings
        if settings.evaluate is not None:
            return settings.evaluate(leaf.state), 0
        return playout(self.game, leaf.state, leaf.untried, settings.rollout, rng)


def playout(
    game: Game[S, A],
    state: S,
    actions: Sequence[A],
    policy: RolloutPolicy[S, A] | None,
    rng: random.Random,
) -> tuple[Sequence[float], int]:
    """Play ``state`` (whose legal ``actions`` are given, so they are not computed twice) to
    the end with ``policy``, or uniformly at random; the returns and the number of steps.
    It plays on the game's ``simulation_state(state)`` when the game has one (see
    :mod:`durak.search.protocol`)."""
    step = game.step
    simulation_state = getattr(game, "simulation_state", None)
    s = state if simulation_state is None else simulation_state(state)
    steps = 0
    if policy is None:
        legal_actions = game.legal_actions
        rand = rng.random
        while actions:
            s = step(s, actions[int(rand() * len(actions))])
            actions = legal_actions(s)
            steps += 1
    else:
        is_terminal = game.is_terminal
        while not is_terminal(s):
            s = step(s, policy(s, rng))
            steps += 1
    return game.returns(s), steps


def _size(root: Node[S, A]) -> int:
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(child for _, child in node.children)
    return count


def mcts(
    game: Game[S, A],
    state: S,
    *,
    budget: Budget,
    rng: random.Random | int,
    settings: TreeSettings[S, A] = DEFAULTS,
) -> SearchResult[A]:
    """One UCT search from ``state`` with a fresh tree; see :class:`MCTS`.

    Deterministic for a fixed ``rng`` seed and an iteration or node budget.
    """
    return MCTS(game, settings=settings).search(state, budget=budget, rng=rng)
