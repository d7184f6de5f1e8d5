"""A ladder's records (:mod:`durak.arena.experiments.ladder`): each game's code from the
first agent's side, a pair's wins, draws and forfeits counted from the codes, its scores,
and the pairs' deal seeds, which a ladder file's games were played from."""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Generator, Iterable, Sequence
from types import SimpleNamespace
from typing import cast

import attrs
import pytest

import durak.arena.experiments.ladder as ladder_module
from durak.agents import SpecError
from durak.arena.experiments.ladder import (
    CODES,
    SAVE_EVERY,
    Ladder,
    LadderSetup,
    PairRecord,
    _code,
    check_specs,
    pair_seed,
)
from durak.arena.play.match import GameOutcome, MatchPlan, PlayedGame
from durak.arena.play.referee import Forfeit
from durak.arena.runs.interface import Backend, Batch, Task
from durak.rules import Rules
from durak.seeding import derive_seed


def outcome(durak: int | None, forfeit: int | None = None, game: int = 0) -> GameOutcome:
    """Game ``game`` of a two-agent plan; agent ``forfeit`` (a seat, agents seated in
    order) forfeited, if given."""
    fault = None if forfeit is None else Forfeit(forfeit, "timeout", "too slow")
    return GameOutcome(game, durak, (0, 1), 3, 20, (10, 10), (0.1, 0.1), (0.01, 0.01), fault)


@pytest.mark.parametrize(
    ("durak", "forfeit", "code"),
    [(None, None, "D"), (1, None, "W"), (0, None, "L"), (1, 1, "w"), (0, 0, "l")],
)
def test_a_game_s_code_is_from_the_first_agent_s_side(
    durak: int | None, forfeit: int | None, code: str
) -> None:
    assert _code(outcome(durak, forfeit)) == code
    assert code in CODES


def test_wins_draws_and_forfeits_are_counted_from_the_codes() -> None:
    # 3 wins, 1 win by forfeit, 2 losses, 4 losses by forfeit, 2 draws: 12 games
    record = PairRecord("a", "b", "WwLlDlWLlDWl")
    assert record.games == 12 and record.agents == ("a", "b")
    assert record.wins() == (4, 6)
    assert record.draws == 2
    assert record.forfeits() == (4, 1)
    value = {"W": 1.0, "w": 1.0, "D": 0.5, "L": 0.0, "l": 0.0}
    matchup = record.matchup()
    assert (matchup.first, matchup.second) == ("a", "b")
    assert list(matchup.scores) == [value[c] for c in record.results]


def test_a_pair_s_seed_is_its_sorted_specs_hashed_into_the_master_seed() -> None:
    # A ladder file's games were dealt from these seeds: a resumed ladder plays the
    # same deals only while they stay as they were.
    digest = hashlib.sha256(b"greedy\nrandom").digest()
    want = derive_seed(7, int.from_bytes(digest[:8], "big"))
    assert pair_seed(7, "random", "greedy") == pair_seed(7, "greedy", "random") == want
    assert pair_seed(8, "greedy", "random") != want
    assert pair_seed(7, "greedy", "mcts") != want


@pytest.mark.parametrize(
    ("first", "second", "results", "message"),
    [
        ("a", "a", "", "a pair's agents must be two specs in order, not ('a', 'a')"),
        ("b", "a", "WL", "a pair's agents must be two specs in order, not ('b', 'a')"),
        ("a", "b", "WX", "a vs b: results hold codes other than WLDwl"),
        ("a", "b", "WLD", "a vs b: games are not whole deals"),
    ],
)
def test_a_record_out_of_order_or_not_of_whole_deals_is_refused(
    first: str, second: str, results: str, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        PairRecord(first, second, results)
    assert str(caught.value) == message


def test_a_pair_s_plan_is_its_first_games_under_the_ladder_s_setup() -> None:
    rules = Rules(lowest_rank=10, hand_size=4)
    plan = LadderSetup(rules, 3, 2.5).plan("greedy", "random", 6)
    assert plan.rules == rules and plan.specs == ("greedy", "random") and plan.games == 6
    assert plan.seed == pair_seed(3, "greedy", "random") and plan.move_timeout == 2.5
    assert plan.open_world is False  # a ladder plays closed games
    assert LadderSetup(rules, 3).plan("greedy", "random", 6).move_timeout is None


def test_a_ladder_is_two_player() -> None:
    with pytest.raises(ValueError) as caught:
        LadderSetup(Rules(players=3), 0)
    assert str(caught.value) == "a ladder is two-player, not 3-player"


def test_a_pair_that_has_its_games_is_not_scheduled() -> None:
    ladder = Ladder(LadderSetup(Rules(), 0))
    ladder.records[("greedy", "random")] = PairRecord("greedy", "random", "WLWL")
    done = ladder.schedule(["random", "greedy"], 4)
    assert done.plans == [] and done.total == 0
    more = ladder.schedule(["random", "greedy"], 6)
    assert [p.games for p in more.plans] == [6] and more.starts == [4] and more.total == 2


class OneByOne:
    """A backend that plays each task as its own batch: the first agent wins."""

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        for p, g in tasks:
            yield [(p, PlayedGame(outcome(1, game=g), ()))]


def test_the_ladder_is_saved_when_a_pair_completes_and_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The clock reads 100 at the start, then SAVE_EVERY later for ever: exactly the
    # interval, not past it, so no save is due to the clock.
    readings = iter([100.0])
    clock = SimpleNamespace(monotonic=lambda: next(readings, 100.0 + SAVE_EVERY))
    monkeypatch.setattr(ladder_module, "time", clock)
    ladder = Ladder(LadderSetup(Rules(), 0))
    saved: list[int] = []
    schedule = ladder.schedule(["random", "greedy"], 4)
    played = list(schedule.play(cast(Backend, OneByOne()), lambda lad: saved.append(
        sum(r.games for r in lad.records.values())
    )))  # fmt: skip
    assert played == [1, 1, 1, 1]
    assert saved == [4, 4]  # when the pair completed, and when play ended
    assert ladder.records[("greedy", "random")].results == "WWWW"


def saves_of(
    monkeypatch: pytest.MonkeyPatch, backend: object, specs: list[str], due: bool
) -> tuple[list[int], list[list[tuple[tuple[str, str], str]]]]:
    """The games each batch of ``backend`` yielded, and the ladder's records at each save,
    a save being due by the clock after every batch (``due``) or never."""
    ticks = iter(range(0, 10**6, int(SAVE_EVERY) + 1))
    clock = SimpleNamespace(monotonic=(lambda: next(ticks)) if due else (lambda: 0.0))
    monkeypatch.setattr(ladder_module, "time", clock)
    ladder = Ladder(LadderSetup(Rules(), 0))
    saved: list[list[tuple[tuple[str, str], str]]] = []
    schedule = ladder.schedule(specs, 4)
    played = list(schedule.play(cast(Backend, backend), lambda lad: saved.append(
        sorted((k, r.results) for k, r in lad.records.items())
    )))  # fmt: skip
    return played, saved


def test_a_save_due_by_the_clock_holds_only_whole_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    played, saved = saves_of(monkeypatch, OneByOne(), ["random", "greedy"], due=True)
    pair = ("greedy", "random")
    assert played == [1, 1, 1, 1]
    # after each game; a deal's first game alone is no record, not even an empty one
    assert saved == [[], [(pair, "WW")], [(pair, "WW")], [(pair, "WWWW")], [(pair, "WWWW")]]


@attrs.define
class InThrees:
    """A backend that plays the tasks three to a batch, so a batch may complete one pair
    and not the next: the first agent wins."""

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        batch: Batch = []
        for p, g in tasks:
            batch.append((p, PlayedGame(outcome(1, game=g), ())))
            if len(batch) == 3:
                yield batch
                batch = []
        if batch:
            yield batch


def test_any_pair_completed_by_a_batch_saves_the_ladder(monkeypatch: pytest.MonkeyPatch) -> None:
    played, saved = saves_of(monkeypatch, InThrees(), ["a", "b", "c"], due=False)
    assert played == [3, 3, 3, 3]
    assert [sum(len(results) for _, results in records) for records in saved] == [6, 8, 12, 12]


@attrs.define
class Again:
    """A backend that delivers every game three times (a task run again after a worker
    was lost): twice in its batch and once in the next; the first agent wins."""

    def play(
        self, plans: Sequence[MatchPlan], tasks: Iterable[Task], count: int
    ) -> Generator[Batch, None, None]:
        for p, g in tasks:
            game = (p, PlayedGame(outcome(1, game=g), ()))
            yield [game, game]
            yield [game]


def test_a_game_delivered_again_counts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    played, saved = saves_of(monkeypatch, Again(), ["random", "greedy"], due=False)
    assert played == [1, 0, 1, 0, 1, 0, 1, 0]
    assert saved[-1] == [(("greedy", "random"), "WWWW")]


def test_a_ladder_started_in_a_starting_worker_ends_before_any_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker still importing the parent's main script must not run the script's ladder.
    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    schedule = Ladder(LadderSetup(Rules(), 0)).schedule(["random", "greedy"], 2)
    with pytest.raises(SystemExit):
        next(schedule.play(cast(Backend, OneByOne()), lambda lad: None))


@pytest.mark.parametrize("games", [0, -2, 3])
def test_a_number_of_games_that_is_not_a_positive_even_number_is_refused(games: int) -> None:
    with pytest.raises(ValueError) as caught:
        Ladder(LadderSetup(Rules(), 0)).schedule(["random", "greedy"], games)
    assert str(caught.value) == (
        "--games must be a positive even number (deals are played twice, seats swapped), "
        f"got {games}"
    )


def test_a_pair_held_without_games_is_no_matchup() -> None:
    ladder = Ladder(LadderSetup(Rules(), 0))
    ladder.records[("greedy", "random")] = PairRecord("greedy", "random", "")
    ladder.records[("greedy", "lowest")] = PairRecord("greedy", "lowest", "WL")
    assert [(m.first, m.second) for m in ladder.matchups(["greedy", "lowest", "random"])] == [
        ("greedy", "lowest")
    ]


def test_fewer_than_two_agents_are_refused_with_their_count() -> None:
    with pytest.raises(ValueError) as caught:
        check_specs(["greedy"], Rules())
    assert str(caught.value) == "a ladder needs at least two agents, got 1"


def test_the_specs_are_built_and_resolved_for_the_ladder_s_rules() -> None:
    # 24 cards: no shipped network fits, so a search guided by dmc cannot play (a refusal
    # when it is built, not when it is resolved) and strongest plays unguided.
    small = Rules(lowest_rank=9)
    with pytest.raises(SpecError, match=r"ismcts: dmc: no shipped model .* 24 cards"):
        check_specs(["ismcts:prior=dmc", "greedy"], small)
    (resolved,) = check_specs(["strongest", "greedy"], small)
    assert resolved.startswith("strongest plays ismcts") and "dmc" not in resolved
    (full,) = check_specs(["strongest", "greedy"], Rules())
    assert "prior=dmc" in full


OLD = "mcts:samples=1,limit=10"  # an old spelling of mcts:limit=10,samples=1


def test_an_old_spelling_is_kept_after_an_agent_no_longer_known() -> None:
    ladder = Ladder(LadderSetup(Rules(), 0))
    ladder.records[("gone-agent", OLD)] = PairRecord("gone-agent", OLD, "WL")
    assert ladder.names(["mcts:limit=10,samples=1"]) == [OLD]


def test_an_agent_held_under_two_spellings_must_be_named_by_one() -> None:
    ladder = Ladder(LadderSetup(Rules(), 0))
    new = "mcts:limit=10,samples=1"
    ladder.records[(OLD, "random")] = PairRecord(OLD, "random", "WL")
    ladder.records[(new, "random")] = PairRecord(new, "random", "WL")
    assert ladder.names([OLD, "random"]) == [OLD, "random"]
    with pytest.raises(ValueError) as caught:
        ladder.names(["mcts:limit=10, samples=1"])
    assert str(caught.value) == (
        "agent spec 'mcts:limit=10, samples=1': the ladder holds this agent under "
        f"2 spellings ({new}, {OLD}); give one of them"
    )
