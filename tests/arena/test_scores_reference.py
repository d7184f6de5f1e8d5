"""The figures of ``durak.arena.scores`` against references written from their sources,
not from the library: the Bradley–Terry maximum-likelihood fit by Zermelo's iteration
(the MM algorithm of D. R. Hunter, "MM algorithms for generalized Bradley–Terry models",
Annals of Statistics 32, 2004, eq. 3), the Wilson interval by inverting the score test
(Wilson 1927) and at published values (R. G. Newcombe, "Two-sided confidence intervals
for the single proportion", Statistics in Medicine 17, 1998, Table I, method 3), the
percentile bootstrap (Efron 1979; the percentile as Hyndman and Fan's definition 7), and
α-Rank in its infinite-α limit (Omidshafiei et al., Scientific Reports 9, 2019) against
its definition and OpenSpiel's.  Every figure must agree with its reference.

The bootstrap reference shares one thing with the library: the order in which the deals
are drawn from the seeded generator (a matchup at a time, a ``resamples × deals`` block
of indices each), the way the search references share a scripted generator."""

from __future__ import annotations

import math
import random
from itertools import permutations

import numpy as np
import pytest

from durak.arena.scores.alpharank import alpharank_masses
from durak.arena.scores.ratings import Matchup, elo_ratings
from durak.arena.scores.wilson import wilson
from tests.support.extras import require_extra
from tests.support.intervals import score_interval

ELO = 400 / math.log(10)


def mm_strengths(wins: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """Bradley–Terry log-strengths (mean 0) of the score matrix ``wins``, each pair that
    played given ``prior`` virtual draws: Hunter's (2004) MM update
    ``γ_i ← W_i / Σ_j N_ij / (γ_i + γ_j)`` until it stops moving."""
    n = len(wins)
    played = (wins + wins.T) > 0
    for i in range(n):
        played[i, i] = False
    w = wins + np.where(played, prior / 2, 0.0)
    for i in range(n):
        w[i, i] = 0.0
    total = w + w.T
    won = w.sum(axis=1)
    gamma = np.ones(n)
    for _ in range(200_000):
        denom = (total / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = won / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-13:
            gamma = new
            break
        gamma = new
    else:
        raise AssertionError("the MM iteration did not converge")
    logs: np.ndarray = np.log(gamma)
    centred: np.ndarray = logs - logs.mean()
    return centred


def matrix(agents: list[str], matchups: list[Matchup]) -> np.ndarray:
    """``[i, j]``: agent ``i``'s total score against ``j``, summed game by game."""
    where = {a: i for i, a in enumerate(agents)}
    out = np.zeros((len(agents), len(agents)))
    for m in matchups:
        i, j = where[m.first], where[m.second]
        for s in m.scores:
            out[i, j] += s
            out[j, i] += 1 - s
    return out


def elo_of(agents: list[str], wins: np.ndarray, anchor: str) -> np.ndarray:
    r = mm_strengths(wins) * ELO
    anchored: np.ndarray = r - r[agents.index(anchor)]
    return anchored


def games(seed: int, agents: list[str], pairs: list[tuple[str, str]], deals: int) -> list[Matchup]:
    """Random duplicate matches (two games a deal) with draws, one per pair."""
    rng = random.Random(seed)
    bias = {a: rng.uniform(-1.5, 1.5) for a in agents}
    out = []
    for x, y in pairs:
        p = 1 / (1 + math.exp(bias[y] - bias[x]))
        scores = [0.5 if rng.random() < 0.15 else float(rng.random() < p) for _ in range(2 * deals)]
        out.append(Matchup(x, y, scores))
    return out


DESIGNS = [
    # every pair, a chain (pairs missing: only the played ones get the prior), a star
    (
        ["a", "b", "c", "d"],
        [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")],
    ),
    (["p", "q", "r", "s", "t"], [("p", "q"), ("r", "q"), ("r", "s"), ("t", "s")]),
    (["hub", "x", "y"], [("hub", "x"), ("y", "hub")]),
]


@pytest.mark.parametrize(("agents", "pairs"), DESIGNS)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_ratings_are_the_bradley_terry_maximum_likelihood_of_hunters_iteration(
    agents: list[str], pairs: list[tuple[str, str]], seed: int
) -> None:
    matchups = games(seed, agents, pairs, deals=12)
    anchor = agents[seed % len(agents)]
    got = elo_ratings(agents, matchups, anchor, resamples=1, seed=seed)
    want = elo_of(agents, matrix(agents, matchups), anchor)
    assert [r.agent for r in got] == agents
    assert [r.rating for r in got] == pytest.approx(list(want), abs=1e-6)
    played = {a: sum(m.games for m in matchups if a in (m.first, m.second)) for a in agents}
    assert [r.games for r in got] == [played[a] for a in agents]


def test_an_agent_that_won_every_game_is_rated_by_the_prior_alone() -> None:
    # One pair, n wins out of n games and one virtual draw: the maximum likelihood of
    # Bradley–Terry is w / (w + 1) = (n + 1/2) / (n + 1), so R = 400 log10 (2n + 1).
    for n in (1, 2, 10, 40):
        won = Matchup("a", "b", [1.0] * n, deal=1)  # one game: the prior counts there too
        (a, b) = elo_ratings(["a", "b"], [won], "b", resamples=1)
        assert a.rating == pytest.approx(400 * math.log10(2 * n + 1), abs=1e-6)
        assert b.rating == 0.0


def percentile(values: list[float], q: float) -> float:
    """Hyndman and Fan's definition 7: linear between the order statistics, the
    ``q (B - 1)``-th counted from 0."""
    xs = sorted(values)
    h = q * (len(xs) - 1)
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


@pytest.mark.parametrize(("confidence", "seed"), [(0.98, 3), (0.8, 4)])
def test_the_intervals_are_percentiles_of_ratings_refitted_on_resampled_deals(
    confidence: float, seed: int
) -> None:
    agents, pairs = DESIGNS[0]
    matchups = games(seed, agents, pairs, deals=6)
    resamples = 40
    got = elo_ratings(agents, matchups, "c", confidence=confidence, resamples=resamples, seed=seed)
    rng = np.random.default_rng(seed)
    drawn = [rng.integers(0, m.games // 2, size=(resamples, m.games // 2)) for m in matchups]
    where = {a: i for i, a in enumerate(agents)}
    samples = []
    for b in range(resamples):
        wins = np.zeros((len(agents), len(agents)))
        for m, idx in zip(matchups, drawn, strict=True):
            for d in idx[b]:
                s = m.scores[2 * d] + m.scores[2 * d + 1]  # a deal: two games, seats swapped
                wins[where[m.first], where[m.second]] += s
                wins[where[m.second], where[m.first]] += 2 - s
        samples.append(elo_of(agents, wins, "c"))
    tail = (1 - confidence) / 2
    for k, r in enumerate(got):
        column = [float(s[k]) for s in samples]
        assert r.low == pytest.approx(percentile(column, tail), abs=1e-6), r
        assert r.high == pytest.approx(percentile(column, 1 - tail), abs=1e-6), r
    assert got[where["c"]].low == got[where["c"]].high == 0.0


def test_a_rating_does_not_depend_on_the_order_of_the_agents_or_matchups() -> None:
    agents, pairs = DESIGNS[0]
    matchups = games(7, agents, pairs, deals=10)
    base = {r.agent: r.rating for r in elo_ratings(agents, matchups, "a", resamples=1)}
    for order in list(permutations(agents))[::5]:
        shuffled = list(reversed(matchups)) if order[0] != "a" else matchups
        swapped = [
            Matchup(m.second, m.first, [1 - s for s in m.scores]) if k % 2 else m
            for k, m in enumerate(shuffled)
        ]
        got = {r.agent: r.rating for r in elo_ratings(list(order), swapped, "a", resamples=1)}
        assert got == pytest.approx(base, abs=1e-6), order


def test_the_anchor_is_at_zero_and_every_rating_shifts_with_it() -> None:
    agents, pairs = DESIGNS[1]
    matchups = games(9, agents, pairs, deals=10)
    by_anchor = {
        a: {r.agent: r.rating for r in elo_ratings(agents, matchups, a, resamples=1)}
        for a in agents
    }
    base = by_anchor["p"]
    for anchor, got in by_anchor.items():
        assert got[anchor] == 0.0
        assert got == pytest.approx({k: v - base[anchor] for k, v in base.items()}, abs=1e-6)


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(0, 1, 0.98), (1, 1, 0.95), (0, 20, 0.95), (3, 7, 0.5), (90, 100, 0.98), (17.5, 40, 0.9),
     (999, 1000, 0.999), (1, 10_000, 0.98), (50, 100, 0.01)],
)  # fmt: skip
def test_the_wilson_interval_is_the_set_the_score_test_accepts(
    successes: float, n: int, confidence: float
) -> None:
    assert wilson(successes, n, confidence) == pytest.approx(
        score_interval(successes, n, confidence), abs=1e-12
    )


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
     (1, 29, 0.0061, 0.1718)],
)  # fmt: skip
def test_the_wilson_interval_matches_newcombes_table(
    successes: int, n: int, low: float, high: float
) -> None:
    assert wilson(successes, n, 0.95) == pytest.approx((low, high), abs=5e-5)


def alpharank_reference(payoff: np.ndarray, eps: float = 0.01) -> np.ndarray:
    """The infinite-α α-Rank masses of a symmetric game with payoff ``payoff[i, j]`` (i's
    against j): from the monomorphic population of ``s`` a mutant ``r`` (each with
    probability ``1/(K-1)``) takes over with probability ``1 - ε`` if it is paid more
    against ``s`` than ``s`` against it, ``ε`` if less, 1/2 on a tie; the masses are the
    chain's stationary distribution."""
    k = len(payoff)
    chain = np.zeros((k, k))
    for s in range(k):
        for r in range(k):
            if r != s:
                gain = payoff[r, s] - payoff[s, r]
                fix = 0.5 if abs(gain) < 1e-14 else (1 - eps if gain > 0 else eps)
                chain[s, r] = fix / (k - 1)
        chain[s, s] = 1 - chain[s].sum()
    # π (C - I) = 0 with Σ π = 1, solved as one least-squares system.
    system = np.vstack([(chain - np.eye(k)).T, np.ones(k)])
    rhs = np.zeros(k + 1)
    rhs[-1] = 1
    return np.linalg.lstsq(system, rhs, rcond=None)[0]


ALPHA_TABLES = [
    # a strict order, a cycle (rock-paper-scissors) with a dominated agent, a tie, a
    # pair that never played (rate 1/2)
    np.array([[0, 30, 40], [10, 0, 25], [0, 15, 0]], dtype=float),
    np.array([[0, 30, 10, 35], [10, 0, 30, 36], [30, 10, 0, 38], [5, 4, 2, 0]], dtype=float),
    np.array([[0, 20, 31], [20, 0, 12], [9, 28, 0]], dtype=float),
    np.array([[0, 0, 12], [0, 0, 3], [8, 17, 0]], dtype=float),
]


@pytest.mark.parametrize("wins", ALPHA_TABLES)
def test_alpharank_masses_are_the_infinite_alpha_limit_of_the_score_rates(
    wins: np.ndarray,
) -> None:
    alpharank = require_extra("open_spiel.python.egt.alpharank")
    k = len(wins)
    rates = np.full((k, k), 0.5)
    for i in range(k):
        for j in range(k):
            if i != j and wins[i, j] + wins[j, i] > 0:
                rates[i, j] = wins[i, j] / (wins[i, j] + wins[j, i])
    want = alpharank_reference(rates)
    got = alpharank_masses(wins)
    assert list(got) == pytest.approx(list(want), abs=1e-9)
    _, _, pi, _, _ = alpharank.compute([rates], use_inf_alpha=True)
    assert list(pi) == pytest.approx(list(want), abs=1e-9)
