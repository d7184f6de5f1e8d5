"""The web server against a hostile or careless client (issue 36, items 1-6): long polls
hold no thread, specs are checked against the allow-list at every depth, agents have a
move limit and stop with their table, the log replays whole, and requests are strict and
small.

Nothing here bets on timing: every wait is for an event, bounded by :data:`PATIENCE`,
which is reached only when something hangs.  Live servers listen on a free loopback port.
"""

from __future__ import annotations

import os
import random
import re
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")
require_extra("uvicorn")

import uvicorn  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from durak.agents import GreedyAgent, RandomAgent  # noqa: E402
from durak.agents import base as agents_base  # noqa: E402
from durak.agents.base import SpecError  # noqa: E402
from durak.agents.specs import AGENT_SPEC, MODEL_FILE, param  # noqa: E402
from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402
from durak.arena.play.game import play_game  # noqa: E402
from durak.arena.play.person import play_entry  # noqa: E402
from durak.cli.app import app as cli  # noqa: E402
from durak.rules import Action, Observation, Rules  # noqa: E402
from durak.seeding import derive_seed  # noqa: E402
from durak.web import server as web_server  # noqa: E402
from durak.web.policy import AgentPolicy, Grant  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import Limits  # noqa: E402
from tests.support.cli_checks import one_error  # noqa: E402

#: The longest any step may take before the test fails (reached only when something hangs).
PATIENCE = 60.0
#: An agent that thinks for as long as it is let (ISMCTS with a huge iteration budget).
THINKER = "ismcts:limit=100000000"


def wait_until(ready: Callable[[], bool], what: str) -> None:
    """Return once ``ready()``; fail after :data:`PATIENCE` seconds."""
    pause = threading.Event()
    for _ in range(int(PATIENCE / 0.01)):
        if ready():
            return
        pause.wait(0.01)
    pytest.fail(f"waited {PATIENCE:g} s for {what}")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_tables(
    log: Path, limits: Limits | None = None, grants: tuple[str, ...] = (), clock: Any = None
) -> Tables:
    policy = AgentPolicy(tuple(Grant.parse(g) for g in grants))
    return Tables(log, limits or Limits(), policy, clock or Clock())


@contextmanager
def client_for(tables: Tables) -> Iterator[TestClient]:
    with TestClient(create_app(tables)) as client:
        yield client


def start(client: TestClient, *opponents: str, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"opponents": list(opponents), **fields})
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def act_first(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Play the first of the person's actions; the answer's view."""
    answer = client.post(
        f"/api/games/{view['game']}/actions",
        json={"action": view["actions"][0]["text"], "version": view["version"]},
    )
    assert answer.status_code == 200, answer.text
    after: dict[str, Any] = answer.json()
    return after


def until_thinking(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Play the person's first action until an agent is to move (or the game is over)."""
    while not view["over"] and not view["thinking"]:
        view = act_first(client, view)
    return view


def play_out(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Play the person's first action at each turn to the end; the last view (the test
    fails if the game is not over within :data:`PATIENCE` seconds)."""
    deadline = time.monotonic() + PATIENCE
    while not view["over"]:
        if time.monotonic() > deadline:
            pytest.fail(f"the game did not end within {PATIENCE:g} s")
        if view["actions"]:
            view = act_first(client, view)
            continue
        answer = client.get(f"/api/games/{view['game']}", params={"after": view["version"]})
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


# --- 1: long polls hold no thread ---------------------------------------------------------


@contextmanager
def live(tables: Tables) -> Iterator[int]:
    """The app served by uvicorn on a free loopback port (in a thread); its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    config = uvicorn.Config(create_app(tables), log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), "the server to start")
        assert server.started, "the server did not start"
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(PATIENCE)
        listener.close()


def raw_poll(port: int, game: str) -> socket.socket:
    """A long poll sent on a raw connection that waits for a version never reached."""
    s = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    s.sendall(f"GET /api/games/{game}?after=999999 HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    return s


def status_of(s: socket.socket) -> int:
    """The status code of the answer on ``s`` (waits for it, up to :data:`PATIENCE`)."""
    head = s.recv(4096).decode("latin-1")
    return int(head.split(" ", 2)[1])


def post(port: int, path: str, body: str) -> tuple[int, str]:
    """A POST on a fresh connection, its answer read to the end (``Connection: close``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as s:
        data = body.encode()
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    text = b"".join(chunks).decode()
    return int(text.split(" ", 2)[1]), text


def test_abandoned_and_open_long_polls_stall_no_other_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """42 long polls (more than the 40 worker threads), some abandoned at once and some
    left open, and a new game still starts: no poll holds a thread while it waits."""
    monkeypatch.setattr(web_server, "LONG_POLL", 3600.0)  # no poll ends by itself here
    tables = make_tables(tmp_path / "web.jsonl", Limits(max_polls=8))
    with live(tables) as port:
        games = []
        for seed in range(6):
            status, text = post(port, "/api/games", f'{{"opponents": ["random"], "seed": {seed}}}')
            assert status == 200, text
            games.append(text.split('"game":"', 1)[1].split('"', 1)[0])
        polls = [raw_poll(port, g) for g in games for _ in range(7)]
        for s in polls[:21]:
            s.close()  # abandoned
        status, text = post(port, "/api/games", '{"opponents": ["greedy"], "seed": 1}')
        assert status == 200, text
        for s in polls[21:]:
            s.close()


def test_a_game_takes_a_bounded_number_of_long_polls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond ``max_polls`` open polls on one game, the next gets 429 at once; an
    abandoned poll frees its place."""
    monkeypatch.setattr(web_server, "LONG_POLL", 3600.0)
    tables = make_tables(tmp_path / "web.jsonl", Limits(max_polls=3))
    with live(tables) as port:
        _, text = post(port, "/api/games", '{"opponents": ["random"], "seed": 4}')
        table = tables.get(text.split('"game":"', 1)[1].split('"', 1)[0])
        polls = [raw_poll(port, table.id) for _ in range(4)]
        # Three wait for an hour; the one beyond the cap is answered at once.
        answered, _, _ = select.select(polls, [], [], PATIENCE)
        assert [status_of(s) for s in answered] == [429]
        assert table.polls == 3
        for s in polls:
            s.close()
        wait_until(lambda: table.polls == 0, "the abandoned polls to end")
        with raw_poll(port, table.id):
            wait_until(lambda: table.polls == 1, "a new poll to take a freed place")


# --- 2, 3: web clients choose agents, never files ----------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Paths of every kind: missing, a directory, a text file, a FIFO."""
    text = tmp_path / "text.json"
    text.write_text("not json", encoding="utf-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return {"missing": tmp_path / "missing.pt", "dir": tmp_path, "text": text, "fifo": fifo}


def refused_bounded(client: TestClient, spec: str, fifo: Path) -> dict[str, Any]:
    """POST a game against ``spec``; the answer (the test fails, and frees the request,
    if it waits on ``fifo``)."""
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(client.post, "/api/games", json={"opponents": [spec]})
        try:
            response = answer.result(PATIENCE)
        except TimeoutError:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the reader go
            pytest.fail(f"{spec}: the server opened the FIFO and waited on it")
    assert response.status_code == 400, response.text
    detail: dict[str, Any] = response.json()
    return detail


@pytest.mark.parametrize("agent", ["qlearn", "dmc", "dqn"])
def test_no_spec_from_the_web_names_a_file(
    tmp_path: Path, files: dict[str, Path], agent: str
) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        details = set()
        for path in files.values():
            for spec in (f"{agent}:path={path}", f"solver:fallback={agent}:path={path}"):
                detail = refused_bounded(client, spec, files["fifo"])["detail"]
                assert "not allowed" in detail and str(path) not in detail, detail
                details.add(detail)
        # One text whatever the path is: the answer tells nothing of the disk.
        assert details == {f"{agent}: parameter 'path' is not allowed on this server"}
        assert len(tables) == 0


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("human", "choose an agent"),
        ("solver:fallback=human", "choose an agent"),
        ("solver:fallback=solver:fallback=human", "choose an agent"),
        ("solver:fallback=human:x=1", "choose an agent"),
        ("phased:endgame=human", "choose an agent"),
        ("phased:opening=solver:fallback=human", "choose an agent"),
        ("faulty", "unknown agent 'faulty'"),
        ("phased:opening=faulty", "unknown agent 'faulty'"),
        ("solver:fallback=faulty:fault=timeout", "unknown agent 'faulty'"),
        ("ismcts:prior=nosuchguide", "prior must be none or a guide's name"),
        ("solver:fallback=ismcts:value=/dev/zero", "value must be rollout or a guide's name"),
        ("solver:fallback=" + "solver:fallback=" * 5 + "random", "nest more than 4 deep"),
        ("random:nosuch=1", "unknown parameter 'nosuch'"),
    ],
)
def test_the_allow_list_holds_at_every_depth(tmp_path: Path, spec: str, words: str) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        response = client.post("/api/games", json={"opponents": [spec]})
        assert response.status_code == 400, response.text
        assert words in response.json()["detail"]
        assert len(tables) == 0


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:infer=dmc,limit=5,samples=1", "mcts: dmc: no shipped model for"),
        ("minimax:infer=mix,samples=1", "minimax: dmc: no shipped model for"),
        ("solver:fallback=maxn:infer=mix;samples=1", "solver: fallback: maxn: dmc"),
        ("openspiel-mcts:simulations=1", "simulations must be in [2, "),
        ("openspiel-ismcts:simulations=1", "simulations must be in [2, "),
    ],
)
def test_a_table_whose_agent_can_only_forfeit_is_refused(
    tmp_path: Path, spec: str, words: str
) -> None:
    """Issue 47: these were seated on a 20-card deck, then forfeited every game."""
    if "dmc" in words:
        require_extra("torch")
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        request = {"opponents": [spec], "deck": 20, "hand_size": 3}
        response = client.post("/api/games", json=request)
        assert response.status_code == 400, response.text
        detail = response.json()["detail"]
        assert words in detail and "\n" not in detail, detail
        assert len(tables) == 0


def test_allowed_specs_nest_and_are_listed(tmp_path: Path) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        start(client, "solver:fallback=mcts:limit=5;samples=1,nodes=1000", seed=1)
        start(client, "phased:opening=greedy,endgame=ismcts:limit=5;c=1,when=two", seed=2)
        names = {a["name"] for a in client.get("/api/agents").json()}
        assert {"random", "ismcts", "solver", "phased", "dmc"} <= names
        assert not names & {"human", "faulty"}


def test_a_grant_allows_its_spec_and_no_other() -> None:
    """``--allow-agent dmc:path=m.pt`` offers that file, alone or nested, and no other."""
    policy = AgentPolicy((Grant.parse("dmc:path=m.pt"), Grant.parse("faulty:fault=illegal")))
    policy.check("dmc:path=m.pt")
    policy.check("solver:fallback=dmc:path=m.pt")
    policy.check("faulty:fault=illegal,after=3")
    for spec in ("dmc:path=other.pt", "faulty", "faulty:fault=error", "dqn:path=m.pt"):
        with pytest.raises(SpecError):
            policy.check(spec)
    assert {"faulty", "dmc:path=m.pt", "faulty:fault=illegal"} <= policy.agents().keys()
    assert "faulty" not in AgentPolicy().agents()
    with pytest.raises(SpecError, match="cannot be allowed"):
        Grant.parse("human")


def test_serve_refuses_a_grant_that_does_not_build(tmp_path: Path) -> None:
    log = str(tmp_path / "w.jsonl")
    runner = CliRunner()
    for spec, words in (("human", "cannot be allowed"), ("nosuch", "unknown agent")):
        result = runner.invoke(cli, ["serve", "--port", "0", "--log", log, "--allow-agent", spec])
        one_error(result, words)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("solver:fallback=human", "human asks at the server's terminal"),
        ("solver:fallback=solver:fallback=human", "human asks at the server's terminal"),
        ("solver:nodes=5,fallback=solver:fallback=human:x=1", "human asks at the server's"),
        ("phased:opening=greedy,endgame=human", "human asks at the server's terminal"),
        ("solver:fallback=" + "solver:fallback=" * 4 + "random", "nest more than 4 deep"),
    ],
)
def test_serve_refuses_a_grant_nesting_human_at_any_depth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str, words: str
) -> None:
    """Issue 47: ``--allow-agent 'solver:fallback=human'`` started the server, and a client
    could then seat a fallback reading the server's terminal (a grant's parameters are not
    checked again)."""
    served: list[object] = []
    monkeypatch.setattr(web_server, "run", lambda *args: served.append(args))
    with pytest.raises(SpecError, match=re.escape(words)):
        Grant.parse(spec)
    log = str(tmp_path / "w.jsonl")
    result = CliRunner().invoke(cli, ["serve", "--port", "0", "--log", log, "--allow-agent", spec])
    one_error(result, words)
    assert served == []


# --- 4: move limit; a closed table's agent stops; every game logged ------------------------


def test_an_agent_over_the_move_limit_forfeits(tmp_path: Path) -> None:
    log = tmp_path / "web.jsonl"
    tables = make_tables(log, Limits(move_timeout=0.2))
    with client_for(tables) as client:
        final = play_out(client, start(client, THINKER, seed=2))
        assert "0.2 s move limit" in final["result"]["forfeit"], final["result"]
        tables.get(final["game"]).join(PATIENCE)
    (entry,) = read_log(log).entries
    assert entry.end == "forfeit" and entry.move_timeout == 0.2
    assert entry.forfeit is not None and entry.forfeit.fault == "timeout"
    replay_entry(entry, log)


def test_an_idle_table_stops_its_thinking_agent_and_is_logged(tmp_path: Path) -> None:
    log = tmp_path / "web.jsonl"
    clock = Clock()
    tables = make_tables(log, Limits(move_timeout=3600, idle_seconds=60), clock=clock)
    with client_for(tables) as client:
        view = until_thinking(client, start(client, THINKER, seed=2))
        assert view["thinking"]
        table = tables.get(view["game"])
        clock.now += 61
        assert client.get(f"/api/games/{view['game']}").status_code == 404
        table.join(PATIENCE)
        assert not table.alive(), "the closed table's agent still thinks"
    (entry,) = read_log(log).entries
    assert entry.end == "interrupted" and entry.specs == ("human", THINKER)
    replay_entry(entry, log)


def test_shutdown_logs_every_game_even_one_stuck_in_c_code(tmp_path: Path) -> None:
    """At shutdown a thinking agent is stopped, and a table whose agent sleeps in C code
    (where nothing can interrupt it) is logged as interrupted all the same."""
    log = tmp_path / "web.jsonl"
    tables = make_tables(log, Limits(move_timeout=3600), grants=("faulty",))
    with client_for(tables) as client:
        thinking = until_thinking(client, start(client, THINKER, seed=2))
        sleeping = until_thinking(client, start(client, "faulty:fault=timeout,sleep=600", seed=2))
        finished = play_out(client, start(client, "random", seed=3))
        tables.get(finished["game"]).join(PATIENCE)
        stuck = tables.get(sleeping["game"])
        assert thinking["thinking"] and sleeping["thinking"]
    # Leaving the client shut the app down: every table closed, every game logged.
    assert stuck.alive()
    entries = read_log(log).entries
    assert sorted(e.end for e in entries) == ["finished", "interrupted", "interrupted"]
    for entry in entries:
        replay_entry(entry, log)


def test_a_game_stopped_as_it_ended_is_logged_as_finished(tmp_path: Path) -> None:
    """A table closed after the last action but before the game returned: the entry built
    from its actions says finished, with the engine's durak, and replays."""
    rules = Rules()
    record = play_game(rules, [RandomAgent(), GreedyAgent()], derive_seed(5, 0))
    entry = play_entry(rules, ("human", "greedy"), 5, False, 0, record.actions, None, 5.0)
    assert (entry.end, entry.durak, entry.bouts) == ("finished", record.loser, record.bouts)
    replay_entry(entry, tmp_path / "web.jsonl")


# --- 5: the log replays whole --------------------------------------------------------------


def test_rematches_and_equal_seeds_replay_in_one_log(tmp_path: Path) -> None:
    log = tmp_path / "web.jsonl"
    tables = make_tables(log)
    with client_for(tables) as client:
        first = play_out(client, start(client, "random", seed=3))
        again = play_out(client, start(client, "random", seed=3))  # another person, one seed
        rematch = client.post(f"/api/games/{first['game']}/rematch").json()
        rematch = play_out(client, rematch)
        twice = play_out(client, client.post(f"/api/games/{rematch['game']}/rematch").json())
        for view in (first, again, rematch, twice):
            tables.get(view["game"]).join(PATIENCE)
    assert len(read_log(log).entries) == 4
    result = CliRunner().invoke(cli, ["replay", str(log)])
    assert result.exit_code == 0, result.output


# --- 6: strict, small requests; a cap on tables --------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"opponents": ["random"], "seed": "12"}, "seed"),
        ({"opponents": ["random"], "trumps": "no"}, "trumps"),
        ({"opponents": ["random"], "seat": 0.0}, "seat"),
        ({"opponents": ["random"], "hand_size": True}, "hand_size"),
        ({"opponents": ["random"], "colour": "red"}, "colour"),
        ({"opponents": ["x" * 10_000]}, "opponents.0"),
    ],
)
def test_requests_are_read_strictly_and_answered_shortly(
    tmp_path: Path, body: dict[str, Any], words: str
) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        response = client.post("/api/games", json=body)
        assert response.status_code == 422, response.text
        detail = response.json()["detail"]
        assert words in detail and len(response.content) < 400, detail
        assert len(tables) == 0


def test_an_unknown_spec_is_not_echoed_whole(tmp_path: Path) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        for spec in ("n" * 190, "random:" + "k" * 150 + "=1", "random:" + "," * 150 + "x"):
            response = client.post("/api/games", json={"opponents": [spec]})
            assert response.status_code == 400, response.text
            assert len(response.content) < 200, response.text


def test_a_body_over_the_limit_gets_413(tmp_path: Path) -> None:
    tables = make_tables(tmp_path / "web.jsonl")
    with client_for(tables) as client:
        big = '{"opponents": [' + ", ".join(['"random"'] * 10_000) + "]}"
        response = client.post(
            "/api/games", content=big, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413, response.text
        assert response.json()["detail"] == "the request body is over 16384 bytes"
        assert start(client, "random")["game"]


def test_a_full_server_answers_503(tmp_path: Path) -> None:
    tables = make_tables(tmp_path / "web.jsonl", Limits(max_tables=2))
    with client_for(tables) as client:
        first = start(client, "random", seed=1)
        start(client, "random", seed=2)
        for response in (
            client.post("/api/games", json={"opponents": ["random"]}),
            client.post(f"/api/games/{first['game']}/rematch"),
        ):
            assert response.status_code == 503, response.text
            assert "limit" in response.json()["detail"]
        assert len(tables) == 2


@attrs.frozen
class _Duo:
    """A plugin's agent with a spec-valued parameter and a file parameter."""

    inner: str = param("greedy", "the agent it plays, ';' for ','", holds=AGENT_SPEC)
    weights: str = param("", "a file it reads", holds=MODEL_FILE)
    name: str = "test-duo"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return observation.legal_actions[0]


def test_a_plugin_s_spec_parameter_is_checked_like_a_built_in_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 61: the allow-list was a list of built-in parameters, so a plugin's spec
    parameter was refused as free text whatever it held."""
    monkeypatch.setattr(agents_base, "_REGISTRY", dict(agents_base._REGISTRY))
    agents_base.register("test-duo", _Duo, "a plugin's agent")
    policy = AgentPolicy()
    policy.check("test-duo:inner=mcts:limit=5;samples=1")
    for spec, words in (
        ("test-duo:inner=human", "human asks at the server's terminal"),
        ("test-duo:inner=solver:fallback=faulty", "unknown agent 'faulty'"),
        ("test-duo:inner=dmc:path=m.pt", "parameter 'path' is not allowed"),
        ("test-duo:weights=m.pt", "parameter 'weights' is not allowed"),
    ):
        with pytest.raises(SpecError, match=re.escape(words)):
            policy.check(spec)
    with pytest.raises(SpecError, match="it cannot be allowed"):
        Grant.parse("test-duo:inner=phased:opening=human")
