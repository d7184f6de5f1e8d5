"""The contracts of ``durak.arena.scores`` around its figures: every refusal read whole,
the smallest settings accepted, the defaults, a missing extra named, and the edge cases
the first mutation run found unread (docs/verification.md, issue 65).  The figures
themselves are checked against references in ``test_scores_reference.py``."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from durak.arena.scores.alpharank import alpharank_masses, alpharank_ratings, check_openspiel
from durak.arena.scores.ratings import Matchup, RatingError, elo_ratings, score_matrix, strengths
from durak.arena.scores.wilson import wilson
from durak.extras import MissingExtraError
from tests.arena.test_scores_reference import (
    DESIGNS,
    alpharank_reference,
    games,
    matrix,
    mm_strengths,
)
from tests.support.extras import require_extra


@pytest.mark.parametrize(
    ("successes", "trials", "confidence", "message"),
    [
        (0, 0, 0.98, "a Wilson interval needs at least one trial, got 0"),
        (-0.5, 4, 0.98, r"successes must be in \[0, 4\], got -0.5"),
        (4.5, 4, 0.98, r"successes must be in \[0, 4\], got 4.5"),
        (1, 4, 0.0, r"confidence must be in \(0, 1\), got 0.0"),
        (1, 4, 1.0, r"confidence must be in \(0, 1\), got 1.0"),
    ],
)
def test_a_wilson_interval_of_no_trial_or_a_bad_count_or_level_is_refused(
    successes: float, trials: int, confidence: float, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        wilson(successes, trials, confidence)
    assert wilson(4, 4, 0.98)[1] == 1.0 and wilson(0, 4, 0.98)[0] == 0.0


TWO = [Matchup("a", "b", [1.0, 0.0, 1.0, 1.0])]


def elo(anchor: str = "a", **settings: Any) -> Any:
    return lambda: elo_ratings(["a", "b"], TWO, anchor, **settings)


def alpha(**settings: Any) -> Any:
    return lambda: alpharank_ratings(["a", "b"], TWO, **settings)


CONFIDENCE = "the confidence must be between 0 and 1, got {}"
RESAMPLE = "the bootstrap needs at least one resample, got 0"
UNCONNECTED = "the games played do not connect every agent to the others"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (elo(anchor="c"), "the anchor 'c' is not one of the agents: a, b"),
        *[(elo(confidence=c), CONFIDENCE.format(c)) for c in (0.0, 1.0, 1.5)],
        (elo(resamples=0), RESAMPLE),
        *[(alpha(confidence=c), CONFIDENCE.format(c)) for c in (0.0, 1.0, 1.5)],
        (alpha(resamples=0), RESAMPLE),
        (lambda: strengths(np.zeros((2, 2))), UNCONNECTED),
        (lambda: Matchup("a", "b", [1.0], deal=0), "a vs b: 1 games are not whole deals of 0"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_saying_what_is_wrong(call: Any, message: str) -> None:
    require_extra("open_spiel")
    with pytest.raises(RatingError) as caught:
        call()
    assert str(caught.value) == message


def test_the_smallest_settings_are_accepted() -> None:
    require_extra("open_spiel")
    single = [Matchup("a", "b", [1.0, 0.0, 0.5], deal=1)]
    assert single[0].deal_scores() == [1.0, 0.0, 0.5]
    (a, b) = elo_ratings(["a", "b"], single, "a", resamples=1, confidence=0.5)
    assert a.rating == 0.0 and b.rating == pytest.approx(0.0, abs=1e-9) and b.games == 3
    masses = alpharank_ratings(["a", "b"], single, resamples=1, confidence=0.5)
    assert [m.rating for m in masses] == pytest.approx([0.5, 0.5])


def test_the_strengths_have_mean_zero() -> None:
    wins = matrix(*DESIGNS[0][:1], games(2, *DESIGNS[0], deals=5))
    got = strengths(wins)
    assert float(got.mean()) == pytest.approx(0.0, abs=1e-12)
    assert list(got) == pytest.approx(list(mm_strengths(wins)), abs=1e-8)


def test_games_of_an_agent_against_itself_change_no_strength() -> None:
    # The fit reads the pairs i != j only: a diagonal, whatever it holds, is not a pair.
    wins = matrix(*DESIGNS[0][:1], games(2, *DESIGNS[0], deals=5))
    selfish = wins.copy()
    np.fill_diagonal(selfish, np.arange(1.0, len(wins) + 1.0) * 7)
    assert list(strengths(selfish)) == pytest.approx(list(strengths(wins)), abs=1e-12)


@pytest.mark.parametrize("n", [0, 1])
def test_no_agent_is_refused_and_one_agent_is_its_own_mean(n: int) -> None:
    if n == 0:
        with pytest.raises(RatingError, match=r"^no agents to rate$"):
            strengths(np.zeros((0, 0)))
    else:
        assert list(strengths(np.zeros((1, 1)))) == [0.0]


def test_the_alpharank_bootstrap_repeats_with_its_seed_and_its_defaults() -> None:
    require_extra("open_spiel")
    agents, pairs = DESIGNS[2]
    matchups = games(4, agents, pairs, deals=3)
    once = alpharank_ratings(agents, matchups, resamples=30, seed=9, confidence=0.5)
    assert alpharank_ratings(agents, matchups, resamples=30, seed=9, confidence=0.5) == once
    other = alpharank_ratings(agents, matchups, resamples=30, seed=10, confidence=0.5)
    assert [(r.low, r.high) for r in other] != [(r.low, r.high) for r in once]


ALPHARANK = "open_spiel.python.egt.alpharank"


@pytest.mark.parametrize(
    ("module", "call", "message"),
    [
        ("choix", elo(resamples=1), "the ratings needs choix"),
        ("numpy", lambda: score_matrix(["a", "b"], TWO), "the ratings needs numpy"),
        (ALPHARANK, lambda: alpharank_masses(np.eye(2)), "--method alpharank needs open-spiel"),
        ("numpy", alpha(), "--method alpharank needs numpy"),
    ],
)  # fmt: skip
def test_a_missing_extra_is_named_with_the_feature_and_its_install_line(
    monkeypatch: pytest.MonkeyPatch, module: str, call: Any, message: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # an import of it now fails
    with pytest.raises(MissingExtraError) as caught:
        call()
    extra = "openspiel" if "alpharank" in message else "ladder"
    assert str(caught.value).startswith(f"{message}: ")
    assert f"[{extra}]" in str(caught.value)


def test_a_wilson_interval_never_leaves_zero_to_one_by_rounding() -> None:
    # Computed in floating point, the upper end of 9/9 at 95% and the lower end of 0/7 at
    # 98% fall outside [0, 1] by a rounding error; the interval is a set of proportions.
    assert wilson(9, 9, 0.95)[1] == 1.0 and wilson(2, 2, 0.5)[1] == 1.0
    assert wilson(0, 7)[0] == 0.0 and wilson(0, 5, 0.9)[0] == 0.0
    assert wilson(3, 7) == wilson(3, 7, 0.98)  # the default level


ONE_GAME = np.array([[0, 1, 4], [0, 0, 2], [5, 2, 0]], dtype=float)


def test_alpharank_counts_a_pair_that_played_one_game() -> None:
    # Only which of two agents scores more against the other matters in the infinite-α
    # limit; a pair with a single game is decided by it, one with none is a tie.
    require_extra("open_spiel.python.egt.alpharank")
    rates = np.full((3, 3), 0.5)
    rates[0, 1], rates[1, 0] = 1.0, 0.0
    rates[0, 2], rates[2, 0] = 4 / 9, 5 / 9
    got = alpharank_masses(ONE_GAME)
    assert list(got) == pytest.approx(list(alpharank_reference(rates)), abs=1e-9)
    assert got.dtype == np.float64


@pytest.mark.parametrize("module", ["numpy", "open_spiel"])
def test_the_openspiel_check_names_what_is_missing_before_any_game(
    monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    require_extra("open_spiel")
    check_openspiel()  # installed: nothing to say
    monkeypatch.setitem(sys.modules, module, None)  # find_spec now finds nothing
    with pytest.raises(MissingExtraError) as caught:
        check_openspiel()
    name = "open-spiel" if module == "open_spiel" else "numpy"
    assert str(caught.value).startswith(f"--method alpharank needs {name}: ")
    assert "[openspiel]" in str(caught.value)


AB = Matchup("a", "b", [1.0, 0.0])


@pytest.mark.parametrize(
    ("agents", "matchups", "message"),
    [
        (["a", "a"], [AB], "an agent is named twice"),
        (["a", "b"], [AB, AB], "the pair a vs b is given twice"),
        (["a", "b"], [AB, Matchup("b", "a", [0.5, 0.5])], "the pair b vs a is given twice"),
        (["a", "b", "c", "d"], [AB], "no games for c, d: it cannot be rated"),
        (["a", "b", "c"], [AB, Matchup("a", "c", [])], "no games for c: it cannot be rated"),
    ],
)
def test_results_that_cannot_be_rated_are_refused_saying_why(
    agents: list[str], matchups: list[Matchup], message: str
) -> None:
    for rate in (
        lambda: elo_ratings(agents, matchups, "a", resamples=1),
        lambda: score_matrix(agents, matchups),
    ):
        with pytest.raises(RatingError) as caught:
            rate()
        assert str(caught.value) == message


def test_an_agent_matched_against_itself_is_refused_by_name() -> None:
    with pytest.raises(RatingError) as caught:
        Matchup("a", "a", [1.0, 0.0])
    assert str(caught.value) == "'a' cannot be matched against itself"


def test_the_defaults_are_a_thousand_resamples_from_seed_0_at_98_percent() -> None:
    # Called as the command line's ladder calls them, without the settings.
    require_extra("open_spiel")
    agents, pairs = DESIGNS[2]
    matchups = games(0, agents, pairs, deals=10)
    stated: dict[str, Any] = {"confidence": 0.98, "resamples": 1000, "seed": 0}
    assert elo_ratings(agents, matchups, "x") == elo_ratings(agents, matchups, "x", **stated)
    assert alpharank_ratings(agents, matchups) == alpharank_ratings(agents, matchups, **stated)
    for other in ({"seed": 1}, {"resamples": 1001}, {"confidence": 0.97}):
        assert elo_ratings(agents, matchups, "x") != elo_ratings(
            agents, matchups, "x", **{**stated, **other}
        ), other


def test_the_alpharank_defaults_are_a_thousand_resamples_from_seed_0() -> None:
    # alpha-Rank's masses take a few values: on most designs another seed or one more
    # resample gives the same percentiles.  Here, 6 deals split and 4 won twice, about
    # 1% of the resamples are ties, so the 1% percentile falls between a tie and a win
    # and moves with any other draw.
    require_extra("open_spiel")
    edge = [Matchup("a", "b", [1.0, 0.0] * 6 + [1.0, 1.0] * 4, 2)]
    stated: dict[str, Any] = {"confidence": 0.98, "resamples": 1000, "seed": 0}
    default = alpharank_ratings(["a", "b"], edge)
    assert default == alpharank_ratings(["a", "b"], edge, **stated)
    for other in ({"seed": 1}, {"resamples": 1001}):
        assert default != alpharank_ratings(["a", "b"], edge, **{**stated, **other}), other
