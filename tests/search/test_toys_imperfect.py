"""PIMC and ISMCTS on the hidden-card game: they see only the observation.

Part of the correctness tests of :mod:`durak.search` on small games, against plain brute
force: the games are in ``toygames.py`` and ``imperfect_games.py``, the reference solvers in
``bruteforce.py`` and the shared positions and checks in ``toysearch.py``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Literal

import pytest

from durak.search import (
    Budget,
    SearchError,
    SearchResult,
    TreeSettings,
    alphabeta,
    ismcts,
    mcts,
    pimc,
)
from tests.support.imperfect_games import CardObs, CardState
from tests.support.leak_spy import SpyGame
from tests.support.toysearch import (
    CARDS,
    card_positions,
    clear_best_positions,
    forced_tail_positions,
    same,
    world_values,
)

# --------------------------------------------------------------------------------------
# Imperfect information: the hidden-card game


def replays(world: CardState) -> bool:
    """Whether the plays of ``world`` are legal from the deal they imply."""
    hands = tuple(
        tuple(sorted((*h, *(c for q, c in world.plays if q == p))))
        for p, h in enumerate(world.hands)
    )
    s = CardState((hands[0], hands[1]), (), world.leader)
    for _, card in world.plays:
        if card not in CARDS.legal_actions(s):
            return False
        s = CARDS.step(s, card)
    return s == world


def test_the_hidden_card_game_is_consistent_and_has_both_kinds_of_positions() -> None:
    dominant = depends = 0
    for s, obs in card_positions():
        p = CARDS.current_player(s)
        worlds = CARDS.worlds(obs)
        assert s in worlds
        assert all(CARDS.observe(w, p) == obs and replays(w) for w in worlds)
        assert len(set(worlds)) == len(worlds)
        values = world_values(obs)
        best_everywhere = [
            a
            for a, vs in values.items()
            if all(v >= max(ws[i] for ws in values.values()) for i, v in enumerate(vs))
        ]
        dominant += bool(best_everywhere)
        depends += not best_everywhere
    assert dominant >= 5 and depends >= 5


def test_the_hidden_card_game_samples_every_consistent_world_uniformly() -> None:
    rng = random.Random(8)
    for _, obs in card_positions()[::10]:
        worlds = CARDS.worlds(obs)
        n = 40 * len(worlds)
        counts = Counter(CARDS.sample_world(obs, rng) for _ in range(n))
        assert set(counts) == set(worlds)
        # Each count is Binomial(n, 1/k) with mean 40: 40 ± 6 standard deviations.
        assert all(2 <= c <= 80 for c in counts.values()), counts


def other_world(s: CardState, obs: CardObs) -> CardState:
    """A different true state with the same observation."""
    return next(w for w in CARDS.worlds(obs) if w != s)


@pytest.mark.parametrize("combine", ["vote", "mean", "visits"])
def test_pimc_sees_only_the_observation(combine: Literal["vote", "mean", "visits"]) -> None:
    for s, obs in card_positions()[::7]:
        if len(CARDS.worlds(obs)) < 2:
            continue
        results = []
        for truth in (s, other_world(s, obs)):
            obs_t = CARDS.observe(truth, CARDS.current_player(truth))
            assert obs_t == obs
            spy = SpyGame(CARDS, truth, [obs_t])

            def world_search(
                w: CardState, r: random.Random, spy: SpyGame[CardState, int, CardObs] = spy
            ) -> SearchResult[int]:
                assert any(w is x for x in spy.sampled), "search got an unsampled world"
                if combine == "visits":
                    return mcts(spy, w, budget=Budget(iterations=30), rng=r)
                return alphabeta(spy, w, root_values=True)

            result = pimc(spy, obs_t, worlds=6, search=world_search, combine=combine, rng=9)
            assert len(spy.sampled) >= 6 and spy.calls > 0
            results.append(result)
        assert same(results[0], results[1])


def test_pimc_draws_its_worlds_from_the_sampler_it_is_given() -> None:
    positions = [(s, o) for s, o in card_positions() if len(CARDS.worlds(o)) >= 2][::9]
    assert positions
    for _, obs in positions:
        chosen = CARDS.worlds(obs)[-1]
        asked: list[CardObs] = []
        searched: list[CardState] = []

        def sample(o: CardObs, r: random.Random, chosen: CardState = chosen) -> CardState:
            asked.append(o)  # noqa: B023 (used before the next iteration)
            return chosen

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            searched.append(w)  # noqa: B023 (used before the next iteration)
            return alphabeta(CARDS, w, root_values=True)

        result = pimc(
            CARDS, obs, worlds=5, search=world_search, combine="mean", rng=2, sample=sample
        )
        assert asked == [obs] * 5 and all(w is chosen for w in searched)
        exact = alphabeta(CARDS, chosen, root_values=True)
        assert dict(result.action_values) == pytest.approx(dict(exact.action_values))


def test_ismcts_sees_only_the_observation() -> None:
    for s, obs in card_positions()[::5]:
        if len(CARDS.worlds(obs)) < 2:
            continue
        p = CARDS.current_player(s)
        results = []
        for truth in (s, other_world(s, obs)):
            obs_t = CARDS.observe(truth, p)
            spy = SpyGame(CARDS, truth, [obs_t])
            results.append(ismcts(spy, obs_t, player=p, budget=Budget(iterations=200), rng=4))
            assert len(spy.sampled) >= 200
        assert same(results[0], results[1])


def test_pimc_mean_converges_to_the_expectation_over_worlds() -> None:
    """With alphabeta's exact root values, PIMC's mean for each action is the average of the
    sampled worlds' values; over ``n`` uniform worlds and payoffs in [-1, 1] Hoeffding gives
    ``P(|mean - expectation| >= t) <= 2 exp(-n t^2 / 2)``: about 1e-6 for n = 600, t = 0.22."""
    n, tolerance = 600, 0.22
    positions = [(s, o) for s, o in card_positions() if len(CARDS.worlds(o)) >= 4][::6]
    assert len(positions) >= 4
    for s, obs in positions:
        exact = {a: sum(vs) / len(vs) for a, vs in world_values(obs).items()}
        per_world: list[SearchResult[int]] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = alphabeta(CARDS, w, root_values=True)
            per_world.append(result)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=n, search=world_search, combine="mean", rng=1)
        assert len(per_world) == n
        legal = list(CARDS.legal_actions(s))
        assert [a for a, _ in result.action_values] == legal
        for a, mean in result.action_values:
            sampled = sum(r.value_of(a) for r in per_world) / n
            assert math.isclose(mean, sampled, abs_tol=1e-9)
            assert abs(mean - exact[a]) < tolerance, (obs, a, mean, exact[a])
        assert result.value_of(result.action) == max(v for _, v in result.action_values)
        assert result.value == result.value_of(result.action)
        assert result.stats.iterations == n


def test_pimc_vote_picks_the_majority() -> None:
    for w0, obs in card_positions()[::4]:
        chosen: list[int] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = mcts(CARDS, w, budget=Budget(iterations=40), rng=r)
            chosen.append(result.action)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=15, search=world_search, rng=2)
        votes = Counter(chosen)
        assert sum(votes.values()) == 15
        assert result.visits == tuple((a, votes[a]) for a in CARDS.legal_actions(w0))
        assert votes[result.action] == max(votes.values())


def test_pimc_visits_picks_the_most_visited_over_all_worlds() -> None:
    decisive = 0
    for w0, obs in card_positions()[::4]:
        per_world: list[SearchResult[int]] = []

        def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
            result = mcts(CARDS, w, budget=Budget(iterations=40), rng=r)
            per_world.append(result)  # noqa: B023 (used before the next iteration)
            return result

        result = pimc(CARDS, obs, worlds=15, search=world_search, combine="visits", rng=2)
        summed: Counter[int] = Counter()
        for r in per_world:
            summed.update(dict(r.visits))
        legal = CARDS.legal_actions(w0)
        assert result.visits == tuple((a, summed[a]) for a in legal)
        assert sum(summed.values()) == 15 * 40
        assert summed[result.action] == max(summed.values())
        votes = Counter(r.action for r in per_world)
        decisive += votes[result.action] < max(votes.values())
    # Somewhere the summed visits overrule the majority vote, so the two modes differ.
    assert decisive > 0


def test_pimc_reports_the_searchers_player_and_its_worlds_statistics() -> None:
    obs = next(o for w, o in card_positions() if CARDS.current_player(w) == 1)
    per_world: list[SearchResult[int]] = []

    def world_search(w: CardState, r: random.Random) -> SearchResult[int]:
        result = mcts(CARDS, w, budget=Budget(iterations=r.randrange(5, 40)), rng=r)
        per_world.append(result)
        return result

    result = pimc(CARDS, obs, worlds=6, search=world_search, rng=4)
    assert result.player == 1
    assert result.stats.iterations == len(per_world) == 6
    assert result.stats.nodes == sum(r.stats.nodes for r in per_world)
    assert result.stats.depth == max(r.stats.depth for r in per_world)
    assert result.stats.tree_size == max(r.stats.tree_size for r in per_world)
    assert len({r.stats.tree_size for r in per_world}) > 1  # so the maximum is a choice
    single = pimc(CARDS, obs, worlds=1, search=world_search, rng=4)
    assert single.stats.iterations == 1 and single.stats.nodes == per_world[-1].stats.nodes


def test_pimc_gives_nan_for_a_choice_no_world_valued() -> None:
    _, obs = card_positions()[0]

    def unvalued(w: CardState, r: random.Random) -> SearchResult[int]:
        return SearchResult(CARDS.legal_actions(w)[-1], 0.0, CARDS.current_player(w))

    result = pimc(CARDS, obs, worlds=3, search=unvalued, rng=0)
    assert math.isnan(result.value) and result.action_values == ()
    assert result.visits[-1][1] == 3


def test_pimc_vote_ranks_an_action_no_world_chose_below_every_chosen_one() -> None:
    _, obs = card_positions()[0]
    calls = itertools.count()

    def scripted(w: CardState, r: random.Random) -> SearchResult[int]:
        # World 0 chooses the last action, valuing only the first one (and that highly);
        # world 1 chooses the first action, valuing nothing.
        first, *_, last = CARDS.legal_actions(w)
        player = CARDS.current_player(w)
        if next(calls) % 2 == 0:
            return SearchResult(last, 0.0, player, ((first, 0.9),))
        return SearchResult(first, 0.0, player)

    result = pimc(CARDS, obs, worlds=1, search=scripted, rng=0)
    assert result.action == CARDS.legal_actions(CARDS.sample_world(obs, random.Random(0)))[-1]
    tied = pimc(CARDS, obs, worlds=2, search=scripted, rng=0)
    # One vote each: the valued action wins the tie over the unvalued one.
    assert tied.action == CARDS.legal_actions(CARDS.sample_world(obs, random.Random(0)))[0]
    assert tied.value == 0.9


def test_ismcts_finds_the_move_that_is_best_in_every_world() -> None:
    """Where the rest of the game is forced, a move at least as good as every other in each
    world and better in some has the highest expected payoff; ISMCTS must choose it."""
    found = 0
    for s, obs in forced_tail_positions():
        values = world_values(obs)
        for a, vs in values.items():
            others = [ws for b, ws in values.items() if b != a]
            if all(all(v >= w for v, w in zip(vs, ws, strict=True)) and vs != ws for ws in others):
                p = CARDS.current_player(s)
                result = ismcts(CARDS, obs, player=p, budget=Budget(iterations=1500), rng=found)
                assert result.action == a, (obs, values, result)
                found += 1
    assert found >= 10


def test_ismcts_finds_the_best_move_in_expectation_over_worlds() -> None:
    """Where the rest of the game is forced, each root action's payoff is a fixed function
    of the uniformly sampled world, so ISMCTS's means converge to the expectations over the
    consistent worlds: with a clear margin it must choose the best one."""
    tried = 0
    for s, obs, values, means in clear_best_positions():
        p = CARDS.current_player(s)
        result = ismcts(CARDS, obs, player=p, budget=Budget(iterations=1500), rng=tried)
        assert result.action == means[0][1], (obs, means, result)
        for a, v in result.action_values:
            assert abs(v - sum(values[a]) / len(values[a])) < 0.5
        tried += 1
    assert tried >= 10


def test_ismcts_progressive_bias_steers_early_and_fades() -> None:
    """A heuristic that prefers the worst move: an overwhelming bias makes ISMCTS follow it,
    a moderate one fades as visits grow (Chaslot et al. 2008), and bias 0 is plain ISMCTS."""
    tried = 0
    for s, obs, _, means in clear_best_positions():
        worst = means[-1][1]

        def misleading(state: CardState, legal: Sequence[int], worst: int = worst) -> int:
            assert list(legal) == list(CARDS.legal_actions(state))
            return worst if worst in legal else legal[-1]

        p = CARDS.current_player(s)
        budget = Budget(iterations=1500)
        steered = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=1e6),
        )
        assert steered.action == worst
        faded = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=2.0),
        )
        assert faded.action == means[0][1], (obs, means, faded)
        plain = ismcts(CARDS, obs, player=p, budget=budget, rng=tried)
        unbiased = ismcts(
            CARDS,
            obs,
            player=p,
            budget=budget,
            rng=tried,
            settings=TreeSettings(heuristic=misleading, bias=0.0),
        )
        assert same(plain, unbiased)
        tried += 1
    assert tried >= 10
    with pytest.raises(SearchError, match="bias"):
        ismcts(CARDS, obs, player=p, budget=budget, rng=0, settings=TreeSettings(bias=-1.0))
    with pytest.raises(SearchError, match="heuristic"):
        ismcts(CARDS, obs, player=p, budget=budget, rng=0, settings=TreeSettings(bias=1.0))
