"""The rules a table can be created with (issue 52, item 4): every option of ``durak match``
a table can use, each refused with one short 4xx line when bad, and each giving a game that
is played to its end when good."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits  # noqa: E402

#: A test waits this long for an agent's move before failing (never reached when all is well).
PATIENCE = 60.0


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, Tables, Path]]:
    log = tmp_path / "web.jsonl"
    tables = Tables(log, Limits())
    with TestClient(create_app(tables)) as c:
        yield c, tables, log


def play_out(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Play the person's first legal action each turn to the end; the last view."""
    while not view["over"]:
        if not view["actions"]:
            url = f"/api/games/{view['game']}"
            response = client.get(url, params={"after": view["version"]})
        else:
            body = {"action": view["actions"][0]["text"], "version": view["version"]}
            response = client.post(f"/api/games/{view['game']}/actions", json=body)
        assert response.status_code == 200, response.text
        view = response.json()
    return view


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({"suits": 0}, 422, "suits"),
        ({"suits": 5}, 422, "suits"),
        ({"suits": "2"}, 422, "suits"),
        ({"lowest_rank": 1}, 422, "lowest_rank"),
        ({"lowest_rank": 15}, 422, "lowest_rank"),
        ({"lowest_rank": 6.0}, 422, "lowest_rank"),
        ({"lowest_rank": 12, "suits": 1}, 400, "3-card deck"),  # 2 hands of 6 from 3 cards
        ({"lowest_rank": 6, "deck": 24}, 400, "deck 24 does not match lowest_rank 6"),
        ({"suits": 3, "deck": 20}, 400, "3 cards of each rank"),
        ({"suits": 2, "deck": 36}, 400, "at most 26 cards"),
        ({"deck": 0}, 422, "deck"),
        ({"hand_size": 0}, 422, "hand_size"),
        ({"hand_size": 13}, 422, "hand_size"),
        ({"hand_size": 7, "lowest_rank": 12}, 400, "hand_size 7"),
        ({"opponents": ["random"] * 6}, 422, "opponents"),
        ({"opponents": []}, 422, "opponents"),
        ({"variant": "podkidnoi"}, 422, "variant"),
        ({"throw_in": "some"}, 422, "throw_in"),
        ({"bout_cap": 0}, 422, "bout_cap"),
        ({"first_bout_cap": 13}, 422, "first_bout_cap"),
        ({"trumps": 0}, 422, "trumps"),
    ],
)
def test_each_bad_rule_gets_one_short_line(
    client: tuple[TestClient, Tables, Path], fields: dict[str, Any], status: int, words: str
) -> None:
    c, tables, _ = client
    response = c.post("/api/games", json={"opponents": ["random"], **fields})
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail, detail
    assert len(tables) == 0


@pytest.mark.parametrize(
    ("fields", "rules"),
    [
        ({"suits": 2}, {"suits": 2, "lowest_rank": 6}),
        ({"suits": 3, "lowest_rank": 10}, {"suits": 3, "lowest_rank": 10}),
        ({"suits": 2, "deck": 12}, {"suits": 2, "lowest_rank": 9}),
        ({"lowest_rank": 9, "deck": 24}, {"lowest_rank": 9, "suits": 4}),
        ({"lowest_rank": 2, "hand_size": 8}, {"lowest_rank": 2, "hand_size": 8}),
        ({"hand_size": 3, "lowest_rank": 10}, {"hand_size": 3}),
        ({"opponents": ["random"] * 5, "seat": 5}, {"players": 6}),
        ({"variant": "perevodnoy"}, {"transfer": True}),
        ({"throw_in": "neighbours", "opponents": ["random"] * 3}, {"throw_in": "neighbours"}),
        ({"bout_cap": 3}, {"bout_cap": 3}),
        ({"first_bout_cap": 5}, {"first_bout_cap": 5}),
        ({"trumps": False}, {"trumps": False}),
    ],
)
def test_each_rule_gives_a_game_played_to_the_end(
    client: tuple[TestClient, Tables, Path], fields: dict[str, Any], rules: dict[str, Any]
) -> None:
    c, tables, log = client
    body = {"opponents": ["random"], "seed": 11, **fields}
    response = c.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    view = response.json()
    assert {k: view["rules"][k] for k in rules} == rules
    expected_hand = view["rules"]["hand_size"]
    assert len(view["hand"]) == expected_hand
    final = play_out(c, view)
    assert final["result"]["seed"] == 11
    tables.get(final["game"]).join(PATIENCE)
    (entry,) = read_log(log).entries
    assert {k: getattr(entry.rules, k) for k in rules} == rules
    replay_entry(entry, log)
