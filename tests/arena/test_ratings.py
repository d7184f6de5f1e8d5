"""Bradley–Terry ratings on the Elo scale and α-Rank (durak.arena.scores): the fit
recovers known strengths, the anchor sits at 0, the bootstrap repeats with its seed."""

from __future__ import annotations

import random

import pytest

from durak.arena.scores.alpharank import alpharank_ratings
from durak.arena.scores.ratings import Matchup, Rating, RatingError, elo_ratings

TRUE = {"a": 0.0, "b": 200.0, "c": -150.0, "d": 450.0, "e": 80.0}


def synthetic(true: dict[str, float], games: int, seed: int, draw: float = 0.0) -> list[Matchup]:
    """Games between every pair drawn from the Elo model of ``true`` (a share ``draw`` of
    them drawn)."""
    rng = random.Random(seed)
    names = list(true)
    out = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            p = 1 / (1 + 10 ** ((true[y] - true[x]) / 400))
            scores = [
                0.5 if rng.random() < draw else (1.0 if rng.random() < p else 0.0)
                for _ in range(games)
            ]
            out.append(Matchup(x, y, scores))
    return out


def by_agent(ratings: list[Rating]) -> dict[str, Rating]:
    return {r.agent: r for r in ratings}


def test_the_fit_recovers_known_strengths_within_their_intervals() -> None:
    rated = by_agent(elo_ratings(list(TRUE), synthetic(TRUE, 1000, 0), "a", resamples=300))
    for name, true in TRUE.items():
        r = rated[name]
        assert abs(r.rating - true) < 30, (name, r)
        assert r.low <= true <= r.high, (name, r)
        assert r.games == 4 * 1000
    assert [n for n, _ in sorted(rated.items(), key=lambda kv: -kv[1].rating)] == [
        "d", "b", "e", "a", "c"
    ]  # fmt: skip


def test_draws_count_half_a_win_to_each_side() -> None:
    even = [Matchup("x", "y", [0.5] * 100), Matchup("x", "z", [1.0, 0.0] * 50)]
    rated = by_agent(elo_ratings(["x", "y", "z"], even, "x", resamples=50))
    assert abs(rated["y"].rating) < 1e-6 and abs(rated["z"].rating) < 1e-6


def test_the_anchor_is_zero_and_moving_it_shifts_every_rating_alike() -> None:
    games = synthetic(TRUE, 200, 2)
    on_a = by_agent(elo_ratings(list(TRUE), games, "a", resamples=100, seed=5))
    on_d = by_agent(elo_ratings(list(TRUE), games, "d", resamples=100, seed=5))
    assert (on_a["a"].rating, on_a["a"].low, on_a["a"].high) == (0.0, 0.0, 0.0)
    assert on_d["d"].rating == 0.0
    shift = on_a["d"].rating
    for name in TRUE:
        assert on_d[name].rating == pytest.approx(on_a[name].rating - shift)


def test_the_bootstrap_repeats_with_its_seed_and_varies_without_it() -> None:
    games = synthetic(TRUE, 100, 3)
    first = elo_ratings(list(TRUE), games, "a", resamples=200, seed=11)
    again = elo_ratings(list(TRUE), games, "a", resamples=200, seed=11)
    other = elo_ratings(list(TRUE), games, "a", resamples=200, seed=12)
    assert first == again
    assert [r.rating for r in first] == [r.rating for r in other]  # the fit itself is fixed
    assert [(r.low, r.high) for r in first] != [(r.low, r.high) for r in other]


def test_more_games_narrow_the_intervals() -> None:
    few = by_agent(elo_ratings(list(TRUE), synthetic(TRUE, 50, 4), "a", resamples=200))
    many = by_agent(elo_ratings(list(TRUE), synthetic(TRUE, 800, 4), "a", resamples=200))
    for name in "bcde":
        assert many[name].high - many[name].low < few[name].high - few[name].low


def test_a_perfect_record_has_a_finite_rating_thanks_to_the_prior() -> None:
    games = [Matchup("strong", "weak", [1.0] * 40)]
    rated = by_agent(elo_ratings(["strong", "weak"], games, "weak", resamples=20))
    assert 400 < rated["strong"].rating < 2000


@pytest.mark.parametrize(
    ("agents", "matchups", "anchor", "words"),
    [
        (["x", "y"], [Matchup("x", "y", [1.0, 0.0])], "z", "anchor 'z'"),
        (["x", "y", "z"], [Matchup("x", "y", [1.0, 0.0])], "x", "no games for z"),
        (["x", "y"], [Matchup("x", "q", [1.0, 0.0])], "x", "'q' is not one of"),
        (["x", "x"], [Matchup("x", "y", [1.0, 0.0])], "x", "named twice"),
        (
            ["w", "x", "y", "z"],
            [Matchup("w", "x", [1.0, 0.0]), Matchup("y", "z", [1.0, 0.0])],
            "w",
            "do not connect",
        ),
    ],
)
def test_results_that_cannot_be_rated_are_one_clear_error(
    agents: list[str], matchups: list[Matchup], anchor: str, words: str
) -> None:
    with pytest.raises(RatingError, match=words):
        elo_ratings(agents, matchups, anchor, resamples=5)


@pytest.mark.parametrize(
    ("scores", "words"), [([1.0, 0.25], "not 0, 0.5 or 1"), ([1.0], "whole deals")]
)
def test_a_bad_matchup_is_refused(scores: list[float], words: str) -> None:
    with pytest.raises(RatingError, match=words):
        Matchup("x", "y", scores)


def test_alpharank_gives_the_dominant_agent_the_most_mass() -> None:
    pytest.importorskip("open_spiel")
    rated = alpharank_ratings(list(TRUE), synthetic(TRUE, 200, 6), resamples=30, seed=1)
    masses = by_agent(rated)
    assert sum(r.rating for r in rated) == pytest.approx(1.0)
    assert max(masses.values(), key=lambda r: r.rating).agent == "d"
    assert all(r.low <= r.rating <= r.high for r in rated)
