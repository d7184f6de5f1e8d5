"""Every statistic of a match (:class:`durak.arena.scores.result.MatchResult`) against its
definition, computed here from a list of hand-made outcomes: rates per game, Wilson
intervals of the counts (:mod:`tests.support.intervals`), scores with a draw half a win,
forfeits by fault, bouts, moves and thinking times."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from durak.arena.play.match import GameOutcome, MatchPlan
from durak.arena.play.referee import FaultKind, Forfeit
from durak.arena.scores.result import MatchResult, interval
from durak.rules import Rules
from tests.support.intervals import score_interval

FAULTS: tuple[FaultKind, ...] = ("error", "timeout", "illegal")


def outcomes(players: int, games: int, seed: int) -> list[GameOutcome]:
    """Random outcomes: seats rotated, draws, forfeits of every kind, times and counts."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        seats = tuple((g + s) % players for s in range(players))
        u = rng.random()
        durak = None if u < 0.2 else rng.randrange(players)
        forfeit = None
        if durak is not None and rng.random() < 0.3:
            forfeit = Forfeit(seats.index(durak), rng.choice(FAULTS), "m")
        think = tuple(rng.uniform(0, 2) for _ in range(players))
        out.append(
            GameOutcome(
                g, durak, seats, rng.randint(1, 9), rng.randint(1, 60),
                tuple(rng.randint(1, 20) for _ in range(players)), think,
                tuple(t / 2 for t in think), forfeit,
            )
        )  # fmt: skip
    return out


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 1), (5, 2)])
def test_every_statistic_is_its_definition(players: int, seed: int) -> None:
    played = outcomes(players, 23, seed)
    plan = MatchPlan(Rules(players=players), ("random",) * players, 7, 30)
    r = MatchResult(plan, tuple(played), wall_seconds=1.5)
    n = len(played)
    assert (r.games, r.complete, r.seed, r.rules) == (n, False, 7, plan.rules)
    assert r.specs == plan.specs
    assert MatchResult(plan, tuple(outcomes(players, 30, seed))).complete
    draws = sum(o.durak is None for o in played)
    assert r.draws == draws and r.draw_rate() == draws / n
    assert r.draw_interval(0.9) == pytest.approx(score_interval(draws, n, 0.9), abs=1e-12)
    for a in range(players):
        lost = sum(o.durak == a for o in played)
        won = sum(o.durak is not None and o.durak != a for o in played)
        assert (r.durak_count(a), r.durak_rate(a)) == (lost, lost / n)
        assert (r.wins(a), r.win_rate(a)) == (won, won / n)
        assert r.score(a) == won + draws / 2 and r.score_rate(a) == (won + draws / 2) / n
        for got, count in [
            (r.durak_interval(a, 0.9), lost),
            (r.win_interval(a, 0.9), won),
            (r.score_interval(a, 0.9), won + draws / 2),
        ]:
            assert got == pytest.approx(score_interval(count, n, 0.9), abs=1e-12)
        assert r.durak_interval(a) == pytest.approx(score_interval(lost, n, 0.98), abs=1e-12)
        faults = Counter(
            o.forfeit.fault for o in played if o.forfeit and o.seats[o.forfeit.seat] == a
        )
        assert r.forfeits(a) == faults and list(r.forfeits(a)) == [f for f in FAULTS if faults[f]]
        first = next((o for o in played if o.forfeit and o.seats[o.forfeit.seat] == a), None)
        assert r.first_forfeit(a) == first
        decisions = sum(o.decisions[a] for o in played)
        assert r.decisions(a) == decisions
        assert r.mean_think(a) == pytest.approx(sum(o.think_time[a] for o in played) / decisions)
        assert r.max_think(a) == max(o.max_think[a] for o in played)
    assert r.forfeit_count == sum(o.forfeit is not None for o in played)
    assert r.bouts_per_game() == sum(o.bouts for o in played) / n
    assert r.moves_per_bout() == sum(o.moves for o in played) / sum(o.bouts for o in played)


def test_with_no_game_every_rate_is_zero_and_every_interval_whole() -> None:
    r = MatchResult(MatchPlan(Rules(), ("random", "random"), 0, 4), ())
    assert (r.games, r.draws, r.draw_rate(), r.durak_rate(0), r.win_rate(1)) == (0, 0, 0, 0, 0)
    assert r.score_rate(0) == 0 and r.bouts_per_game() == 0 and r.moves_per_bout() == 0
    assert r.mean_think(0) == 0 and r.max_think(1) == 0.0 and r.first_forfeit(0) is None
    assert r.win_interval(0) == r.draw_interval() == (0.0, 1.0) == interval(0, 0, 0.5)
    assert interval(3, 4, 0.5) == pytest.approx(score_interval(3, 4, 0.5), abs=1e-12)


def test_one_game_one_bout_one_decision_are_divided_by_one() -> None:
    zeros = (0, 0)
    drawn = GameOutcome(0, None, (0, 1), 1, 3, (1, 0), (0.5, 0.0), (0.5, 0.0))
    r = MatchResult(MatchPlan(Rules(), ("random", "random"), 0, 1), (drawn,))
    assert r.draw_rate() == 1.0 and r.score_rate(0) == 0.5 and r.win_rate(0) == 0.0
    assert r.durak_rate(1) == 0.0 and r.bouts_per_game() == 1.0 and r.moves_per_bout() == 3.0
    assert r.mean_think(0) == 0.5 and r.mean_think(1) == 0.0 and zeros == (r.wins(0), r.wins(1))
    lost = GameOutcome(0, 1, (0, 1), 1, 3, (1, 1), (0.5, 0.25), (0.5, 0.25))
    r = MatchResult(MatchPlan(Rules(), ("random", "random"), 0, 1), (lost,))
    assert (r.win_rate(0), r.durak_rate(1), r.score_rate(0)) == (1.0, 1.0, 1.0)
    assert r.win_interval(0) == r.win_interval(0, 0.98) != r.win_interval(0, 0.5)
    assert r.durak_interval(1) == r.durak_interval(1, 0.98) != r.durak_interval(1, 0.5)
    assert r.score_interval(0) == r.score_interval(0, 0.98) != r.score_interval(0, 0.5)
    assert r.draw_interval() == r.draw_interval(0.98) != r.draw_interval(0.5)
