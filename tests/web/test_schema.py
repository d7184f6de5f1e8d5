"""The web API tested from its own OpenAPI description (issue 47): schemathesis
(property-based, on Hypothesis) generates requests for every route from ``/openapi.json``
and checks each answer against it: no server error, every status declared, every body fits
its model; requests that break the schema are refused; and, following the declared links,
sequences that start a game, poll it, act on it, ask a hint of it, rematch it and deal
the next one.

The app runs in-process (schemathesis' ASGI transport, no network), examples are
derandomized and bounded, and long polls return at once (``LONG_POLL`` is set low, as
``tests/web/test_hardening.py`` sets it high).  The last tests pin the faults this run
found, each against its fix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")
schemathesis = require_extra("schemathesis")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.config import SchemathesisConfig  # noqa: E402

from durak.web import server as web_server  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.schema import AgentInfo, TableView  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits  # noqa: E402

#: Every route the API describes, as (method, path).
ROUTES = [
    ("GET", "/api/agents"),
    ("POST", "/api/games"),
    ("GET", "/api/games/{game_id}"),
    ("POST", "/api/games/{game_id}/actions"),
    ("POST", "/api/games/{game_id}/rematch"),
    ("POST", "/api/games/{game_id}/next"),
    ("POST", "/api/learned"),
    ("POST", "/api/games/{game_id}/review"),
    ("GET", "/api/games/{game_id}/review"),
    ("POST", "/api/games/{game_id}/hint"),
]

#: Few tables, so that a full server (503) is reached too.
LIMITS = Limits(move_timeout=5.0, max_tables=12, max_polls=2)

# The schema cannot say which agent specs a server allows, nor which action is legal now:
# a request that fits it may still be refused (400, 422), as documented.  Half of the
# opponents generated are agents the server has, so that games start.  A full server's
# 503 is a documented answer, not a server error.
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}},
        "dictionaries": {"agents": {"values": ["random", "greedy"]}},
        "parameters": {"body.opponents[*]": {"dictionary": "agents", "probability": 0.9}},
        "operations": [
            {
                "include-operation-id": operation,
                "checks": {"positive_data_acceptance": {"expected-statuses": statuses}},
            }
            for operation, statuses in (
                ("start_game", [200, 400, 503]),
                ("learned_agents", [200, 400]),
                ("rematch", [200, 400, 404, 503]),
                ("next_game", [200, 400, 404, 503]),
                ("act", [200, 404, 409, 422]),
                ("start_review", [200, 404, 409, 503]),
                ("view_review", [200, 404]),
                ("hint", [200, 403, 404, 409, 429, 503]),
            )
        ],
    }
)

BOUNDED = settings(
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


class Clock:
    """A clock the test moves by hand: past ``idle_seconds``, every table is closed."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@attrs.frozen
class Served:
    """The app's schema, loaded from the app itself, and the tables and clock behind it."""

    schema: Any
    tables: Tables
    clock: Clock

    def close_every_table(self) -> None:
        """Let every table idle past its limit: the server closes them all."""
        self.clock.now += LIMITS.idle_seconds + 1
        self.tables.sweep()


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setattr(web_server, "LONG_POLL", 0.05)
    clock = Clock()
    tables = Tables(tmp_path / "web.jsonl", LIMITS, clock=clock)
    app = create_app(tables)
    yield Served(schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG), tables, clock)
    tables.close()


def test_the_description_lists_every_route(served: Served) -> None:
    described = sorted((op.method.upper(), op.path) for op in _operations(served.schema))
    assert described == sorted(ROUTES)


def _operations(api: Any) -> list[Any]:
    return [result.ok() for result in api.get_all_operations()]


#: The routes with an input a request can break: a body or a typed query.  The others
#: take nothing (the agents) or only a game id, which any text may be (rematch, next).
BREAKABLE = {ROUTES[1], ROUTES[2], ROUTES[3], ROUTES[6]}


#: Every route with requests that fit its schema, and the breakable ones with requests
#: that break it.
CASES = [(GenerationMode.POSITIVE, m, p) for m, p in ROUTES] + [
    (GenerationMode.NEGATIVE, m, p) for m, p in ROUTES if (m, p) in BREAKABLE
]


@pytest.mark.parametrize(
    ("mode", "method", "path"),
    CASES,
    ids=[
        f"{'fitting' if mode is GenerationMode.POSITIVE else 'breaking'}-{m} {p}"
        for mode, m, p in CASES
    ],
)
def test_every_answer_fits_the_description(
    served: Served, mode: Any, method: str, path: str
) -> None:
    operation = served.schema[path][method]

    @given(case=operation.as_strategy(mode))
    @BOUNDED
    def check(case: Any) -> None:
        written_as_integers(case)
        case.call_and_validate()

    check()


def written_as_integers(case: Any) -> None:
    """A fitting case with its integers written without a fraction (``5`` for ``5.0``).

    JSON Schema's ``integer`` admits ``5.0``, but the server reads numbers strictly and
    refuses it with 422, as ``docs/web.md`` says (``tests/web/test_hardening.py`` checks
    that); a schema cannot say so.  And an integer above the largest seed is brought down
    to it: the generator compares integers with the schema's bounds as doubles, and
    ``2**63 - 1`` (:data:`~durak.web.server.MAX_SEED`) is no double, so it takes, say,
    ``2**63 + 191`` for a seed within bounds (the server rightly refuses it).  A breaking
    case is left as it is: its number may be the fault it was made with."""
    if case.meta is not None and case.meta.generation.mode is GenerationMode.POSITIVE:
        case.body = _integers(case.body)
        case.query = _integers(case.query)


def _integers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return min(int(value), web_server.MAX_SEED)
    if isinstance(value, int) and not isinstance(value, bool):
        return min(value, web_server.MAX_SEED)
    if isinstance(value, str) and value.endswith(".0") and value[:-2].lstrip("-").isdigit():
        return value[:-2]  # a query parameter, written as text
    if isinstance(value, dict):
        return {key: _integers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integers(item) for item in value]
    return value


def test_sequences_along_the_links_fit_the_description(served: Served) -> None:
    """Start a game, poll it, act on it, rematch it, deal the next one, in any order the
    links allow; each sequence ends with its tables closed by idling."""
    statuses: Counter[tuple[str, int]] = Counter()
    # The games the server named in this sequence: an action on one of them followed a
    # link.  (Where a link cannot be resolved, say a view without actions, schemathesis
    # makes up the game id, and a made-up game is rightly a 404.)
    named: set[str] = set()
    lost: list[str] = []

    class Machine(served.schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: Any) -> None:
            written_as_integers(case)

        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            statuses[case.operation.label, response.status_code] += 1
            game = (case.path_parameters or {}).get("game_id")
            acted = case.operation.label.endswith("/actions")
            if acted and response.status_code == 404 and game in named:
                lost.append(game)  # a game the server named, not one made up
            body = response.json() if response.status_code == 200 else None
            if isinstance(body, dict) and "game" in body:
                named.add(body["game"])

        def teardown(self) -> None:
            served.close_every_table()
            named.clear()
            super().teardown()

    Machine.run(
        settings=settings(
            BOUNDED, max_examples=20, stateful_step_count=8, suppress_health_check=list(HealthCheck)
        )
    )
    # The links were followed to games that exist: polled, and acted on (an action may
    # come too late for its view, 409, or be one no longer legal, 422; never a 404).
    assert statuses["GET /api/games/{game_id}", 200] > 0, statuses
    acted = [n for (label, status), n in statuses.items() if label.endswith("/actions")]
    assert sum(acted) > 0 and not lost, (statuses, lost)


# The faults the run found, pinned.


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    tables = Tables(tmp_path / "web.jsonl", LIMITS)
    with TestClient(create_app(tables)) as client:
        yield client


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"\x00", "the request body is not valid JSON (Expecting value at position 0)"),
        (b"[1", "the request body is not valid JSON (Expecting ',' delimiter at position 2)"),
        (b"", "the request body: Field required"),
        (b"null", "the request body: Input should be a valid dictionary or object to extract "
                  "fields from"),
    ],
    ids=["nul", "cut short", "empty", "null"],
)  # fmt: skip
def test_a_body_that_is_not_a_json_object_is_named_so(
    client: TestClient, body: bytes, said: str
) -> None:
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json() == {"detail": said}


def test_every_error_a_route_answers_is_declared(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    declared = {
        (method.upper(), path): sorted(int(code) for code in operation["responses"])
        for path, operations in paths.items()
        for method, operation in operations.items()
    }
    assert declared == {
        ("GET", "/api/agents"): [200, 413],
        ("POST", "/api/games"): [200, 400, 413, 422, 503],
        ("GET", "/api/games/{game_id}"): [200, 404, 413, 422, 429],
        ("POST", "/api/games/{game_id}/actions"): [200, 400, 404, 409, 413, 422],
        ("POST", "/api/games/{game_id}/rematch"): [200, 400, 404, 413, 422, 503],
        ("POST", "/api/games/{game_id}/next"): [200, 400, 404, 413, 422, 503],
        ("POST", "/api/learned"): [200, 400, 413, 422],
        ("POST", "/api/games/{game_id}/review"): [200, 404, 409, 413, 422, 503],
        ("GET", "/api/games/{game_id}/review"): [200, 404, 413, 422],
        ("POST", "/api/games/{game_id}/hint"): [200, 403, 404, 409, 413, 422, 429, 503],
    }
    problem = {"$ref": "#/components/schemas/Problem"}
    for (method, path), codes in declared.items():
        responses = paths[path][method.lower()]["responses"]
        for code in codes[1:]:
            assert responses[str(code)]["content"]["application/json"]["schema"] == problem


def test_every_view_of_a_game_played_out_fits_its_model(client: TestClient) -> None:
    agents = client.get("/api/agents").json()
    assert {"random", "greedy"} <= {AgentInfo.model_validate(a).name for a in agents}
    response = client.post("/api/games", json={"opponents": ["greedy", "random"], "seed": 5})
    view = response.json()
    views = 0
    while True:
        assert TableView.model_validate(view).game == view["game"]
        views += 1
        if view["over"]:
            break
        if view["actions"]:
            body = {"action": view["actions"][-1]["text"], "version": view["version"]}
            response = client.post(f"/api/games/{view['game']}/actions", json=body)
        else:
            response = client.get(f"/api/games/{view['game']}", params={"after": view["version"]})
        assert response.status_code == 200, response.text
        view = response.json()
    assert view["result"] is not None and views > 10
