"""The review of a logged game (:mod:`durak.arena.gamelog.review`): every decision of the
reviewed seats, analysed from that seat's observations only, reproducible for a seed;
a log the engine refuses is refused as ``durak replay`` refuses it."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest

from durak.agents import make_agent
from durak.agents.base import SpecError
from durak.agents.interface.analysis import ActionAssessment, Analysis
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.arena.gamelog.entry import LogEntry, LogError
from durak.arena.gamelog.replay import replay_entry
from durak.arena.gamelog.review import person_seats, review_entry, reviewed_seats
from durak.arena.play.game import play_game
from durak.arena.play.person import play_entry
from durak.rules import Action, Observation, Rules, observe
from durak.seeding import derive_seed
from tests.support.review_spy import INNER, SpyFactory

#: A small deck: a game of some 30 decisions.
RULES = Rules(lowest_rank=10, hand_size=4)


def logged(seed: int, names: tuple[str, str] = ("human", "greedy")) -> LogEntry:
    """A finished game of ``random`` (in the person's seat 0) against ``greedy``, logged as
    a game with a person named ``names``."""
    agents = [make_agent("random"), make_agent("greedy")]
    record = play_game(RULES, agents, derive_seed(seed, 0), False)
    return play_entry(RULES, names, seed, False, 0, record.actions, record)


def test_every_decision_of_the_seat_is_reviewed_from_its_observations() -> None:
    entry = logged(3)
    spies = SpyFactory([0])
    reported: list[tuple[int, int, int]] = []

    def told(done: int, total: int) -> None:  # with how many analyses were made by then
        reported.append((done, total, len(spies.built[0].analysed)))

    review = review_entry(entry, "spy", progress=told, make=spies)
    game = replay_entry(entry)
    mine = [k for k, m in enumerate(game.movers) if m == 0]
    assert review.seats == (0,) and spies.specs == ["spy"] and spies.rules == [RULES]
    assert [d.step for d in review.decisions] == [k + 1 for k in mine]
    assert [d.played for d in review.decisions] == [game.actions[k] for k in mine]
    # told after each decision, as it is made (not all at the end of the seat's review)
    made = [sum(not d.forced for d in review.decisions[: i + 1]) for i in range(len(mine))]
    assert reported == [(i + 1, len(mine), made[i]) for i in range(len(mine))]
    analysed = [d for d in review.decisions if not d.forced]
    assert analysed and any(d.forced for d in review.decisions)
    for d in review.decisions:
        assert d.observation == observe(game.states[d.step - 1], 0)
        assert (d.analysis is None) == (len(d.observation.legal_actions) == 1)
        assert d.loss is not None and d.loss >= 0.0
        if d.played == d.chosen:
            assert d.loss == 0.0
        else:
            assert d.loss == max(0.0, (d.chosen_value or 0.0) - (d.played_value or 0.0))
    # The analyst was given the seat's observation of each decision with a choice, and
    # watched the whole game through the seat's eyes.
    (spy,) = spies.built
    assert spy.analysed == [d.observation for d in analysed]
    assert spy.watched == [observe(s, 0) for s in game.states] + [observe(game.final, 0)]
    assert spy.moves == list(zip(game.movers, game.actions, strict=True))
    assert spy.losers == [entry.seats.index(entry.durak) if entry.durak is not None else None]
    # each decision draws from derive_seed(seed, deal seed, step): seed 0 by default
    streams = [random.Random(derive_seed(0, entry.deal_seed, d.step)).getstate() for d in analysed]
    assert spy.streams == streams


def test_the_mistakes_are_the_losses_largest_first() -> None:
    review = review_entry(logged(5), "spy", make=SpyFactory([0]))
    mistakes = review.mistakes()
    lost = [d for d in review.decisions if (d.loss or 0.0) > 0.0]
    assert mistakes, "random lost nothing against the analyst's judgement"
    assert sorted(d.step for d in mistakes) == [d.step for d in lost]
    keys = [(-(d.loss or 0.0), d.step) for d in mistakes]
    assert keys == sorted(keys)
    assert review.total_loss == pytest.approx(sum(d.loss or 0.0 for d in review.decisions))
    assert review.to_json()["mistakes"] == [d.step for d in mistakes]


def test_the_same_seed_gives_the_same_review_and_another_seed_another() -> None:
    entry = logged(4)
    first = review_entry(entry, "ismcts:limit=30", seed=1).to_json()
    assert review_entry(entry, "ismcts:limit=30", seed=1).to_json() == first
    assert review_entry(entry, "ismcts:limit=30", seed=2).to_json() != first
    assert first["analyst"] == "ismcts:limit=30" and first["seed"] == 1


def test_the_seats_reviewed_by_default_are_the_persons_else_all() -> None:
    person = logged(6)
    assert person_seats(person) == (0,) and reviewed_seats(person, None) == (0,)
    agents = logged(6, ("random", "greedy"))
    assert person_seats(agents) == () and reviewed_seats(agents, None) == (0, 1)
    spies = SpyFactory([0, 1])
    review = review_entry(agents, "spy", make=spies)
    assert [s.seat for s in spies.built] == [0, 1]
    assert [d.step for d in review.decisions] == list(range(1, len(agents.actions) + 1))
    assert reviewed_seats(agents, [1, 1]) == (1,)
    with pytest.raises(ValueError, match=r"^seat 2 is not a seat of this game \(seats 0 to 1\)$"):
        review_entry(agents, "spy", seats=[2], make=SpyFactory([0]))


def test_a_tampered_entry_is_refused_as_replay_refuses_it() -> None:
    entry = logged(3)
    actions = list(entry.actions)
    actions[0], actions[1] = actions[1], actions[0]
    tampered = attrs.evolve(entry, actions=tuple(actions), line=4)
    with pytest.raises(LogError) as replayed:
        replay_entry(tampered, "web.jsonl")
    spies = SpyFactory([0])
    with pytest.raises(LogError) as reviewed:
        review_entry(tampered, "spy", path="web.jsonl", make=spies)
    assert str(reviewed.value) == str(replayed.value)
    assert str(reviewed.value).startswith("web.jsonl line 4: action 1 ")
    assert spies.calls == 0
    with pytest.raises(LogError) as unnamed:
        review_entry(tampered, "spy", make=spies)
    assert str(unnamed.value).startswith("log line 4: action 1 ")  # the file's default name


def test_an_agent_that_cannot_analyse_is_one_line() -> None:
    with pytest.raises(SpecError, match=r"^agent 'greedy' cannot analyse a decision"):
        review_entry(logged(3), "greedy")
    with pytest.raises(SpecError, match="unknown agent 'nope'"):
        review_entry(logged(3), "nope")
    # refused before any decision, so even where there is none (a game stopped at once)
    stopped = play_entry(RULES, ("human", "greedy"), 3, False, 0, (), None)
    with pytest.raises(SpecError, match=r"^agent 'greedy' cannot analyse a decision"):
        review_entry(stopped, "greedy")


@attrs.frozen
class OnlyItsChoice:
    """A stand-in analyst that values only its own choice (the first legal action), as a
    solve values only its move: a played action of another kind has an unknown loss."""

    name: str = "only"

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        legal = observation.legal_actions
        values = [ActionAssessment(a, 0.5 if i == 0 else None) for i, a in enumerate(legal)]
        return Analysis(observation.player, "only", legal[0], tuple(values), "solve")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return observation.legal_actions[0]


def test_an_unknown_loss_is_no_mistake_and_adds_nothing() -> None:
    review = review_entry(logged(5), "only", make=lambda spec, rules: OnlyItsChoice())
    assert any(d.loss is None for d in review.decisions)
    assert review.mistakes() == ()
    assert review.total_loss == 0.0


def test_the_json_review_holds_every_figure_under_its_name() -> None:
    entry = logged(5)
    review = review_entry(entry, "spy", seed=2, make=SpyFactory([0]))
    decisions: list[dict[str, Any]] = []
    for d in review.decisions:
        a = d.analysis
        forced = len(d.observation.legal_actions) == 1
        assert (a is None) == forced
        chosen = d.played if a is None else a.chosen
        decisions.append(
            {
                "step": d.step, "seat": 0, "played": str(d.played), "chosen": str(chosen),
                "forced": forced,
                "played_value": None if a is None else a.of(d.played).value,
                "chosen_value": None if a is None else a.of(chosen).value,
                "loss": 0.0 if a is None else a.loss(d.played),
                "kind": None if a is None else "search",
                "actions": [] if a is None else [
                    {"action": str(x.action), "value": x.value, "share": x.share,
                     "visits": x.visits}
                    for x in a.ranked()
                ],
            }
        )  # fmt: skip
    assert {x["kind"] for x in decisions} == {None, "search"}
    assert any(x["chosen"] != x["played"] for x in decisions)
    losses = [x["loss"] or 0.0 for x in decisions]
    assert review.to_json() == {
        "game": entry.game, "line": entry.line, "kind": "play", "names": ["human", "greedy"],
        "seats": [0], "analyst": INNER, "seed": 2, "decisions": decisions,
        "mistakes": [d.step for d in review.mistakes()], "total_loss": sum(losses),
    }  # fmt: skip


def test_an_open_world_game_is_reviewed_and_watched_in_the_open() -> None:
    agents = [make_agent("random"), make_agent("greedy")]
    record = play_game(RULES, agents, derive_seed(3, 0), True)
    entry = play_entry(RULES, ("human", "greedy"), 3, True, 0, record.actions, record)
    spies = SpyFactory([0])
    review = review_entry(entry, "spy", make=spies)
    game = replay_entry(entry)
    assert observe(game.states[0], 0, True) != observe(game.states[0], 0)
    for d in review.decisions:
        assert d.observation == observe(game.states[d.step - 1], 0, True)
    (spy,) = spies.built
    seen = [observe(s, 0, True) for s in game.states] + [observe(game.final, 0, True)]
    assert spy.watched == seen


class PlainAnalyst:
    """An analyst that does not watch the game: it has no watcher's hooks."""

    def __init__(self) -> None:
        self.inner = IsmctsAgent(limit=10)

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        return self.inner.analyse(observation, rng)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return self.analyse(observation, rng).chosen


def test_an_analyst_that_does_not_watch_is_only_asked_to_analyse() -> None:
    entry = logged(3)
    review = review_entry(entry, "plain", make=lambda spec, rules: PlainAnalyst())
    analysed = [d for d in review.decisions if not d.forced]
    assert analysed and all(d.analysis is not None for d in analysed)
    assert [d.step for d in review.decisions] == [
        k + 1 for k, m in enumerate(replay_entry(entry).movers) if m == 0
    ]


def test_a_drawn_game_is_reviewed_and_the_watcher_told_it_has_no_loser() -> None:
    entry = logged(41)  # a game of random against greedy that ends without a durak
    assert entry.durak is None
    spies = SpyFactory([0])
    review = review_entry(entry, "spy", make=spies)
    assert review.decisions and spies.built[0].losers == [None]


def test_the_analyst_is_the_strongest_by_default_and_named_without_a_decision() -> None:
    spies = SpyFactory([0])
    assert review_entry(logged(3), make=spies).analyst == INNER
    assert spies.specs == ["strongest"]
    # A game stopped before its first move: no decision, the analyst named as given.
    empty = play_entry(RULES, ("human", "greedy"), 3, False, 0, (), None)
    review = review_entry(empty, "spy", make=SpyFactory([0]))
    assert review.decisions == () and review.analyst == "spy"
