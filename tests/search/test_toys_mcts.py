"""MCTS: unique best moves, progressive bias, value functions, tree reuse.

Part of the correctness tests of :mod:`durak.search` on small games, against plain brute
force: the games are in ``toygames.py`` and ``imperfect_games.py``, the reference solvers in
``bruteforce.py`` and the shared positions and checks in ``toysearch.py``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from durak.search import (
    MCTS,
    Budget,
    SearchError,
    TreeSettings,
    ismcts,
    mcts,
)
from tests.support.bruteforce import BruteForce, reachable_states
from tests.support.toygames import Nim, NimState, RandomTree, RTState
from tests.support.toysearch import (
    CARDS,
    NIMS,
    TTT,
    card_position,
    nonterminal,
    same,
    unique_best,
)

# --------------------------------------------------------------------------------------
# MCTS


def test_mcts_finds_the_unique_best_move_in_nim_and_tictactoe() -> None:
    picked = 0
    for game in NIMS:
        bf: BruteForce[NimState, tuple[int, int]] = BruteForce(game)
        for s in nonterminal(game, game.initial()):
            best = unique_best(game, bf, s)
            if best is not None:
                assert mcts(game, s, budget=Budget(iterations=1500), rng=picked).action == best
                picked += 1
    tbf: BruteForce[tuple[int, ...], int] = BruteForce(TTT)
    candidates = [
        board
        for board in nonterminal(TTT, TTT.initial())
        if board.count(0) <= 6 and unique_best(TTT, tbf, board) is not None
    ]
    for board in random.Random(7).sample(candidates, 40):
        result = mcts(TTT, board, budget=Budget(iterations=3000), rng=picked)
        assert result.action == unique_best(TTT, tbf, board), board
        picked += 1
    assert picked > 80


def dominant_action(game: RandomTree, state: RTState) -> int | None:
    """A root action whose worst leaf for the mover beats the best leaf of every other."""
    p = game.current_player(state)
    ranges = []
    for a in game.legal_actions(state):
        leaves = [
            game.returns(t)[p]
            for t in reachable_states(game, game.step(state, a))
            if game.is_terminal(t)
        ]
        ranges.append((min(leaves), max(leaves)))
    for a, (low, _) in enumerate(ranges):
        if all(low > high for b, (_, high) in enumerate(ranges) if b != a):
            return a
    return None


def test_mcts_finds_the_unique_best_move_on_random_games() -> None:
    # Depth 4: on deeper random trees UCT can need far more simulations to escape a
    # shallow decoy (a good early leaf next to a deep, better line).
    tried = 0
    for seed in range(300):
        game = RandomTree(seed, players=2, depth=4, branching=3, zero_sum=True)
        root = game.initial()
        best = unique_best(game, BruteForce(game), root)
        if best is None:
            continue
        assert mcts(game, root, budget=Budget(iterations=5000), rng=seed).action == best, seed
        tried += 1
        if tried == 40:
            break
    assert tried == 40
    dominated = 0
    for seed in range(2000):
        game = RandomTree(seed, players=3, depth=4, branching=3)
        root = game.initial()
        if game.is_terminal(root) or len(game.legal_actions(root)) < 2:
            continue
        best = dominant_action(game, root)
        if best is None:
            continue
        assert mcts(game, root, budget=Budget(iterations=1000), rng=seed).action == best, seed
        dominated += 1
        if dominated == 10:
            break
    assert dominated == 10


def test_mcts_progressive_bias_steers_early_and_fades() -> None:
    """A heuristic that prefers the root's worst move (and the first move elsewhere): an
    overwhelming bias makes UCT follow it, a moderate one fades with the visits (Chaslot et
    al. 2008), and bias 0 is plain UCT."""
    nim = Nim((3, 4, 5))
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(nim)
    tried = 0
    for s in nonterminal(nim, nim.initial()):
        best = unique_best(nim, bf, s)
        legal = nim.legal_actions(s)
        if best is None or len(legal) < 3 or tried == 12:
            continue
        values = dict(bf.action_values(s))
        worst = min(legal, key=lambda a: values[a])

        def misleading(
            state: NimState, actions: Sequence[tuple[int, int]], worst: tuple[int, int] = worst
        ) -> tuple[int, int]:
            # A heuristic may rely on the game's order (Durak's greedy move does).
            assert list(actions) == list(nim.legal_actions(state))
            return worst if worst in actions else actions[0]

        budget = Budget(iterations=1500)
        steered = mcts(
            nim, s, budget=budget, rng=tried, settings=TreeSettings(heuristic=misleading, bias=1e6)
        )
        assert steered.action == worst
        faded = mcts(
            nim, s, budget=budget, rng=tried, settings=TreeSettings(heuristic=misleading, bias=1.0)
        )
        assert faded.action == best, s
        plain = mcts(nim, s, budget=budget, rng=tried)
        assert same(
            plain,
            mcts(
                nim,
                s,
                budget=budget,
                rng=tried,
                settings=TreeSettings(heuristic=misleading, bias=0),
            ),
        )
        tried += 1
    assert tried == 12
    with pytest.raises(SearchError, match="heuristic"):
        MCTS(nim, settings=TreeSettings(bias=0.5))


def test_mcts_statistics_and_the_class_interface() -> None:
    game = Nim((2, 3, 4))
    root = game.initial()
    result = mcts(game, root, budget=Budget(iterations=700), rng=3)
    assert result.stats.iterations == 700
    assert [a for a, _ in result.visits] == game.legal_actions(root)
    assert sum(n for _, n in result.visits) == 700
    assert result.action == max(result.visits, key=lambda av: av[1])[0]
    assert result.value == result.value_of(result.action)
    assert result.vector is not None and len(result.vector) == 2
    searcher: MCTS[NimState, tuple[int, int]] = MCTS(game)
    first = searcher.search(root, budget=Budget(iterations=700), rng=3)
    assert first.action == result.action and first.visits == result.visits
    assert first.stats.without_time() == result.stats.without_time()
    # The next search from a child continues with the statistics gathered below it.
    child = game.step(root, result.action)
    again = searcher.search(child, budget=Budget(iterations=300), rng=4)
    assert sum(n for _, n in again.visits) > 300
    assert again.player == 1 and [a for a, _ in again.visits] == game.legal_actions(child)


class CountingNim(Nim):
    """Nim that counts its ``step`` calls."""

    steps = 0

    def step(self, state: NimState, action: tuple[int, int]) -> NimState:
        """As Nim, counted."""
        CountingNim.steps += 1
        return super().step(state, action)


def test_mcts_with_a_value_function_does_not_roll_out() -> None:
    """With ``evaluate``, each simulation steps once (to its new leaf); with the exact
    value function MCTS finds the unique winning moves."""
    game = CountingNim((2, 3, 4))
    bf: BruteForce[NimState, tuple[int, int]] = BruteForce(Nim((2, 3, 4)))  # steps uncounted

    def exact(s: NimState) -> tuple[float, float]:
        v = bf.minimax(s, 0)
        return (v, -v)

    for s in nonterminal(game, game.initial())[:60]:
        CountingNim.steps = 0
        result = mcts(
            game, s, budget=Budget(iterations=400), rng=1, settings=TreeSettings(evaluate=exact)
        )
        assert CountingNim.steps == result.stats.tree_size - 1
        best = unique_best(game, bf, s)
        if best is not None:
            assert result.action == best
    CountingNim.steps = 0
    result = mcts(game, game.initial(), budget=Budget(iterations=50), rng=1)
    assert CountingNim.steps > result.stats.tree_size - 1


def test_mcts_and_ismcts_choose_the_most_visited_action() -> None:
    """Even after few simulations, when a rarely tried action has the best mean."""
    deal, obs = card_position()
    p = CARDS.current_player(deal)
    for seed in range(20):
        budget = Budget(iterations=12 + seed)
        results = [
            mcts(TTT, TTT.initial(), budget=budget, rng=seed),
            ismcts(CARDS, obs, player=p, budget=budget, rng=seed),
        ]
        for result in results:
            visits = dict(result.visits)
            assert sum(visits.values()) == budget.iterations
            assert visits[result.action] == max(visits.values())
            assert result.value == result.value_of(result.action)
