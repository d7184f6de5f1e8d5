"""The learned agents a table's page offers (issue 51): ``dmc`` and ``strongest`` where a
shipped network fits the table's rules, a plain sentence where none does, and ``dmc``
refused with a 4xx at such a table."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")
torch = require_extra("torch")

from fastapi.testclient import TestClient  # noqa: E402

import durak.learn.dmc.shipped as shipped_module  # noqa: E402
from durak.learn.dmc import BUNDLED  # noqa: E402
from durak.learn.dmc.net import build_network, save_model  # noqa: E402
from durak.learn.model_file import NetworkModel  # noqa: E402
from durak.rules import Rules  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits  # noqa: E402


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, Tables]]:
    tables = Tables(tmp_path / "web.jsonl", Limits(idle_seconds=600))
    with TestClient(create_app(tables)) as c:
        yield c, tables


def learned(client: TestClient, **request: Any) -> dict[str, Any]:
    response = client.post("/api/learned", json={"opponents": ["strongest"], **request})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_the_default_table_offers_dmc_and_strongest(client: tuple[TestClient, Tables]) -> None:
    c, tables = client
    assert {"dmc", "strongest"} <= {a["name"] for a in c.get("/api/agents").json()}
    answer = learned(c)
    assert answer["fits"] and answer["agents"] == ["dmc", "strongest"]
    assert answer["refused"] == [] and "dmc plays it" in answer["note"]
    assert answer["note"].endswith("strongest searches with it.")
    assert len(tables) == 0  # asking starts nothing


def test_a_table_without_a_network_says_so_and_refuses_dmc(
    client: tuple[TestClient, Tables],
) -> None:
    c, tables = client
    answer = learned(c, opponents=["strongest"] * 4)
    assert not answer["fits"] and answer["agents"] == [] and answer["refused"] == ["dmc"]
    assert answer["note"].startswith("No learned agent for 5 players, 36 cards, podkidnoy")
    assert "2 players, 36 cards, podkidnoy, throw-in all" in answer["note"]
    response = c.post("/api/games", json={"opponents": ["dmc", "greedy", "greedy", "greedy"]})
    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert "\n" not in detail and detail.startswith("dmc: no shipped model for 5 players")
    assert len(tables) == 0


def test_a_3_player_table_offers_dmc_once_a_3_player_model_ships(
    client: tuple[TestClient, Tables], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c, _ = client
    three = {"opponents": ["strongest"] * 2, "lowest_rank": 9, "hand_size": 5}
    assert not learned(c, **three)["fits"]
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(BUNDLED, models / BUNDLED.name)
    rules = Rules(players=3, lowest_rank=9, hand_size=5)
    torch.manual_seed(0)
    save_model(models / "dmc-3p.pt", NetworkModel(build_network(rules, (16,)), rules, (16,)))
    monkeypatch.setattr(shipped_module, "MODELS", models)
    answer = learned(c, **three)
    assert answer["fits"] and answer["agents"] == ["dmc", "strongest"]
    # strongest does not search with a 3-player network: that was measured the weaker.
    assert answer["note"].endswith(
        "strongest plays ismcts:limit=300,opponent=greedy at this table."
    )


def test_rules_that_cannot_be_played_are_a_400(client: tuple[TestClient, Tables]) -> None:
    c, _ = client
    response = c.post("/api/learned", json={"opponents": ["strongest"] * 5, "hand_size": 12})
    assert response.status_code == 400, response.text
    assert "hand_size 12" in response.json()["detail"]
