"""``durak serve`` under load: the figures behind the web server's hardening (issue 36;
``docs/web.md``, "Limits").

    .venv/bin/python benchmarks/web_load.py --tables 1000 --polls 200 --special 100

Starts ``durak serve --port 0`` on loopback (a free port) and opens ``--tables`` games
against ``random``, leaves ``--polls`` long polls open on them (raw connections, half of
them then abandoned), and sends ``--special`` game requests whose agent specs name special
files (``/dev/zero``, a FIFO, ``/dev/stdin``, ``/proc/self/mem``, directories, at every
nesting depth).  Meanwhile it times every other game route (``--samples`` requests each,
one connection, one at a time): every answer should come within 100 ms.  Meanwhile too,
on a connection of its own, it asks ``--hints`` hints (issue 52) at the person's decisions
of games with the default rules (2 players, 36 cards: the strongest agent is the
network-guided search) and prints their latency (p50, p95; target 1 s p95), and on
another it finishes ``--reviews`` games and has each reviewed (the review runs in the
server, beside the timed routes: their p99 is printed, target 50 ms).  Then it sends
SIGINT and times the server's exit (target: within 5 s), and checks that the log holds
every game opened and that ``durak replay`` accepts it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

DURAK = [sys.executable, "-c", "from durak.cli.app import main; main()"]
#: Special files a hostile spec might name (a FIFO is added in the run's folder).
SPECIAL = ["/dev/zero", "/dev/stdin", "/dev/random", "/proc/self/mem", "/proc/kcore", "/"]
#: How a spec may carry a path: at the top, and nested.
FORMS = [
    "qlearn:path={}",
    "dmc:path={}",
    "dqn:path={}",
    "solver:fallback=qlearn:path={}",
    "solver:fallback=solver:fallback=dmc:path={}",
]


class Client:
    """One keep-alive connection to the server, timing each request."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        """The status, the decoded answer and the seconds it took."""
        data = None if body is None else json.dumps(body)
        headers = {} if body is None else {"Content-Type": "application/json"}
        started = time.perf_counter()
        self.connection.request(method, path, data, headers)
        response = self.connection.getresponse()
        payload = json.loads(response.read() or b"null")
        return response.status, payload, time.perf_counter() - started


def serve(log: Path, max_tables: int) -> tuple[subprocess.Popen[str], int, Path]:
    """``durak serve`` on a free loopback port; the process, its port and the file that
    receives its standard error."""
    args = ["serve", "--port", "0", "--log", str(log), "--max-tables", str(max_tables)]
    errors = log.with_suffix(".stderr")
    with errors.open("w") as sink:
        server = subprocess.Popen([*DURAK, *args], stderr=sink, text=True)
    found = None
    while found is None and server.poll() is None:
        time.sleep(0.05)
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", errors.read_text())
    if found is None:
        sys.exit(f"the server did not start: {errors.read_text()}")
    return server, int(found.group(1)), errors


def poll(port: int, game: str) -> socket.socket:
    """A long poll on a raw connection, for a version the game never reaches."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /api/games/{game}?after=999999 HTTP/1.1\r\nHost: b\r\n\r\n".encode())
    return s


def summary(name: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    return (
        f"{name:<28} n={len(ms):<5} median {statistics.median(ms):7.2f} ms   max {ms[-1]:7.2f} ms"
    )


def percentile(ms: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``ms`` (nearest rank)."""
    return ms[min(len(ms) - 1, max(0, round(q * len(ms)) - 1))]


def hint_latency(port: int, count: int, seed: int, seconds: list[float]) -> int:
    """Ask ``count`` hints at the person's decisions with a choice in games against
    ``random`` (deals from ``seed``), playing the first action after each; their times go
    in ``seconds``.  The tables opened."""
    client = Client(port)
    opened = 0
    while len(seconds) < count:
        body = {"opponents": ["random"], "seed": seed + opened}
        status, view, _ = client.call("POST", "/api/games", body)
        assert status == 200, view
        opened += 1
        while not view["over"] and len(seconds) < count:
            game = view["game"]
            if not view["actions"]:
                _, view, _ = client.call("GET", f"/api/games/{game}?after={view['version']}")
                continue
            if len(view["actions"]) > 1:
                status, hint, spent = client.call("POST", f"/api/games/{game}/hint")
                assert status == 200, hint
                seconds.append(spent)
            act = {"action": view["actions"][0]["text"], "version": view["version"]}
            status, view, _ = client.call("POST", f"/api/games/{game}/actions", act)
            assert status == 200, view
    client.connection.close()
    return opened


def review_load(port: int, count: int, seed: int, seconds: list[float]) -> int:
    """Finish ``count`` games against ``random`` (deals from ``seed``, the first action
    each time) and have each reviewed, one after the other: the time from starting a
    review to its answer goes in ``seconds``.  The tables opened."""
    client = Client(port)
    for k in range(count):
        body = {"opponents": ["random"], "seed": seed + 10_000 + k}
        status, view, _ = client.call("POST", "/api/games", body)
        assert status == 200, view
        game = view["game"]
        while not view["over"]:
            if not view["actions"]:
                _, view, _ = client.call("GET", f"/api/games/{game}?after={view['version']}")
                continue
            act = {"action": view["actions"][0]["text"], "version": view["version"]}
            status, view, _ = client.call("POST", f"/api/games/{game}/actions", act)
            assert status == 200, view
        started = time.perf_counter()
        status, state, _ = client.call("POST", f"/api/games/{game}/review")
        while status == 200 and state["state"] == "running":
            time.sleep(0.05)
            status, state, _ = client.call("GET", f"/api/games/{game}/review")
        assert status == 200 and state["state"] == "done", (status, state)
        seconds.append(time.perf_counter() - started)
    client.connection.close()
    return count


def main() -> None:
    """Run the load and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--polls", type=int, default=200)
    parser.add_argument("--special", type=int, default=100)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--hints", type=int, default=100, help="hints timed (0: none)")
    parser.add_argument("--reviews", type=int, default=5, help="games reviewed (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    a = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    log = folder / "web.jsonl"
    # The tables the timed routes, the hints and the reviews open.
    extra = 5 * a.samples + a.hints + a.reviews + 10
    server, port, errors = serve(log, a.tables + extra)
    client = Client(port)
    opened = 0

    def new_game(seed: int) -> dict[str, Any]:
        nonlocal opened
        status, view, _ = client.call("POST", "/api/games", {"opponents": ["random"], "seed": seed})
        assert status == 200, view
        opened += 1
        return dict(view)

    started = time.perf_counter()
    games = [new_game(a.seed + i) for i in range(a.tables)]
    print(f"opened {a.tables} tables in {time.perf_counter() - started:.1f} s")
    polls = [poll(port, games[i % len(games)]["game"]) for i in range(a.polls)]
    for s in polls[: a.polls // 2]:
        s.close()  # abandoned at once
    print(f"{a.polls} long polls sent, {a.polls // 2} of them abandoned")
    specials = [*SPECIAL, str(fifo), str(folder)]
    refused, special_times = 0, []
    for i in range(a.special):
        spec = FORMS[i % len(FORMS)].format(specials[i % len(specials)])
        status, answer, spent = client.call("POST", "/api/games", {"opponents": [spec]})
        refused += status == 400 and "not allowed" in answer["detail"]
        special_times.append(spent)
    print(f"{refused} of {a.special} specs naming special files refused with 400")
    print("the first five took (ms):", [round(1000 * t, 1) for t in special_times[:5]])

    times: dict[str, list[float]] = {}
    hint_times: list[float] = []
    hint_tables: list[int] = []
    hinting = threading.Thread(
        target=lambda: hint_tables.append(hint_latency(port, a.hints, a.seed, hint_times))
    )
    hinting.start()
    review_times: list[float] = []
    reviewing = threading.Thread(
        target=lambda: hint_tables.append(review_load(port, a.reviews, a.seed, review_times))
    )
    reviewing.start()

    def timed(name: str, method: str, path: str, body: Any = None) -> Any:
        status, answer, spent = client.call(method, path, body)
        assert status == 200, (name, status, answer)
        times.setdefault(name, []).append(spent)
        return answer

    for i in range(a.samples):
        game = games[i]["game"]
        timed("GET /api/agents", "GET", "/api/agents")
        timed("GET /api/games/{id}", "GET", f"/api/games/{game}")
        view = timed("POST /api/games", "POST", "/api/games", {"opponents": ["random"]})
        opened += 1
        while not view["actions"] and not view["over"]:
            path = f"/api/games/{view['game']}?after={view['version']}"
            view = timed("GET ...?after=V (a move)", "GET", path)
        if not view["over"]:
            body = {"action": view["actions"][0]["text"], "version": view["version"]}
            timed("POST .../actions", "POST", f"/api/games/{view['game']}/actions", body)
        timed("POST .../rematch", "POST", f"/api/games/{game}/rematch")
        timed("POST .../next", "POST", f"/api/games/{game}/next")
        opened += 2
    hinting.join()
    reviewing.join()
    opened += sum(hint_tables)
    print(summary("specs naming special files", special_times))
    for name, seconds in times.items():
        print(summary(name, seconds))
    worst = max(max(s) for s in times.values())
    print(f"slowest answer of any timed route: {1000 * worst:.1f} ms (target 100 ms)")
    p99 = {name: percentile(sorted(1000 * t for t in s), 0.99) for name, s in times.items()}
    slowest = max(p99, key=p99.__getitem__)
    print(f"slowest route at p99: {slowest}, {p99[slowest]:.1f} ms (target 50 ms)")
    if review_times:
        print(summary("a review, started to answered", review_times))
    if hint_times:
        ms = sorted(1000 * t for t in hint_times)
        p50, p95 = percentile(ms, 0.5), percentile(ms, 0.95)
        print(summary("POST .../hint", hint_times))
        print(f"hint latency: p50 {p50:.1f} ms, p95 {p95:.1f} ms (target 1000 ms p95)")

    client.connection.close()
    signal_sent = time.perf_counter()
    server.send_signal(signal.SIGINT)
    try:
        server.wait(60)
    except subprocess.TimeoutExpired:
        server.kill()
        sys.exit("the server did not stop within 60 s of SIGINT")
    stopped = time.perf_counter() - signal_sent
    for s in polls:
        s.close()
    print(f"SIGINT to exit: {stopped:.2f} s (target 5 s), exit code {server.returncode}")
    lines = errors.read_text().splitlines()
    print(f"the server's standard error: {len(lines)} lines, the last: {lines[-1:]}")
    from durak.arena.gamelog.files import read_log  # noqa: PLC0415
    from durak.arena.gamelog.replay import check_unique, replay_entry  # noqa: PLC0415

    entries = read_log(log).entries
    check_unique(entries, log)
    for entry in entries:
        replay_entry(entry, log)
    ends: dict[str, int] = {}
    for entry in entries:
        ends[entry.end] = ends.get(entry.end, 0) + 1
    print(f"log: {len(entries)} games of {opened} opened, all replayed; {ends}")


if __name__ == "__main__":
    main()
