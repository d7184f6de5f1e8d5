"""The web table's API (FastAPI's TestClient), what it may send, and its robustness."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from durak.testing.games import random_game_observations
from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

from durak.agents import make_agent  # noqa: E402
from durak.agents.human import describe  # noqa: E402
from durak.agents.interface.analysis import analyse  # noqa: E402
from durak.arena.gamelog.files import read_log  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402
from durak.rules import (  # noqa: E402
    Rules,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.seeding import derive_seed  # noqa: E402
from durak.web.hints import HINT_AGENT, hint_seed, hint_view  # noqa: E402
from durak.web.registry import Tables  # noqa: E402
from durak.web.server import create_app  # noqa: E402
from durak.web.settings import GameSettings, Limits, RequestError  # noqa: E402
from durak.web.views import Move, Outcome, table_view  # noqa: E402

#: A test waits this long for an agent's move before failing (never reached when all is well).
PATIENCE = 60.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def server(tmp_path: Path) -> Any:
    clock = Clock()
    tables = Tables(tmp_path / "web.jsonl", Limits(idle_seconds=600), clock=clock)
    with TestClient(create_app(tables)) as client:
        yield client, tables, clock, tmp_path / "web.jsonl"


def start(client: TestClient, **request: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"opponents": ["random"], "seed": 3, **request})
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def my_turn(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """The view once it is the person's turn or the game is over (long polls)."""
    while not view["over"] and not view["actions"]:
        response = client.get(
            f"/api/games/{view['game']}", params={"after": view["version"]}, timeout=PATIENCE
        )
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def play_out(
    client: TestClient,
    view: dict[str, Any],
    pick: Any = None,
    hints: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Play the person's seat to the end (``pick`` chooses among the actions, default the
    first), asking for a hint at each decision with a choice if ``hints`` collects them;
    every view received, in order."""
    seen = [view]
    while True:
        view = my_turn(client, view)
        seen.append(view)
        if view["over"]:
            return seen
        texts = [a["text"] for a in view["actions"]]
        if hints is not None and len(texts) > 1:
            hint = client.post(f"/api/games/{view['game']}/hint")
            assert hint.status_code == 200, hint.text
            hints.append(hint.json())
        text = texts[0] if pick is None else pick(texts)
        response = client.post(
            f"/api/games/{view['game']}/actions", json={"action": text, "version": view["version"]}
        )
        assert response.status_code == 200, response.text
        view = response.json()
        seen.append(view)


def test_a_game_is_played_to_the_end_and_its_log_replays(server: Any) -> None:
    client, tables, _, log = server
    views = play_out(client, start(client))
    final = views[-1]
    assert final["over"] and final["result"]["seed"] == 3
    assert all(v["result"] is None for v in views if not v["over"]), "the seed shown too early"
    tables.get(final["game"]).join(PATIENCE)
    entries = read_log(log).entries
    assert len(entries) == 1 and entries[0].end == "finished"
    assert entries[0].specs == ("human", "random") and entries[0].seed == 3
    game = replay_entry(entries[0], log)
    assert loser(game.final) == final["result"]["durak"] == entries[0].durak


def test_illegal_and_stale_actions_are_refused_and_change_nothing(server: Any) -> None:
    client, _, _, _ = server
    view = my_turn(client, start(client))
    url = f"/api/games/{view['game']}/actions"
    illegal = client.post(url, json={"action": "Attack(2♠)", "version": view["version"]})
    assert illegal.status_code == 422
    assert "not a legal action: 'Attack(2♠)'" in illegal.json()["detail"]
    assert view["actions"][0]["text"] in illegal.json()["detail"]  # the legal ones are listed
    stale = client.post(url, json={"action": view["actions"][0]["text"], "version": 0})
    assert stale.status_code == 409 and "stale" in stale.json()["detail"]
    assert client.get(f"/api/games/{view['game']}").json() == view, "a refused action moved"
    done = client.post(url, json={"action": view["actions"][0]["text"], "version": view["version"]})
    assert done.status_code == 200
    again = client.post(
        url, json={"action": view["actions"][0]["text"], "version": view["version"]}
    )
    assert again.status_code == 409, "the same view sent a second action"


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("/api/games", {"opponents": ["nosuchagent"]}, 400, "unknown agent 'nosuchagent'"),
        ("/api/games", {"opponents": ["human"]}, 400, "choose an agent"),
        ("/api/games", {"opponents": ["random"], "deck": 37}, 400, "4 cards of each rank"),
        ("/api/games", {"opponents": ["random"], "seat": 2}, 400, "seat 2"),
        ("/api/games", {"opponents": ["random"], "variant": "x"}, 422, "variant"),
        ("/api/games", {"opponents": ["random"], "hand_size": 12, "deck": 8}, 400, "hand"),
        ("/api/games/nosuchgame", None, 404, "no game 'nosuchgame'"),
        ("/api/games/nosuchgame/actions", {"action": "Take", "version": 1}, 404, "no game"),
        ("/api/games/nosuchgame/rematch", None, 404, "no game"),
    ],
)
def test_bad_requests_get_one_clear_4xx(
    server: Any, path: str, body: Any, status: int, words: str
) -> None:
    client, tables, _, _ = server
    response = client.get(path) if body is None and "rematch" not in path else None
    if response is None:
        response = client.post(path, json=body) if body is not None else client.post(path)
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail, detail
    assert len(tables) == 0


def test_static_files_only_from_the_package(server: Any) -> None:
    client, _, _, _ = server
    page = client.get("/")
    assert page.status_code == 200 and "durak" in page.text
    assert client.get("/static/app.js").status_code == 200
    for sneaky in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/..%2fserver.py"):
        assert client.get(sneaky).status_code == 404, sneaky


def test_strongest_is_offered_and_is_the_pages_default_opponent(server: Any) -> None:
    """Issue 50: the page proposes ``strongest`` (resolved per rules: the network-guided
    search where the network fits), and the allow-list accepts it."""
    client, tables, _, _ = server
    assert "strongest" in {a["name"] for a in client.get("/api/agents").json()}
    assert 'old[i] || "strongest"' in client.get("/static/app.js").text
    tables.policy.check("strongest")  # raises a SpecError for a spec clients may not use


def test_games_are_isolated_and_a_page_reconnects(server: Any) -> None:
    client, _, _, _ = server
    a = my_turn(client, start(client, seed=1))
    b = my_turn(client, start(client, seed=2))
    assert a["game"] != b["game"]
    client.post(
        f"/api/games/{a['game']}/actions",
        json={"action": a["actions"][0]["text"], "version": a["version"]},
    )
    assert client.get(f"/api/games/{b['game']}").json() == b
    with TestClient(client.app) as other:  # a new connection, as after a reload
        assert other.get(f"/api/games/{b['game']}").json() == b


def test_idle_games_are_closed_and_logged_as_interrupted(server: Any) -> None:
    client, tables, clock, log = server
    view = my_turn(client, start(client))
    table = tables.get(view["game"])
    clock.now += tables.limits.idle_seconds + 1
    assert client.get(f"/api/games/{view['game']}").status_code == 404
    table.join(PATIENCE)
    entries = read_log(log).entries
    assert [e.end for e in entries] == ["interrupted"]
    replay_entry(entries[0], log)


def test_the_opponents_are_named_by_their_canonical_specs(server: Any) -> None:
    """Issue 61: the page and the log named an agent as the request spelt it."""
    client, tables, _, log = server
    view = start(client, opponents=["random:stop_chance=.20", "greedy:"])
    assert [s["name"] for s in view["seats"]] == ["human", "random", "greedy"]
    tables.get(view["game"]).close()
    tables.close()
    assert read_log(log).entries[0].specs == ("human", "random", "greedy")


def test_rematch_is_the_same_deal_with_the_seats_turned(server: Any) -> None:
    client, _, _, _ = server
    first = play_out(client, start(client, opponents=["random", "greedy"], seed=5))[-1]
    again = client.post(f"/api/games/{first['game']}/rematch")
    assert again.status_code == 200
    view = again.json()
    assert view["you"] == 1 and [s["name"] for s in view["seats"]] == ["greedy", "human", "random"]
    deal = new_game(Rules(players=3), derive_seed(5, 0))
    assert (
        view["hand"]
        == table_view(
            observe(deal, 1),
            ["greedy", "human", "random"],
            [],
            game="",
            version=0,
            seed=5,
            outcome=None,
        )["hand"]
    )
    nxt = client.post(f"/api/games/{view['game']}/next").json()
    assert nxt["you"] == 1 and nxt["game"] not in (view["game"], first["game"])


def hidden_texts(state: Any, seat: int) -> set[str]:
    o = observe(state, seat)
    return {str(c) for c in o.hidden_cards()}


def test_no_payload_depends_on_a_hidden_card(server: Any) -> None:
    """Every view and hint a game sends is what the person's observation and the public
    moves give, whatever the hidden cards are: rebuilt on worlds with the hidden cards
    permuted, it is the same, and no hidden card's name is in it."""
    client, tables, _, log = server
    rng = random.Random(0)
    games = ((11, ["random"], "podkidnoy"), (12, ["random", "lowest"], "perevodnoy"))
    for seed, opponents, variant in games:
        request = {"opponents": opponents, "seed": seed, "variant": variant}
        hints: list[dict[str, Any]] = []
        views = play_out(client, start(client, **request), pick=rng.choice, hints=hints)
        tables.get(views[-1]["game"]).join(PATIENCE)
        entry = read_log(log).entries[-1]
        game = replay_entry(entry, log)
        states, names = game.states, list(entry.specs)
        moves = [Move(p, a) for p, a in zip(game.movers, game.actions, strict=True)]
        at = {v["version"]: v["moves"] for v in views}
        for v in views:
            if v["over"]:
                continue
            state = states[v["moves"]]
            text = json.dumps(v, ensure_ascii=False)
            hidden = {str(c) for c in observe(state, 0).hidden_cards()}
            assert not any(card in text for card in hidden), "a hidden card was sent"
            for k in range(3):
                twin = sample_world(observe(state, 0), random.Random(k))
                rebuilt = table_view(
                    observe(twin, 0),
                    names,
                    moves[: v["moves"]],
                    game=v["game"],
                    version=v["version"],
                    seed=entry.seed,
                    outcome=None,
                )
                assert rebuilt == v
        assert len(hints) > 3
        for h in hints:
            check_hint_reads_only_the_observation(h, states[at[h["version"]]], entry.seed)


def check_hint_reads_only_the_observation(hint: dict[str, Any], state: Any, seed: int) -> None:
    """No hidden card in ``hint``, and the same hint from the strongest agent on worlds
    with the hidden cards dealt otherwise (and the hint's seed)."""
    text = json.dumps(hint, ensure_ascii=False)
    hidden = {str(c) for c in observe(state, 0).hidden_cards()}
    assert not any(card in text for card in hidden), "a hidden card was sent in a hint"
    twin = observe(sample_world(observe(state, 0), random.Random(len(text))), 0)
    rng = random.Random(hint_seed(seed, 0, hint["version"]))
    analysis = analyse(make_agent(HINT_AGENT, state.rules), twin, rng)
    assert hint_view(analysis, twin, game=hint["game"], version=hint["version"]) == hint


def test_views_are_functions_of_the_observation_only() -> None:
    """For every decision point of random games: permuting the hidden cards changes no view."""
    names = ["human", "a", "b"]
    for rules in (Rules(), Rules(players=3, transfer=True)):
        for o in random_game_observations(rules, 2, 7):
            rng = random.Random(1)
            for p in range(rules.players):
                world = sample_world(o, rng)
                mine = observe(world, p)
                twin = sample_world(mine, rng)
                args: dict[str, Any] = {"game": "g", "version": 1, "seed": 0, "outcome": None}
                assert table_view(mine, names[: rules.players], [], **args) == table_view(
                    observe(twin, p), names[: rules.players], [], **args
                )


def test_settings_refuse_bad_seats_and_counts() -> None:
    with pytest.raises(RequestError, match="need 2 opponents"):
        GameSettings(Rules(players=3), 0, ("random",), 1)
    with pytest.raises(RequestError, match="seat 3"):
        GameSettings(Rules(), 3, ("random",), 1)


def test_serve_warns_when_not_on_loopback_and_refuses_a_bad_host(tmp_path: Path) -> None:
    durak = str(Path(sys.executable).parent / "durak")
    log = str(tmp_path / "w.jsonl")
    server = subprocess.Popen(
        [durak, "serve", "--host", "0.0.0.0", "--port", "0", "--log", log],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        first = server.stderr.readline()
        assert first.startswith("warning: binding to 0.0.0.0"), first
        assert "serve: http://0.0.0.0:" in server.stderr.readline()
    finally:
        server.terminate()
        server.wait(30)
    bad = subprocess.run(
        [durak, "serve", "--host", "no-such-host.invalid", "--port", "0", "--log", log],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("error: --host no-such-host.invalid"), bad.stderr


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    durak = str(Path(sys.executable).parent / "durak")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [durak, "serve", "--port", str(port), "--log", str(tmp_path / "w.jsonl")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"error: cannot listen on 127.0.0.1:{port}: Address already in use\n"


@pytest.mark.parametrize("rules", [Rules(), Rules(players=3, transfer=True), Rules(trumps=False)])
def test_the_page_numbers_and_sorts_as_the_terminal_does(rules: Rules) -> None:
    # One position, one numbering: the number a person presses on the page is the number
    # `durak play` prints for the same action, and the hand reads in the same order.
    for o in random_game_observations(rules, games=3, seed=61):
        view = table_view(o, ["p"] * rules.players, [], game="g", version=0, seed=0, outcome=None)
        lines = describe(o).splitlines()
        numbered = lines[lines.index("Legal actions:") + 1 :]
        assert [f"  {a['key']}. {a['text']}" for a in view["actions"]] == numbered
        hand = next(line for line in lines if line.startswith("Your hand: "))
        assert " ".join(h["card"] for h in view["hand"]) == hand.removeprefix("Your hand: ")


def test_a_view_is_over_only_with_its_result() -> None:
    # The table shows the last move's terminal position a moment before its thread records
    # the outcome; a view "over" without a result made the page stop polling for good.
    state = new_game(Rules(), 5)
    rng = random.Random(5)
    while not is_terminal(state):
        state = step(state, rng.choice(legal_actions(state)))
    o = observe(state, 0)
    args: dict[str, Any] = {"game": "g", "version": 9, "seed": 5}
    shown = table_view(o, ["p", "q"], [], outcome=None, **args)
    assert not shown["over"] and shown["result"] is None and shown["actions"] == []
    ended = table_view(o, ["p", "q"], [], outcome=Outcome(loser(state)), **args)
    assert ended["over"] and ended["result"]["seed"] == 5
