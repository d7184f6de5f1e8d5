"""The review of a web game (``/api/games/{id}/review``, :mod:`durak.web.reviews`): only
for a finished game, computed in the background and cached, of the person's seat only,
and showing no card the person never saw."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import attrs
import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402
from durak.arena.gamelog.review import AgentFactory, decision_json, review_entry  # noqa: E402
from durak.rules import (  # noqa: E402
    Observation,
    observe,
    sample_world,
)
from durak.web.registry import Tables  # noqa: E402
from durak.web.reviews import (  # noqa: E402
    LOGGING_WAIT,
    Reviews,
    _finished_entry,
    position,
    review_view,
)
from durak.web.schema import ReviewState  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits, RequestError  # noqa: E402
from tests.arena.test_review import logged  # noqa: E402
from tests.support.review_spy import INNER, SpyFactory  # noqa: E402
from tests.web.test_server import PATIENCE, Clock, play_out, start  # noqa: E402

#: A small deck, so that a game and its review take a moment.
SMALL = {"lowest_rank": 10, "hand_size": 4}


@attrs.frozen
class Served:
    client: TestClient
    tables: Tables
    clock: Clock
    spies: SpyFactory
    log: Path
    reviews: Reviews


def serve(
    tmp_path: Path,
    spies: SpyFactory,
    limits: Limits,
    *,
    seed: int = 0,
    make: AgentFactory | None = None,
) -> Iterator[Served]:
    clock = Clock()
    log = tmp_path / "web.jsonl"
    tables = Tables(log, limits, clock=clock)
    reviews = Reviews(limits, "spy", seed, make=spies if make is None else make)
    with TestClient(create_app(tables, reviews)) as client:
        yield Served(client, tables, clock, spies, log, reviews)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve(tmp_path, SpyFactory([0]), Limits(idle_seconds=600))


def finished(s: Served, **request: Any) -> list[dict[str, Any]]:
    """A game played out by the person (their first action each time); its views."""
    views = play_out(s.client, start(s.client, **SMALL, **request))
    s.tables.get(views[-1]["game"]).join(PATIENCE)
    return views


def reviewed(s: Served, game: str, seat: int = 0) -> dict[str, Any]:
    """Start the review of ``game``, whose person sits in ``seat`` (the spy checks it is
    shown that seat only), and poll it until it is done."""
    s.spies.seats[:] = [seat]
    response = s.client.post(f"/api/games/{game}/review")
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    deadline = time.monotonic() + PATIENCE
    while state["state"] == "running" and time.monotonic() < deadline:
        assert 0 <= state["done"] <= state["total"]
        response = s.client.get(f"/api/games/{game}/review")
        assert response.status_code == 200, response.text
        state = response.json()
    assert state["state"] == "done", state
    ReviewState.model_validate(state)
    return state


def test_a_finished_game_is_reviewed_for_the_persons_seat_and_cached(served: Served) -> None:
    s = served
    game = finished(s, seat=1)[-1]["game"]
    state = reviewed(s, game, 1)
    entry = read_log(s.log).entries[-1]
    replay = replay_entry(entry)
    mine = [k for k, m in enumerate(replay.movers) if m == 1]
    review = state["review"]
    assert review["seat"] == 1 and review["names"] == ["random", "human"]
    assert state["done"] == state["total"] == len(mine)
    assert [d["step"] for d in review["decisions"]] == [k + 1 for k in mine]
    assert [d["played"] for d in review["decisions"]] == [entry.actions[k] for k in mine]
    assert [m["action"] for m in review["moves"]] == list(entry.actions)
    # One spy, of the person's seat, and it was given observations of that seat only.
    (spy,) = s.spies.built
    assert spy.seat == 1 and spy.analysed
    calls = s.spies.calls
    for again in (
        s.client.post(f"/api/games/{game}/review"),
        s.client.get(f"/api/games/{game}/review"),
    ):
        assert again.status_code == 200 and again.json() == state
    # Still served once the table is closed and forgotten, and never computed again.
    s.clock.now += 601
    s.tables.sweep()
    assert s.client.get(f"/api/games/{game}").status_code == 404
    assert s.client.post(f"/api/games/{game}/review").json() == state
    assert s.spies.calls == calls and len(s.spies.built) == 1


def test_a_review_is_only_of_a_finished_game(served: Served) -> None:
    s = served
    view = start(s.client, **SMALL)
    unfinished = s.client.post(f"/api/games/{view['game']}/review")
    assert unfinished.status_code == 409
    assert unfinished.json() == {"detail": "the game is not over: a review is of a finished game"}
    for response in (
        s.client.post("/api/games/nope/review"),
        s.client.get("/api/games/nope/review"),
    ):
        assert response.status_code == 404 and response.json()["detail"].startswith("no ")
    not_started = s.client.get(f"/api/games/{view['game']}/review")
    assert not_started.status_code == 404
    assert not_started.json() == {"detail": f"no review of game {view['game']!r} (POST starts one)"}
    assert s.spies.built == []


def test_a_tampered_entry_is_refused_with_one_line(served: Served) -> None:
    s = served
    game = finished(s)[-1]["game"]
    table = s.tables.get(game)
    assert table.entry is not None
    actions = list(table.entry.actions)
    actions[0], actions[1] = actions[1], actions[0]
    table.entry = attrs.evolve(table.entry, actions=tuple(actions))
    response = s.client.post(f"/api/games/{game}/review")
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert detail.startswith("the game cannot be reviewed: the server's log: action 1 ")
    assert "\n" not in detail and s.spies.built == []


def test_the_review_shows_no_card_the_person_never_saw(served: Served) -> None:
    s = served
    rng = random.Random(0)
    for seed, seat in ((11, 0), (12, 1)):
        views = play_out(s.client, start(s.client, seed=seed, seat=seat, **SMALL), rng.choice)
        game = views[-1]["game"]
        s.tables.get(game).join(PATIENCE)
        review = reviewed(s, game, seat)["review"]
        replay = replay_entry(read_log(s.log).entries[-1])
        # The cards still hidden from the person at the end appear nowhere in the review.
        never = {str(c) for c in observe(replay.final, seat).hidden_cards()}
        text = json.dumps(review, ensure_ascii=False)
        assert never and not any(card in text for card in never), never
        names = review["names"]
        for d in review["decisions"]:
            mine = observe(replay.states[d["step"] - 1], seat)
            hidden = {str(c) for c in mine.hidden_cards()}
            shown = json.dumps(d, ensure_ascii=False)
            assert not any(card in shown for card in hidden), d["step"]
            # The position is a function of the observation: the same on twin worlds.
            for k in range(2):
                twin = observe(sample_world(mine, random.Random(k)), seat)
                assert position(twin, names) == d["position"]


def test_at_most_max_reviews_run_at_once(tmp_path: Path) -> None:
    gate = threading.Event()
    limits = Limits(idle_seconds=600, max_reviews=1)
    for s in serve(tmp_path, SpyFactory([0], gate), limits):
        client = s.client
        first, second = (finished(s, seed=seed)[-1]["game"] for seed in (1, 2))
        running = client.post(f"/api/games/{first}/review")
        assert running.status_code == 200 and running.json()["state"] == "running"
        full = client.post(f"/api/games/{second}/review")
        assert full.status_code == 503
        assert full.json() == {"detail": "the server reviews 1 games, its limit; try later"}
        gate.set()
        assert reviewed(s, first)["review"]["seat"] == 0
        assert reviewed(s, second)["review"]["seat"] == 0


def test_the_page_is_served_and_links_its_scripts(served: Served) -> None:
    page = served.client.get("/review/anything")
    assert page.status_code == 200 and "/static/review.js" in page.text
    assert served.client.get("/static/review.js").status_code == 200


def test_a_forced_decision_is_listed_unanalysed(served: Served) -> None:
    s = served
    review = reviewed(s, finished(s, seed=5)[-1]["game"])["review"]
    forced = [d for d in review["decisions"] if d["forced"]]
    assert forced, "no forced decision in the game"
    for d in forced:
        assert d["actions"] == [] and d["loss"] == 0 and d["played"] == d["chosen"]
    analysed = [d for d in review["decisions"] if not d["forced"]]
    assert len(s.spies.built[0].analysed) == len(analysed)
    assert all(d["actions"] for d in analysed)


@pytest.mark.parametrize(
    ("seed", "result"),
    [(3, {"durak": 0, "draw": False}), (41, {"durak": None, "draw": True})],
    ids=["lost", "drawn"],
)
def test_a_web_review_holds_every_field_under_its_name(seed: int, result: Any) -> None:
    entry = logged(seed)  # the person (random) in seat 0 against greedy
    review = review_entry(entry, "spy", make=SpyFactory([0]))
    names = ["you", "greedy"]
    game = replay_entry(entry)
    assert review_view(review, names) == {
        "seat": 0,
        "names": names,
        "analyst": INNER,
        "moves": [
            {"seat": p, "name": names[p], "action": str(a)}
            for p, a in zip(game.movers, game.actions, strict=True)
        ],
        "decisions": [
            {**decision_json(d), "position": position(d.observation, names)}
            for d in review.decisions
        ],
        "mistakes": [d.step for d in review.mistakes()],
        "total_loss": review.total_loss,
        "result": result,
    }


def test_a_review_is_drawn_from_the_servers_seed_by_its_analyst(tmp_path: Path) -> None:
    spies = SpyFactory([0])
    for s in serve(tmp_path, spies, Limits(idle_seconds=600), seed=5):
        review = reviewed(s, finished(s, seed=4)[-1]["game"])["review"]
        entry = read_log(s.log).entries[-1]
        assert spies.specs == ["spy"]
        again = [
            review_view(
                review_entry(entry, "spy", seats=[0], seed=seed, make=SpyFactory([0])),
                review["names"],
            )
            for seed in (5, 0)
        ]
        assert review == again[0] != again[1]


def test_the_answer_is_compact_utf8_json(served: Served) -> None:
    game = finished(served)[-1]["game"]
    reviewed(served, game)
    raw = served.client.get(f"/api/games/{game}/review").content
    assert raw == json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":")).encode()
    assert not raw.isascii()  # the cards' suits as they are, never escaped


def test_the_oldest_finished_reviews_are_forgotten_beyond_max_tables(tmp_path: Path) -> None:
    for s in serve(tmp_path, SpyFactory([0]), Limits(idle_seconds=600, max_tables=2)):
        first, second = (finished(s, seed=seed)[-1]["game"] for seed in (1, 2))
        reviewed(s, first)
        reviewed(s, second)
        assert s.client.get(f"/api/games/{first}/review").status_code == 200
        s.clock.now += 601
        s.tables.sweep()  # the tables close; their reviews stay
        third = finished(s, seed=3)[-1]["game"]
        reviewed(s, third)
        codes = [s.client.get(f"/api/games/{g}/review").status_code for g in (first, second, third)]
        assert codes == [404, 200, 200]


def test_a_running_review_is_never_forgotten(tmp_path: Path) -> None:
    gate = threading.Event()
    limits = Limits(idle_seconds=600, max_tables=1, max_reviews=2)
    for s in serve(tmp_path, SpyFactory([0], gate), limits):
        first = finished(s, seed=1)[-1]["game"]
        assert s.client.post(f"/api/games/{first}/review").json()["state"] == "running"
        s.clock.now += 601
        s.tables.sweep()
        second = finished(s, seed=2)[-1]["game"]
        assert s.client.post(f"/api/games/{second}/review").json()["state"] == "running"
        # Two reviews held, over max_tables: both running, neither dropped.
        assert s.client.get(f"/api/games/{first}/review").status_code == 200
        gate.set()
        assert reviewed(s, first)["state"] == reviewed(s, second)["state"] == "done"


class Failing:
    """An analyst that fails at its first decision with ``message``."""

    name = "failing"

    def __init__(self, message: str) -> None:
        self.message = message

    def act(self, observation: Observation, rng: random.Random) -> Any:
        raise AssertionError("only asked to analyse")

    def analyse(self, observation: Observation, rng: random.Random) -> Any:
        raise RuntimeError(self.message)


def test_an_analyst_that_fails_fails_the_review_in_one_line(tmp_path: Path) -> None:
    messages = iter(["the  analyst\n  broke", ""])
    limits = Limits(idle_seconds=600)
    make = lambda spec, rules: Failing(next(messages))  # noqa: E731
    for s in serve(tmp_path, SpyFactory([0]), limits, make=make):
        for seed, detail in ((1, "the analyst broke"), (2, "RuntimeError")):
            game = finished(s, seed=seed)[-1]["game"]
            state = s.client.post(f"/api/games/{game}/review").json()
            deadline = time.monotonic() + PATIENCE
            while state["state"] == "running" and time.monotonic() < deadline:
                state = s.client.get(f"/api/games/{game}/review").json()
            assert state["state"] == "failed" and state["detail"] == detail
            assert state["review"] is None


def test_no_review_starts_once_the_server_is_closing(served: Served) -> None:
    game = finished(served)[-1]["game"]
    served.reviews.close()
    response = served.client.post(f"/api/games/{game}/review")
    assert response.status_code == 503
    assert response.json() == {"detail": "the server is closing"}
    assert served.spies.built == []


@attrs.define
class LateLog:
    """A stand-in table whose game's log line is written while it is joined (``logs``), or
    never; it records each wait."""

    finished: bool
    logs: bool = True
    entry: Any = None
    waits: list[float | None] = attrs.field(factory=list)

    def join(self, timeout: float | None = None) -> None:
        self.waits.append(timeout)
        if self.logs:
            self.entry = "the entry"


#: ``_finished_entry`` asked of a stand-in table.
entry_of = cast(Callable[[LateLog], object], _finished_entry)


def test_a_just_finished_game_waits_a_bounded_time_for_its_log_line() -> None:
    table = LateLog(finished=True)
    assert entry_of(table) == "the entry"
    assert table.waits == [LOGGING_WAIT]
    assert entry_of(table) == "the entry" and table.waits == [LOGGING_WAIT]  # logged


@pytest.mark.parametrize(
    ("finished", "waits"), [(False, []), (True, [LOGGING_WAIT])], ids=["not-over", "never-logged"]
)
def test_a_game_without_its_log_line_is_refused_without_waiting_longer(
    finished: bool, waits: list[float]
) -> None:
    table = LateLog(finished, logs=False)  # made here: a run that repeats the test starts anew
    with pytest.raises(RequestError) as refused:
        entry_of(table)
    assert refused.value.status == 409
    assert refused.value.message == "the game is not over: a review is of a finished game"
    assert table.waits == waits


def test_a_game_logged_unfinished_is_not_reviewed() -> None:
    # A game its person left is logged as far as it went (Table.log_unfinished).
    table = LateLog(finished=False, entry="the entry of a game left")
    with pytest.raises(RequestError) as refused:
        entry_of(table)
    assert refused.value.status == 409 and table.waits == []
