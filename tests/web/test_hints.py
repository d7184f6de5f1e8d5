"""The hint route (issue 52, item 2): every legal action with the strongest agent's value
and share, its suggestion, and the refusals: hints off (403), a finished game or not the
person's turn (409), a hint that runs past the move limit (503)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.support.faulty_agents  # noqa: F401 - registers test-hang
from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

import durak.web.registry as registry_module  # noqa: E402
from durak.agents.interface.analysis import Analysis  # noqa: E402
from durak.agents.strongest import StrongestAgent  # noqa: E402
from durak.rules import Observation, Rules  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.schema import HintView  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits  # noqa: E402


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    tables = Tables(tmp_path / "web.jsonl", Limits(move_timeout=600))
    yield tables
    tables.close()


def start(client: TestClient, **request: Any) -> dict[str, Any]:
    body = {"opponents": ["random"], "seed": 3, **request}
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def advance(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """The next view: the person's first action played, or a long poll."""
    game = view["game"]
    if view["actions"]:
        body = {"action": view["actions"][0]["text"], "version": view["version"]}
        response = client.post(f"/api/games/{game}/actions", json=body)
    else:
        response = client.get(f"/api/games/{game}", params={"after": view["version"]})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_hint_lists_every_legal_action_and_suggests_one(tables: Tables) -> None:
    with TestClient(create_app(tables)) as client:
        view = start(client)
        hinted = 0
        while not view["over"] and hinted < 6:
            if len(view["actions"]) > 1:
                response = client.post(f"/api/games/{view['game']}/hint")
                assert response.status_code == 200, response.text
                hint = response.json()
                assert HintView.model_validate(hint).game == view["game"]
                assert hint["version"] == view["version"]
                assert hint["agent"].startswith("ismcts:")
                listed = [(a["key"], a["text"]) for a in hint["actions"]]
                assert listed == [(a["key"], a["text"]) for a in view["actions"]]
                suggested = [a["text"] for a in hint["actions"] if a["suggested"]]
                assert suggested == [hint["suggested"]]
                shares = [a["share"] for a in hint["actions"]]
                assert sum(shares) == pytest.approx(1.0)
                # Asked again of the same view, the same hint.
                assert client.post(f"/api/games/{view['game']}/hint").json() == hint
                hinted += 1
            view = advance(client, view)
        assert hinted > 0


def test_a_table_made_with_hints_off_answers_403(tables: Tables) -> None:
    with TestClient(create_app(tables)) as client:
        view = start(client, hints=False)
        while not view["actions"]:
            view = advance(client, view)
        response = client.post(f"/api/games/{view['game']}/hint")
        assert response.status_code == 403
        assert response.json() == {"detail": "hints are off at this table"}
        bad = client.post("/api/games", json={"opponents": ["random"], "hints": "no"})
        assert bad.status_code == 422 and bad.json()["detail"].startswith("hints:")


def test_a_finished_game_answers_409(tables: Tables) -> None:
    with TestClient(create_app(tables)) as client:
        view = start(client, lowest_rank=12)
        while not view["over"]:
            view = advance(client, view)
        response = client.post(f"/api/games/{view['game']}/hint")
        assert response.status_code == 409
        assert response.json() == {"detail": "the game is over"}


def test_a_hint_while_an_agent_thinks_answers_409(tables: Tables) -> None:
    """The opponent spins until the table closes: its turn lasts the whole test."""
    with TestClient(create_app(tables)) as client:
        view = start(client, opponents=["test-hang:seconds=600"])
        for _ in range(3):
            if view["thinking"]:
                break
            view = advance(client, view)
        assert view["thinking"] and not view["over"]
        response = client.post(f"/api/games/{view['game']}/hint")
        assert response.status_code == 409
        assert response.json() == {"detail": "it is not your turn"}


def test_an_unknown_game_answers_404(tables: Tables) -> None:
    with TestClient(create_app(tables)) as client:
        response = client.post("/api/games/nope/hint")
        assert response.status_code == 404 and response.json()["detail"].startswith("no game")


class Spinning:
    """An analyst that never answers: a Python loop the referee interrupts."""

    name = "spinning"

    def act(self, observation: Observation, rng: random.Random) -> Any:
        raise AssertionError("only asked to analyse")

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        while True:
            time.sleep(0)


def spinning() -> Spinning:
    return Spinning()


def test_a_hint_past_the_move_limit_answers_503_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry_module, "analyst", spinning)
    tables = Tables(tmp_path / "web.jsonl", Limits(move_timeout=0.2))
    try:
        with TestClient(create_app(tables)) as client:
            view = start(client)
            while not view["actions"]:
                view = advance(client, view)
            response = client.post(f"/api/games/{view['game']}/hint")
            assert response.status_code == 503
            assert response.json() == {
                "detail": "no hint: strongest: no answer within the 0.2 s move limit"
            }
            # The table plays on: the person's action is still taken.
            assert advance(client, view)["version"] > view["version"]
    finally:
        tables.close()


def test_warm_resolves_the_hint_analyst_before_any_table(tmp_path: Path) -> None:
    """``durak serve`` warms the default table's analyst at start, so the first hint does
    not load the network while other requests wait (issue 52's load figure)."""
    tables = Tables(tmp_path / "web.jsonl")
    tables.warm(Rules())
    agent = tables._analyst()
    assert isinstance(agent, StrongestAgent)
    assert Rules() in agent.built
